package aggregate

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/dorisgo/dorisgo/execution/op/optest"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Rollup of (a, b) over (a BIGINT, b STRING, v BIGINT): sets (a, b), (a), ().
var (
	repInCols  = optest.Cols("a", types.BigIntT, "b", types.StringT, "v", types.BigIntT)
	repOutCols = append(append([]types.Column{}, repInCols...), optest.Cols("a'", types.BigIntT, "b'", types.StringT)...)
	repSpec    = RepeatSpec{Keys: []int{0, 1}, Sets: [][]int{{0, 1}, {0}, {}}, IDs: []int64{0, 1, 3},
		Output: append(repOutCols, types.Column{Name: "GROUPING_ID", Type: types.BigIntT})}
)

func repRows(r *rand.Rand, n int) []optest.Row {
	out := make([]optest.Row, n)
	for i := range out {
		var b any = fmt.Sprint("b", r.Intn(3))
		if r.Intn(5) == 0 {
			b = nil
		}
		out[i] = optest.Row{optest.RandVal(r, 4, 0.1), b, optest.RandVal(r, 100, 0.1)}
	}
	return out
}

// naiveRepeat is Repeat's output for rows cut into batches of batch rows.
func naiveRepeat(rows []optest.Row, batch int) []string {
	var out []string
	for start := 0; start < len(rows); start += batch {
		part := rows[start:min(start+batch, len(rows))]
		for s, set := range repSpec.Sets {
			for _, r := range part {
				x := append(optest.Row{}, r...)
				for i, k := range repSpec.Keys {
					if repContains(set, i) {
						x = append(x, r[k])
					} else {
						x = append(x, nil)
					}
				}
				out = append(out, optest.FmtRow(append(x, repSpec.IDs[s])))
			}
		}
	}
	return out
}

func repContains(s []int, k int) bool {
	for _, v := range s {
		if v == k {
			return true
		}
	}
	return false
}

func TestRepeat(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for _, tc := range []struct{ n, batch int }{{0, 4}, {1, 4}, {7, 3}, {100, 16}, {50, 50}} {
		t.Run(fmt.Sprint(tc.n, "/", tc.batch), func(t *testing.T) {
			mem, check := optest.Checked(t)
			defer check()
			rows := repRows(r, tc.n)
			o := NewRepeat(optest.Env(mem), optest.NewSource(mem, repInCols, rows, tc.batch), repSpec)
			got := optest.Drain(t, o)
			o.Close()
			optest.EqualRows(t, got, naiveRepeat(rows, tc.batch))
		})
	}
}

// TestRepeatClose releases a half-repeated batch.
func TestRepeatClose(t *testing.T) {
	mem, check := optest.Checked(t)
	defer check()
	rows := repRows(rand.New(rand.NewSource(1)), 20)
	o := NewRepeat(optest.Env(mem), optest.NewSource(mem, repInCols, rows, 8), repSpec)
	rec, err := o.Next(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	rec.Release()
	o.Close()
}

// TestRepeatRollupAgg: Repeat + HashAgg on key copies + grouping id is
// GROUP BY a, b WITH ROLLUP: SUM(v) per (a, b), per a, and overall.
func TestRepeatRollupAgg(t *testing.T) {
	mem, check := optest.Checked(t)
	defer check()
	rows := repRows(rand.New(rand.NewSource(3)), 300)
	env := optest.Env(mem)
	rep := NewRepeat(env, optest.NewSource(mem, repInCols, rows, 64), repSpec)
	out := (optest.Cols("a", types.BigIntT, "b", types.StringT, "g", types.BigIntT, "s", types.BigIntT))
	agg, err := NewHashAgg(env, rep, HashAggSpec{Phase: fragment.AggUpdateFinalize,
		Groups: []expr.Expr{optest.ColRef(3, types.BigIntT), optest.ColRef(4, types.StringT), optest.ColRef(5, types.BigIntT)},
		Aggs:   []AggCall{{Fn: "sum", Args: []expr.Expr{optest.ColRef(2, types.BigIntT)}, ArgType: types.BigIntT}},
		Output: out})
	if err != nil {
		t.Fatal(err)
	}
	got := optest.Drain(t, agg)
	agg.Close()

	sums := map[string]int64{}
	seen := map[string]bool{}
	add := func(k string, v any) {
		seen[k] = true
		if v != nil {
			sums[k] += v.(int64)
		}
	}
	for _, r := range rows {
		add(optest.FmtRow(optest.Row{r[0], r[1], int64(0)}), r[2])
		add(optest.FmtRow(optest.Row{r[0], nil, int64(1)}), r[2])
		add(optest.FmtRow(optest.Row{nil, nil, int64(3)}), r[2])
	}
	var want []string
	for k := range seen {
		want = append(want, fmt.Sprintf("%s|%d", k, sums[k]))
	}
	optest.EqualRows(t, optest.Sorted(got), optest.Sorted(want))
}
