package op

import (
	"fmt"
	"math/rand"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dorisgo/dorisgo/sql/types"
)

var sortInCols = cols("id", types.BigIntT, "a", types.BigIntT, "b", types.StringT, "c", types.DoubleT)

func sortRows(r *rand.Rand, n int) []row {
	out := make([]row, n)
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
		out[i] = row{int64(i), randVal(r, 20, 0.1), b, c}
	}
	return out
}

func cmpVals(x, y any) int {
	switch a := x.(type) {
	case int64:
		b := y.(int64)
		return map[bool]int{true: -1, false: 1}[a < b] * map[bool]int{true: 0, false: 1}[a == b]
	case float64:
		b := y.(float64)
		if a == b {
			return 0
		}
		if a < b {
			return -1
		}
		return 1
	case string:
		b := y.(string)
		if a == b {
			return 0
		}
		if a < b {
			return -1
		}
		return 1
	}
	panic("cmp")
}

func naiveSort(rows []row, colIdx []int, keys []SortKey) []row {
	out := append([]row(nil), rows...)
	sort.SliceStable(out, func(i, j int) bool {
		for k, c := range colIdx {
			x, y := out[i][c], out[j][c]
			var r int
			switch {
			case x == nil && y == nil:
				r = 0
			case x == nil:
				r = map[bool]int{true: -1, false: 1}[keys[k].NullsFirst]
			case y == nil:
				r = map[bool]int{true: 1, false: -1}[keys[k].NullsFirst]
			default:
				r = cmpVals(x, y)
				if keys[k].Desc {
					r = -r
				}
			}
			if r != 0 {
				return r < 0
			}
		}
		return false
	})
	return out
}

func fmtRows(rows []row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmtRow(r)
	}
	return out
}

var sortKeySets = [][]int{{1}, {2}, {3}, {1, 2}, {2, 3, 1}}

func keysFor(r *rand.Rand, idx []int) []SortKey {
	ks := make([]SortKey, len(idx))
	for i, c := range idx {
		desc := r.Intn(2) == 0
		nf := DefaultNullsFirst(desc)
		if r.Intn(3) == 0 {
			nf = !nf
		}
		ks[i] = SortKey{Expr: colRef(c, sortInCols[c].Type), Desc: desc, NullsFirst: nf}
	}
	return ks
}

func TestSortRandom(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for _, n := range []int{0, 1, 100, 9000} {
		for _, idx := range sortKeySets {
			keys := keysFor(r, idx)
			rows := sortRows(r, n)
			mem, check := checked(t)
			s := NewSort(testEnv(mem), newSource(mem, sortInCols, rows, 1000), SortSpec{Keys: keys, Mem: NewMemTracker(0)})
			got := drain(t, s)
			s.Close()
			check()
			equalRows(t, got, fmtRows(naiveSort(rows, idx, keys)))
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
			mem, check := checked(t)
			tn := NewTopN(testEnv(mem), newSource(mem, sortInCols, rows, 1000), TopNSpec{Keys: keys, Offset: lim[0], Limit: lim[1], Mem: NewMemTracker(0)})
			got := drain(t, tn)
			tn.Close()
			check()
			want := fmtRows(naiveSort(rows, idx, keys))
			want = want[min(len(want), int(lim[0])):]
			want = want[:min(len(want), int(lim[1]))]
			equalRows(t, got, want)
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
			mem, check := checked(t)
			var parts [][]row
			var children []Operator
			for p := 0; p < 3; p++ {
				part := naiveSort(rows[p*n/3:(p+1)*n/3], idx, keys)
				parts = append(parts, part)
				children = append(children, newSource(mem, sortInCols, part, 500+p*300))
			}
			m := NewMergeSorted(testEnv(mem), children, keys, lim[0], lim[1])
			got := drain(t, m)
			m.Close()
			check()
			var all []row
			for _, p := range parts {
				all = append(all, p...)
			}
			want := fmtRows(naiveSort(all, idx, keys))
			want = want[min(len(want), int(lim[0])):]
			if lim[1] >= 0 {
				want = want[:min(len(want), int(lim[1]))]
			}
			equalRows(t, got, want)
		}
	}
}

var _ = memory.DefaultAllocator
