package fragment

import "github.com/dorisgo/dorisgo/sql/types"

// JoinType numbers join types as planner/logical and execution/op do.
type JoinType uint8

// The join types, numbered as execution/op's JoinType (which is defined
// from these).
const (
	JoinInner JoinType = iota
	JoinLeftOuter
	JoinRightOuter
	JoinFullOuter
	JoinLeftSemi
	JoinLeftAnti
	JoinRightSemi
	JoinRightAnti
	JoinNullAwareLeftAnti
	JoinCross
)

// Distribution is how a join's inputs were brought together.
type Distribution uint8

const (
	DistNone Distribution = iota // both sides local (single instance)
	DistBroadcast
	DistPartitioned
	DistBucketShuffle
	DistColocate
)

// JoinAlgorithm is how an equi join (KindHashJoin) runs.
type JoinAlgorithm uint8

const (
	// AlgoHash builds a hash table over the right side (the default).
	AlgoHash JoinAlgorithm = iota
	// AlgoSortMerge sorts both sides on the keys and merges them (a Spark
	// MERGE hint).
	AlgoSortMerge
)

// JoinSpec is a hash join (equi keys) or a nested loop join (Other only).
// Children[0] is the probe (left) side, Children[1] the build (right) side.
type JoinSpec struct {
	Type      JoinType     `json:"type"`
	LeftKeys  []Ex         `json:"left_keys,omitempty"`
	RightKeys []Ex         `json:"right_keys,omitempty"`
	NullSafe  []bool       `json:"null_safe,omitempty"`
	Other     []Ex         `json:"other,omitempty"` // over left ++ right columns
	Dist      Distribution `json:"dist,omitempty"`
	// Algorithm applies to equi joins only.
	Algorithm JoinAlgorithm `json:"algorithm,omitempty"`
}

// AggPhase numbers aggregation phases as execution/op does.
type AggPhase uint8

const (
	AggUpdateFinalize AggPhase = iota
	AggUpdateSerialize
	AggMergeFinalize
	AggMergeSerialize
)

// AggCall is one aggregate function of an AggSpec.
type AggCall struct {
	Fn        string  `json:"fn"`
	Args      []Ex    `json:"args,omitempty"`
	ArgType   types.T `json:"arg_type"`
	Distinct  bool    `json:"distinct,omitempty"`
	Separator *string `json:"sep,omitempty"`
}

// AggSpec is a hash aggregation.
type AggSpec struct {
	Phase  AggPhase  `json:"phase"`
	Groups []Ex      `json:"groups,omitempty"`
	Aggs   []AggCall `json:"aggs,omitempty"`
}

// SortKey is one ORDER BY key.
type SortKey struct {
	Expr       Ex   `json:"expr"`
	Desc       bool `json:"desc,omitempty"`
	NullsFirst bool `json:"nulls_first,omitempty"`
}

// SortSpec is a full sort (KindSort) or a top-N (KindTopN: Offset, Limit).
type SortSpec struct {
	Keys   []SortKey `json:"keys"`
	Offset int64     `json:"offset,omitempty"`
	Limit  int64     `json:"limit,omitempty"`
}

// SetOpKind numbers set operations as execution/op does.
type SetOpKind uint8

// SetOpSpec combines children of one row type.
type SetOpSpec struct {
	Kind SetOpKind `json:"kind"`
}

// FrameBound is one end of a window frame (kinds as execution/op numbers them).
type FrameBound struct {
	Kind   uint8 `json:"kind"`
	Offset int64 `json:"offset,omitempty"`
}

// Frame is a window frame.
type Frame struct {
	Rows  bool       `json:"rows"`
	Start FrameBound `json:"start"`
	End   FrameBound `json:"end"`
}

// WindowCall is one analytic function.
type WindowCall struct {
	Fn      string  `json:"fn"`
	Args    []Ex    `json:"args,omitempty"`
	ArgType types.T `json:"arg_type"`
	Frame   *Frame  `json:"frame,omitempty"`
}

// WindowSpec computes calls sharing one PARTITION BY / ORDER BY over input
// sorted by them; output = input ++ one column per call.
type WindowSpec struct {
	PartitionBy []Ex         `json:"partition_by,omitempty"`
	OrderBy     []SortKey    `json:"order_by,omitempty"`
	Calls       []WindowCall `json:"calls"`
}

// ApplyKind numbers Apply kinds as planner/logical does.
type ApplyKind uint8

// ApplySpec evaluates Sub per row of Children[0]. Sub reads the outer row
// through expr.Param i = outer column i; its exchanges are read once and
// replayed for every row.
type ApplySpec struct {
	Kind  ApplyKind `json:"kind"`
	Sub   *Node     `json:"sub"`
	Probe Ex        `json:"probe,omitempty"`
}
