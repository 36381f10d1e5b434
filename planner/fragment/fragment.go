// Package fragment is the plan as data: the distributed physical plan cut
// into fragments at exchanges. It holds plain structs only (no funcs, no
// channels), serializable to JSON, so the FE can ship a fragment to any
// backend and the backend can build operators from it (CockroachDB ships
// processor specs the same way). The planner writes these; execution reads
// them; neither imports the other.
package fragment

import (
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage/meta"
)

// FragmentID numbers fragments; 0 is the root.
type FragmentID int

// NodeID numbers plan nodes as EXPLAIN prints them.
type NodeID int

// BackendID names a backend (mirrors catalog.BackendID without importing it).
type BackendID int64

// Plan is a whole distributed query plan.
type Plan struct {
	Fragments []*Fragment    `json:"fragments"` // index = FragmentID; [0] is the root
	Output    []types.Column `json:"output"`    // the result columns, with their user-visible names
	// RFWaitMs is how long a scan waits for its global runtime filters
	// before its first read (runtime_filter_wait_time_ms).
	RFWaitMs int `json:"rf_wait_ms,omitempty"`
	// SingleBackendRows: a fragment whose scans' tablets hold at most this
	// many rows (the catalog's committed counts) runs as one instance, on
	// a backend holding a replica of each (single_backend_scan_rows; 0:
	// never). A fan-out to every backend costs more than such a scan.
	SingleBackendRows int64 `json:"single_backend_rows,omitempty"`
}

// PartitionKind says how a fragment's input is partitioned across its instances.
type PartitionKind uint8

const (
	Unpartitioned PartitionKind = iota // one instance
	HashPartitioned
	RandomPartitioned
)

// SinkKind is where a fragment sends its output.
type SinkKind uint8

const (
	ResultSink       SinkKind = iota // to the client (root fragment)
	StreamGather                     // UNPARTITIONED: every row to the one receiver
	StreamBroadcast                  // UNPARTITIONED to every receiver instance
	StreamHash                       // HASH_PARTITIONED on Keys (execution hash)
	StreamBucketHash                 // BUCKET_SHFFULE_HASH_PARTITIONED: storage bucket of Keys
	StreamRandom                     // RANDOM
	TableSinkKind                    // OLAP TABLE SINK: rows written into Sink.Table's tablets

	SinkKindCount // the number of sink kinds (not a kind)
)

// Sink is a fragment's output.
type Sink struct {
	Kind       SinkKind `json:"kind"`
	ExchangeID NodeID   `json:"exchange_id,omitempty"`
	Keys       []Ex     `json:"keys,omitempty"`
	Buckets    int      `json:"buckets,omitempty"` // StreamBucketHash: the anchor's bucket count
	// Table is TableSinkKind's target (the root fragment of INSERT … SELECT,
	// INSERT OVERWRITE and CREATE TABLE … AS SELECT, run on the backends).
	Table *TableSink `json:"table,omitempty"`
}

// Fragment is a pipeline of nodes run as one or more instances.
type Fragment struct {
	ID        FragmentID    `json:"id"`
	Root      *Node         `json:"root"`
	Partition PartitionKind `json:"partition"`
	PartKeys  []Ex          `json:"part_keys,omitempty"`
	Sink      Sink          `json:"sink"`
	// Tasks is the pipeline tasks per instance local exchanges were planned
	// for (0: none planned); SinkLocal is the local exchange between the
	// root's tasks and the sink.
	Tasks     int            `json:"tasks,omitempty"`
	SinkLocal *LocalExchange `json:"sink_local,omitempty"`
}

// NodeKind is the operator a node stands for.
type NodeKind uint8

const (
	KindScan NodeKind = iota
	KindFilter
	KindProject
	KindLimit
	KindValues
	KindExchange
	KindHashJoin
	KindNestedLoopJoin
	KindAgg
	KindSort
	KindTopN
	KindSetOp
	KindWindow
	KindApply
	KindRepeat    // grouping sets: RepeatSpec
	KindTableFunc // a table-valued function (numbers): TableFunc

	NodeKindCount // the number of node kinds (not a kind)
)

// Node is one operator of a fragment. Exactly one spec pointer matching Kind is set.
type Node struct {
	ID       NodeID         `json:"id"`
	Kind     NodeKind       `json:"kind"`
	Children []*Node        `json:"children,omitempty"`
	Output   []types.Column `json:"output"`

	Scan     *ScanSpec     `json:"scan,omitempty"`
	Filter   *FilterSpec   `json:"filter,omitempty"`
	Project  *ProjectSpec  `json:"project,omitempty"`
	Limit    *LimitSpec    `json:"limit,omitempty"`
	Values   *ValuesSpec   `json:"values,omitempty"`
	Exchange *ExchangeSpec `json:"exchange,omitempty"`
	Join     *JoinSpec     `json:"join,omitempty"`
	Agg      *AggSpec      `json:"agg,omitempty"`
	Sort     *SortSpec     `json:"sort,omitempty"`
	SetOp    *SetOpSpec    `json:"setop,omitempty"`
	Window   *WindowSpec   `json:"window,omitempty"`
	Apply    *ApplySpec    `json:"apply,omitempty"`
	// Repeat is KindRepeat's spec.
	Repeat *RepeatSpec `json:"repeat,omitempty"`
	// TableFunc is KindTableFunc's spec.
	TableFunc *TableFuncSpec `json:"table_func,omitempty"`

	// LocalExchanges (distributed plans with more than one pipeline task)
	// holds one entry per child: what runs between that child's tasks and
	// this node's. Nil: none planned.
	LocalExchanges []LocalExchange `json:"local_exchanges,omitempty"`

	// RFBuild (hash joins) lists the runtime filters the join publishes;
	// RFTarget (scans) those the scan applies (AssignRuntimeFilters).
	RFBuild  []RFBuild  `json:"rf_build,omitempty"`
	RFTarget []RFTarget `json:"rf_target,omitempty"`
}

