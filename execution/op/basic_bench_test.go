package op_test

import (
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/execution/op/optest"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// BenchmarkFilter: two range conjuncts keeping ~25% of 1M rows (an SSB
// lineorder-style scan filter).
func BenchmarkFilter(b *testing.B) {
	const rows = 1_000_000
	r := rand.New(rand.NewSource(4))
	sc, recs := optest.BenchBatches(rows, func(int) int64 { return r.Int63n(100) })
	env := optest.Env(memory.DefaultAllocator)
	lo, err := expr.NewCall("ge", optest.ColRef(0, types.BigIntT), expr.Lit(types.IntDatum(25)))
	if err != nil {
		b.Fatal(err)
	}
	hi, err := expr.NewCall("lt", optest.ColRef(0, types.BigIntT), expr.Lit(types.IntDatum(50)))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, err := op.NewFilter(env, optest.Replay(sc, recs), []expr.Expr{lo, hi})
		if err != nil {
			b.Fatal(err)
		}
		if n := optest.CountRows(b, f); n < rows/5 || n > rows*3/10 {
			b.Fatalf("%d rows", n)
		}
		f.Close()
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
