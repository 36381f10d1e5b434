package aggregate

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/execution/op/optest"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// aggInput: (k BIGINT, v BIGINT, s STRING).
var aggInCols = optest.Cols("k", types.BigIntT, "v", types.BigIntT, "s", types.StringT)

func aggRows(r *rand.Rand, n, groups int) []optest.Row {
	out := make([]optest.Row, n)
	for i := range out {
		var s any = fmt.Sprintf("s%d", r.Intn(5))
		if r.Intn(10) == 0 {
			s = nil
		}
		out[i] = optest.Row{optest.RandVal(r, groups, 0.05), optest.RandVal(r, 1000, 0.1), s}
	}
	return out
}

func testAggCalls() []AggCall {
	sep := "-"
	v := optest.ColRef(1, types.BigIntT)
	return []AggCall{
		{Fn: "count"},
		{Fn: "count", Args: []expr.Expr{v}, ArgType: types.BigIntT},
		{Fn: "sum", Args: []expr.Expr{v}, ArgType: types.BigIntT},
		{Fn: "avg", Args: []expr.Expr{v}, ArgType: types.BigIntT},
		{Fn: "min", Args: []expr.Expr{v}, ArgType: types.BigIntT},
		{Fn: "max", Args: []expr.Expr{optest.ColRef(2, types.StringT)}, ArgType: types.StringT},
		{Fn: "group_concat", Args: []expr.Expr{optest.ColRef(2, types.StringT)}, ArgType: types.StringT, Separator: &sep},
	}
}

func aggOutCols(calls []AggCall, keys bool, final bool) []types.Column {
	var out []types.Column
	if keys {
		out = append(out, types.Column{Name: "k", Type: types.BigIntT, Nullable: true})
	}
	for i, c := range calls {
		if final {
			t, _ := AggResultType(c.Fn, c.ArgType, c.Distinct)
			out = append(out, types.Column{Name: fmt.Sprint("a", i), Type: t, Nullable: true})
			continue
		}
		ts, _ := AggStateTypes(c.Fn, c.ArgType, c.Distinct)
		for j, t := range ts {
			out = append(out, types.Column{Name: fmt.Sprint("a", i, "_", j), Type: t, Nullable: true})
		}
	}
	return out
}

// naiveAgg computes testAggCalls per group in input order.
func naiveAgg(rows []optest.Row, keys bool) []string {
	type st struct {
		cnt, cntv, sum int64
		min            *int64
		max            *string
		cat            []string
	}
	groups := map[string]*st{}
	var order []string
	for _, r := range rows {
		k := "x"
		if keys {
			k = optest.FmtRow(r[:1])
		}
		g := groups[k]
		if g == nil {
			g = &st{}
			groups[k] = g
			order = append(order, k)
		}
		g.cnt++
		if r[1] != nil {
			v := r[1].(int64)
			g.cntv++
			g.sum += v
			if g.min == nil || v < *g.min {
				g.min = &v
			}
		}
		if r[2] != nil {
			s := r[2].(string)
			if g.max == nil || s > *g.max {
				g.max = &s
			}
			g.cat = append(g.cat, s)
		}
	}
	if !keys && len(order) == 0 {
		groups["x"] = &st{}
		order = []string{"x"}
	}
	var out []string
	for _, k := range order {
		g := groups[k]
		parts := []string{}
		if keys {
			parts = append(parts, k)
		}
		parts = append(parts, fmt.Sprint(g.cnt), fmt.Sprint(g.cntv))
		if g.cntv == 0 {
			parts = append(parts, "NULL", "NULL", "NULL")
		} else {
			parts = append(parts, fmt.Sprint(g.sum), types.FormatFloat(float64(g.sum)/float64(g.cntv), 64), fmt.Sprint(*g.min))
		}
		if g.max == nil {
			parts = append(parts, "NULL", "NULL")
		} else {
			parts = append(parts, *g.max, strings.Join(g.cat, "-"))
		}
		out = append(out, strings.Join(parts, "|"))
	}
	return out
}

