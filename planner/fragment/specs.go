package fragment

import "github.com/dorisgo/dorisgo/sql/types"

// JoinType is a join operator as Doris EXPLAIN names it; the logical plan,
// the physical plan and the operators share this one declaration.
type JoinType uint8

const (
	JoinInner JoinType = iota
	JoinLeftOuter
	JoinRightOuter
	JoinFullOuter
	JoinLeftSemi
	JoinLeftAnti
	JoinRightSemi
	JoinRightAnti
	// JoinNullAwareLeftAnti is NOT IN over a nullable key: a NULL on the
	// build side rejects every probe row; a NULL probe key qualifies only
	// against an empty build side.
	JoinNullAwareLeftAnti
	// JoinCross is a join without any predicate (nested loop only).
	JoinCross
)

var joinTypeNames = [...]string{
	JoinInner: "INNER JOIN", JoinLeftOuter: "LEFT OUTER JOIN", JoinRightOuter: "RIGHT OUTER JOIN",
	JoinFullOuter: "FULL OUTER JOIN", JoinLeftSemi: "LEFT SEMI JOIN", JoinLeftAnti: "LEFT ANTI JOIN",
	JoinRightSemi: "RIGHT SEMI JOIN", JoinRightAnti: "RIGHT ANTI JOIN",
	JoinNullAwareLeftAnti: "NULL AWARE LEFT ANTI JOIN", JoinCross: "CROSS JOIN",
}

func (t JoinType) String() string {
	if int(t) < len(joinTypeNames) {
		return joinTypeNames[t]
	}
	return "JoinType(?)"
}

// KeepsRight reports whether the join outputs the right side's columns.
func (t JoinType) KeepsRight() bool {
	return t != JoinLeftSemi && t != JoinLeftAnti && t != JoinNullAwareLeftAnti
}

// KeepsLeft reports whether the join outputs the left side's columns.
func (t JoinType) KeepsLeft() bool { return t != JoinRightSemi && t != JoinRightAnti }

// Distribution is how a join's inputs were brought together.
type Distribution uint8

const (
	DistNone Distribution = iota // both sides local (single instance)
	DistBroadcast
	DistPartitioned
	DistBucketShuffle
	DistColocate

	DistributionCount // the number of distributions (not one)
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
	// Adaptive, set on a PARTITIONED join, lets it run as BROADCAST when
	// its build side turns out small (adaptive.go).
	Adaptive *AdaptiveJoin `json:"adaptive,omitempty"`
}

// AggPhase is where an aggregation node sits in Doris' two-phase plan.
type AggPhase uint8

const (
	// AggUpdateFinalize: raw rows in, final values out (single phase).
	AggUpdateFinalize AggPhase = iota
	// AggUpdateSerialize: raw rows in, partial states out (before an exchange).
	AggUpdateSerialize
	// AggMergeFinalize: partial states in, final values out.
	AggMergeFinalize
	// AggMergeSerialize: partial states in, merged partial states out.
	AggMergeSerialize
)

var aggPhaseNames = [...]string{"update finalize", "update serialize", "merge finalize", "merge serialize"}

func (p AggPhase) String() string { return aggPhaseNames[p] }

// Merges reports whether the phase reads partial states.
func (p AggPhase) Merges() bool { return p == AggMergeFinalize || p == AggMergeSerialize }

// Finalizes reports whether the phase outputs final values.
func (p AggPhase) Finalizes() bool { return p == AggUpdateFinalize || p == AggMergeFinalize }

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

// SetOpKind is a set operation; all but SetUnionAll remove duplicates, and
// NULLs compare equal (MySQL).
type SetOpKind uint8

const (
	SetUnionAll SetOpKind = iota
	SetUnionDistinct
	SetIntersect
	SetExcept
)

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

// ApplyKind says what a correlated subquery computes per outer row.
type ApplyKind uint8

const (
	ApplyScalar ApplyKind = iota // the single value (NULL if no row; error if >1)
	ApplyExists                  // TRUE iff any row
	ApplyIn                      // x IN (sub): TRUE / FALSE / NULL
)

// ApplySpec evaluates Sub per row of Children[0]. Sub reads the outer row
// through expr.Param i = outer column i; its exchanges are read once and
// replayed for every row.
type ApplySpec struct {
	Kind  ApplyKind `json:"kind"`
	Sub   *Node     `json:"sub"`
	Probe Ex        `json:"probe,omitempty"`
}
