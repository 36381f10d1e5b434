package eval

import (
	"encoding/binary"
	"math/bits"
	"strconv"
	"strings"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sketch"
)

// Kernels of the BITMAP and HLL scalar functions (sql/expr/objfn.go).
// Values are serialized structures in String arrays (sql/types).
//
// This file must sort after eval.go: its init adds to the kernel table
// eval.go's init creates (Go runs a package's init functions in file-name
// order).

func init() {
	for k, v := range objKernels {
		kernels[k] = v
	}
	// NULL in, a value out (Doris: bitmap_count(NULL) = 0, hll_hash(NULL)
	// is the empty HLL).
	// bitmap_or and bitmap_or_count skip NULL arguments, as Doris.
	for _, f := range []string{"bitmap_count", "hll_cardinality", "hll_hash", "bitmap_or", "bitmap_or_count"} {
		lenient[f] = true
	}
	// Never folded into a literal: a literal's text goes through JSON
	// with the plan, which would mangle the structure's bytes.
	for _, f := range []string{"to_bitmap", "bitmap_hash", "bitmap_from_string", "bitmap_empty",
		"bitmap_and", "bitmap_or", "bitmap_xor", "bitmap_not", "hll_hash", "hll_empty"} {
		volatile[f] = true
	}
}

// objRow reads argument k of row r as bytes; ok false for NULL (an
// all-NULL NULL-typed array included).
func objAt(args []vec, k, r int) ([]byte, bool) {
	a := args[k]
	if a.isNull(r) {
		return nil, false
	}
	sc, ok := a.arr.(*array.String)
	if !ok {
		return nil, false
	}
	return []byte(sc.Value(a.idx(r))), true
}

// objKernel lifts a row function of the evaluated arguments returning
// bytes (ok false: NULL) into a String-array kernel.
func objKernel(f func(args []vec, r int) ([]byte, bool)) kernel {
	return func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		m := ev.rows(args)
		b := array.NewStringBuilder(ev.mem)
		defer b.Release()
		b.Reserve(m)
		for i := 0; i < m; i++ {
			v, ok := f(args, i)
			if !ok {
				b.AppendNull()
				continue
			}
			b.BinaryBuilder.Append(v)
		}
		return builderVec(b, args), nil
	}
}

// objIntKernel is objKernel for BIGINT results.
func objIntKernel(f func(args []vec, r int) (int64, bool)) kernel {
	return func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		m := ev.rows(args)
		b := array.NewInt64Builder(ev.mem)
		defer b.Release()
		b.Reserve(m)
		for i := 0; i < m; i++ {
			v, ok := f(args, i)
			if !ok {
				b.AppendNull()
				continue
			}
			b.Append(v)
		}
		return builderVec(b, args), nil
	}
}

// bitmapArgs decodes every argument of row r; ok false if one is NULL.
func bitmapArgs(args []vec, r int) ([]*roaring64.Bitmap, bool) {
	out := make([]*roaring64.Bitmap, len(args))
	for k := range args {
		b, ok := objAt(args, k, r)
		if !ok {
			return nil, false
		}
		out[k] = sketch.Bitmap(b)
	}
	return out, true
}

// bitmapFold combines the bitmaps of a row left to right: NULL if one is
// NULL, or with skipNull if all are.
func bitmapFold(op func(a, b *roaring64.Bitmap), skipNull bool) func(args []vec, r int) ([]byte, bool) {
	return func(args []vec, r int) ([]byte, bool) {
		var bms []*roaring64.Bitmap
		if skipNull {
			for k := range args {
				if b, ok := objAt(args, k, r); ok {
					bms = append(bms, sketch.Bitmap(b))
				}
			}
			if len(bms) == 0 {
				return nil, false
			}
		} else {
			var ok bool
			if bms, ok = bitmapArgs(args, r); !ok {
				return nil, false
			}
		}
		for _, b := range bms[1:] {
			op(bms[0], b)
		}
		return sketch.BitmapBytes(bms[0]), true
	}
}

func bitmapFoldCount(op func(a, b *roaring64.Bitmap), skipNull bool) func(args []vec, r int) (int64, bool) {
	f := bitmapFold(op, skipNull)
	return func(args []vec, r int) (int64, bool) {
		b, ok := f(args, r)
		if !ok {
			return 0, false
		}
		return int64(sketch.Bitmap(b).GetCardinality()), true
	}
}

// uintArg reads argument k of row r as an unsigned 64-bit value: a BIGINT
// (negative: not one) or the text of one.
func uintArg(args []vec, k, r int) (uint64, bool) {
	a := args[k]
	if a.isNull(r) {
		return 0, false
	}
	switch x := a.arr.(type) {
	case *array.Int64:
		v := x.Value(a.idx(r))
		return uint64(v), v >= 0
	case *array.String:
		v, err := strconv.ParseUint(strings.TrimSpace(x.Value(a.idx(r))), 10, 64)
		return v, err == nil
	}
	return 0, false
}

