package storage

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Column chunk encoding (one Pebble value per column per segment):
//
//	byte    encoding = encPlain
//	uvarint rows, uvarint nulls, zero padding to 8
//	[nulls > 0] validity bitmap, ceil(rows/8) bytes, padding to 8
//	values: BOOLEAN bitmap | fixed width little-endian | STRING int32
//	        offsets (rows+1, from 0), padding to 8, then the bytes
//
// The sections are exactly Arrow's buffers, so decoding is one copy into
// 8-byte-aligned memory and no per-value work; Pebble's block compression
// squeezes the values on disk.
const encPlain byte = 1

// maxZoneString bounds the strings kept as zone-map bounds.
const maxZoneString = 256

// chunk is rows [off, off+n) (logical indexes) of an Arrow array.
type chunk struct {
	arr    arrow.Array
	off, n int
}

func (c chunk) phys() int { return c.arr.Data().Offset() + c.off }

func (c chunk) nulls() int {
	if c.arr.NullN() == 0 {
		return 0
	}
	if c.arr.DataType().ID() == arrow.NULL {
		return c.n
	}
	return c.n - bitutil.CountSetBits(c.arr.NullBitmapBytes(), c.phys(), c.n)
}

func pad8(b []byte) []byte {
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	return b
}

// growZero extends b by n zero bytes and returns b and the new region.
func growZero(b []byte, n int) ([]byte, []byte) {
	l := len(b)
	b = slices.Grow(b, n)[:l+n]
	clear(b[l:])
	return b, b[l:]
}

// encodeColumn appends the encoding of the chunks (all of one Arrow type,
// rows in total) to dst.
func encodeColumn(dst []byte, dt arrow.DataType, chunks []chunk, rows int) []byte {
	if isNestedArrow(dt) {
		return encodeNested(dst, dt, chunks)
	}
	nulls := 0
	for _, c := range chunks {
		nulls += c.nulls()
	}
	if out, ok := encodeFOR(dst, dt, chunks, rows, nulls); ok {
		return out
	}
	dst = append(dst, encPlain)
	dst = binary.AppendUvarint(dst, uint64(rows))
	dst = binary.AppendUvarint(dst, uint64(nulls))
	dst = pad8(dst)
	if dt.ID() == arrow.NULL {
		return dst
	}
	nbits := int(bitutil.BytesForBits(int64(rows)))
	if nulls > 0 {
		dst = appendValidity(dst, chunks, rows)
	}
	switch dt.ID() {
	case arrow.BOOL:
		var bm []byte
		dst, bm = growZero(dst, nbits)
		pos := 0
		for _, c := range chunks {
			bitutil.CopyBitmap(c.arr.Data().Buffers()[1].Bytes(), c.phys(), c.n, bm, pos)
			pos += c.n
		}
		return pad8(dst)
	case arrow.STRING:
		var offs []byte
		dst, offs = growZero(dst, 4*(rows+1))
		base := int32(0)
		pos := 0
		for _, c := range chunks {
			a := c.arr.(*array.String)
			vo := a.ValueOffsets()[c.off : c.off+c.n+1]
			first := vo[0]
			for i := 1; i <= c.n; i++ {
				binary.LittleEndian.PutUint32(offs[4*(pos+i):], uint32(base+vo[i]-first))
			}
			base += vo[c.n] - first
			pos += c.n
		}
		dst = pad8(dst)
		for _, c := range chunks {
			a := c.arr.(*array.String)
			vo := a.ValueOffsets()
			if a.Len() > 0 {
				dst = append(dst, a.ValueBytes()[vo[c.off]-vo[0]:vo[c.off+c.n]-vo[0]]...)
			}
		}
		return dst
	}
	w := dt.(arrow.FixedWidthDataType).BitWidth() / 8
	for _, c := range chunks {
		buf := c.arr.Data().Buffers()[1].Bytes()
		dst = append(dst, buf[c.phys()*w:(c.phys()+c.n)*w]...)
	}
	return dst
}

// alignedCopy copies v into fresh 8-byte-aligned memory, so the decoded
// Arrow buffers can be read as []int64 or []decimal128.Num.
func alignedCopy(v []byte) []byte {
	if len(v) == 0 {
		return nil
	}
	u := make([]uint64, (len(v)+7)/8)
	b := unsafe.Slice((*byte)(unsafe.Pointer(&u[0])), len(v))
	copy(b, v)
	return b
}

