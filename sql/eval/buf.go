package eval

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/sql/types"
)

// fixedBuf allocates a zeroed value buffer for m elements of E and returns
// it with a typed view.
func fixedBuf[E any](mem memory.Allocator, m int) (*memory.Buffer, []E) {
	var zero E
	size := int(unsafe.Sizeof(zero))
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(m * size)
	b := buf.Bytes()
	if m == 0 {
		return buf, nil
	}
	return buf, unsafe.Slice((*E)(unsafe.Pointer(&b[0])), m)
}

// newArray wraps buffers as an array of SQL type t, taking ownership.
func newArray(t types.T, m int, valid, vals *memory.Buffer, nulls int) arrow.Array {
	data := array.NewData(t.Arrow(), m, []*memory.Buffer{valid, vals}, nil, nulls, 0)
	if valid != nil {
		valid.Release()
	}
	vals.Release()
	arr := array.MakeFromData(data)
	data.Release()
	return arr
}

// fixedVec wraps a computed value buffer as the kernel result for args.
func (ev *evaluator) fixedVec(t types.T, m int, valid, vals *memory.Buffer, args []vec) vec {
	nulls := 0
	if valid != nil {
		nulls = array.UnknownNullCount
	}
	return vec{arr: newArray(t, m, valid, vals, nulls), scalar: allScalar(args), owned: true}
}

// bitmapOf returns v's validity bitmap and its bit offset (nil: no nulls).
func bitmapOf(v vec) ([]byte, int) {
	if v.arr.NullN() == 0 {
		return nil, 0
	}
	return v.arr.NullBitmapBytes(), v.arr.Data().Offset()
}

// validity ANDs the validity of the non-scalar args into a fresh bitmap of
// m bits (nil when no arg has nulls). Scalar NULL args are handled before
// kernels run, so scalars never narrow validity here.
func (ev *evaluator) validity(m int, args ...vec) *memory.Buffer {
	var out *memory.Buffer
	for _, a := range args {
		if a.nullScalar() {
			if out == nil {
				out = memory.NewResizableBuffer(ev.mem)
				out.Resize(int(bitutil.BytesForBits(int64(m))))
			}
			bitutil.SetBitsTo(out.Bytes(), 0, int64(m), false)
			return out
		}
		if a.scalar {
			continue
		}
		bm, off := bitmapOf(a)
		if bm == nil {
			continue
		}
		if out == nil {
			out = memory.NewResizableBuffer(ev.mem)
			out.Resize(int(bitutil.BytesForBits(int64(m))))
			bitutil.CopyBitmap(bm, off, m, out.Bytes(), 0)
			continue
		}
		b := out.Bytes()
		bitutil.BitmapAnd(b, bm, 0, int64(off), b, 0, int64(m))
	}
	return out
}

// validityMut is validity but always allocated, for kernels that add nulls
// (division by zero, unparsable input).
func (ev *evaluator) validityMut(m int, args ...vec) *memory.Buffer {
	if out := ev.validity(m, args...); out != nil {
		return out
	}
	out := memory.NewResizableBuffer(ev.mem)
	out.Resize(int(bitutil.BytesForBits(int64(m))))
	bitutil.SetBitsTo(out.Bytes(), 0, int64(m), true)
	return out
}

// validAt reads bit i of a validity bitmap (nil = all valid).
func validAt(bm []byte, i int) bool { return bm == nil || bitutil.BitIsSet(bm, i) }

// boolBuf allocates a zeroed bit-packed boolean value buffer.
func boolBuf(mem memory.Allocator, m int) (*memory.Buffer, []byte) {
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(m))))
	b := buf.Bytes()
	for i := range b {
		b[i] = 0
	}
	return buf, b
}

// Typed value views; the arrays are already offset-adjusted by arrow.
func i64s(v vec) []int64 { return v.arr.(*array.Int64).Int64Values() }
func f64s(v vec) []float64 {
	return v.arr.(*array.Float64).Float64Values()
}
func bools(v vec) *array.Boolean { return v.arr.(*array.Boolean) }
func strs(v vec) *array.String   { return v.arr.(*array.String) }

// builderVec finishes a builder as the kernel result.
func builderVec(b array.Builder, args []vec) vec {
	return vec{arr: b.NewArray(), scalar: allScalar(args), owned: true}
}
