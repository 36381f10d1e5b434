package bind

import (
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// decorrelate turns a correlated [NOT] EXISTS or IN subquery whose
// correlation is in conjuncts of its WHERE (or of inner-join ONs under it)
// into a semi or anti join:
//
//	outer WHERE EXISTS (SELECT ... FROM x WHERE x.a = outer.b AND p(x))
//	  ⇒ outer LEFT SEMI JOIN (x WHERE p(x)) ON x.a = outer.b
//
// It returns nil when the subquery has another shape (aggregates or limits
// above the correlated filter, correlation under an outer join, references
// to an enclosing query further out); the caller then keeps a per-row Apply.
func decorrelate(plan logical.Node, sub logical.Node, probe expr.Expr, in, neg bool) *logical.Join {
	var proj *logical.Project
	if p, ok := sub.(*logical.Project); ok {
		proj, sub = p, p.Input
	}
	oc := plan.Columns()
	x, corr, ok := pullCorrelated(sub)
	if !ok || len(corr) == 0 || !selfContained(x) {
		return nil
	}
	xc := x.Columns()
	if !allRefsIn(corr, append(append([]logical.Column{}, oc...), xc...)) {
		return nil // reads a query further out
	}
	equi, other := logical.SplitConds(corr, oc, xc)
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
	jt := fragment.JoinLeftSemi
	if neg {
		jt = fragment.JoinLeftAnti
	}
	return &logical.Join{Type: jt, Left: plan, Right: x, Equi: equi, Other: other}
}

// pullCorrelated removes the conjuncts that read columns from outside n
// (the correlation) from the filters and inner-join conditions at the top
// of n, where lifting them above n keeps the rows n produces under them.
// It stops at any other node; ok is false if a conjunct could not be
// rebuilt.
func pullCorrelated(n logical.Node) (logical.Node, []expr.Expr, bool) {
	switch x := n.(type) {
	case *logical.Filter:
		in, corr, ok := pullCorrelated(x.Input)
		if !ok {
			return nil, nil, false
		}
		cols := in.Columns()
		var keep []expr.Expr
		for _, c := range x.Conds {
			if logical.RefsIn(c, cols) {
				keep = append(keep, c)
			} else {
				corr = append(corr, c)
			}
		}
		if len(keep) == 0 {
			return in, corr, true
		}
		return &logical.Filter{Input: in, Conds: keep}, corr, true
	case *logical.Join:
		if x.Type != fragment.JoinInner && x.Type != fragment.JoinCross {
			return n, nil, true
		}
		l, lc, ok := pullCorrelated(x.Left)
		if !ok {
			return nil, nil, false
		}
		r, rc, ok := pullCorrelated(x.Right)
		if !ok {
			return nil, nil, false
		}
		corr := append(lc, rc...)
		j := *x
		j.Left, j.Right, j.Equi, j.Other = l, r, nil, nil
		cols := append(append([]logical.Column{}, l.Columns()...), r.Columns()...)
		for _, e := range x.Equi {
			if logical.RefsIn(e.L, cols) && logical.RefsIn(e.R, cols) {
				j.Equi = append(j.Equi, e)
				continue
			}
			fn := "eq"
			if e.NullSafe {
				fn = "null_safe_eq"
			}
			c, err := expr.NewCall(fn, e.L, e.R)
			if err != nil {
				return nil, nil, false
			}
			corr = append(corr, c)
		}
		for _, c := range x.Other {
			if logical.RefsIn(c, cols) {
				j.Other = append(j.Other, c)
			} else {
				corr = append(corr, c)
			}
		}
		if j.Type == fragment.JoinInner && len(j.Equi) == 0 && len(j.Other) == 0 {
			j.Type = fragment.JoinCross
		}
		return &j, corr, true
	}
	return n, nil, true
}

// allRefsIn reports whether every expression reads only cols.
func allRefsIn(es []expr.Expr, cols []logical.Column) bool {
	for _, e := range es {
		if !logical.RefsIn(e, cols) {
			return false
		}
	}
	return true
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

// crossScalar joins an uncorrelated scalar aggregate subquery (one row,
// always: an aggregate without GROUP BY or HAVING) to the outer query, as
// Doris does, instead of an Apply evaluating it for the outer rows on the
// FE: the plan stays distributed, and the row is broadcast to the join
// (TPC-H Q11, Q15, Q22):
//
//	outer WHERE x > (SELECT avg(y) FROM t)  ⇒  outer CROSS JOIN (SELECT avg(y) a FROM t) s WHERE x > s.a
//
// The result has the Apply's columns, so the expressions above are unchanged.
func crossScalar(a *logical.Apply) logical.Node {
	join := &logical.Join{Type: fragment.JoinCross, Left: a.Outer, Right: a.Sub}
	return applyResult(a, join, a.Sub.Columns()[0].Ref())
}

// applyResult is what replaces Apply a: in's rows as the outer columns
// plus a's column, computed by val.
func applyResult(a *logical.Apply, in logical.Node, val expr.Expr) *logical.Project {
	out := &logical.Project{Input: in}
	for _, c := range a.Outer.Columns() {
		out.Exprs = append(out.Exprs, c.Ref())
		out.Cols = append(out.Cols, c)
	}
	out.Exprs = append(out.Exprs, val)
	col := a.Col
	col.T, col.Null = val.Type(), true
	out.Cols = append(out.Cols, col)
	return out
}

// decorrelateScalar rewrites a correlated scalar aggregate subquery into a
// left join with the subquery grouped by its correlation keys (TPC-H Q2,
// Q17, Q20):
//
//	outer WHERE x < (SELECT 0.2*avg(q) FROM l WHERE l.k = outer.k)
//	  ⇒ outer LEFT JOIN (SELECT l.k, avg(q) a FROM l GROUP BY l.k) s ON s.k = outer.k
//	     WHERE x < 0.2*s.a
//
// The subquery must be one expression over an aggregate without GROUP BY,
// HAVING or LIMIT, whose correlation is conjuncts of its WHERE (or of
// inner-join ONs under it): equalities between an expression over the
// subquery's columns and one over the outer columns (at least one), plus
// conditions over outer columns only, which become join conditions. Grouping
// by the keys yields at most one row per outer row; a NULL key never
// matches with = (and matches the NULL group with <=>), so the unmatched
// row sees the aggregates over no rows: NULL, except COUNT, which is
// coalesced to 0. The result has the Apply's columns, so the expressions
// above are unchanged. nil means another shape, which stays an Apply.
func (b *Binder) decorrelateScalar(a *logical.Apply) logical.Node {
	if a.Kind != fragment.ApplyScalar {
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
	if selfContained(a.Sub) {
		return crossScalar(a)
	}
	x, corr, ok := pullCorrelated(agg.Input)
	if !ok || len(corr) == 0 || !selfContained(x) {
		return nil
	}
	xc := x.Columns()
	oc := a.Outer.Columns()
	for _, c := range agg.Aggs {
		if !allRefsIn(c.Args, xc) {
			return nil // an aggregate over outer values differs per outer row
		}
	}
	equi, other := logical.SplitConds(corr, oc, xc)
	if len(equi) == 0 || !allRefsIn(other, oc) {
		return nil
	}
	grouped := &logical.Aggregate{Input: x, Aggs: agg.Aggs}
	join := &logical.Join{Type: fragment.JoinLeftOuter, Left: a.Outer, Right: grouped, Other: other}
	for _, e := range equi {
		gc := b.newCol("", e.R.String(), e.R.Type(), e.R.Nullable())
		grouped.Groups = append(grouped.Groups, e.R)
		grouped.GroupCols = append(grouped.GroupCols, gc)
		join.Equi = append(join.Equi, logical.EquiCond{L: e.L, R: gc.Ref(), NullSafe: e.NullSafe})
	}
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
	return applyResult(a, join, val)
}