// decodeColumn builds an Arrow array of type dt over buf (which must be
// 8-byte aligned and is referenced, not copied).
func decodeColumn(buf []byte, dt arrow.DataType) (arrow.Array, error) {
	if len(buf) > 0 && buf[0] == encIPC {
		return decodeNested(buf, dt)
	}
	if len(buf) > 0 && buf[0] == encFOR {
		return decodeFOR(buf, dt)
	}
	if len(buf) < 1 || buf[0] != encPlain {
		return nil, errCorrupt
	}
	r := reader{b: buf[1:]}
	rows := int(r.uvarint())
	nulls := int(r.uvarint())
	if r.err != nil {
		return nil, r.err
	}
	pos := (len(buf) - len(r.b) + 7) &^ 7
	if dt.ID() == arrow.NULL {
		return array.NewNull(rows), nil
	}
	take := func(n int) ([]byte, error) {
		if pos+n > len(buf) {
			return nil, errCorrupt
		}
		s := buf[pos : pos+n : pos+n]
		pos = (pos + n + 7) &^ 7
		return s, nil
	}
	nbits := int(bitutil.BytesForBits(int64(rows)))
	var validity *memory.Buffer
	if nulls > 0 {
		bm, err := take(nbits)
		if err != nil {
			return nil, err
		}
		validity = memory.NewBufferBytes(bm)
	}
	var bufs []*memory.Buffer
	switch dt.ID() {
	case arrow.BOOL:
		v, err := take(nbits)
		if err != nil {
			return nil, err
		}
		bufs = []*memory.Buffer{validity, memory.NewBufferBytes(v)}
	case arrow.STRING:
		o, err := take(4 * (rows + 1))
		if err != nil {
			return nil, err
		}
		end := int(binary.LittleEndian.Uint32(o[4*rows:]))
		v, err := take(end)
		if err != nil {
			return nil, err
		}
		bufs = []*memory.Buffer{validity, memory.NewBufferBytes(o), memory.NewBufferBytes(v)}
	default:
		fw, ok := dt.(arrow.FixedWidthDataType)
		if !ok {
			return nil, fmt.Errorf("storage: cannot decode arrow type %s", dt)
		}
		v, err := take(rows * fw.BitWidth() / 8)
		if err != nil {
			return nil, err
		}
		bufs = []*memory.Buffer{validity, memory.NewBufferBytes(v)}
	}
	d := array.NewData(dt, rows, bufs, nil, nulls, 0)
	defer d.Release()
	return array.MakeFromData(d), nil
}

// zoneAcc accumulates one column's zone map over chunks. Integer-like kinds
// (BOOLEAN, ints, DATE, DATETIME) use i, floats f, decimals d, strings s.
type zoneAcc struct {
	t          types.T
	nulls      int64
	has, bad   bool
	imin, imax int64
	fmin, fmax float64
	dmin, dmax decimal128.Num
	smin, smax string
}

func (z *zoneAcc) int(v int64) {
	if !z.has {
		z.imin, z.imax, z.has = v, v, true
	} else if v < z.imin {
		z.imin = v
	} else if v > z.imax {
		z.imax = v
	}
}

func accInts[T int8 | int16 | int32 | int64](z *zoneAcc, vals []T, a arrow.Array, off int) {
	if a.NullN() == 0 {
		if len(vals) == 0 {
			return
		}
		// Branch-free min/max in locals: a segment is 64k values per column.
		lo, hi := vals[0], vals[0]
		for _, v := range vals[1:] {
			lo = min(lo, v)
			hi = max(hi, v)
		}
		z.int(int64(lo))
		z.int(int64(hi))
		return
	}
	for i, v := range vals {
		if a.IsValid(off + i) {
			z.int(int64(v))
		}
	}
}

func accFloats[T float32 | float64](z *zoneAcc, vals []T, a arrow.Array, off int) {
	for i, v := range vals {
		if a.NullN() != 0 && a.IsNull(off+i) {
			continue
		}
		f := float64(v)
		switch {
		case math.IsNaN(f):
			z.bad = true
		case !z.has:
			z.fmin, z.fmax, z.has = f, f, true
		case f < z.fmin:
			z.fmin = f
		case f > z.fmax:
			z.fmax = f
		}
	}
}

