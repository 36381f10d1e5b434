package join

import (
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestRuntimeFilterSet: every build key passes (no false negatives, at
// every size up to the word cap's neighbourhood), NULL build keys are not
// members, NULL probe values never pass, and most non-keys are rejected.
func TestRuntimeFilterSet(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for _, n := range []int{1, 3, 64, 1000, 100_000} {
		b := array.NewInt32Builder(memory.DefaultAllocator)
		keys := map[int32]bool{}
		for i := 0; i < n; i++ {
			v := int32(r.Int63n(4 * int64(n)))
			keys[v] = true
			b.Append(v)
			if i%10 == 0 {
				b.AppendNull()
			}
		}
		build := b.NewArray()
		f := newRuntimeFilter(build, 1)
		build.Release()

		pb := array.NewInt32Builder(memory.DefaultAllocator)
		for i := 0; i < 4*n+100; i++ {
			pb.Append(int32(i) - 50)
		}
		pb.AppendNull()
		probe := pb.NewArray()
		sel := make([]int32, probe.Len())
		for i := range sel {
			sel[i] = int32(i)
		}
		kept := f.keep(probe, sel)
		got := map[int32]bool{}
		for _, i := range kept {
			if probe.IsNull(int(i)) {
				t.Fatalf("n=%d: a NULL probe value passed", n)
			}
			got[int32(i)-50] = true
		}
		false_ := 0
		for v := int32(-50); v < int32(4*n+50); v++ {
			if keys[v] && !got[v] {
				t.Fatalf("n=%d: build key %d rejected", n, v)
			}
			if !keys[v] && got[v] {
				false_++
			}
		}
		if nonKeys := 4*n + 100 - len(keys); n >= 1000 && float64(false_) > 0.05*float64(nonKeys) {
			t.Errorf("n=%d: %d of %d non-keys passed", n, false_, nonKeys)
		}
		probe.Release()
	}
	// An empty build side passes nothing.
	e := &RuntimeFilter{empty: true}
	pb := array.NewInt64Builder(memory.DefaultAllocator)
	pb.AppendValues([]int64{0, 1, 2}, nil)
	p := pb.NewArray()
	if k := e.keep(p, []int32{0, 1, 2}); len(k) != 0 {
		t.Fatalf("empty filter kept %v", k)
	}
}
