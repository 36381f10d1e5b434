package bind

import (
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// decorrelate turns a correlated [NOT] EXISTS or IN subquery whose only
// correlation is in its top WHERE into a semi or anti join:
//
//	outer WHERE EXISTS (SELECT ... FROM x WHERE x.a = outer.b AND p(x))
//	  ⇒ outer LEFT SEMI JOIN (x WHERE p(x)) ON x.a = outer.b
//
// It returns nil when the subquery has another shape (aggregates or limits
// above the correlated filter, correlation deeper down, references to an
// enclosing query further out); the caller then keeps a per-row Apply.
func decorrelate(plan logical.Node, sub logical.Node, probe expr.Expr, in, neg bool) *logical.Join {
	var proj *logical.Project
	if p, ok := sub.(*logical.Project); ok {
		proj, sub = p, p.Input
	}
	f, ok := sub.(*logical.Filter)
	if !ok {
		return nil
	}
	x := f.Input
	if !selfContained(x) {
		return nil
	}
	xc := x.Columns()
	both := append(append([]logical.Column{}, plan.Columns()...), xc...)
	var local, corr []expr.Expr
	for _, c := range f.Conds {
		switch {
		case logical.RefsIn(c, xc):
			local = append(local, c)
		case logical.RefsIn(c, both):
			corr = append(corr, c)
		default:
			return nil // reads a query further out
		}
	}
	var right logical.Node = x
	if len(local) > 0 {
		right = &logical.Filter{Input: x, Conds: local}
	}
	equi, other := logical.SplitConds(corr, plan.Columns(), xc)
	if in {
		if proj == nil || len(proj.Exprs) != 1 || !logical.RefsIn(proj.Exprs[0], xc) {
			return nil
		}
		eq, err := expr.NewCall("eq", probe, proj.Exprs[0])
		if err != nil {
			return nil
		}
		c := eq.(*expr.Call)
		equi = append(equi, logical.EquiCond{L: c.Args[0], R: c.Args[1]})
	}
	jt := logical.LeftSemiJoin
	if neg {
		jt = logical.LeftAntiJoin
	}
	return &logical.Join{Type: jt, Left: plan, Right: right, Equi: equi, Other: other}
}

// selfContained reports whether every column a subtree reads is produced
// inside it (no correlation below the top filter).
func selfContained(n logical.Node) bool {
	produced := map[int]bool{}
	var collect func(logical.Node)
	collect = func(n logical.Node) {
		for _, c := range n.Columns() {
			produced[int(c.ID)] = true
		}
		for _, in := range n.Inputs() {
			collect(in)
		}
	}
	collect(n)
	ok := true
	var check func(logical.Node)
	visit := func(es ...expr.Expr) {
		for _, e := range es {
			expr.Walk(e, func(x expr.Expr) bool {
				if r, isRef := x.(*expr.ColRef); isRef && !produced[r.Index] {
					ok = false
				}
				return ok
			})
		}
	}
	check = func(n logical.Node) {
		switch x := n.(type) {
		case *logical.Filter:
			visit(x.Conds...)
		case *logical.Project:
			visit(x.Exprs...)
		case *logical.Join:
			for _, e := range x.Equi {
				visit(e.L, e.R)
			}
			visit(x.Other...)
		case *logical.Aggregate:
			visit(x.Groups...)
			for _, a := range x.Aggs {
				visit(a.Args...)
			}
		case *logical.Sort:
			for _, k := range x.Keys {
				visit(k.Expr)
			}
		case *logical.Window:
			for _, c := range x.Calls {
				visit(c.Args...)
				visit(c.PartitionBy...)
			}
		case *logical.Apply:
			ok = false // nested correlated subqueries stay Apply
		case *logical.Repeat:
			ok = false // extra group keys cannot be added to grouping sets
		case *logical.Scan:
			visit(x.Filters...)
		}
		for _, in := range n.Inputs() {
			check(in)
		}
	}
	check(n)
	return ok
}

// decorrelateScalar rewrites a correlated scalar aggregate subquery whose
// correlation is a conjunction of equalities in its WHERE into a left join
// with the subquery grouped by the correlated columns (TPC-H Q2, Q17, Q20):
//
//	outer WHERE x < (SELECT 0.2*avg(q) FROM l WHERE l.k = outer.k)
//	  ⇒ outer LEFT JOIN (SELECT l.k, avg(q) a FROM l GROUP BY l.k) s ON s.k = outer.k
//	     WHERE x < 0.2*s.a
//
// COUNT over no rows is 0, not NULL, so COUNT outputs are coalesced. The
// result has the Apply's columns, so the expressions above are unchanged.
// nil means the subquery has another shape and stays an Apply.
func (b *Binder) decorrelateScalar(a *logical.Apply) logical.Node {
	if a.Kind != logical.ApplyScalar {
		return nil
	}
	proj, ok := a.Sub.(*logical.Project)
	if !ok || len(proj.Exprs) != 1 {
		return nil
	}
	agg, ok := proj.Input.(*logical.Aggregate)
	if !ok || len(agg.Groups) != 0 {
		return nil
	}
	f, ok := agg.Input.(*logical.Filter)
	if !ok || !selfContained(f.Input) {
		return nil
	}
	x := f.Input
	xc := x.Columns()
	oc := a.Outer.Columns()
	var local, corr []expr.Expr
	for _, c := range f.Conds {
		switch {
		case logical.RefsIn(c, xc):
			local = append(local, c)
		case logical.RefsIn(c, append(append([]logical.Column{}, oc...), xc...)):
			corr = append(corr, c)
		default:
			return nil
		}
	}
	equi, other := logical.SplitConds(corr, oc, xc)
	if len(equi) == 0 || len(other) > 0 {
		return nil
	}
	for _, e := range equi {
		if e.NullSafe {
			return nil
		}
	}
	var in logical.Node = x
	if len(local) > 0 {
		in = &logical.Filter{Input: x, Conds: local}
	}
	grouped := &logical.Aggregate{Input: in, Aggs: agg.Aggs}
	var joinEqui []logical.EquiCond
	for _, e := range equi {
		gc := b.newCol("", e.R.String(), e.R.Type(), e.R.Nullable())
		grouped.Groups = append(grouped.Groups, e.R)
		grouped.GroupCols = append(grouped.GroupCols, gc)
		joinEqui = append(joinEqui, logical.EquiCond{L: e.L, R: gc.Ref()})
	}
	join := &logical.Join{Type: logical.LeftOuterJoin, Left: a.Outer, Right: grouped, Equi: joinEqui}
	// The subquery's value over the joined row; COUNTs of unmatched rows are 0.
	counts := map[int]bool{}
	for _, c := range agg.Aggs {
		if c.Fn == "count" {
			counts[int(c.Col.ID)] = true
		}
	}
	val, err := expr.Rewrite(proj.Exprs[0], func(e expr.Expr) (expr.Expr, error) {
		if r, ok := e.(*expr.ColRef); ok && counts[r.Index] {
			return expr.NewCall("ifnull", r, expr.Lit(types.IntDatum(0)))
		}
		return e, nil
	})
	if err != nil {
		return nil
	}
	out := &logical.Project{Input: join}
	for _, c := range oc {
		out.Exprs = append(out.Exprs, c.Ref())
		out.Cols = append(out.Cols, c)
	}
	out.Exprs = append(out.Exprs, val)
	col := a.Col
	col.T, col.Null = val.Type(), true
	out.Cols = append(out.Cols, col)
	return out
}
