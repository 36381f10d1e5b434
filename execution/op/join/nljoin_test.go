package join

import (
	"math/rand"
	"testing"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/execution/op/optest"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// naiveNL: predicate l.v < r.w (NULL if either is NULL); NAAJ keeps a left
// row only if the predicate is FALSE for every right row.
func naiveNL(typ fragment.JoinType, left, right []optest.Row, cross bool) []string {
	pred := func(l, r optest.Row) (bool, bool) { // value, null
		if cross {
			return true, false
		}
		if l[1] == nil || r[1] == nil {
			return false, true
		}
		return l[1].(int64) < r[1].(int64), false
	}
	var out []string
	for _, l := range left {
		any, anyNull := false, false
		for _, r := range right {
			v, null := pred(l, r)
			anyNull = anyNull || null
			if v {
				any = true
				if emitsPairs(typ) {
					out = append(out, optest.FmtRow(append(append(optest.Row{}, l...), r...)))
				}
			}
		}
		switch {
		case typ == fragment.JoinLeftOuter && !any:
			out = append(out, optest.FmtRow(append(append(optest.Row{}, l...), nil, nil)))
		case typ == fragment.JoinLeftSemi && any, typ == fragment.JoinLeftAnti && !any,
			typ == fragment.JoinNullAwareLeftAnti && !any && !anyNull:
			out = append(out, optest.FmtRow(l))
		}
	}
	return optest.Sorted(out)
}

func TestNestedLoopJoin(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	lc := optest.Cols("lk", types.BigIntT, "v", types.BigIntT)
	rc := optest.Cols("rk", types.BigIntT, "w", types.BigIntT)
	for _, sizes := range [][2]int{{0, 5}, {5, 0}, {0, 0}, {30, 40}, {300, 50}} {
		left, right := optest.RandRows(r, sizes[0], 10, 0.1), optest.RandRows(r, sizes[1], 10, 0.1)
		for _, typ := range []fragment.JoinType{fragment.JoinCross, fragment.JoinInner, fragment.JoinLeftOuter, fragment.JoinLeftSemi, fragment.JoinLeftAnti, fragment.JoinNullAwareLeftAnti} {
			mem, check := optest.Checked(t)
			spec := NestedLoopJoinSpec{Type: typ, Output: joinOutput(typ), Mem: op.NewMemTracker(0)}
			if typ != fragment.JoinCross {
				p, _ := expr.NewCall("lt", optest.ColRef(1, types.BigIntT), optest.ColRef(3, types.BigIntT))
				spec.Conjuncts = []expr.Expr{p}
			}
			j, err := NewNestedLoopJoin(optest.Env(mem), optest.NewSource(mem, lc, left, 64), optest.NewSource(mem, rc, right, 16), spec)
			if err != nil {
				t.Fatal(err)
			}
			got := optest.Sorted(optest.Drain(t, j))
			j.Close()
			check()
			optest.EqualRows(t, got, naiveNL(typ, left, right, typ == fragment.JoinCross))
		}
	}
}
