package op

import (
	"math/rand"
	"testing"

	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// naiveNL: predicate l.v < r.w (NULL if either is NULL); NAAJ keeps a left
// row only if the predicate is FALSE for every right row.
func naiveNL(typ fragment.JoinType, left, right []row, cross bool) []string {
	pred := func(l, r row) (bool, bool) { // value, null
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
					out = append(out, fmtRow(append(append(row{}, l...), r...)))
				}
			}
		}
		switch {
		case typ == fragment.JoinLeftOuter && !any:
			out = append(out, fmtRow(append(append(row{}, l...), nil, nil)))
		case typ == fragment.JoinLeftSemi && any, typ == fragment.JoinLeftAnti && !any,
			typ == fragment.JoinNullAwareLeftAnti && !any && !anyNull:
			out = append(out, fmtRow(l))
		}
	}
	return sorted(out)
}

func TestNestedLoopJoin(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	lc := cols("lk", types.BigIntT, "v", types.BigIntT)
	rc := cols("rk", types.BigIntT, "w", types.BigIntT)
	for _, sizes := range [][2]int{{0, 5}, {5, 0}, {0, 0}, {30, 40}, {300, 50}} {
		left, right := randRows(r, sizes[0], 10, 0.1), randRows(r, sizes[1], 10, 0.1)
		for _, typ := range []fragment.JoinType{fragment.JoinCross, fragment.JoinInner, fragment.JoinLeftOuter, fragment.JoinLeftSemi, fragment.JoinLeftAnti, fragment.JoinNullAwareLeftAnti} {
			mem, check := checked(t)
			spec := NestedLoopJoinSpec{Type: typ, Output: joinOutput(typ), Mem: NewMemTracker(0)}
			if typ != fragment.JoinCross {
				p, _ := expr.NewCall("lt", colRef(1, types.BigIntT), colRef(3, types.BigIntT))
				spec.Conjuncts = []expr.Expr{p}
			}
			j, err := NewNestedLoopJoin(testEnv(mem), newSource(mem, lc, left, 64), newSource(mem, rc, right, 16), spec)
			if err != nil {
				t.Fatal(err)
			}
			got := sorted(drain(t, j))
			j.Close()
			check()
			equalRows(t, got, naiveNL(typ, left, right, typ == fragment.JoinCross))
		}
	}
}
