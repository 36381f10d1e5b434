package logical

import (
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
)

// simplifyOuter turns an outer join into a narrower one when a conjunct
// over it is never TRUE on the rows the join null-extends (Doris's
// EliminateOuterJoin): `WHERE r.x > 5` over `l LEFT JOIN r` drops every
// row whose right side is NULL, so the join is inner. An inner join may
// put either side on the build, takes runtime filters and reorders; the
// decorrelated `ps_availqty > (SELECT 0.5 * sum(...) ...)` of TPC-H Q20 is
// one such left join.
func simplifyOuter(t fragment.JoinType, conds []expr.Expr, ls, rs colSet) fragment.JoinType {
	rejects := func(side colSet) bool {
		for _, c := range conds {
			if notTrueIfNull(c, side) {
				return true
			}
		}
		return false
	}
	switch t {
	case fragment.JoinLeftOuter:
		if rejects(rs) {
			return fragment.JoinInner
		}
	case fragment.JoinRightOuter:
		if rejects(ls) {
			return fragment.JoinInner
		}
	case fragment.JoinFullOuter:
		l, r := rejects(ls), rejects(rs)
		switch {
		case l && r:
			return fragment.JoinInner
		case l: // rows without a left side go: the left is preserved
			return fragment.JoinLeftOuter
		case r:
			return fragment.JoinRightOuter
		}
	}
	return t
}

// notTrueIfNull reports that e is NULL or FALSE whenever every column of
// side is NULL. It knows the strict operators only; anything else (CASE,
// COALESCE, IS NULL, functions) is taken as possibly TRUE.
func notTrueIfNull(e expr.Expr, side colSet) bool {
	c, ok := e.(*expr.Call)
	if !ok {
		return nullIfNull(e, side)
	}
	switch c.Fn {
	case "and":
		for _, a := range c.Args {
			if notTrueIfNull(a, side) {
				return true
			}
		}
		return false
	case "or":
		for _, a := range c.Args {
			if !notTrueIfNull(a, side) {
				return false
			}
		}
		return true
	case "is_true":
		return notTrueIfNull(c.Args[0], side)
	case "is_not_null":
		return nullIfNull(c.Args[0], side)
	case "not":
		return nullIfNull(c.Args[0], side)
	case "in":
		// x IN (NULL, 1) is TRUE for x = 1: only x's NULL decides.
		return nullIfNull(c.Args[0], side)
	case "not_in", "between":
		// Never TRUE with a NULL anywhere (x NOT IN (NULL, 1) is NULL or
		// FALSE), though not always NULL.
		for _, a := range c.Args {
			if nullIfNull(a, side) {
				return true
			}
		}
		return false
	}
	return nullIfNull(e, side)
}

// strictFns are NULL when any argument is NULL.
var strictFns = map[string]bool{
	"add": true, "subtract": true, "multiply": true, "divide": true, "mod": true, "int_divide": true, "negate": true,
	"eq": true, "ne": true, "lt": true, "le": true, "gt": true, "ge": true,
	"like": true, "not_like": true, "regexp": true,
}

// nullIfNull reports that e is NULL whenever every column of side is NULL.
func nullIfNull(e expr.Expr, side colSet) bool {
	switch x := e.(type) {
	case *expr.ColRef:
		_, ok := side[ColumnID(x.Index)]
		return ok
	case *expr.Cast:
		return nullIfNull(x.Arg, side)
	case *expr.Call:
		switch x.Fn {
		case "in", "not_in", "between":
			return nullIfNull(x.Args[0], side)
		}
		if !strictFns[x.Fn] {
			return false
		}
		for _, a := range x.Args {
			if nullIfNull(a, side) {
				return true
			}
		}
	}
	return false
}

// inlineProject rewrites c, a conjunct over p's outputs, to one over p's
// input: each output column it reads is replaced by its expression. Not
// when an expression it would copy gives a new value per call (rand,
// uuid): two copies would not be the same condition.
func inlineProject(c expr.Expr, p *Project) (expr.Expr, bool) {
	byID := make(map[int]expr.Expr, len(p.Cols))
	for i, col := range p.Cols {
		byID[int(col.ID)] = p.Exprs[i]
	}
	ok := true
	out, err := expr.Rewrite(c, func(e expr.Expr) (expr.Expr, error) {
		r, isRef := e.(*expr.ColRef)
		if !isRef {
			return e, nil
		}
		s, found := byID[r.Index]
		if !found || expr.Volatile(s) {
			ok = false
			return e, nil
		}
		return s, nil
	})
	if err != nil || !ok {
		return nil, false
	}
	return out, true
}
