package aggregate

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/execution/op/optest"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/types"
)

var setCols = optest.Cols("a", types.BigIntT, "b", types.StringT)

func setRows(r *rand.Rand, n, k int) []optest.Row {
	out := make([]optest.Row, n)
	for i := range out {
		var b any = fmt.Sprint("x", r.Intn(3))
		if r.Intn(6) == 0 {
			b = nil
		}
		out[i] = optest.Row{optest.RandVal(r, k, 0.1), b}
	}
	return out
}

func naiveSetOp(kind fragment.SetOpKind, ins [][]optest.Row) []string {
	var out []string
	if kind == fragment.SetUnionAll {
		for _, in := range ins {
			out = append(out, optest.FmtRows(in)...)
		}
		return out
	}
	seen := map[string]bool{}
	var first []string
	for _, r := range optest.FmtRows(ins[0]) {
		if !seen[r] {
			seen[r] = true
			first = append(first, r)
		}
	}
	if kind == fragment.SetUnionDistinct {
		for _, in := range ins[1:] {
			for _, r := range optest.FmtRows(in) {
				if !seen[r] {
					seen[r] = true
					first = append(first, r)
				}
			}
		}
		return first
	}
	for _, r := range first {
		keep := true
		for _, in := range ins[1:] {
			found := false
			for _, x := range optest.FmtRows(in) {
				found = found || x == r
			}
			if kind == fragment.SetIntersect {
				keep = keep && found
			} else if found {
				keep = false
			}
		}
		if keep {
			out = append(out, r)
		}
	}
	return out
}

func TestSetOps(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	for _, sizes := range [][3]int{{0, 0, 0}, {0, 10, 10}, {10, 0, 10}, {300, 200, 250}, {6000, 50, 50}} {
		for _, kind := range []fragment.SetOpKind{fragment.SetUnionAll, fragment.SetUnionDistinct, fragment.SetIntersect, fragment.SetExcept} {
			var ins [][]optest.Row
			for _, n := range sizes {
				ins = append(ins, setRows(r, n, 8+n/10))
			}
			mem, check := optest.Checked(t)
			var children []op.Operator
			for _, in := range ins {
				children = append(children, optest.NewSource(mem, setCols, in, 1000))
			}
			s := NewSetOp(optest.Env(mem), children, SetOpSpec{Kind: kind, Output: setCols, Mem: op.NewMemTracker(0)})
			got := optest.Drain(t, s)
			s.Close()
			check()
			optest.EqualRows(t, got, naiveSetOp(kind, ins))
		}
	}
	mem, check := optest.Checked(t)
	defer check()
	in := setRows(r, 5000, 30)
	d := NewDistinct(optest.Env(mem), optest.NewSource(mem, setCols, in, 999), setCols, nil)
	got := optest.Drain(t, d)
	d.Close()
	optest.EqualRows(t, got, naiveSetOp(fragment.SetUnionDistinct, [][]optest.Row{in}))
}
