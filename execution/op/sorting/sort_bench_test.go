package sorting

import (
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/execution/op/optest"
	"github.com/dorisgo/dorisgo/sql/types"
)

func BenchmarkSort(b *testing.B) {
	const rows = 1_000_000
	r := rand.New(rand.NewSource(3))
	sc, recs := optest.BenchBatches(rows, func(int) int64 { return r.Int63() })
	env := optest.Env(memory.DefaultAllocator)
	spec := SortSpec{Keys: []op.SortKey{{Expr: optest.ColRef(0, types.BigIntT)}}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := NewSort(env, optest.Replay(sc, recs), spec)
		if n := optest.CountRows(b, s); n != rows {
			b.Fatalf("%d rows", n)
		}
		s.Close()
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
