package logical

import (
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/hint"
)

// EquiCond is one equality (or null-safe equality) between the sides.
type EquiCond struct {
	L, R     expr.Expr
	NullSafe bool
}

// Join combines two inputs.
type Join struct {
	Type        fragment.JoinType
	Left, Right Node
	Equi        []EquiCond
	Other       []expr.Expr // residual conjuncts over left ++ right columns
	Hint        hint.Join
}

// AggCall is one aggregate function call.
type AggCall struct {
	Fn        string // count, sum, avg, min, max, group_concat, any_value
	Args      []expr.Expr
	Distinct  bool
	Separator *string
	Col       Column // the output column
}

// Aggregate groups its input.
type Aggregate struct {
	Input     Node
	Groups    []expr.Expr
	GroupCols []Column
	Aggs      []AggCall
}

// SortKey is one ORDER BY key.
type SortKey struct {
	Expr       expr.Expr
	Desc       bool
	NullsFirst bool
}

// Sort orders its input.
type Sort struct {
	Input Node
	Keys  []SortKey
}

// SetOp combines inputs with the same row type; input i's columns map
// positionally to Cols.
type SetOp struct {
	Kind fragment.SetOpKind
	Ins  []Node
	Cols []Column
}

// FrameBound is one end of a window frame.
type FrameBound struct {
	Kind   uint8 // 0 unbounded preceding, 1 preceding, 2 current row, 3 following, 4 unbounded following
	Offset int64
}

// Frame is a window frame; nil in WindowCall means the default frame.
type Frame struct {
	Rows       bool // ROWS (else RANGE)
	Start, End FrameBound
}

// WindowCall is one analytic function.
type WindowCall struct {
	Fn          string
	Args        []expr.Expr
	PartitionBy []expr.Expr
	OrderBy     []SortKey
	Frame       *Frame
	Col         Column
}

// Window computes analytic functions; output = input columns ++ one per call.
type Window struct {
	Input Node
	Calls []WindowCall
}

// Apply evaluates Sub once per row of Outer; Sub refers to Outer's columns by
// their ids. Output = Outer's columns ++ Col.
type Apply struct {
	Kind  fragment.ApplyKind
	Outer Node
	Sub   Node
	// In: the probe expression over Outer (compared with Sub's only column).
	Probe expr.Expr
	Col   Column
}

// Columns implementations.

func (n *Join) Columns() []Column { return n.appendColumns(nil) }

// appendColumns appends the join's output columns to out, descending into
// joins below itself: a chain of k joins costs one pass over its columns,
// where a Columns call at every level would copy each level's columns
// again (quadratic in k, cubic when every level asks for its columns).
func (n *Join) appendColumns(out []Column) []Column {
	if n.Type.KeepsLeft() {
		out = appendColumns(out, n.Left)
	}
	if n.Type.KeepsRight() {
		out = appendColumns(out, n.Right)
	}
	return out
}

func appendColumns(out []Column, n Node) []Column {
	if j, ok := n.(*Join); ok {
		return j.appendColumns(out)
	}
	return append(out, n.Columns()...)
}

func (n *Aggregate) Columns() []Column {
	out := append([]Column{}, n.GroupCols...)
	for _, a := range n.Aggs {
		out = append(out, a.Col)
	}
	return out
}

func (n *Sort) Columns() []Column  { return n.Input.Columns() }
func (n *SetOp) Columns() []Column { return n.Cols }

func (n *Window) Columns() []Column {
	out := append([]Column{}, n.Input.Columns()...)
	for _, c := range n.Calls {
		out = append(out, c.Col)
	}
	return out
}

func (n *Apply) Columns() []Column { return append(append([]Column{}, n.Outer.Columns()...), n.Col) }

func (n *Join) Inputs() []Node      { return []Node{n.Left, n.Right} }
func (n *Aggregate) Inputs() []Node { return []Node{n.Input} }
func (n *Sort) Inputs() []Node      { return []Node{n.Input} }
func (n *SetOp) Inputs() []Node     { return n.Ins }
func (n *Window) Inputs() []Node    { return []Node{n.Input} }
func (n *Apply) Inputs() []Node     { return []Node{n.Outer, n.Sub} }

func (*Join) node()      {}
func (*Aggregate) node() {}
func (*Sort) node()      {}
func (*SetOp) node()     {}
func (*Window) node()    {}
func (*Apply) node()     {}
