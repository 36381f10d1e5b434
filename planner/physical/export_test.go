package physical

import (
	"context"
	"slices"

	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/sql/expr"
)

// CheckEdges re-runs the edge check on the finished plan (tests).
func (p *Distributed) CheckEdges() bool { return p.d.checkEdges(p.root) }

// JoinShapes summarises the plan's joins for row-semantics comparison:
// shapes has one entry per join ("INNER-LIKE" for INNER/CROSS, else type
// and conditions); conds pools the INNER/CROSS conditions, which reordering
// may move between joins.
func (p *Distributed) JoinShapes() (shapes, conds []string) {
	var walk func(n *pnode)
	walk = func(n *pnode) {
		for _, c := range n.children {
			walk(c)
		}
		if n.op == opJoin {
			typ := n.join.typ
			if n.join.swapped {
				typ = fragment.JoinRightOuter
			}
			shapes, conds = addShape(shapes, conds, typ, n.join.equi, n.join.other)
		}
	}
	walk(p.root)
	slices.Sort(shapes)
	slices.Sort(conds)
	return shapes, conds
}

// LogicalJoinShapes is JoinShapes of a bound plan after the rewrite rules.
func LogicalJoinShapes(n logical.Node) (shapes, conds []string) {
	var walk func(n logical.Node)
	walk = func(n logical.Node) {
		for _, in := range n.Inputs() {
			walk(in)
		}
		if j, ok := n.(*logical.Join); ok {
			shapes, conds = addShape(shapes, conds, j.Type, j.Equi, j.Other)
		}
	}
	opt, err := logical.Optimize(context.Background(), n)
	if err != nil {
		panic(err) // no context: never
	}
	walk(opt)
	slices.Sort(shapes)
	slices.Sort(conds)
	return shapes, conds
}

func addShape(shapes, conds []string, typ fragment.JoinType, equi []logical.EquiCond, other []expr.Expr) ([]string, []string) {
	var cs []string
	for _, e := range equi {
		l, r := e.L.String(), e.R.String()
		if r < l {
			l, r = r, l
		}
		op := " = "
		if e.NullSafe {
			op = " <=> "
		}
		cs = append(cs, l+op+r)
	}
	for _, o := range other {
		cs = append(cs, o.String())
	}
	if typ == fragment.JoinInner || typ == fragment.JoinCross {
		return append(shapes, "INNER-LIKE"), append(conds, cs...)
	}
	slices.Sort(cs)
	s := typ.String() + ":"
	for _, c := range cs {
		s += " " + c
	}
	return append(shapes, s), conds
}
