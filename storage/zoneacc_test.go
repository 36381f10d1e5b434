package storage

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dorisgo/dorisgo/sql/types"
)

// The string zone map's prefix shortcut gives the bounds a plain
// comparison of every value gives: empty strings, shared prefixes longer
// and shorter than 8 bytes, bytes above 0x7f, NULLs, several chunks.
func TestZoneStringsMatchPlainMinMax(t *testing.T) {
	alphabet := []string{"", "a", "ab", "abcdefgh", "abcdefghi", "abcdefgh\x00", "abcdefgg\xff", "\xff", "\x00", "zz", "12345678", "1234567"}
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		b := array.NewStringBuilder(memory.DefaultAllocator)
		n := 1 + rng.IntN(40)
		var want []string
		for i := 0; i < n; i++ {
			if rng.IntN(6) == 0 {
				b.AppendNull()
				continue
			}
			v := alphabet[rng.IntN(len(alphabet))]
			if rng.IntN(3) == 0 {
				v += string(rune('a' + rng.IntN(26)))
			}
			b.Append(v)
			want = append(want, v)
		}
		arr := b.NewArray()
		b.Release()
		z := zoneAcc{t: types.VarcharT(300)}
		cut := rng.IntN(n + 1)
		z.add(chunk{arr: arr, off: 0, n: cut})
		z.add(chunk{arr: arr, off: cut, n: n - cut})
		if len(want) == 0 {
			if z.has {
				t.Fatalf("trial %d: bounds without values", trial)
			}
			arr.Release()
			continue
		}
		lo, hi := want[0], want[0]
		for _, v := range want {
			lo, hi = min(lo, v), max(hi, v)
		}
		if !z.has || z.smin != lo || z.smax != hi {
			t.Fatalf("trial %d: zone [%q, %q], want [%q, %q] over %q", trial, z.smin, z.smax, lo, hi, want)
		}
		if z.nulls != int64(n-len(want)) {
			t.Fatalf("trial %d: %d nulls, want %d", trial, z.nulls, n-len(want))
		}
		arr.Release()
	}
}
