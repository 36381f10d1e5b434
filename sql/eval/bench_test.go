package eval

import (
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

func benchRec(mem memory.Allocator, n int) arrow.Record {
	r := rand.New(rand.NewSource(1))
	cols := make([]arrow.Array, 3)
	for c := range cols {
		b := array.NewInt64Builder(mem)
		for k := 0; k < n; k++ {
			b.Append(r.Int63n(1 << 30))
		}
		cols[c] = b.NewArray()
		b.Release()
	}
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int64}, {Name: "b", Type: arrow.PrimitiveTypes.Int64},
		{Name: "c", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	rec := array.NewRecord(sch, cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// BenchmarkPredicate evaluates a + b * 2 > c over 1M BIGINT rows.
func BenchmarkPredicate(bm *testing.B) {
	const n = 1 << 20
	mem := memory.NewGoAllocator()
	rec := benchRec(mem, n)
	defer rec.Release()
	col := func(i int, name string) expr.Expr {
		return &expr.ColRef{Index: i, Name: name, T: types.BigIntT}
	}
	mul, _ := expr.NewCall("multiply", col(1, "b"), expr.Lit(types.IntDatum(2)))
	add, _ := expr.NewCall("add", col(0, "a"), mul)
	e, _ := expr.NewCall("gt", add, col(2, "c"))
	benchPredicate(bm, e, rec, mem)
}

// BenchmarkRangeFilter evaluates SSB Q1's shape, a >= x AND a <= y AND
// b < z (column against constants), over 1M BIGINT rows.
func BenchmarkRangeFilter(bm *testing.B) {
	const n = 1 << 20
	mem := memory.NewGoAllocator()
	rec := benchRec(mem, n)
	defer rec.Release()
	a := &expr.ColRef{Index: 0, Name: "a", T: types.BigIntT}
	b := &expr.ColRef{Index: 1, Name: "b", T: types.BigIntT}
	ge, _ := expr.NewCall("ge", a, expr.Lit(types.IntDatum(1<<27)))
	le, _ := expr.NewCall("le", a, expr.Lit(types.IntDatum(1<<29)))
	lt, _ := expr.NewCall("lt", b, expr.Lit(types.IntDatum(1<<28)))
	and1, _ := expr.NewCall("and", ge, le)
	e, _ := expr.NewCall("and", and1, lt)
	benchPredicate(bm, e, rec, mem)
}

// benchPredicate times EvalPredicate of e over rec, reporting rows/s.
func benchPredicate(bm *testing.B, e expr.Expr, rec arrow.Record, mem memory.Allocator) {
	bm.ResetTimer()
	for k := 0; k < bm.N; k++ {
		sel, err := EvalPredicate(tctx, e, rec, mem)
		if err != nil {
			bm.Fatal(err)
		}
		sel.Release()
	}
	bm.ReportMetric(float64(rec.NumRows())*float64(bm.N)/bm.Elapsed().Seconds(), "rows/s")
}
