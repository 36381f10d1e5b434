package storage

import (
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Frame-of-reference encoding of integer-like columns (ints, DATE,
// DATETIME, and DECIMALs whose values fit 64 bits):
//
//	byte    encoding = encFOR
//	uvarint rows, uvarint nulls, zero padding to 8
//	[nulls > 0] validity bitmap, ceil(rows/8) bytes, padding to 8
//	byte    width (1, 2, 4 or 8), zero padding to 8
//	int64   base, little-endian
//	values: rows × width bytes, each value − base (a NULL row: 0)
//
// TPC-H's prices, quantities, discounts and dates take 1 to 4 bytes instead
// of 4 to 16: a scan that misses the column cache (SF 10's lineitem is
// larger than it) reads, checksums and copies a fraction of the bytes, and
// widens them in one loop.
const encFOR byte = 3

// forKind says whether columns of dt can be frame-of-reference encoded,
// and their width in bytes.
func forKind(dt arrow.DataType) (int, bool) {
	switch dt.ID() {
	case arrow.INT8:
		return 1, true
	case arrow.INT16:
		return 2, true
	case arrow.INT32, arrow.DATE32:
		return 4, true
	case arrow.INT64, arrow.TIMESTAMP:
		return 8, true
	case arrow.DECIMAL128:
		return 16, true
	}
	return 0, false
}

// chunkInt64 is value i of a w-byte values buffer as an int64; ok is false for a DECIMAL
// beyond 64 bits.
func chunkInt64(raw []byte, w, i int) (int64, bool) {
	switch w {
	case 1:
		return int64(int8(raw[i])), true
	case 2:
		return int64(int16(binary.LittleEndian.Uint16(raw[2*i:]))), true
	case 4:
		return int64(int32(binary.LittleEndian.Uint32(raw[4*i:]))), true
	case 8:
		return int64(binary.LittleEndian.Uint64(raw[8*i:])), true
	}
	lo := binary.LittleEndian.Uint64(raw[16*i:])
	hi := binary.LittleEndian.Uint64(raw[16*i+8:])
	return int64(lo), int64(hi) == int64(lo)>>63
}

// encodeFOR appends the FOR encoding of the chunks to dst, or returns dst
// unchanged and false when it would not be smaller than plain.
func encodeFOR(dst []byte, dt arrow.DataType, chunks []chunk, rows, nulls int) ([]byte, bool) {
	w, ok := forKind(dt)
	if !ok || rows == 0 {
		return dst, false
	}
	minV, maxV, seen := int64(math.MaxInt64), int64(math.MinInt64), false
	for _, c := range chunks {
		raw := c.arr.Data().Buffers()[1].Bytes()
		valid := c.arr.NullBitmapBytes()
		hasNulls := c.arr.NullN() > 0
		for i := 0; i < c.n; i++ {
			p := c.phys() + i
			if hasNulls && !bitutil.BitIsSet(valid, p) {
				continue
			}
			v, fits := chunkInt64(raw, w, p)
			if !fits {
				return dst, false
			}
			minV, maxV, seen = min(minV, v), max(maxV, v), true
		}
	}
	if !seen {
		minV, maxV = 0, 0
	}
	span := uint64(maxV) - uint64(minV)
	ow := 8
	switch {
	case span <= math.MaxUint8:
		ow = 1
	case span <= math.MaxUint16:
		ow = 2
	case span <= math.MaxUint32:
		ow = 4
	}
	if ow >= w {
		return dst, false
	}
	dst = append(dst, encFOR)
	dst = binary.AppendUvarint(dst, uint64(rows))
	dst = binary.AppendUvarint(dst, uint64(nulls))
	dst = pad8(dst)
	if nulls > 0 {
		dst = appendValidity(dst, chunks, rows)
	}
	dst = append(dst, byte(ow))
	dst = pad8(dst)
	dst = binary.LittleEndian.AppendUint64(dst, uint64(minV))
	var vals []byte
	dst, vals = growZero(dst, rows*ow)
	at := 0
	for _, c := range chunks {
		raw := c.arr.Data().Buffers()[1].Bytes()
		valid := c.arr.NullBitmapBytes()
		hasNulls := c.arr.NullN() > 0
		for i := 0; i < c.n; i, at = i+1, at+1 {
			p := c.phys() + i
			if hasNulls && !bitutil.BitIsSet(valid, p) {
				continue
			}
			v, _ := chunkInt64(raw, w, p)
			d := uint64(v) - uint64(minV)
			switch ow {
			case 1:
				vals[at] = byte(d)
			case 2:
				binary.LittleEndian.PutUint16(vals[2*at:], uint16(d))
			case 4:
				binary.LittleEndian.PutUint32(vals[4*at:], uint32(d))
			default:
				binary.LittleEndian.PutUint64(vals[8*at:], d)
			}
		}
	}
	return pad8(dst), true
}

// decodeFOR decodes an encFOR column of type dt from buf (8-byte aligned;
// the validity bitmap is referenced, the values widened into new memory).
func decodeFOR(buf []byte, dt arrow.DataType) (arrow.Array, error) {
	w, ok := forKind(dt)
	if !ok {
		return nil, errCorrupt
	}
	r := reader{b: buf[1:]}
	rows := int(r.uvarint())
	nulls := int(r.uvarint())
	if r.err != nil || rows < 0 || nulls < 0 || nulls > rows {
		return nil, errCorrupt
	}
	pos := (len(buf) - len(r.b) + 7) &^ 7
	take := func(n int) ([]byte, error) {
		if n < 0 || pos+n > len(buf) {
			return nil, errCorrupt
		}
		s := buf[pos : pos+n : pos+n]
		pos = (pos + n + 7) &^ 7
		return s, nil
	}
	var validity *memory.Buffer
	if nulls > 0 {
		bm, err := take(int(bitutil.BytesForBits(int64(rows))))
		if err != nil {
			return nil, err
		}
		validity = memory.NewBufferBytes(bm)
	}
	hdr, err := take(1)
	if err != nil {
		return nil, err
	}
	ow := int(hdr[0])
	b8, err := take(8)
	if err != nil {
		return nil, err
	}
	base := int64(binary.LittleEndian.Uint64(b8))
	if ow != 1 && ow != 2 && ow != 4 && ow != 8 {
		return nil, errCorrupt
	}
	src, err := take(rows * ow)
	if err != nil {
		return nil, err
	}
	out := alignedZero(rows * w)
	switch ow {
	case 1:
		widenTo(unsafeSlice[uint8](src, rows), base, out, w)
	case 2:
		widenTo(unsafeSlice[uint16](src, rows), base, out, w)
	case 4:
		widenTo(unsafeSlice[uint32](src, rows), base, out, w)
	default:
		widenTo(unsafeSlice[uint64](src, rows), base, out, w)
	}
	d := array.NewData(dt, rows, []*memory.Buffer{validity, memory.NewBufferBytes(out)}, nil, nulls, 0)
	defer d.Release()
	return array.MakeFromData(d), nil
}

// alignedZero is n zero bytes, 8-byte aligned.
func alignedZero(n int) []byte {
	if n == 0 {
		return nil
	}
	u := make([]uint64, (n+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(&u[0])), n)
}

func unsafeSlice[T uint8 | uint16 | uint32 | uint64](b []byte, n int) []T {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// widenTo writes base + src[i] into out as values w bytes wide (16: a
// DECIMAL, sign-extended to 128 bits).
func widenTo[S uint8 | uint16 | uint32 | uint64](src []S, base int64, out []byte, w int) {
	n := len(src)
	if n == 0 {
		return
	}
	p := unsafe.Pointer(unsafe.SliceData(out))
	switch w {
	case 1:
		dst := unsafe.Slice((*int8)(p), n)
		for i, v := range src {
			dst[i] = int8(base + int64(v))
		}
	case 2:
		dst := unsafe.Slice((*int16)(p), n)
		for i, v := range src {
			dst[i] = int16(base + int64(v))
		}
	case 4:
		dst := unsafe.Slice((*int32)(p), n)
		for i, v := range src {
			dst[i] = int32(base + int64(v))
		}
	case 8:
		dst := unsafe.Slice((*int64)(p), n)
		for i, v := range src {
			dst[i] = base + int64(v)
		}
	default:
		dst := unsafe.Slice((*[2]int64)(p), n)
		for i, v := range src {
			x := base + int64(v)
			dst[i] = [2]int64{x, x >> 63}
		}
	}
}
