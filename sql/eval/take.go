package eval

import (
	"context"
	"math/bits"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// Take gathers rows idx of a (a negative index gives a NULL row). It is a
// typed loop per physical width for the types dorisgo uses (integers,
// floats, dates, datetimes, decimals, booleans, strings): arrow's generic
// Take kernel costs several times more per row (dispatch, bounds checks,
// index-array wrapping) and dominated join output and filters in profiles.
// Other types fall back to compute.Take.
func Take(mem memory.Allocator, a arrow.Array, idx []int32) (arrow.Array, error) {
	sp, _ := idxSpans(idx)
	return take(mem, a, idx, sp)
}

// TakeColumns is Take of every column of cols, finding the runs of idx
// once for all of them.
func TakeColumns(mem memory.Allocator, cols []arrow.Array, idx []int32) ([]arrow.Array, error) {
	sp, _ := idxSpans(idx)
	out := make([]arrow.Array, len(cols))
	for i, c := range cols {
		a, err := take(mem, c, idx, sp)
		if err != nil {
			for _, p := range out[:i] {
				p.Release()
			}
			return nil, err
		}
		out[i] = a
	}
	return out, nil
}

// take is Take, copying the runs sp of idx when there are (nil: none).
func take(mem memory.Allocator, a arrow.Array, idx []int32, sp []span) (arrow.Array, error) {
	if sp != nil {
		if out, ok := takeSpans(mem, a, sp, len(idx)); ok {
			return out, nil
		}
	}
	d := a.Data()
	n := len(idx)
	// Validity: needed if the source has NULLs or an index is negative.
	srcValid, off := []byte(nil), d.Offset()
	if a.NullN() > 0 {
		srcValid = a.NullBitmapBytes()
	}
	neg := false
	for _, v := range idx {
		if v < 0 {
			neg = true
			break
		}
	}
	var validBuf *memory.Buffer
	nulls := 0
	if srcValid != nil || neg {
		validBuf = memory.NewResizableBuffer(mem)
		validBuf.Resize(int(bitutil.BytesForBits(int64(n))))
		vb := validBuf.Bytes()
		clear(vb)
		for i, v := range idx {
			if v >= 0 && (srcValid == nil || bitutil.BitIsSet(srcValid, off+int(v))) {
				bitutil.SetBit(vb, i)
			} else {
				nulls++
			}
		}
		if nulls == 0 {
			validBuf.Release()
			validBuf = nil
		}
	}
	var bufs []*memory.Buffer
	switch a.DataType().ID() {
	case arrow.INT8, arrow.UINT8:
		bufs = []*memory.Buffer{validBuf, takeFixed[uint8](mem, d, idx)}
	case arrow.INT16, arrow.UINT16:
		bufs = []*memory.Buffer{validBuf, takeFixed[uint16](mem, d, idx)}
	case arrow.INT32, arrow.UINT32, arrow.FLOAT32, arrow.DATE32:
		bufs = []*memory.Buffer{validBuf, takeFixed[uint32](mem, d, idx)}
	case arrow.INT64, arrow.UINT64, arrow.FLOAT64, arrow.TIMESTAMP, arrow.DATE64:
		bufs = []*memory.Buffer{validBuf, takeFixed[uint64](mem, d, idx)}
	case arrow.DECIMAL128:
		bufs = []*memory.Buffer{validBuf, takeFixed[[2]uint64](mem, d, idx)}
	case arrow.BOOL:
		bufs = []*memory.Buffer{validBuf, takeBits(mem, d, idx)}
	case arrow.STRING, arrow.BINARY:
		offs, data := takeStrings(mem, d, idx)
		bufs = []*memory.Buffer{validBuf, offs, data}
	default:
		if validBuf != nil {
			validBuf.Release()
		}
		return takeGeneric(mem, a, idx)
	}
	out := array.NewData(a.DataType(), n, bufs, nil, nulls, 0)
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	defer out.Release()
	return array.MakeFromData(out), nil
}

type fixedElem interface {
	uint8 | uint16 | uint32 | uint64 | [2]uint64
}

// valuesOf views buffer 1 of d as []T from the array's offset on.
func valuesOf[T fixedElem](d arrow.ArrayData) []T {
	b := d.Buffers()[1]
	if b == nil || b.Len() == 0 {
		return nil
	}
	var z T
	raw := b.Bytes()
	all := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(raw))), len(raw)/int(unsafe.Sizeof(z)))
	return all[d.Offset() : d.Offset()+d.Len()]
}