// murmur3 is MurmurHash3's 32-bit hash with seed 0, as Doris's
// bitmap_hash uses.
func murmur3(data []byte) uint32 {
	const c1, c2 = 0xcc9e2d51, 0x1b873593
	var h uint32
	n := len(data)
	for ; len(data) >= 4; data = data[4:] {
		k := binary.LittleEndian.Uint32(data)
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
		h = bits.RotateLeft32(h, 13)
		h = h*5 + 0xe6546b64
	}
	var k uint32
	switch len(data) {
	case 3:
		k ^= uint32(data[2]) << 16
		fallthrough
	case 2:
		k ^= uint32(data[1]) << 8
		fallthrough
	case 1:
		k ^= uint32(data[0])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
	}
	h ^= uint32(n)
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

var objKernels = map[string]kernel{
	"to_bitmap": objKernel(func(args []vec, r int) ([]byte, bool) {
		v, ok := uintArg(args, 0, r)
		if !ok {
			return nil, false
		}
		return sketch.BitmapOf(v), true
	}),
	"bitmap_hash": objKernel(func(args []vec, r int) ([]byte, bool) {
		s, ok := objAt(args, 0, r)
		if !ok {
			return nil, false
		}
		return sketch.BitmapOf(uint64(murmur3(s))), true
	}),
	"bitmap_from_string": objKernel(func(args []vec, r int) ([]byte, bool) {
		s, ok := objAt(args, 0, r)
		if !ok {
			return nil, false
		}
		bm, ok := sketch.ParseBitmap(string(s))
		if !ok {
			return nil, false
		}
		return sketch.BitmapBytes(bm), true
	}),
	"bitmap_empty": objKernel(func(args []vec, r int) ([]byte, bool) { return nil, true }),
	"bitmap_to_string": objKernel(func(args []vec, r int) ([]byte, bool) {
		b, ok := objAt(args, 0, r)
		if !ok {
			return nil, false
		}
		return []byte(sketch.BitmapString(sketch.Bitmap(b))), true
	}),
	"bitmap_count": objIntKernel(func(args []vec, r int) (int64, bool) {
		b, _ := objAt(args, 0, r)
		return int64(sketch.Bitmap(b).GetCardinality()), true
	}),
	"bitmap_min": objIntKernel(func(args []vec, r int) (int64, bool) {
		b, ok := objAt(args, 0, r)
		if !ok {
			return 0, false
		}
		bm := sketch.Bitmap(b)
		if bm.IsEmpty() {
			return 0, false
		}
		return int64(bm.Minimum()), true
	}),
	"bitmap_max": objIntKernel(func(args []vec, r int) (int64, bool) {
		b, ok := objAt(args, 0, r)
		if !ok {
			return 0, false
		}
		bm := sketch.Bitmap(b)
		if bm.IsEmpty() {
			return 0, false
		}
		return int64(bm.Maximum()), true
	}),
	"bitmap_and":       objKernel(bitmapFold(func(a, b *roaring64.Bitmap) { a.And(b) }, false)),
	"bitmap_or":        objKernel(bitmapFold(func(a, b *roaring64.Bitmap) { a.Or(b) }, true)),
	"bitmap_xor":       objKernel(bitmapFold(func(a, b *roaring64.Bitmap) { a.Xor(b) }, false)),
	"bitmap_not":       objKernel(bitmapFold(func(a, b *roaring64.Bitmap) { a.AndNot(b) }, false)),
	"bitmap_and_count": objIntKernel(bitmapFoldCount(func(a, b *roaring64.Bitmap) { a.And(b) }, false)),
	"bitmap_or_count":  objIntKernel(bitmapFoldCount(func(a, b *roaring64.Bitmap) { a.Or(b) }, true)),
	"bitmap_contains": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		m := ev.rows(args)
		b := array.NewBooleanBuilder(ev.mem)
		defer b.Release()
		b.Reserve(m)
		for i := 0; i < m; i++ {
			bs, ok := objAt(args, 0, i)
			v, ok2 := uintArg(args, 1, i)
			if !ok || args[1].isNull(i) {
				b.AppendNull()
				continue
			}
			b.Append(ok2 && sketch.Bitmap(bs).Contains(v))
		}
		return builderVec(b, args), nil
	},
	"hll_hash": objKernel(func(args []vec, r int) ([]byte, bool) {
		s, ok := objAt(args, 0, r)
		if !ok {
			return sketch.HLLBytes(sketch.NewHLL()), true
		}
		return sketch.HLLOf(s), true
	}),
	"hll_empty": objKernel(func(args []vec, r int) ([]byte, bool) { return sketch.HLLBytes(sketch.NewHLL()), true }),
	"hll_cardinality": objIntKernel(func(args []vec, r int) (int64, bool) {
		b, _ := objAt(args, 0, r)
		return int64(sketch.HLL(b).Estimate()), true
	}),
}
