package eval

import (
	"context"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dorisgo/dorisgo/sql/types"
)

// TestTakeMatchesArrow compares Take with arrow's Take kernel over every
// physical type, with source NULLs, sliced sources and NULL (negative)
// indices.
func TestTakeMatchesArrow(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewSource(7))
	kinds := []types.T{types.BoolT, types.TinyIntT, types.SmallIntT, types.IntT, types.BigIntT,
		types.DoubleT, types.FloatT, types.DateT, types.DateTimeT, types.StringT,
		types.DecimalT(15, 2), types.LargeIntT}
	for _, typ := range kinds {
		b := array.NewBuilder(mem, typ.Arrow())
		for i := 0; i < 300; i++ {
			if r.Intn(5) == 0 {
				b.AppendNull()
				continue
			}
			types.AppendDatum(b, randomDatum(r, typ))
		}
		full := b.NewArray()
		b.Release()
		for _, src := range []arrow.Array{full, array.NewSlice(full, 17, 250)} {
			for _, withNeg := range []bool{false, true} {
				idx := make([]int32, 500)
				vals := make([]int32, len(idx))
				valid := make([]bool, len(idx))
				for i := range idx {
					idx[i] = int32(r.Intn(src.Len()))
					vals[i], valid[i] = idx[i], true
					if withNeg && r.Intn(4) == 0 {
						idx[i], vals[i], valid[i] = -1, 0, false
					}
				}
				ib := array.NewInt32Builder(mem)
				ib.AppendValues(vals, valid)
				ia := ib.NewArray()
				ib.Release()
				want, err := compute.TakeArray(compute.WithAllocator(context.Background(), mem), src, ia)
				if err != nil {
					t.Fatal(err)
				}
				got, err := Take(mem, src, idx)
				if err != nil {
					t.Fatal(err)
				}
				if !array.Equal(got, want) {
					t.Errorf("%v (len %d, neg %v): Take differs from arrow", typ, src.Len(), withNeg)
				}
				got.Release()
				want.Release()
				ia.Release()
			}
			if src != full {
				src.Release()
			}
		}
		full.Release()
	}
}

func randomDatum(r *rand.Rand, t types.T) types.Datum {
	switch {
	case t.Kind == types.Boolean:
		return types.BoolDatum(r.Intn(2) == 0)
	case t.IsString():
		return types.Datum{T: t, S: string(rune('a'+r.Intn(26))) + "xyz"[:r.Intn(4)]}
	case t.IsFloat():
		return types.Datum{T: t, F: r.NormFloat64()}
	case t.Kind == types.Decimal || t.Kind == types.LargeInt:
		return types.Datum{T: t, Dec: decimal128.FromI64(r.Int63n(1e6) - 5e5)}
	}
	return types.Datum{T: t, I: r.Int63n(100) - 50}
}

func TestSelectedIndices(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	b := array.NewBooleanBuilder(memory.DefaultAllocator)
	for i := 0; i < 1000; i++ {
		b.Append(r.Intn(3) == 0)
	}
	full := b.NewBooleanArray()
	defer full.Release()
	for _, off := range []int{0, 3, 64, 129} {
		s := array.NewSlice(full, int64(off), 1000).(*array.Boolean)
		var want []int32
		for i := 0; i < s.Len(); i++ {
			if s.Value(i) {
				want = append(want, int32(i))
			}
		}
		got := SelectedIndices(s, nil)
		if len(got) != len(want) {
			t.Fatalf("offset %d: %d selected, want %d", off, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("offset %d: index %d = %d, want %d", off, i, got[i], want[i])
			}
		}
		s.Release()
	}
}

// BenchmarkTake compares Take with arrow's Take kernel (what it replaced)
// on 4096-row gathers of BIGINT and VARCHAR columns.
func BenchmarkTake(b *testing.B) {
	mem := memory.DefaultAllocator
	r := rand.New(rand.NewSource(9))
	ib := array.NewInt64Builder(mem)
	sb := array.NewStringBuilder(mem)
	for i := 0; i < 1<<16; i++ {
		ib.Append(r.Int63())
		sb.Append("customer#" + string(rune('a'+r.Intn(26))))
	}
	cols := []arrow.Array{ib.NewArray(), sb.NewArray()}
	idx := make([]int32, 4096)
	for i := range idx {
		idx[i] = int32(r.Intn(1 << 16))
	}
	i32 := array.NewInt32Builder(mem)
	i32.AppendValues(idx, nil)
	ia := i32.NewArray()
	for _, c := range cols {
		b.Run(c.DataType().String()+"/dorisgo", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				a, err := Take(mem, c, idx)
				if err != nil {
					b.Fatal(err)
				}
				a.Release()
			}
			b.ReportMetric(float64(len(idx))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
		b.Run(c.DataType().String()+"/arrow", func(b *testing.B) {
			b.ReportAllocs()
			ctx := compute.WithAllocator(context.Background(), mem)
			for i := 0; i < b.N; i++ {
				a, err := compute.TakeArray(ctx, c, ia)
				if err != nil {
					b.Fatal(err)
				}
				a.Release()
			}
			b.ReportMetric(float64(len(idx))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
