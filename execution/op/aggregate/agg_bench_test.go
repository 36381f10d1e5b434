package aggregate

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/execution/op/optest"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

func BenchmarkHashAgg(b *testing.B) {
	const rows, groups = 1_000_000, 1000
	r := rand.New(rand.NewSource(2))
	sc, recs := optest.BenchBatches(rows, func(int) int64 { return r.Int63n(groups) })
	env := optest.Env(memory.DefaultAllocator)
	v := optest.ColRef(1, types.BigIntT)
	spec := HashAggSpec{
		Groups: []expr.Expr{optest.ColRef(0, types.BigIntT)},
		Aggs: []AggCall{{Fn: "count"}, {Fn: "sum", Args: []expr.Expr{v}, ArgType: types.BigIntT},
			{Fn: "avg", Args: []expr.Expr{v}, ArgType: types.BigIntT}},
		Output: optest.Cols("k", types.BigIntT, "c", types.BigIntT, "s", types.BigIntT, "a", types.DoubleT),
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a, err := NewHashAgg(env, optest.Replay(sc, recs), spec)
		if err != nil {
			b.Fatal(err)
		}
		if n := optest.CountRows(b, a); n != groups {
			b.Fatalf("%d groups", n)
		}
		a.Close()
	}
	b.ReportMetric(float64(1_000_000/rows*rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkGroupTableStrings is GROUP BY two short strings and an integer
// (SSB Q3's c_city, s_city, d_year): 250 x 160 x 7 possible keys, about
// 270k groups in 1M rows.
func BenchmarkGroupTableStrings(b *testing.B) {
	const rows = 1_000_000
	r := rand.New(rand.NewSource(5))
	var batches [][]arrow.Array
	for start := 0; start < rows; start += op.MaxBatchRows {
		n := min(rows-start, op.MaxBatchRows)
		c1, c2 := array.NewStringBuilder(memory.DefaultAllocator), array.NewStringBuilder(memory.DefaultAllocator)
		y := array.NewInt32Builder(memory.DefaultAllocator)
		for i := 0; i < n; i++ {
			c1.Append(fmt.Sprintf("UNITED KI%d", r.Intn(250)))
			c2.Append(fmt.Sprintf("CITY%d", r.Intn(160)))
			y.Append(int32(1992 + r.Intn(7)))
		}
		batches = append(batches, []arrow.Array{c1.NewArray(), c2.NewArray(), y.NewArray()})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g := newGroupTable()
		var gids, newRows []int32
		for _, cols := range batches {
			gids, newRows = g.insert(cols, gids, newRows)
		}
	}
	b.ReportMetric(float64(1_000_000/rows*rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkSumDecimal is TPC-H Q1's sums: DECIMAL values of a few million
// cents into 4 groups, 1M rows in batches of op.MaxBatchRows. The same 4
// batches come round again, as a batch is in the cache when it reaches the
// aggregate in a query.
func BenchmarkSumDecimal(b *testing.B) {
	const rows = 4 * op.MaxBatchRows
	r := rand.New(rand.NewSource(7))
	dt := types.DecimalT(15, 2)
	var cols []arrow.Array
	var gids [][]int32
	for start := 0; start < rows; start += op.MaxBatchRows {
		n := min(rows-start, op.MaxBatchRows)
		bl := array.NewDecimal128Builder(memory.DefaultAllocator, dt.Arrow().(*arrow.Decimal128Type))
		g := make([]int32, n)
		for i := 0; i < n; i++ {
			bl.Append(decimal128.FromI64(r.Int63n(10_000_000)))
			g[i] = int32(r.Intn(4))
		}
		cols = append(cols, bl.NewArray())
		gids = append(gids, g)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a := &sumAgg{res: types.DecimalT(38, 2), class: classDec}
		a.resize(4)
		for k := 0; k < 1_000_000/rows; k++ {
			for j, c := range cols {
				a.update(gids[j], []arrow.Array{c})
			}
		}
		out := a.finalize(memory.DefaultAllocator, 0, 4)
		out.Release()
	}
	b.ReportMetric(float64(1_000_000/rows*rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