// accStrings adds rows [lo, hi) of a. Most values fall strictly between
// the bounds' 8-byte prefixes, which one integer compare each settles; only
// the others are compared whole.
func accStrings(z *zoneAcc, a *array.String, lo, hi int) {
	var pmin, pmax uint64
	if z.has {
		pmin, pmax = strPrefix(z.smin), strPrefix(z.smax)
	}
	nulls := a.NullN() > 0
	for i := lo; i < hi && !z.bad; i++ {
		if nulls && !a.IsValid(i) {
			continue
		}
		v := a.Value(i)
		p := strPrefix(v)
		switch {
		case len(v) > maxZoneString:
			z.bad = true
		case !z.has:
			z.smin, z.smax, z.has = v, v, true
			pmin, pmax = p, p
		case p > pmin && p < pmax:
		case v < z.smin:
			z.smin, pmin = v, p
		case v > z.smax:
			z.smax, pmax = v, p
		}
	}
}

// strPrefix is s's first 8 bytes, zero-padded, as a big-endian number:
// strPrefix(a) > strPrefix(b) implies a > b.
func strPrefix(s string) uint64 {
	if len(s) >= 8 {
		return binary.BigEndian.Uint64(unsafe.Slice(unsafe.StringData(s), 8))
	}
	var p uint64
	for i := 0; i < len(s); i++ {
		p |= uint64(s[i]) << (56 - 8*uint(i))
	}
	return p
}

func (z *zoneAcc) add(c chunk) {
	z.nulls += int64(c.nulls())
	lo, hi := c.off, c.off+c.n
	switch a := c.arr.(type) {
	case *array.Boolean:
		for i := lo; i < hi; i++ {
			if a.IsValid(i) {
				v := int64(0)
				if a.Value(i) {
					v = 1
				}
				z.int(v)
			}
		}
	case *array.Int8:
		accInts(z, a.Int8Values()[lo:hi], a, lo)
	case *array.Int16:
		accInts(z, a.Int16Values()[lo:hi], a, lo)
	case *array.Int32:
		accInts(z, a.Int32Values()[lo:hi], a, lo)
	case *array.Int64:
		accInts(z, a.Int64Values()[lo:hi], a, lo)
	case *array.Date32:
		for i, v := range a.Date32Values()[lo:hi] {
			if a.IsValid(lo + i) {
				z.int(int64(v))
			}
		}
	case *array.Timestamp:
		for i, v := range a.TimestampValues()[lo:hi] {
			if a.IsValid(lo + i) {
				z.int(int64(v))
			}
		}
	case *array.Float32:
		accFloats(z, a.Float32Values()[lo:hi], a, lo)
	case *array.Float64:
		accFloats(z, a.Float64Values()[lo:hi], a, lo)
	case *array.Decimal128:
		for i := lo; i < hi; i++ {
			if !a.IsValid(i) {
				continue
			}
			v := a.Value(i)
			switch {
			case !z.has:
				z.dmin, z.dmax, z.has = v, v, true
			case v.Less(z.dmin):
				z.dmin = v
			case v.Greater(z.dmax):
				z.dmax = v
			}
		}
	case *array.String:
		accStrings(z, a, lo, hi)
	default:
		z.bad = true
	}
}

func (z *zoneAcc) zone() zone {
	out := zone{Nulls: z.nulls}
	if !z.has || z.bad {
		return out
	}
	out.HasMinMax = true
	out.Min, out.Max = types.Datum{T: z.t}, types.Datum{T: z.t}
	switch z.t.Kind {
	case types.Float, types.Double:
		out.Min.F, out.Max.F = z.fmin, z.fmax
	case types.Decimal, types.LargeInt:
		out.Min.Dec, out.Max.Dec = z.dmin, z.dmax
	case types.Char, types.Varchar, types.String, types.JSON:
		// Clone: the bounds outlive the Arrow buffers they point into.
		out.Min.S, out.Max.S = strings.Clone(z.smin), strings.Clone(z.smax)
	default:
		out.Min.I, out.Max.I = z.imin, z.imax
	}
	return out
}

// appendValidity appends the chunks' validity bitmap over rows rows, padded
// to 8 bytes.
func appendValidity(dst []byte, chunks []chunk, rows int) []byte {
	dst, bm := growZero(dst, int(bitutil.BytesForBits(int64(rows))))
	pos := 0
	for _, c := range chunks {
		if c.arr.NullN() == 0 {
			bitutil.SetBitsTo(bm, int64(pos), int64(c.n), true)
		} else {
			bitutil.CopyBitmap(c.arr.NullBitmapBytes(), c.phys(), c.n, bm, pos)
		}
		pos += c.n
	}
	return pad8(dst)
}
