package aggregate

import (
	"fmt"
	"math/big"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/execution/op/optest"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// TestSumDecimalNarrow checks decimal SUM and AVG against math/big over
// batches whose values fit the int64 partial sums, batches with NULLs, and
// then a batch with a value past 2^41 (after which every batch takes the
// 128-bit path), with AVG sharing SUM's state or keeping its own.
func TestSumDecimalNarrow(t *testing.T) {
	mem, check := optest.Checked(t)
	defer check()
	r := rand.New(rand.NewSource(3))
	dec := types.DecimalT(38, 2)
	in := optest.Cols("k", types.BigIntT, "d", dec)
	const groups = 5
	sums := make([]*big.Int, groups)
	counts := make([]int64, groups)
	for g := range sums {
		sums[g] = new(big.Int)
	}
	var rows []optest.Row
	for i := 0; i < 6000; i++ {
		g := int64(r.Intn(groups))
		var v *big.Int
		switch {
		case i >= 2000 && i < 2500 && r.Intn(5) == 0: // NULLs in these batches
		case i == 4321: // wide: past the int64 partials' bound
			v, _ = new(big.Int).SetString("-123456789012345678901234567", 10)
		case r.Intn(3) == 0:
			v = big.NewInt(r.Int63n(1<<41) - 1<<40) // near the bound
		default:
			v = big.NewInt(r.Int63n(20_000_000) - 10_000_000)
		}
		if v == nil {
			rows = append(rows, optest.Row{g, nil})
			continue
		}
		sums[g].Add(sums[g], v)
		counts[g]++
		rows = append(rows, optest.Row{g, types.DecimalDatum(decimal128.FromBigInt(v), 38, 2)})
	}
	d := optest.ColRef(1, dec)
	run := func(calls []AggCall) []string {
		out := []types.Column{{Name: "k", Type: types.BigIntT}}
		for _, c := range calls {
			rt, _ := AggResultType(c.Fn, c.ArgType, c.Distinct)
			out = append(out, types.Column{Name: c.Fn, Type: rt, Nullable: true})
		}
		a, err := NewHashAgg(optest.Env(mem), optest.NewSource(mem, in, rows, 250), HashAggSpec{
			Groups: []expr.Expr{optest.ColRef(0, types.BigIntT)}, Aggs: calls, Output: out})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		return optest.Sorted(optest.Drain(t, a))
	}
	sum := AggCall{Fn: "sum", Args: []expr.Expr{d}, ArgType: dec}
	avg := AggCall{Fn: "avg", Args: []expr.Expr{d}, ArgType: dec}
	both := run([]AggCall{sum, avg})
	alone := run([]AggCall{avg})
	var want []string
	for g := range sums {
		q, m := new(big.Int).QuoRem(new(big.Int).Abs(sums[g]), big.NewInt(100), new(big.Int))
		sign := ""
		if sums[g].Sign() < 0 {
			sign = "-"
		}
		want = append(want, fmt.Sprintf("%d|%s%s.%02d", g, sign, q, m.Int64()))
	}
	for i, row := range both {
		var k int
		var s, a string
		if _, err := fmt.Sscanf(row, "%d|%s", &k, &s); err != nil {
			t.Fatal(row, err)
		}
		s, a = splitLast(s)
		if got := fmt.Sprintf("%d|%s", k, s); got != want[i] {
			t.Errorf("sum: got %s, want %s", got, want[i])
		}
		if alone[i] != fmt.Sprintf("%d|%s", k, a) {
			t.Errorf("avg with a shared sum: %s, on its own: %s", row, alone[i])
		}
	}
}

func splitLast(s string) (string, string) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '|' {
			return s[:i], s[i+1:]
		}
	}
	return s, ""
}

// TestSumNarrowFlush: partial sums near their bound move into the 128-bit
// sums before a batch could overflow them.
func TestSumNarrowFlush(t *testing.T) {
	a := &sumAgg{res: types.DecimalT(38, 2), class: classDec}
	a.resize(1)
	b := array.NewDecimal128Builder(memory.DefaultAllocator, &arrow.Decimal128Type{Precision: 38, Scale: 2})
	defer b.Release()
	const n = 1000
	v := int64(1<<41 - 1)
	for i := 0; i < n; i++ {
		b.Append(decimal128.FromI64(v))
	}
	col := b.NewArray()
	defer col.Release()
	gids := make([]int32, n)
	want := new(big.Int)
	for i := 0; i < 5000; i++ { // 5e6 * (2^41-1) is past 2^63
		a.update(gids, []arrow.Array{col})
		want.Add(want, big.NewInt(n*v))
	}
	if a.wide {
		t.Fatal("values under the bound took the 128-bit path")
	}
	out := a.finalize(memory.DefaultAllocator, 0, 1).(*array.Decimal128)
	defer out.Release()
	if got := out.Value(0).BigInt(); got.Cmp(want) != 0 {
		t.Fatalf("sum %s, want %s", got, want)
	}
}
