// Package sketch is layer 0: the serialized value structures behind
// Doris's BITMAP and HLL column types and the approximate aggregate states
// (HyperLogLog for ndv, t-digest for percentile_approx). Values travel
// between operators, across the exchange and into storage as their byte
// serialization, so every function here takes and returns bytes; an empty
// byte string is the empty structure (Doris's bitmap_empty() / hll_empty()).
//
// BITMAP is a 64-bit Roaring bitmap (RoaringBitmap/roaring/v2 roaring64,
// portable serialization); HLL is an axiomhq/hyperloglog sketch of
// precision 14 (sparse while small, so small cardinalities are exact).
// The byte formats are ours, not Doris's: a BITMAP or HLL loaded from
// Doris's binary format is not read (Doris reads it only through
// bitmap_from_base64 and the like, which we do not offer).
package sketch

import (
	"strconv"
	"strings"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/axiomhq/hyperloglog"
)

// Bitmap decodes a serialized BITMAP; empty or unreadable bytes are the
// empty bitmap.
func Bitmap(b []byte) *roaring64.Bitmap {
	bm := roaring64.New()
	if len(b) == 0 {
		return bm
	}
	if err := bm.UnmarshalBinary(b); err != nil {
		return roaring64.New()
	}
	return bm
}

// BitmapBytes serializes a bitmap; the empty bitmap is the empty string so
// that bitmap_empty() costs nothing to store.
func BitmapBytes(bm *roaring64.Bitmap) []byte {
	if bm.IsEmpty() {
		return nil
	}
	bm.RunOptimize()
	b, err := bm.ToBytes()
	if err != nil {
		return nil // writing to memory cannot fail
	}
	return b
}

// BitmapOf is the serialized bitmap of the given values.
func BitmapOf(vs ...uint64) []byte { return BitmapBytes(roaring64.BitmapOf(vs...)) }

// BitmapString renders a bitmap as Doris's bitmap_to_string: ascending
// values separated by commas, "" for the empty bitmap.
func BitmapString(bm *roaring64.Bitmap) string {
	var sb strings.Builder
	it := bm.Iterator()
	first := true
	for it.HasNext() {
		if !first {
			sb.WriteByte(',')
		}
		first = false
		sb.WriteString(strconv.FormatUint(it.Next(), 10))
	}
	return sb.String()
}

// ParseBitmap reads bitmap_from_string's input: comma-separated unsigned
// integers (spaces allowed). ok is false for anything else, which Doris
// answers with NULL.
func ParseBitmap(s string) (*roaring64.Bitmap, bool) {
	bm := roaring64.New()
	s = strings.TrimSpace(s)
	if s == "" {
		return bm, true
	}
	for _, p := range strings.Split(s, ",") {
		v, err := strconv.ParseUint(strings.TrimSpace(p), 10, 64)
		if err != nil {
			return nil, false
		}
		bm.Add(v)
	}
	return bm, true
}

// NewHLL is an empty HyperLogLog sketch.
func NewHLL() *hyperloglog.Sketch { return hyperloglog.New14() }

// HLL decodes a serialized HLL; empty or unreadable bytes are the empty
// sketch.
func HLL(b []byte) *hyperloglog.Sketch {
	sk := NewHLL()
	if len(b) == 0 {
		return sk
	}
	if err := sk.UnmarshalBinary(b); err != nil {
		return NewHLL()
	}
	return sk
}

// HLLBytes serializes a sketch.
func HLLBytes(sk *hyperloglog.Sketch) []byte {
	b, err := sk.MarshalBinary()
	if err != nil {
		return nil
	}
	return b
}

// MergeHLL folds src into dst (both precision 14, so it cannot fail).
func MergeHLL(dst, src *hyperloglog.Sketch) { _ = dst.Merge(src) }

// HLLOf is the serialized sketch of one value's bytes (hll_hash).
func HLLOf(v []byte) []byte {
	sk := NewHLL()
	sk.Insert(v)
	return HLLBytes(sk)
}
