package join

import (
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/execution/op/optest"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

func BenchmarkHashJoin(b *testing.B) {
	const probe, build = 1_000_000, 100_000
	r := rand.New(rand.NewSource(1))
	lsc, left := optest.BenchBatches(probe, func(int) int64 { return r.Int63n(build) })
	rsc, right := optest.BenchBatches(build, func(i int) int64 { return int64(i) })
	env := optest.Env(memory.DefaultAllocator)
	k := optest.ColRef(0, types.BigIntT)
	spec := HashJoinSpec{Type: fragment.JoinInner, LeftKeys: []expr.Expr{k}, RightKeys: []expr.Expr{k},
		Output: append(optest.Cols("k", types.BigIntT, "v", types.BigIntT), optest.Cols("k2", types.BigIntT, "v2", types.BigIntT)...)}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j, err := NewHashJoin(env, optest.Replay(lsc, left), optest.Replay(rsc, right), spec)
		if err != nil {
			b.Fatal(err)
		}
		if n := optest.CountRows(b, j); n != probe {
			b.Fatalf("%d rows", n)
		}
		j.Close()
	}
	b.ReportMetric(float64(probe+build)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