func takeFixed[T fixedElem](mem memory.Allocator, d arrow.ArrayData, idx []int32) *memory.Buffer {
	var z T
	src := valuesOf[T](d)
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(len(idx) * int(unsafe.Sizeof(z)))
	raw := buf.Bytes()
	if len(idx) == 0 {
		return buf
	}
	dst := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(raw))), len(idx))
	for i, v := range idx {
		if v >= 0 {
			dst[i] = src[v]
		} else {
			dst[i] = z
		}
	}
	return buf
}

func takeBits(mem memory.Allocator, d arrow.ArrayData, idx []int32) *memory.Buffer {
	src, off := d.Buffers()[1].Bytes(), d.Offset()
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(len(idx)))))
	dst := buf.Bytes()
	clear(dst)
	for i, v := range idx {
		if v >= 0 && bitutil.BitIsSet(src, off+int(v)) {
			bitutil.SetBit(dst, i)
		}
	}
	return buf
}

func takeStrings(mem memory.Allocator, d arrow.ArrayData, idx []int32) (*memory.Buffer, *memory.Buffer) {
	var raw []byte
	if b := d.Buffers()[1]; b != nil {
		raw = b.Bytes()
	}
	offs := unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(raw))), len(raw)/4)[d.Offset():]
	var data []byte
	if b := d.Buffers()[2]; b != nil {
		data = b.Bytes()
	}
	ob := memory.NewResizableBuffer(mem)
	ob.Resize(4 * (len(idx) + 1))
	dstOffs := unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(ob.Bytes()))), len(idx)+1)
	total := 0
	for i, v := range idx {
		dstOffs[i] = int32(total)
		if v >= 0 {
			total += int(offs[v+1] - offs[v])
		}
	}
	dstOffs[len(idx)] = int32(total)
	db := memory.NewResizableBuffer(mem)
	db.Resize(total)
	dst := db.Bytes()
	for i, v := range idx {
		if v >= 0 {
			copy(dst[dstOffs[i]:dstOffs[i+1]], data[offs[v]:offs[v+1]])
		}
	}
	return ob, db
}

func takeGeneric(mem memory.Allocator, a arrow.Array, idx []int32) (arrow.Array, error) {
	vals := make([]int32, len(idx))
	var valid []byte
	nulls := 0
	for i, v := range idx {
		if v < 0 {
			if valid == nil {
				valid = make([]byte, bitutil.BytesForBits(int64(len(idx))))
				for j := range valid {
					valid[j] = 0xff
				}
			}
			bitutil.ClearBit(valid, i)
			nulls++
			continue
		}
		vals[i] = v
	}
	var vb *memory.Buffer
	if valid != nil {
		vb = memory.NewBufferBytes(valid)
	}
	d := array.NewData(arrow.PrimitiveTypes.Int32, len(idx),
		[]*memory.Buffer{vb, memory.NewBufferBytes(arrow.GetBytes(vals))}, nil, nulls, 0)
	defer d.Release()
	ia := array.MakeFromData(d)
	defer ia.Release()
	out, err := compute.TakeArray(compute.WithAllocator(context.Background(), mem), a, ia)
	if err != nil {
		return nil, sqlerr.Assertf("take: %v", err)
	}
	return out, nil
}

// SelectedIndices appends to idx the positions where sel is TRUE (NULL
// does not select).
func SelectedIndices(sel *array.Boolean, idx []int32) []int32 {
	if sel.NullN() > 0 {
		for i := 0; i < sel.Len(); i++ {
			if sel.IsValid(i) && sel.Value(i) {
				idx = append(idx, int32(i))
			}
		}
		return idx
	}
	bm, off, n := sel.Data().Buffers()[1].Bytes(), sel.Data().Offset(), sel.Len()
	i := 0
	// Unaligned head bit by bit, then 64 bits at a time.
	for ; i < n && (off+i)%8 != 0; i++ {
		if bitutil.BitIsSet(bm, off+i) {
			idx = append(idx, int32(i))
		}
	}
	for ; i+64 <= n; i += 64 {
		p := (off + i) / 8
		w := uint64(bm[p]) | uint64(bm[p+1])<<8 | uint64(bm[p+2])<<16 | uint64(bm[p+3])<<24 |
			uint64(bm[p+4])<<32 | uint64(bm[p+5])<<40 | uint64(bm[p+6])<<48 | uint64(bm[p+7])<<56
		for w != 0 {
			idx = append(idx, int32(i+bits.TrailingZeros64(w)))
			w &= w - 1
		}
	}
	for ; i < n; i++ {
		if bitutil.BitIsSet(bm, off+i) {
			idx = append(idx, int32(i))
		}
	}
	return idx
}