func runAgg(t *testing.T, mem memory.Allocator, in op.Operator, phase fragment.AggPhase, keys bool, calls []AggCall) *HashAgg {
	t.Helper()
	spec := HashAggSpec{Phase: phase, Aggs: calls, Output: aggOutCols(calls, keys, phase.Finalizes()), Mem: op.NewMemTracker(0)}
	if keys {
		spec.Groups = []expr.Expr{optest.ColRef(0, types.BigIntT)}
	}
	a, err := NewHashAgg(optest.Env(mem), in, spec)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestHashAggSinglePhase(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for _, n := range []int{0, 1, 10, 5000} {
		for _, groups := range []int{1, 7, 6000} {
			for _, keys := range []bool{false, true} {
				mem, check := optest.Checked(t)
				rows := aggRows(r, n, groups)
				a := runAgg(t, mem, optest.NewSource(mem, aggInCols, rows, 1000), fragment.AggUpdateFinalize, keys, testAggCalls())
				got := optest.Drain(t, a)
				a.Close()
				check()
				optest.EqualRows(t, optest.Sorted(got), optest.Sorted(naiveAgg(rows, keys)))
			}
		}
	}
}

// TestHashAggTwoPhase: three "instances" update-serialize their share, one
// merge-finalize combines them; the result equals the single phase one.
func TestHashAggTwoPhase(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	calls := testAggCalls()[:5] // GROUP_CONCAT order across instances is arbitrary
	mergeCalls := make([]AggCall, len(calls))
	for _, keys := range []bool{false, true} {
		for _, n := range []int{0, 3000} {
			mem, check := optest.Checked(t)
			rows := aggRows(r, n, 50)
			var partial []arrow.Record
			var stateCols []types.Column
			for inst := 0; inst < 3; inst++ {
				part := rows[inst*n/3 : (inst+1)*n/3]
				a := runAgg(t, mem, optest.NewSource(mem, aggInCols, part, 700), fragment.AggUpdateSerialize, keys, calls)
				stateCols = aggOutCols(calls, keys, false)
				for {
					rec, err := a.Next(t.Context())
					if err != nil {
						break
					}
					partial = append(partial, rec)
				}
				a.Close()
			}
			col := 0
			if keys {
				col = 1
			}
			for i, c := range calls {
				ts, _ := AggStateTypes(c.Fn, c.ArgType, false)
				mc := c
				mc.Args = nil
				for _, st := range ts {
					mc.Args = append(mc.Args, optest.ColRef(col, st))
					col++
				}
				mergeCalls[i] = mc
			}
			src := &optest.SliceOp{Sc: types.ArrowSchema(stateCols), Recs: partial}
			m := runAgg(t, mem, src, fragment.AggMergeFinalize, keys, mergeCalls)
			got := optest.Drain(t, m)
			m.Close()
			check()
			var want []string
			for _, w := range naiveAgg(rows, keys) {
				parts := strings.Split(w, "|")
				nk := 0
				if keys {
					nk = 1
				}
				want = append(want, strings.Join(parts[:nk+5], "|"))
			}
			optest.EqualRows(t, optest.Sorted(got), optest.Sorted(want))
		}
	}
}

func TestHashAggDistinctAndDecimal(t *testing.T) {
	mem, check := optest.Checked(t)
	defer check()
	dec := types.DecimalT(10, 2)
	in := optest.Cols("k", types.BigIntT, "d", dec)
	mk := func(s string) any {
		n, _, _ := types.ParseDecimal(s, 10, 2)
		return types.DecimalDatum(n, 10, 2)
	}
	rows := []optest.Row{{int64(1), mk("1.10")}, {int64(1), mk("1.10")}, {int64(1), mk("2.00")}, {int64(2), nil}, {int64(2), mk("-0.01")}}
	d := optest.ColRef(1, dec)
	calls := []AggCall{
		{Fn: "count", Args: []expr.Expr{d}, ArgType: dec, Distinct: true},
		{Fn: "sum", Args: []expr.Expr{d}, ArgType: dec},
		{Fn: "sum", Args: []expr.Expr{d}, ArgType: dec, Distinct: true},
		{Fn: "avg", Args: []expr.Expr{d}, ArgType: dec},
		{Fn: "max", Args: []expr.Expr{d}, ArgType: dec},
	}
	out := []types.Column{{Name: "k", Type: types.BigIntT}}
	for _, c := range calls {
		rt, _ := AggResultType(c.Fn, c.ArgType, c.Distinct)
		out = append(out, types.Column{Name: c.Fn, Type: rt, Nullable: true})
	}
	a, err := NewHashAgg(optest.Env(mem), optest.NewSource(mem, in, rows, 2), HashAggSpec{
		Groups: []expr.Expr{optest.ColRef(0, types.BigIntT)}, Aggs: calls, Output: out})
	if err != nil {
		t.Fatal(err)
	}
	got := optest.Drain(t, a)
	a.Close()
	optest.EqualRows(t, got, []string{"1|2|4.20|3.10|1.4000|2.00", "2|1|-0.01|-0.01|-0.0100|-0.01"})
}

// TestHashAggDistinctPaths checks COUNT/SUM(DISTINCT) over an INT column
// (kept by value) and a VARCHAR one (kept by key bytes) against maps, over
// many small batches with NULLs, zeros and repeats across batches.
func TestHashAggDistinctPaths(t *testing.T) {
	mem, check := optest.Checked(t)
	defer check()
	r := rand.New(rand.NewSource(11))
	in := optest.Cols("g", types.BigIntT, "v", types.IntT, "s", types.StringT)
	var rows []optest.Row
	type agg struct {
		ints map[int64]bool
		strs map[string]bool
	}
	want := map[int64]*agg{}
	for i := 0; i < 3000; i++ {
		g := int64(r.Intn(7))
		if want[g] == nil {
			want[g] = &agg{ints: map[int64]bool{}, strs: map[string]bool{}}
		}
		var v, s any
		if r.Intn(10) > 0 {
			x := int64(r.Intn(60) - 30)
			if x == 0 && g != 3 { // only group 3 has a zero (a NULL must not count as one)
				x = 1
			}
			v = x
			want[g].ints[x] = true
		}
		if r.Intn(10) > 0 {
			x := fmt.Sprintf("s%d", r.Intn(40))
			s = x
			want[g].strs[x] = true
		}
		rows = append(rows, optest.Row{g, v, s})
	}
	v, s := optest.ColRef(1, types.IntT), optest.ColRef(2, types.StringT)
	calls := []AggCall{
		{Fn: "count", Args: []expr.Expr{v}, ArgType: types.IntT, Distinct: true},
		{Fn: "sum", Args: []expr.Expr{v}, ArgType: types.IntT, Distinct: true},
		{Fn: "count", Args: []expr.Expr{s}, ArgType: types.StringT, Distinct: true},
	}
	out := []types.Column{{Name: "g", Type: types.BigIntT}}
	for _, c := range calls {
		rt, _ := AggResultType(c.Fn, c.ArgType, c.Distinct)
		out = append(out, types.Column{Name: c.Fn, Type: rt, Nullable: true})
	}
	a, err := NewHashAgg(optest.Env(mem), optest.NewSource(mem, in, rows, 37), HashAggSpec{
		Groups: []expr.Expr{optest.ColRef(0, types.BigIntT)}, Aggs: calls, Output: out})
	if err != nil {
		t.Fatal(err)
	}
	got := optest.Drain(t, a)
	a.Close()
	sort.Strings(got)
	var exp []string
	for g, w := range want {
		sum := int64(0)
		for x := range w.ints {
			sum += x
		}
		exp = append(exp, fmt.Sprintf("%d|%d|%d|%d", g, len(w.ints), sum, len(w.strs)))
	}
	sort.Strings(exp)
	optest.EqualRows(t, got, exp)
}
