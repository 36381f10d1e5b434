package bind

import (
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// boundSub is a bound subquery and whether it refers to the outer query.
type boundSub struct {
	q          *Query
	correlated bool
}

// bindSub binds a subquery nested in scope s. A boundary scope between them
// records every outer column the subquery reads.
func (b *Binder) bindSub(stmt sqlparser.SelectStatement, s *scope) (*boundSub, error) {
	agg, win, applies := b.agg, b.win, b.applies
	b.agg, b.win, b.applies = nil, nil, nil
	defer func() { b.agg, b.win, b.applies = agg, win, applies }()
	bnd := &scope{outer: s}
	q, err := b.bindQuery(stmt, bnd)
	if err != nil {
		return nil, err
	}
	return &boundSub{q: q, correlated: len(bnd.corr) > 0}, nil
}

// bindSubqueryExpr binds a subquery used as a value: scalar, EXISTS or
// x IN (...). It becomes an Apply over the clause's input; the expression
// is a reference to the Apply's output column.
func (b *Binder) bindSubqueryExpr(kind fragment.ApplyKind, stmt sqlparser.SelectStatement, probe expr.Expr, s *scope) (expr.Expr, error) {
	if b.applies == nil {
		return nil, sqlerr.NotSupportedYet.New("a subquery in this clause")
	}
	bs, err := b.bindSub(stmt, s)
	if err != nil {
		return nil, err
	}
	return b.addApply(kind, bs, probe)
}

func (b *Binder) addApply(kind fragment.ApplyKind, bs *boundSub, probe expr.Expr) (expr.Expr, error) {
	cols := bs.q.Plan.Columns()
	if kind != fragment.ApplyExists && len(cols) != 1 {
		return nil, sqlerr.OperandColumns.New(1)
	}
	var col logical.Column
	switch kind {
	case fragment.ApplyScalar:
		col = b.newCol("", "subquery", cols[0].T, true)
	case fragment.ApplyExists:
		col = b.newCol("", "exists", types.BoolT, false)
	case fragment.ApplyIn:
		// Type-check the comparison now so errors surface at bind time.
		if _, err := expr.NewCall("eq", probe, cols[0].Ref()); err != nil {
			return nil, err
		}
		col = b.newCol("", "in", types.BoolT, true)
	}
	a := &logical.Apply{Kind: kind, Sub: bs.q.Plan, Probe: probe, Col: col}
	*b.applies = append(*b.applies, a)
	return col.Ref(), nil
}

// wrapApplies stacks the collected Apply nodes over plan, decorrelating
// the scalar ones that allow it into joins.
func (b *Binder) wrapApplies(plan logical.Node, applies []*logical.Apply) logical.Node {
	for _, a := range applies {
		a.Outer = plan
		if d := b.decorrelateScalar(a); d != nil {
			plan = d
			continue
		}
		plan = a
	}
	return plan
}

// windowApply plans WHERE's one subquery, a scalar aggregate over the
// outer query's tables, as a window over the outer rows (aggToWindow):
// the node replacing the Apply and the conjuncts over it, or nil.
func (b *Binder) windowApply(plan logical.Node, applies []*logical.Apply, conds []expr.Expr) (logical.Node, []expr.Expr) {
	if len(applies) != 1 {
		return nil, nil
	}
	return b.aggToWindow(plan, applies[0], conds)
}

// bindWhere binds WHERE over plan. Top-level conjuncts `x [NOT] IN (q)` and
// `[NOT] EXISTS (q)` with an uncorrelated q become semi, anti or null-aware
// anti joins; other subqueries become Apply nodes under the filter.
func (b *Binder) bindWhere(plan logical.Node, e sqlparser.Expr, s *scope) (logical.Node, error) {
	var applies []*logical.Apply
	prev := b.applies
	b.applies = &applies
	defer func() { b.applies = prev }()
	var conds []expr.Expr
	for _, conj := range splitASTAnd(e) {
		j, cond, handled, err := b.semiJoin(plan, conj, s)
		if err != nil {
			return nil, err
		}
		if handled {
			if j != nil {
				plan = j
			}
			if cond != nil {
				conds = append(conds, cond)
			}
			continue
		}
		x, err := b.bindExpr(conj, s)
		if err != nil {
			return nil, err
		}
		conds = append(conds, splitAnd(condition(x))...)
	}
	if w, above := b.windowApply(plan, applies, conds); w != nil {
		plan, conds = w, above
	} else {
		plan = b.wrapApplies(plan, applies)
	}
	if len(conds) > 0 {
		plan = &logical.Filter{Input: plan, Conds: conds}
	}
	return plan, nil
}

// condition makes x a WHERE, ON or HAVING condition: a value of another
// type holds where it is not zero (WHERE v, HAVING sum(v)), as MySQL and
// Doris read it, by a cast to BOOLEAN; the filters evaluate booleans only.
func condition(x expr.Expr) expr.Expr {
	if k := x.Type().Kind; k == types.Boolean || k == types.Null {
		return x
	}
	return expr.NewCast(x, types.BoolT)
}

// semiJoin plans one WHERE conjunct that is a subquery test: as a join when
// the subquery is uncorrelated (node != nil), else as an Apply whose output
// the returned condition tests.
func (b *Binder) semiJoin(plan logical.Node, conj sqlparser.Expr, s *scope) (logical.Node, expr.Expr, bool, error) {
	neg := false
	if n, ok := conj.(*sqlparser.NotExpr); ok {
		if _, isExists := n.Expr.(*sqlparser.ExistsExpr); isExists {
			neg, conj = true, n.Expr
		}
	}
	switch n := conj.(type) {
	case *sqlparser.ComparisonExpr:
		if n.Operator != sqlparser.InStr && n.Operator != sqlparser.NotInStr {
			return nil, nil, false, nil
		}
		sq, ok := n.Right.(*sqlparser.Subquery)
		if !ok {
			return nil, nil, false, nil
		}
		if _, isTuple := n.Left.(sqlparser.ValTuple); isTuple {
			return nil, nil, false, sqlerr.NotSupportedYet.New("row IN (subquery)")
		}
		probe, err := b.bindExpr(n.Left, s)
		if err != nil {
			return nil, nil, false, err
		}
		bs, err := b.bindSub(sq.Select, s)
		if err != nil {
			return nil, nil, false, err
		}
		cols := bs.q.Plan.Columns()
		if len(cols) != 1 {
			return nil, nil, false, sqlerr.OperandColumns.New(1)
		}
		not := n.Operator == sqlparser.NotInStr
		if bs.correlated && !not && logical.RefsIn(probe, plan.Columns()) {
			if j := decorrelate(plan, bs.q.Plan, probe, true, false); j != nil {
				return j, nil, true, nil
			}
		}
		if bs.correlated || !logical.RefsIn(probe, plan.Columns()) {
			ref, err := b.addApply(fragment.ApplyIn, bs, probe)
			if err != nil {
				return nil, nil, false, err
			}
			if not {
				ref, err = expr.NewCall("not", ref)
			}
			return nil, ref, true, err
		}
		eq, err := expr.NewCall("eq", probe, cols[0].Ref())
		if err != nil {
			return nil, nil, false, err
		}
		call := eq.(*expr.Call)
		jt := fragment.JoinLeftSemi
		if not {
			jt = fragment.JoinLeftAnti
			if probe.Nullable() || cols[0].Null {
				jt = fragment.JoinNullAwareLeftAnti
			}
		}
		return &logical.Join{Type: jt, Left: plan, Right: bs.q.Plan,
			Equi: []logical.EquiCond{{L: call.Args[0], R: call.Args[1]}}}, nil, true, nil
	case *sqlparser.ExistsExpr:
		bs, err := b.bindSub(n.Subquery.Select, s)
		if err != nil {
			return nil, nil, false, err
		}
		if bs.correlated {
			if j := decorrelate(plan, bs.q.Plan, nil, false, neg); j != nil {
				return j, nil, true, nil
			}
			ref, err := b.addApply(fragment.ApplyExists, bs, nil)
			if err != nil {
				return nil, nil, false, err
			}
			if neg {
				ref, err = expr.NewCall("not", ref)
			}
			return nil, ref, true, err
		}
		jt := fragment.JoinLeftSemi
		if neg {
			jt = fragment.JoinLeftAnti
		}
		// An uncorrelated EXISTS keeps every row or none: a semi join
		// without conditions against at most one row.
		sub := &logical.Limit{Input: bs.q.Plan, Count: 1}
		return &logical.Join{Type: jt, Left: plan, Right: sub}, nil, true, nil
	}
	return nil, nil, false, nil
}

// splitASTAnd flattens a parsed conjunction.
func splitASTAnd(e sqlparser.Expr) []sqlparser.Expr {
	switch n := e.(type) {
	case *sqlparser.AndExpr:
		return append(splitASTAnd(n.Left), splitASTAnd(n.Right)...)
	case *sqlparser.ParenExpr:
		if _, ok := n.Expr.(*sqlparser.AndExpr); ok {
			return splitASTAnd(n.Expr)
		}
	}
	return []sqlparser.Expr{e}
}
