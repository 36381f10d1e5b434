package storage

import (
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage/meta"
)

// The names the plan shares with storage live in storage/meta (no Pebble
// there); these are the same types.
type (
	TabletID    = meta.TabletID
	TxnID       = meta.TxnID
	Version     = meta.Version
	ColumnRange = meta.ColumnRange
)

// KeysType is the Doris data model of a table.
type KeysType uint8

const (
	DupKeys    KeysType = iota // DUPLICATE KEY: every row kept
	UniqueKeys                 // UNIQUE KEY: the latest version of a key wins
	AggKeys                    // AGGREGATE KEY: value columns merged by their AggType
)

func (k KeysType) String() string {
	return [...]string{"DUPLICATE", "UNIQUE", "AGGREGATE"}[k]
}

// AggType is how an AGGREGATE KEY value column merges rows with equal keys.
type AggType uint8

const (
	AggNone AggType = iota // key columns, or DUPLICATE/UNIQUE tables
	AggSum
	AggMax
	AggMin
	AggReplace
	AggReplaceIfNotNull
	AggBitmapUnion // BITMAP columns: the union of the rows' bitmaps
	AggHLLUnion    // HLL columns: the union of the rows' sketches
)

func (a AggType) String() string {
	return [...]string{"", "SUM", "MAX", "MIN", "REPLACE", "REPLACE_IF_NOT_NULL", "BITMAP_UNION", "HLL_UNION"}[a]
}

// TabletSchema is what a backend needs to know to store and merge a tablet's
// rows. Keys are the first NumKeys columns (Doris keys are a schema prefix).
type TabletSchema struct {
	Columns []types.Column `json:"columns"`
	Keys    KeysType       `json:"keys"`
	NumKeys int            `json:"num_keys"`
	Agg     []AggType      `json:"agg,omitempty"` // per column; nil for DUPLICATE/UNIQUE
	// ColumnIDs are the columns' unique ids (Doris's col_unique_id), by
	// which rowsets name what they store (schema.go); nil: id = position.
	ColumnIDs []int32 `json:"col_ids,omitempty"`
	// Defaults are, per column, what rows written before the column was
	// added read as; nil (or a nil entry): NULL.
	Defaults []*types.Datum `json:"defaults,omitempty"`
	// Version orders a table's schemas: AlterTablet takes only a newer one.
	Version int64 `json:"version,omitempty"`
	// Dropped lists columns dropped from the schema that older segments
	// still hold (kept so their zone maps decode).
	Dropped []DroppedColumn `json:"dropped,omitempty"`
	// MergeOnWrite: a UNIQUE KEY tablet resolves equal keys when loads
	// publish (delete bitmaps, mow.go) instead of merging at every scan.
	MergeOnWrite bool `json:"mow,omitempty"`
	// DeleteSign is 1 + the position of the UNIQUE KEY table's delete sign
	// column (0: none): compaction from the first rowset drops the rows
	// whose sign is 1, as nothing older is left for them to delete.
	DeleteSign int `json:"delete_sign,omitempty"`
	// VersionCol is 1 + the position of the UNIQUE KEY table's
	// version column (0: none): a scan reads its stored 0 as the version
	// of the row's rowset (versioncol.go).
	VersionCol int `json:"version_col,omitempty"`
}

// ScanRequest reads one tablet at one version.
type ScanRequest struct {
	Tablet  TabletID      `json:"tablet"`
	Version Version       `json:"version"`
	Columns []int         `json:"columns"` // schema column indexes to return, in this order
	Ranges  []ColumnRange `json:"ranges,omitempty"`
	// SchemaVersion, when set, is the schema version the columns were
	// planned against; a tablet at another version refuses the scan.
	SchemaVersion int64 `json:"schema_version,omitempty"`
	// BatchRows caps the rows per returned record (0 = default 4096).
	BatchRows int `json:"batch_rows,omitempty"`
}

// MetaOp is one mutation of the FE metadata store (Meta.Apply).
type MetaOp struct {
	Key, Value []byte
	Delete     bool
}

// MetaKV is one entry returned by Meta.Scan.
type MetaKV struct {
	Key, Value []byte
}