// TabletRef is one tablet a scan reads, at the version the planner saw.
type TabletRef struct {
	Tablet   meta.TabletID `json:"tablet"`
	Version  meta.Version  `json:"version"`
	Bucket   int           `json:"bucket"`
	Replicas []BackendID   `json:"replicas"`
}

// ScanSpec reads an OLAP table's selected tablets.
type ScanSpec struct {
	DB           string             `json:"db"`
	Table        string             `json:"table"`
	TableID      int64              `json:"table_id"`
	Columns      []int              `json:"columns"`             // schema column indexes, output order
	Conjuncts    []Ex               `json:"conjuncts,omitempty"` // over the scan's output columns
	Ranges       []meta.ColumnRange `json:"ranges,omitempty"`    // zone-map pruning, schema column indexes
	Tablets      []TabletRef        `json:"tablets"`
	Partitions   int                `json:"partitions"`       // selected
	TotalParts   int                `json:"total_partitions"` // in the table
	TotalTablets int                `json:"total_tablets"`
	// Keep, when set, lists the read columns (indexes into Columns) the scan
	// outputs once Conjuncts are applied (FoldScanProjections), and Read
	// describes the read columns (the node's Output describes the kept
	// ones); nil: the scan outputs what it reads.
	Keep []int          `json:"keep,omitempty"`
	Read []types.Column `json:"read,omitempty"`
	// SchemaVersion is the table's schema version Columns index into; a
	// tablet at another version (an ALTER TABLE meanwhile) refuses the scan.
	SchemaVersion int64 `json:"schema_version,omitempty"`
}

// FilterSpec keeps rows where every conjunct is TRUE.
type FilterSpec struct {
	Conjuncts []Ex `json:"conjuncts"`
}

// ProjectSpec computes output columns from the child's.
type ProjectSpec struct {
	Exprs []Ex `json:"exprs"`
}

// LimitSpec skips Offset rows then passes at most Count (-1 = unlimited).
type LimitSpec struct {
	Offset int64 `json:"offset"`
	Count  int64 `json:"count"`
}

// ValuesSpec is constant rows (each a list of constant expressions).
type ValuesSpec struct {
	Rows [][]Ex `json:"rows"`
}

// ExchangeSpec receives the output of another fragment.
type ExchangeSpec struct {
	From  FragmentID `json:"from"`
	Merge bool       `json:"merge,omitempty"` // MERGING-EXCHANGE keeps sort order
	// SortKeys (Merge only) order the merged streams; each sender instance
	// sends rows already sorted by them (over the exchange's output columns).
	SortKeys []SortKey `json:"sort_keys,omitempty"`
	// Offset and Limit (Merge only) apply to the merged stream (Limit -1 or
	// 0 with no SortKeys: unlimited). A TOP-N below keeps offset+limit rows
	// per instance with offset 0.
	Offset int64 `json:"offset,omitempty"`
	Limit  int64 `json:"limit,omitempty"`
}

// Ex wraps an expr.Expr so plan nodes marshal to JSON.
type Ex struct{ expr.Expr }

// MarshalJSON encodes the expression with expr.Marshal.
func (e Ex) MarshalJSON() ([]byte, error) {
	if e.Expr == nil {
		return []byte("null"), nil
	}
	return expr.Marshal(e.Expr)
}

// UnmarshalJSON decodes an expression written by MarshalJSON.
func (e *Ex) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		e.Expr = nil
		return nil
	}
	x, err := expr.Unmarshal(b)
	if err != nil {
		return err
	}
	e.Expr = x
	return nil
}

// Exs wraps a slice of expressions.
func Exs(es []expr.Expr) []Ex {
	out := make([]Ex, len(es))
	for i, e := range es {
		out[i] = Ex{e}
	}
	return out
}

// Unwrap returns the expressions of a slice of Ex.
func Unwrap(es []Ex) []expr.Expr {
	out := make([]expr.Expr, len(es))
	for i, e := range es {
		out[i] = e.Expr
	}
	return out
}

// Walk visits n and every node below it, including Apply subqueries, in
// pre-order.
func Walk(n *Node, fn func(*Node)) {
	if n == nil {
		return
	}
	fn(n)
	for _, c := range n.Children {
		Walk(c, fn)
	}
	if n.Apply != nil {
		Walk(n.Apply.Sub, fn)
	}
}
