package logical

import (
	"testing"

	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

func call(t *testing.T, fn string, args ...expr.Expr) expr.Expr {
	t.Helper()
	e, err := expr.NewCall(fn, args...)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestSimplifyOuter: a conjunct that is never TRUE on a NULL-extended row
// narrows the outer join; one that may be (IS NULL, COALESCE, OR with a
// branch over the other side, IN with a NULL-tolerant list) leaves it.
func TestSimplifyOuter(t *testing.T) {
	l := &expr.ColRef{Index: 1, Table: "l", Name: "k", T: types.BigIntT, Null: true}
	r := &expr.ColRef{Index: 2, Table: "r", Name: "k", T: types.BigIntT, Null: true}
	ls, rs := colSet{1: {}}, colSet{2: {}}
	five := expr.Lit(types.IntDatum(5))
	cases := []struct {
		name string
		typ  fragment.JoinType
		cond expr.Expr
		want fragment.JoinType
	}{
		{"comparison", fragment.JoinLeftOuter, call(t, "gt", call(t, "multiply", r, five), l), fragment.JoinInner},
		{"left side only", fragment.JoinLeftOuter, call(t, "gt", l, five), fragment.JoinLeftOuter},
		{"is null", fragment.JoinLeftOuter, call(t, "is_null", r), fragment.JoinLeftOuter},
		{"is not null", fragment.JoinLeftOuter, call(t, "is_not_null", r), fragment.JoinInner},
		{"ifnull", fragment.JoinLeftOuter, call(t, "gt", call(t, "ifnull", r, five), l), fragment.JoinLeftOuter},
		{"or over both sides", fragment.JoinLeftOuter, call(t, "or", call(t, "gt", r, five), call(t, "gt", l, five)), fragment.JoinLeftOuter},
		{"or over the right", fragment.JoinLeftOuter, call(t, "or", call(t, "gt", r, five), call(t, "lt", r, l)), fragment.JoinInner},
		{"not", fragment.JoinLeftOuter, call(t, "not", call(t, "eq", r, five)), fragment.JoinInner},
		{"in list holding the column", fragment.JoinLeftOuter, call(t, "in", l, r, five), fragment.JoinLeftOuter},
		{"not in list holding the column", fragment.JoinLeftOuter, call(t, "not_in", l, r, five), fragment.JoinInner},
		{"right outer", fragment.JoinRightOuter, call(t, "eq", l, five), fragment.JoinInner},
		{"full, left rejected", fragment.JoinFullOuter, call(t, "eq", l, five), fragment.JoinLeftOuter},
		{"full, right rejected", fragment.JoinFullOuter, call(t, "eq", r, five), fragment.JoinRightOuter},
		{"full, both", fragment.JoinFullOuter, call(t, "eq", l, r), fragment.JoinInner},
		{"semi stays", fragment.JoinLeftSemi, call(t, "eq", r, five), fragment.JoinLeftSemi},
	}
	for _, c := range cases {
		if got := simplifyOuter(c.typ, []expr.Expr{c.cond}, ls, rs); got != c.want {
			t.Errorf("%s: %s over %v: got %v, want %v", c.name, c.cond, c.typ, got, c.want)
		}
	}
}

// TestInlineProject: a conjunct over a computed column is rewritten over
// the projection's input, but not when that would copy rand().
func TestInlineProject(t *testing.T) {
	in := &expr.ColRef{Index: 1, Table: "t", Name: "v", T: types.BigIntT, Null: true}
	p := &Project{Exprs: []expr.Expr{call(t, "multiply", in, expr.Lit(types.IntDatum(2))), call(t, "rand")},
		Cols: []Column{{ID: 7, Name: "d", T: types.BigIntT}, {ID: 8, Name: "r", T: types.DoubleT}}}
	d := &expr.ColRef{Index: 7, Name: "d", T: types.BigIntT}
	got, ok := inlineProject(call(t, "gt", d, expr.Lit(types.IntDatum(3))), p)
	if !ok || got.String() != "`t`.`v` * 2 > 3" {
		t.Errorf("inlined: %v %v", got, ok)
	}
	rnd := &expr.ColRef{Index: 8, Name: "r", T: types.DoubleT}
	if _, ok := inlineProject(call(t, "gt", rnd, expr.Lit(types.FloatDatum(0.5))), p); ok {
		t.Error("rand() was copied into a conjunct")
	}
}
