package eval

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// span is the half-open row range [lo, hi) of a selection.
type span struct{ lo, hi int32 }

// idxSpans turns ascending indices into runs, when the runs are long
// enough (8 rows on average) for copying them to beat gathering row by
// row: a filter passing most of a batch. It gives up at the first index
// out of order or negative, or once the runs are too many.
func idxSpans(idx []int32) ([]span, bool) {
	if len(idx) < 64 || idx[0] < 0 {
		return nil, false
	}
	limit := len(idx) / 8
	sp := make([]span, 0, 16)
	lo := idx[0]
	for i := 1; i < len(idx); i++ {
		v := idx[i]
		if v == idx[i-1]+1 {
			continue
		}
		if v <= idx[i-1] || len(sp) == limit {
			return nil, false
		}
		sp = append(sp, span{lo, idx[i-1] + 1})
		lo = v
	}
	return append(sp, span{lo, idx[len(idx)-1] + 1}), true
}

// takeSpans gathers the rows of spans (n rows in all) of a: whole runs are
// copied at once, which for a filter passing most rows costs a fraction
// of a gather by index. ok is false for types it does not handle.
func takeSpans(mem memory.Allocator, a arrow.Array, sp []span, n int) (arrow.Array, bool) {
	d := a.Data()
	var valid *memory.Buffer
	nulls := 0
	if a.NullN() > 0 {
		valid = copySpanBits(mem, a.NullBitmapBytes(), d.Offset(), sp, n)
		nulls = n - bitutil.CountSetBits(valid.Bytes(), 0, n)
	}
	var bufs []*memory.Buffer
	switch a.DataType().ID() {
	case arrow.INT8, arrow.UINT8:
		bufs = []*memory.Buffer{valid, spanFixed[uint8](mem, d, sp, n)}
	case arrow.INT16, arrow.UINT16:
		bufs = []*memory.Buffer{valid, spanFixed[uint16](mem, d, sp, n)}
	case arrow.INT32, arrow.UINT32, arrow.FLOAT32, arrow.DATE32:
		bufs = []*memory.Buffer{valid, spanFixed[uint32](mem, d, sp, n)}
	case arrow.INT64, arrow.UINT64, arrow.FLOAT64, arrow.TIMESTAMP, arrow.DATE64:
		bufs = []*memory.Buffer{valid, spanFixed[uint64](mem, d, sp, n)}
	case arrow.DECIMAL128:
		bufs = []*memory.Buffer{valid, spanFixed[[2]uint64](mem, d, sp, n)}
	case arrow.BOOL:
		bufs = []*memory.Buffer{valid, copySpanBits(mem, d.Buffers()[1].Bytes(), d.Offset(), sp, n)}
	case arrow.STRING, arrow.BINARY:
		offs, data := spanStrings(mem, d, sp, n)
		bufs = []*memory.Buffer{valid, offs, data}
	default:
		if valid != nil {
			valid.Release()
		}
		return nil, false
	}
	out := array.NewData(a.DataType(), n, bufs, nil, nulls, 0)
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	defer out.Release()
	return array.MakeFromData(out), true
}

func copySpanBits(mem memory.Allocator, src []byte, off int, sp []span, n int) *memory.Buffer {
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(n))))
	dst := buf.Bytes()
	clear(dst)
	at := 0
	for _, s := range sp {
		l := int(s.hi - s.lo)
		bitutil.CopyBitmap(src, off+int(s.lo), l, dst, at)
		at += l
	}
	return buf
}

func spanFixed[T fixedElem](mem memory.Allocator, d arrow.ArrayData, sp []span, n int) *memory.Buffer {
	var z T
	src := valuesOf[T](d)
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(n * int(unsafe.Sizeof(z)))
	if n == 0 {
		return buf
	}
	dst := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(buf.Bytes()))), n)
	at := 0
	for _, s := range sp {
		at += copy(dst[at:], src[s.lo:s.hi])
	}
	return buf
}

func spanStrings(mem memory.Allocator, d arrow.ArrayData, sp []span, n int) (*memory.Buffer, *memory.Buffer) {
	var raw []byte
	if b := d.Buffers()[1]; b != nil {
		raw = b.Bytes()
	}
	offs := unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(raw))), len(raw)/4)[d.Offset():]
	var data []byte
	if b := d.Buffers()[2]; b != nil {
		data = b.Bytes()
	}
	total := 0
	for _, s := range sp {
		total += int(offs[s.hi] - offs[s.lo])
	}
	ob := memory.NewResizableBuffer(mem)
	ob.Resize(4 * (n + 1))
	dstOffs := unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(ob.Bytes()))), n+1)
	db := memory.NewResizableBuffer(mem)
	db.Resize(total)
	dst := db.Bytes()
	at, base := 0, int32(0)
	for _, s := range sp {
		shift := base - offs[s.lo]
		for k := s.lo; k < s.hi; k++ {
			dstOffs[at] = offs[k] + shift
			at++
		}
		base += int32(copy(dst[base:], data[offs[s.lo]:offs[s.hi]]))
	}
	dstOffs[n] = base
	return ob, db
}
