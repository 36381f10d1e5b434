package eval

import (
	"context"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dorisgo/dorisgo/sql/types"
)

// TestTakeSpansMatchesArrow compares Take of ascending indices (a
// filter's), which copies runs, with arrow's Take kernel over every type
// it handles, sources with NULLs and sliced at odd offsets, and densities
// from sparse (row by row) to all rows.
func TestTakeSpansMatchesArrow(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewSource(11))
	kinds := []types.T{types.BoolT, types.TinyIntT, types.SmallIntT, types.IntT, types.BigIntT,
		types.DoubleT, types.DateT, types.DateTimeT, types.StringT, types.DecimalT(15, 2)}
	spans := 0
	for k, typ := range kinds {
		b := array.NewBuilder(mem, typ.Arrow())
		for i := 0; i < 700; i++ {
			if k%2 == 0 && r.Intn(6) == 0 {
				b.AppendNull()
				continue
			}
			types.AppendDatum(b, randomDatum(r, typ))
		}
		full := b.NewArray()
		b.Release()
		for _, src := range []arrow.Array{full, array.NewSlice(full, 13, 663)} {
			for _, keep := range []float64{0.1, 0.5, 0.9, 0.98, 1} {
				var idx []int32
				for i := 0; i < src.Len(); i++ {
					if r.Float64() < keep {
						idx = append(idx, int32(i))
					}
				}
				if _, ok := idxSpans(idx); ok {
					spans++
				} else if keep >= 0.98 {
					t.Errorf("%s keep %v: dense indices not taken by runs", typ, keep)
				}
				ib := array.NewInt32Builder(mem)
				ib.AppendValues(idx, nil)
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
				if !array.Equal(want, got) {
					t.Errorf("%s keep %v offset %d: Take differs from arrow's", typ, keep, src.Data().Offset())
				}
				want.Release()
				got.Release()
				ia.Release()
			}
			if src != full {
				src.Release()
			}
		}
		full.Release()
	}
	if spans == 0 {
		t.Fatal("runs never used")
	}
}

func TestIdxSpans(t *testing.T) {
	idx := []int32{0}
	for i := int32(60); i < 130; i++ {
		if i != 127 {
			idx = append(idx, i)
		}
	}
	idx = append(idx, 199)
	got, ok := idxSpans(idx)
	want := []span{{0, 1}, {60, 127}, {128, 130}, {199, 200}}
	if !ok || len(got) != len(want) {
		t.Fatalf("spans %v %v, want %v", got, ok, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("spans %v, want %v", got, want)
		}
	}
	// Out of order (a join's gather) and negative (NULL rows) give up.
	idx[5], idx[6] = idx[6], idx[5]
	if _, ok := idxSpans(idx); ok {
		t.Fatal("unordered indices taken as runs")
	}
	idx[5], idx[6] = idx[6], idx[5]
	idx[0] = -1
	if _, ok := idxSpans(idx); ok {
		t.Fatal("negative index taken as a run")
	}
}
