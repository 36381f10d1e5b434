package join

import (
	"testing"

	"github.com/dorisgo/dorisgo/execution/op/optest"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// TestScanFilterFiltersFirst: once a runtime filter has kept under an
// eighth of its rows, the scan tests it before its conjuncts and the
// conjuncts on the rows it let through, with the same rows out as the
// conjuncts-first order; a conjunct with an explicit CAST (which warns per
// row) keeps the plan's order.
func TestScanFilterFiltersFirst(t *testing.T) {
	mem, check := optest.Checked(t)
	defer check()
	in := optest.Cols("k", types.BigIntT, "v", types.BigIntT)
	var rows []optest.Row
	var want []string
	keys := map[int64]bool{3: true, 500: true, 999: true}
	for i := int64(0); i < 40_000; i++ {
		k, v := i%1000, i
		rows = append(rows, optest.Row{k, v})
		if keys[k] && v%7 != 0 && v > 100 {
			want = append(want, optest.FmtRow(optest.Row{k, v}))
		}
	}
	v := optest.ColRef(1, types.BigIntT)
	call := func(fn string, args ...expr.Expr) expr.Expr {
		e, err := expr.NewCall(fn, args...)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	lit := func(x int64) expr.Expr { return expr.Lit(types.IntDatum(x)) }
	plain := []expr.Expr{call("ne", call("mod", v, lit(7)), lit(0)), call("gt", v, lit(100))}
	// CAST(v AS INT) > 100: an explicit CAST, the same rows here.
	cast := []expr.Expr{call("ne", call("mod", v, lit(7)), lit(0)),
		call("gt", &expr.Cast{Arg: v, To: types.IntT, Explicit: true}, lit(100))}
	for _, c := range []struct {
		name  string
		conj  []expr.Expr
		first bool
	}{{"plain", plain, true}, {"explicit cast", cast, false}} {
		build := int64Array([]int64{3, 500, 999})
		f := newRuntimeFilter(build, 1)
		build.Release()
		rfs := NewRuntimeFilters()
		rfs.publish(1, f)
		sf, err := NewScanFilter(optest.Env(mem), optest.NewSource(mem, in, rows, 4096), c.conj, nil, in, rfs,
			[]fragment.RFTarget{{ID: 1, Column: 0}})
		if err != nil {
			t.Fatal(err)
		}
		got := optest.Drain(t, sf)
		went := cap(sf.sub) > 0 // predicateOn gathered rows
		sf.Close()
		optest.EqualRows(t, optest.Sorted(got), optest.Sorted(want))
		if went != c.first {
			t.Errorf("%s: filters first %v, want %v", c.name, went, c.first)
		}
	}
	if len(want) == 0 {
		t.Fatal("no rows expected: the test tests nothing")
	}
}
