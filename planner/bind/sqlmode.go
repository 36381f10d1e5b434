package bind

import (
	"strings"

	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/sql/expr"
)

// onlyFullGroupBy reports whether sql_mode holds ONLY_FULL_GROUP_BY (the
// default; also when the session has no variables).
func (b *Binder) onlyFullGroupBy() bool {
	if b.ctx == nil || b.ctx.Vars == nil {
		return true
	}
	d, err := b.ctx.Vars.System("sql_mode", false)
	if err != nil || d.Null {
		return true
	}
	for _, m := range strings.Split(d.String(), ",") {
		if strings.EqualFold(strings.TrimSpace(m), "ONLY_FULL_GROUP_BY") {
			return true
		}
	}
	return false
}

// anyValueOf rewrites x, bound above aggregation ac, so that each column
// of the rows below it (pre) that is neither grouped nor aggregated reads
// ANY_VALUE of the column instead: what MySQL does without
// ONLY_FULL_GROUP_BY (a value of some row of the group).
func (b *Binder) anyValueOf(x expr.Expr, ac *aggCtx, pre map[int]bool) (expr.Expr, error) {
	return expr.Rewrite(x, func(e expr.Expr) (expr.Expr, error) {
		r, ok := e.(*expr.ColRef)
		if !ok || !pre[r.Index] {
			return e, nil
		}
		key := "any_value(false|" + r.String() + ")"
		if i, ok := ac.keys[key]; ok {
			return ac.calls[i].Col.Ref(), nil
		}
		rt, err := expr.AggResultType("any_value", r.T)
		if err != nil {
			return nil, err
		}
		col := b.newCol("", "any_value("+r.String()+")", rt, true)
		ac.keys[key] = len(ac.calls)
		ac.calls = append(ac.calls, logical.AggCall{Fn: "any_value", Args: []expr.Expr{r}, Col: col})
		return col.Ref(), nil
	})
}
