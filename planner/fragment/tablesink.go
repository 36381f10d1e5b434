package fragment

import (
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage/meta"
)

// TableSink is a fragment's OLAP TABLE SINK (Doris's OlapTableSink): each
// instance converts its rows to the target table's column types (strictly,
// as a load does), routes every row to its partition and bucket, and writes
// it to every replica of that tablet under the load transaction the
// coordinator names when it starts the instance (rpc.SinkPlan.Txn). Rows
// reach the sink fragment through an exchange hashed on the table's
// distribution (StreamBucketHash, each instance owning whole buckets), so
// rows never pass through the FE; the coordinator commits once every
// instance reported its writes.
type TableSink struct {
	DB      string `json:"db"`
	Table   string `json:"table"`
	TableID int64  `json:"table_id"`
	// Columns is the table's schema; the fragment root's output holds one
	// column per table column, in schema order, of the query's types.
	Columns []types.Column `json:"columns"`
	// DistColumns are the hash distribution's column indexes (empty:
	// RANDOM); Buckets the bucket count.
	DistColumns []int `json:"dist_columns,omitempty"`
	Buckets     int   `json:"buckets"`
	// PartKind is 0 (none), 1 (range) or 2 (list), as catalog.PartKind;
	// PartColumn the partition column's index.
	PartKind   uint8           `json:"part_kind,omitempty"`
	PartColumn int             `json:"part_column,omitempty"`
	Partitions []SinkPartition `json:"partitions"`
	// Overwrite: INSERT OVERWRITE / CTAS write new tablets (Partitions
	// name them) that replace the old ones at commit.
	Overwrite bool `json:"overwrite,omitempty"`
	// Partial makes the load a partial column update of a merge-on-write
	// table (storage's WritePartial): an UPDATE writes only what it sets.
	Partial *meta.PartialUpdate `json:"partial,omitempty"`
}

// SinkPartition is one partition the sink may write: its bounds (range:
// [Lower, Upper), nil = unbounded; list: Values) and tablets by bucket.
type SinkPartition struct {
	ID      int64         `json:"id"`
	Name    string        `json:"name"`
	Lower   *types.Datum  `json:"lower,omitempty"`
	Upper   *types.Datum  `json:"upper,omitempty"`
	Values  []types.Datum `json:"values,omitempty"`
	Tablets []SinkTablet  `json:"tablets"`
}

// SinkTablet is one bucket's tablet and the backends holding its replicas.
type SinkTablet struct {
	Tablet   meta.TabletID `json:"tablet"`
	Replicas []BackendID   `json:"replicas"`
}
