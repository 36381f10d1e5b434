package op

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// benchBatches builds n rows of (k BIGINT, v BIGINT) in 4096-row batches,
// k from key(i).
func benchBatches(n int, key func(i int) int64) (*arrow.Schema, []arrow.Record) {
	cs := cols("k", types.BigIntT, "v", types.BigIntT)
	sc := types.ArrowSchema(cs)
	var recs []arrow.Record
	for start := 0; start < n; start += maxBatchRows {
		end := min(n, start+maxBatchRows)
		kb := array.NewInt64Builder(memory.DefaultAllocator)
		vb := array.NewInt64Builder(memory.DefaultAllocator)
		for i := start; i < end; i++ {
			kb.Append(key(i))
			vb.Append(int64(i))
		}
		k, v := kb.NewArray(), vb.NewArray()
		recs = append(recs, array.NewRecord(sc, []arrow.Array{k, v}, int64(end-start)))
		k.Release()
		v.Release()
		kb.Release()
		vb.Release()
	}
	return sc, recs
}

func replay(sc *arrow.Schema, recs []arrow.Record) *sliceOp {
	s := &sliceOp{sc: sc, recs: make([]arrow.Record, len(recs))}
	for i, r := range recs {
		r.Retain()
		s.recs[i] = r
	}
	return s
}

func countRows(b *testing.B, o Operator) int {
	n := 0
	if err := Drain(context.Background(), o, func(r arrow.Record) error { n += int(r.NumRows()); return nil }); err != nil {
		b.Fatal(err)
	}
	return n
}

func BenchmarkHashJoin(b *testing.B) {
	const probe, build = 1_000_000, 100_000
	r := rand.New(rand.NewSource(1))
	lsc, left := benchBatches(probe, func(int) int64 { return r.Int63n(build) })
	rsc, right := benchBatches(build, func(i int) int64 { return int64(i) })
	env := testEnv(memory.DefaultAllocator)
	k := colRef(0, types.BigIntT)
	spec := HashJoinSpec{Type: fragment.JoinInner, LeftKeys: []expr.Expr{k}, RightKeys: []expr.Expr{k},
		Output: append(cols("k", types.BigIntT, "v", types.BigIntT), cols("k2", types.BigIntT, "v2", types.BigIntT)...)}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j, err := NewHashJoin(env, replay(lsc, left), replay(rsc, right), spec)
		if err != nil {
			b.Fatal(err)
		}
		if n := countRows(b, j); n != probe {
			b.Fatalf("%d rows", n)
		}
		j.Close()
	}
	b.ReportMetric(float64(probe+build)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkHashAgg(b *testing.B) {
	const rows, groups = 1_000_000, 1000
	r := rand.New(rand.NewSource(2))
	sc, recs := benchBatches(rows, func(int) int64 { return r.Int63n(groups) })
	env := testEnv(memory.DefaultAllocator)
	v := colRef(1, types.BigIntT)
	spec := HashAggSpec{
		Groups: []expr.Expr{colRef(0, types.BigIntT)},
		Aggs: []AggCall{{Fn: "count"}, {Fn: "sum", Args: []expr.Expr{v}, ArgType: types.BigIntT},
			{Fn: "avg", Args: []expr.Expr{v}, ArgType: types.BigIntT}},
		Output: cols("k", types.BigIntT, "c", types.BigIntT, "s", types.BigIntT, "a", types.DoubleT),
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a, err := NewHashAgg(env, replay(sc, recs), spec)
		if err != nil {
			b.Fatal(err)
		}
		if n := countRows(b, a); n != groups {
			b.Fatalf("%d groups", n)
		}
		a.Close()
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkSort(b *testing.B) {
	const rows = 1_000_000
	r := rand.New(rand.NewSource(3))
	sc, recs := benchBatches(rows, func(int) int64 { return r.Int63() })
	env := testEnv(memory.DefaultAllocator)
	spec := SortSpec{Keys: []SortKey{{Expr: colRef(0, types.BigIntT)}}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := NewSort(env, replay(sc, recs), spec)
		if n := countRows(b, s); n != rows {
			b.Fatalf("%d rows", n)
		}
		s.Close()
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkFilter: two range conjuncts keeping ~25% of 1M rows (an SSB
// lineorder-style scan filter).
func BenchmarkFilter(b *testing.B) {
	const rows = 1_000_000
	r := rand.New(rand.NewSource(4))
	sc, recs := benchBatches(rows, func(int) int64 { return r.Int63n(100) })
	env := testEnv(memory.DefaultAllocator)
	lo, err := expr.NewCall("ge", colRef(0, types.BigIntT), expr.Lit(types.IntDatum(25)))
	if err != nil {
		b.Fatal(err)
	}
	hi, err := expr.NewCall("lt", colRef(0, types.BigIntT), expr.Lit(types.IntDatum(50)))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, err := NewFilter(env, replay(sc, recs), []expr.Expr{lo, hi})
		if err != nil {
			b.Fatal(err)
		}
		if n := countRows(b, f); n < rows/5 || n > rows*3/10 {
			b.Fatalf("%d rows", n)
		}
		f.Close()
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkGroupTableStrings is GROUP BY two short strings and an integer
// (SSB Q3's c_city, s_city, d_year): 250 x 160 x 7 possible keys, about
// 270k groups in 1M rows.
func BenchmarkGroupTableStrings(b *testing.B) {
	const rows = 1_000_000
	r := rand.New(rand.NewSource(5))
	var batches [][]arrow.Array
	for start := 0; start < rows; start += maxBatchRows {
		n := min(rows-start, maxBatchRows)
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
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
