package sorting

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/execution/op/exchange"
	"github.com/dorisgo/dorisgo/execution/op/optest"
	"github.com/dorisgo/dorisgo/sql/types"
)

var sortInCols = optest.Cols("id", types.BigIntT, "a", types.BigIntT, "b", types.StringT, "c", types.DoubleT)

func sortRows(r *rand.Rand, n int) []optest.Row {
	out := make([]optest.Row, n)
	for i := range out {
		var b, c any
		if r.Intn(8) != 0 {
			b = fmt.Sprintf("%c%d", 'a'+r.Intn(3), r.Intn(3))
			if r.Intn(10) == 0 {
				b = b.(string)[:1] // a prefix of others
			}
		}
		if r.Intn(8) != 0 {
			c = float64(r.Intn(7)-3) / 2
		}
		out[i] = optest.Row{int64(i), optest.RandVal(r, 20, 0.1), b, c}
	}
	return out
}

var sortKeySets = [][]int{{1}, {2}, {3}, {1, 2}, {2, 3, 1}}

func keysFor(r *rand.Rand, idx []int) []op.SortKey {
	ks := make([]op.SortKey, len(idx))
	for i, c := range idx {
		desc := r.Intn(2) == 0
		nf := op.DefaultNullsFirst(desc)
		if r.Intn(3) == 0 {
			nf = !nf
		}
		ks[i] = op.SortKey{Expr: optest.ColRef(c, sortInCols[c].Type), Desc: desc, NullsFirst: nf}
	}
	return ks
}

func TestSortRandom(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for _, n := range []int{0, 1, 100, 9000} {
		for _, idx := range sortKeySets {
			keys := keysFor(r, idx)
			rows := sortRows(r, n)
			mem, check := optest.Checked(t)
			s := NewSort(optest.Env(mem), optest.NewSource(mem, sortInCols, rows, 1000), SortSpec{Keys: keys, Mem: op.NewMemTracker(0)})
			got := optest.Drain(t, s)
			s.Close()
			check()
			optest.EqualRows(t, got, optest.FmtRows(optest.NaiveSort(rows, idx, keys)))
		}
	}
}

func TestTopNRandom(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	for _, n := range []int{0, 50, 20000} {
		for _, lim := range [][2]int64{{0, 10}, {5, 3}, {0, 0}, {100, 5000}, {0, 30000}} {
			idx := sortKeySets[r.Intn(len(sortKeySets))]
			keys := keysFor(r, idx)
			rows := sortRows(r, n)
			mem, check := optest.Checked(t)
			tn := NewTopN(optest.Env(mem), optest.NewSource(mem, sortInCols, rows, 1000), TopNSpec{Keys: keys, Offset: lim[0], Limit: lim[1], Mem: op.NewMemTracker(0)})
			got := optest.Drain(t, tn)
			tn.Close()
			check()
			want := optest.FmtRows(optest.NaiveSort(rows, idx, keys))
			want = want[min(len(want), int(lim[0])):]
			want = want[:min(len(want), int(lim[1]))]
			optest.EqualRows(t, got, want)
		}
	}
}

func TestMergeSorted(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	for _, n := range []int{0, 10, 12000} {
		for _, lim := range [][2]int64{{0, -1}, {3, 100}} {
			idx := sortKeySets[r.Intn(len(sortKeySets))]
			keys := keysFor(r, idx)
			rows := sortRows(r, n)
			mem, check := optest.Checked(t)
			var parts [][]optest.Row
			var children []op.Operator
			for p := 0; p < 3; p++ {
				part := optest.NaiveSort(rows[p*n/3:(p+1)*n/3], idx, keys)
				parts = append(parts, part)
				children = append(children, optest.NewSource(mem, sortInCols, part, 500+p*300))
			}
			m := exchange.NewMergeSorted(optest.Env(mem), children, keys, lim[0], lim[1])
			got := optest.Drain(t, m)
			m.Close()
			check()
			var all []optest.Row
			for _, p := range parts {
				all = append(all, p...)
			}
			want := optest.FmtRows(optest.NaiveSort(all, idx, keys))
			want = want[min(len(want), int(lim[0])):]
			if lim[1] >= 0 {
				want = want[:min(len(want), int(lim[1]))]
			}
			optest.EqualRows(t, got, want)
		}
	}
}

var _ = memory.DefaultAllocator
