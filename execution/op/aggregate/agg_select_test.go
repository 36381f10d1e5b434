package aggregate_test

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"math/rand"
	"testing"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/execution/op/aggregate"
	"github.com/dorisgo/dorisgo/execution/op/join"
	"github.com/dorisgo/dorisgo/execution/op/optest"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// TestHashAggOverSelector: an aggregate reading a ScanFilter's batches
// uncopied (op.Selector) gives what it gives over the rows filtered
// beforehand, for batches where most rows pass (read in place), fewer than
// half (copied out first), all, and none; for functions that read selected
// rows in place (SUM, AVG, COUNT) and those that get them copied (MIN,
// MAX, DISTINCT), with NULLs, with and without GROUP BY.
func TestHashAggOverSelector(t *testing.T) {
	mem, check := optest.Checked(t)
	defer check()
	r := rand.New(rand.NewSource(9))
	dec := types.DecimalT(15, 2)
	in := optest.Cols("p", types.IntT, "k", types.BigIntT, "i", types.IntT, "f", types.DoubleT, "d", dec, "s", types.StringT, "e", dec)
	pass := []float64{0.95, 0.3, 1, 0, 0.6} // per batch of 4096 rows
	var rows, kept []optest.Row
	for b, pr := range pass {
		n := 4096
		if b == len(pass)-1 {
			n = 1500
		}
		for j := 0; j < n; j++ {
			p := 0
			if r.Float64() < pr {
				p = 1
			}
			row := optest.Row{p, int64(r.Intn(7)), optest.RandVal(r, 1000, 0.1), nil, nil, optest.RandVal(r, 30, 0.1)}
			if row[5] != nil {
				row[5] = "s" + string(rune('a'+row[5].(int64)%26))
			}
			if r.Intn(10) > 0 {
				row[3] = float64(r.Intn(1000)) / 4
			}
			if r.Intn(10) > 0 {
				n, _, _ := types.ParseDecimal(optest.FmtRow(optest.Row{r.Intn(2_000_000) - 1_000_000}), 15, 0)
				row[4] = types.DecimalDatum(n, 15, 2)
			}
			e, _, _ := types.ParseDecimal(optest.FmtRow(optest.Row{r.Intn(20_000_000)}), 15, 0)
			row = append(row, types.DecimalDatum(e, 15, 2)) // no NULLs: SUM's int64 partials
			rows = append(rows, row)
			if p == 1 {
				kept = append(kept, row)
			}
		}
	}
	col := func(i int) *expr.ColRef { return optest.ColRef(i, in[i].Type) }
	calls := []aggregate.AggCall{
		{Fn: "count"},
		{Fn: "count", Args: []expr.Expr{col(4)}, ArgType: dec},
		{Fn: "sum", Args: []expr.Expr{col(2)}, ArgType: types.IntT},
		{Fn: "sum", Args: []expr.Expr{col(3)}, ArgType: types.DoubleT},
		{Fn: "sum", Args: []expr.Expr{col(4)}, ArgType: dec},
		{Fn: "avg", Args: []expr.Expr{col(4)}, ArgType: dec},
		{Fn: "avg", Args: []expr.Expr{col(2)}, ArgType: types.IntT},
		{Fn: "sum", Args: []expr.Expr{col(6)}, ArgType: dec},
		{Fn: "avg", Args: []expr.Expr{col(6)}, ArgType: dec},
		{Fn: "min", Args: []expr.Expr{col(5)}, ArgType: types.StringT},
		{Fn: "max", Args: []expr.Expr{col(4)}, ArgType: dec},
		{Fn: "count", Args: []expr.Expr{col(2)}, ArgType: types.IntT, Distinct: true},
	}
	zero := &expr.Const{Val: types.Datum{T: types.IntT, I: 0}}
	pred, err := expr.NewCall("ne", col(0), zero)
	if err != nil {
		t.Fatal(err)
	}
	for _, grouped := range []bool{true, false} {
		var groups []expr.Expr
		out := []types.Column{}
		if grouped {
			groups = []expr.Expr{col(1)}
			out = append(out, types.Column{Name: "k", Type: types.BigIntT})
		}
		for _, c := range calls {
			rt, err := aggregate.AggResultType(c.Fn, c.ArgType, c.Distinct)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, types.Column{Name: c.Fn, Type: rt, Nullable: true})
		}
		run := func(child op.Operator) []string {
			a, err := aggregate.NewHashAgg(optest.Env(mem), child, aggregate.HashAggSpec{Groups: groups, Aggs: calls, Output: out})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			return optest.Sorted(optest.Drain(t, a))
		}
		sf, err := join.NewScanFilter(optest.Env(mem), optest.NewSource(mem, in, rows, 4096), []expr.Expr{pred}, nil, in, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !sf.CanSelect() {
			t.Fatal("a ScanFilter is a Selector")
		}
		got := run(sf)
		want := run(optest.NewSource(mem, in, kept, 4096))
		if len(got) == 0 {
			t.Fatal("no groups")
		}
		optest.EqualRows(t, got, want)
	}
}

