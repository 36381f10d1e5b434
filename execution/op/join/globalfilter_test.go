package join

import (
	"context"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func int64Array(vals []int64) arrow.Array {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(vals, nil)
	return b.NewArray()
}

// passes reports which of vals f keeps.
func passes(f *RuntimeFilter, vals []int64) map[int64]bool {
	a := int64Array(vals)
	defer a.Release()
	sel := make([]int32, len(vals))
	for i := range sel {
		sel[i] = int32(i)
	}
	out := map[int64]bool{}
	for _, i := range f.keep(a, sel) {
		out[vals[i]] = true
	}
	return out
}

// TestGlobalFilterMerge: parts built on different instances, of different
// sizes (their blooms fold to the smaller), sent through Marshal, merge to
// a filter that keeps every key of every part and rejects most others; an
// empty part adds nothing and an "all" part makes the filter pass all.
func TestGlobalFilterMerge(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	var parts [][]int64
	keys := map[int64]bool{}
	for _, n := range []int{10, 5000, 40000} {
		var p []int64
		for i := 0; i < n; i++ {
			v := r.Int63n(1 << 40)
			p = append(p, v)
			keys[v] = true
		}
		parts = append(parts, p)
	}
	g := NewGlobalFilters()
	need := len(parts) + 1
	for i, p := range parts {
		a := int64Array(p)
		f := newRuntimeFilter(a, need)
		a.Release()
		if err := g.Add(3, need, f.Marshal()); err != nil {
			t.Fatal(err)
		}
		if i < len(parts) && g.Get(3) != nil {
			t.Fatalf("complete after %d of %d parts", i+1, need)
		}
	}
	if err := g.Add(3, need, (&RuntimeFilter{empty: true}).Marshal()); err != nil {
		t.Fatal(err)
	}
	f := g.Get(3)
	if f == nil {
		t.Fatal("not complete after every part")
	}
	var all []int64
	for k := range keys {
		all = append(all, k)
	}
	got := passes(f, all)
	for _, k := range all {
		if !got[k] {
			t.Fatalf("key %d of a part rejected by the merged filter", k)
		}
	}
	var others []int64
	for len(others) < 100000 {
		if v := r.Int63n(1 << 40); !keys[v] {
			others = append(others, v)
		}
	}
	if fp := len(passes(f, others)); fp > len(others)/10 {
		t.Errorf("%d of %d non-keys passed the merged filter", fp, len(others))
	}
	// A part past need is ignored; an "all" part passes everything.
	if err := g.Add(3, need, (&RuntimeFilter{all: true}).Marshal()); err != nil {
		t.Fatal(err)
	}
	if g.Get(3) != f {
		t.Error("a part past the count changed the filter")
	}
	if err := g.Add(4, 2, (&RuntimeFilter{all: true}).Marshal()); err != nil {
		t.Fatal(err)
	}
	a := int64Array(parts[0])
	if err := g.Add(4, 2, newRuntimeFilter(a, 2).Marshal()); err != nil {
		t.Fatal(err)
	}
	a.Release()
	if f := g.Get(4); f == nil || len(passes(f, others)) != len(others) {
		t.Error("a filter with an 'all' part does not pass every value")
	}
	for _, bad := range [][]byte{nil, {9}, {0, 1, 2}, append((&RuntimeFilter{min: 1, max: 2, shift: 63, words: make([]uint64, 2)}).Marshal(), 0)} {
		if err := g.Add(5, 1, bad); err == nil {
			t.Errorf("malformed part %v accepted", bad)
		}
	}
}

// TestGlobalFilterWait: Wait returns once every filter is complete, after
// the wait when one never comes, and with the context's error when it is
// cancelled.
func TestGlobalFilterWait(t *testing.T) {
	g := NewGlobalFilters()
	done := make(chan error, 1)
	go func() { done <- g.Wait(context.Background(), []int{1, 2}, time.Minute) }()
	empty := (&RuntimeFilter{empty: true}).Marshal()
	g.Add(1, 1, empty)
	select {
	case <-done:
		t.Fatal("Wait returned with filter 2 missing")
	case <-time.After(20 * time.Millisecond):
	}
	g.Add(2, 2, empty)
	g.Add(2, 2, empty)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := g.Wait(context.Background(), []int{9}, 30*time.Millisecond); err != nil || time.Since(start) < 30*time.Millisecond {
		t.Fatalf("Wait for a filter that never comes: %v after %v", err, time.Since(start))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := g.Wait(ctx, []int{9}, time.Minute); err == nil {
		t.Fatal("Wait ignored a cancelled context")
	}
}

// TestExactSetFilter: keys over a narrow range make an exact bitmap that
// keeps exactly the keys (no false positive), NULL never; two such parts
// merge (at unaligned offsets) to the exact union, through Marshal; a part
// over a wide range makes a bloom, and merged with the sets it keeps every
// key of all three.
func TestExactSetFilter(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	var dense, mid, wide []int64
	for v := int64(101); v < 5000; v += 3 {
		dense = append(dense, v)
	}
	for range 2000 {
		mid = append(mid, 4000+r.Int63n(86000))
	}
	for range 500 {
		wide = append(wide, r.Int63n(1<<40))
	}
	keys := map[int64]bool{}
	for _, p := range [][]int64{dense, mid} {
		for _, v := range p {
			keys[v] = true
		}
	}
	var probe []int64
	for v := int64(0); v < 95000; v++ {
		probe = append(probe, v)
	}
	g := NewGlobalFilters()
	for _, p := range [][]int64{dense, mid} {
		a := int64Array(p)
		f := newRuntimeFilter(a, 3)
		a.Release()
		if f.set == nil {
			t.Fatalf("keys over [%d, %d] made a bloom, want an exact set", f.min, f.max)
		}
		if err := g.Add(1, 2, f.Marshal()); err != nil {
			t.Fatal(err)
		}
	}
	f := g.Get(1)
	if f == nil || f.set == nil {
		t.Fatalf("two exact parts merged to %+v, want an exact set", f)
	}
	got := passes(f, probe)
	for _, v := range probe {
		if got[v] != keys[v] {
			t.Fatalf("value %d: kept %v, is a key %v", v, got[v], keys[v])
		}
	}

	// Few keys over a span of at most 2^18 (SSB Q2.3's 194 part keys over
	// 200,000) still make a set: 32 KiB at most, one bit test a probe; a
	// span past that and past 16 bits a key makes a bloom.
	for _, c := range []struct {
		n    int
		span int64
		set  bool
	}{{194, 200_000, true}, {1000, 1 << 20, false}} {
		var ks []int64
		for range c.n {
			ks = append(ks, 1+r.Int63n(c.span))
		}
		a := int64Array(ks)
		sf := newRuntimeFilter(a, 1)
		a.Release()
		if (sf.set != nil) != c.set {
			t.Fatalf("%d keys over %d: exact set %v, want %v", c.n, c.span, sf.set != nil, c.set)
		}
		if c.set {
			in := map[int64]bool{}
			for _, k := range ks {
				in[k] = true
			}
			var pr []int64
			for v := int64(0); v <= c.span+1; v += 7 {
				pr = append(pr, v)
			}
			pr = append(pr, ks...)
			kept := passes(sf, pr)
			for _, v := range pr {
				if kept[v] != in[v] {
					t.Fatalf("sparse set, value %d: kept %v, is a key %v", v, kept[v], in[v])
				}
			}
			// The branch-free loop keeps the same rows, in order.
			pa := int64Array(pr)
			all := make([]int32, len(pr))
			for i := range all {
				all[i] = int32(i)
			}
			want := sf.keep(pa, append([]int32(nil), all...))
			got := sf.keepMixed(pa, append([]int32(nil), all...))
			odd := make([]int32, 0, len(all)/2) // a selection with gaps
			for i := 1; i < len(all); i += 2 {
				odd = append(odd, int32(i))
			}
			wantOdd := sf.keep(pa, append([]int32(nil), odd...))
			gotOdd := sf.keepMixed(pa, append([]int32(nil), odd...))
			if fmt.Sprint(got) != fmt.Sprint(want) || fmt.Sprint(gotOdd) != fmt.Sprint(wantOdd) || len(want) == 0 {
				t.Fatalf("branch-free keep %d/%d rows, branching %d/%d", len(got), len(gotOdd), len(want), len(wantOdd))
			}
			// Over every row of an array, sliced or not, without a list of rows.
			for _, mixed := range []bool{false, true} {
				if dense := sf.keepAll(pa, nil, mixed); fmt.Sprint(dense) != fmt.Sprint(want) {
					t.Fatalf("keepAll (mixed %v) kept %d rows, keep %d", mixed, len(dense), len(want))
				}
				sl := array.NewSlice(pa, 3, int64(pa.Len()))
				idx := make([]int32, sl.Len())
				for i := range idx {
					idx[i] = int32(i)
				}
				wantSl := sf.keep(sl, idx)
				if dense := sf.keepAll(sl, make([]int32, 5), mixed); fmt.Sprint(dense) != fmt.Sprint(wantSl) {
					t.Fatalf("keepAll of a slice (mixed %v) kept %d rows, keep %d", mixed, len(dense), len(wantSl))
				}
				sl.Release()
			}
			pa.Release()
		}
	}

	a := int64Array(wide)
	wf := newRuntimeFilter(a, 1)
	a.Release()
	if wf.set != nil {
		t.Fatal("keys over 2^40 made an exact set")
	}
	m := mergeFilters(f, wf)
	if m.set != nil {
		t.Fatal("a set merged with a bloom is still a set")
	}
	all := append(append(append([]int64(nil), dense...), mid...), wide...)
	got = passes(m, all)
	for _, v := range all {
		if !got[v] {
			t.Fatalf("key %d rejected by the merged bloom", v)
		}
	}
	if fp := len(passes(m, probe)) - len(keys); fp > len(probe)/10 {
		t.Errorf("%d false positives of %d", fp, len(probe))
	}

	// NULL never passes a set.
	b := array.NewInt64Builder(memory.DefaultAllocator)
	b.AppendValues([]int64{101, 0, 104}, []bool{true, false, true})
	na := b.NewArray()
	b.Release()
	defer na.Release()
	if kept := f.keep(na, []int32{0, 1, 2}); len(kept) != 2 || kept[0] != 0 || kept[1] != 2 {
		t.Errorf("set kept rows %v of [101 NULL 104], want [0 2]", kept)
	}
	enc := f.Marshal()
	for _, bad := range [][]byte{enc[:len(enc)-1], append(append([]byte(nil), enc...), 0), enc[:10]} {
		if _, err := UnmarshalRuntimeFilter(bad); err == nil {
			t.Errorf("malformed set of %d bytes accepted", len(bad))
		}
	}
}

// BenchmarkRuntimeFilterKeep tests 64k probe values against a filter of
// 400 keys over [1, 10000] (TPC-H Q11's German suppliers), as an exact
// set and as the bloom the same keys made before sets existed.
func BenchmarkRuntimeFilterKeep(b *testing.B) {
	for _, c := range []struct {
		name        string
		keys, scale int
		span        int64
	}{
		{"400over10k", 400, 1, 10_000},
		{"2000over10k", 2000, 1, 10_000},      // keeps a fifth (SSB Q3's customers of a region)
		{"194over200k", 194, 1, 200_000},      // SSB Q2.3's part keys
		{"214kover6M", 214_000, 2, 6_000_000}, // a tenth-year of TPC-H orders
	} {
		r := rand.New(rand.NewSource(3))
		keys := make([]int64, c.keys)
		for i := range keys {
			keys[i] = 1 + r.Int63n(c.span)
		}
		ka := int64Array(keys)
		set := newRuntimeFilter(ka, c.scale)
		ka.Release()
		if set.set == nil {
			b.Fatalf("%s: no exact set", c.name)
		}
		bloomed := set.asBloom()
		probe := make([]int64, 1<<16)
		for i := range probe {
			probe[i] = 1 + r.Int63n(c.span)
		}
		pa := int64Array(probe)
		sel := make([]int32, len(probe))
		for _, f := range []struct {
			name  string
			f     *RuntimeFilter
			mixed bool
		}{{"set", set, false}, {"set-branchfree", set, true}, {"bloom", bloomed, false}} {
			b.Run(c.name+"/"+f.name, func(b *testing.B) {
				b.SetBytes(int64(8 * len(probe)))
				for b.Loop() {
					for i := range sel {
						sel[i] = int32(i)
					}
					f.f.keepRows(pa, sel, f.mixed)
				}
			})
			b.Run(c.name+"/"+f.name+"-all", func(b *testing.B) { // the first filter of a scan
				b.SetBytes(int64(8 * len(probe)))
				buf := make([]int32, len(probe))
				for b.Loop() {
					buf = f.f.keepAll(pa, buf, f.mixed)
				}
			})
		}
		pa.Release()
	}
}