// TestHashAggSelectorDroppedRows: computing arguments over a whole batch
// must not fail or warn because of a row the filter dropped. A product that
// overflows only on dropped rows gives the filtered rows' sum, and one that
// overflows on a kept row still fails; an explicit CAST that warns on
// dropped rows warns about none.
func TestHashAggSelectorDroppedRows(t *testing.T) {
	mem, check := optest.Checked(t)
	defer check()
	in := optest.Cols("p", types.IntT, "x", types.BigIntT, "s", types.StringT)
	var rows []optest.Row
	var want int64
	for i := 0; i < 3000; i++ {
		if i%10 == 0 { // dropped: x*10 overflows, s is no number
			rows = append(rows, optest.Row{0, int64(1) << 62, "abc"})
			continue
		}
		rows = append(rows, optest.Row{1, int64(i), "7"})
		want += int64(i) * 10
	}
	zero := &expr.Const{Val: types.Datum{T: types.IntT, I: 0}}
	pred, err := expr.NewCall("ne", optest.ColRef(0, types.IntT), zero)
	if err != nil {
		t.Fatal(err)
	}
	ten := &expr.Const{Val: types.Datum{T: types.BigIntT, I: 10}}
	times, err := expr.NewCall("multiply", optest.ColRef(1, types.BigIntT), ten)
	if err != nil {
		t.Fatal(err)
	}
	cast := &expr.Cast{Arg: optest.ColRef(2, types.StringT), To: types.BigIntT, Explicit: true}
	run := func(rows []optest.Row, arg expr.Expr) ([]string, *expr.Warnings, error) {
		env := optest.Env(mem)
		env.Eval.Warn = &expr.Warnings{}
		sf, err := join.NewScanFilter(env, optest.NewSource(mem, in, rows, 1000), []expr.Expr{pred}, nil, in, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		rt, _ := aggregate.AggResultType("sum", arg.Type(), false)
		a, err := aggregate.NewHashAgg(env, sf, aggregate.HashAggSpec{
			Aggs:   []aggregate.AggCall{{Fn: "sum", Args: []expr.Expr{arg}, ArgType: arg.Type()}},
			Output: []types.Column{{Name: "s", Type: rt, Nullable: true}}})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		var out []string
		err = op.Drain(context.Background(), a, func(rec arrow.Record) error {
			out = append(out, rec.Column(0).ValueStr(0))
			return nil
		})
		return out, env.Eval.Warn, err
	}
	got, _, err := run(rows, times)
	if err != nil {
		t.Fatalf("an overflow on dropped rows failed the sum: %v", err)
	}
	if len(got) != 1 || got[0] != fmt.Sprint(want) {
		t.Fatalf("sum %v, want %d", got, want)
	}
	bad := append([]optest.Row{{1, int64(1) << 62, "7"}}, rows...)
	if _, _, err := run(bad, times); err == nil {
		t.Fatal("an overflow on a kept row did not fail")
	}
	got, warn, err := run(rows, cast)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != fmt.Sprint(7*2700) || warn.Count() != 0 {
		t.Fatalf("sum of the cast %v with %d warnings (%v), want %d and none", got, warn.Count(), warn.List(), 7*2700)
	}
}
