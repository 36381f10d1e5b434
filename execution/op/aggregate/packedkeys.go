package aggregate

import (
	"encoding/binary"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// A packing lays the key columns of a GROUP BY of narrow columns (small
// integers, dates, booleans, strings of a few bytes: TPC-H Q1's two CHAR(1)
// flags) side by side in one uint64, so that the group table hashes and
// compares one word per row instead of encoding and comparing bytes.
// Each column has a field of its own: a NULL bit above its value bits
// (for a string: a 3-bit length, then up to 7 bytes).
type packing struct {
	fields []packField
}

type packField struct {
	typ   arrow.DataType
	shift uint // the field's lowest bit
	bits  uint // value bits; a string's are its bytes, the length above them
	cap   int  // a string's most bytes
}

// newPacking lays out cols, or says they do not fit in 64 bits (a type it
// does not pack, or strings of this batch longer than their share).
func newPacking(cols []arrow.Array) (*packing, bool) {
	p := &packing{fields: make([]packField, len(cols))}
	used, strs := uint(0), 0
	for i, c := range cols {
		f := &p.fields[i]
		f.typ = c.DataType()
		switch c.DataType().ID() {
		case arrow.INT8, arrow.UINT8:
			f.bits = 8
		case arrow.INT16, arrow.UINT16:
			f.bits = 16
		case arrow.INT32, arrow.UINT32, arrow.DATE32:
			f.bits = 32
		case arrow.BOOL:
			f.bits = 1
		case arrow.STRING:
			strs++
			continue
		default:
			return nil, false
		}
		used += f.bits + 1
	}
	if used > 64 {
		return nil, false
	}
	if strs > 0 {
		// The bits left are shared by the strings: each takes a NULL bit,
		// a 3-bit length and whole bytes, at most 7.
		per := int((64-used)/uint(strs)) - 4
		c := min(per/8, 7)
		if c < 1 {
			return nil, false
		}
		for i := range p.fields {
			if p.fields[i].typ.ID() == arrow.STRING {
				p.fields[i].cap = c
				p.fields[i].bits = uint(8*c) + 3
			}
		}
	}
	shift := uint(0)
	for i := range p.fields {
		p.fields[i].shift = shift
		shift += p.fields[i].bits + 1
	}
	if !p.fits(cols) {
		return nil, false
	}
	return p, true
}

// fits says whether every string of cols is within its field.
func (p *packing) fits(cols []arrow.Array) bool {
	for i, f := range p.fields {
		if f.cap == 0 {
			continue
		}
		offs := cols[i].(*array.String).ValueOffsets()
		for j := 1; j < len(offs); j++ {
			if int(offs[j]-offs[j-1]) > f.cap {
				return false
			}
		}
	}
	return true
}

// pack sets dst[i] to row i's packed key.
func (p *packing) pack(cols []arrow.Array, dst []uint64) {
	clear(dst)
	for i, f := range p.fields {
		c := cols[i]
		sh := f.shift
		switch a := c.(type) {
		case *array.Int8:
			for r, v := range a.Int8Values() {
				dst[r] |= uint64(uint8(v)) << sh
			}
		case *array.Uint8:
			for r, v := range a.Uint8Values() {
				dst[r] |= uint64(v) << sh
			}
		case *array.Int16:
			for r, v := range a.Int16Values() {
				dst[r] |= uint64(uint16(v)) << sh
			}
		case *array.Uint16:
			for r, v := range a.Uint16Values() {
				dst[r] |= uint64(v) << sh
			}
		case *array.Int32:
			for r, v := range a.Int32Values() {
				dst[r] |= uint64(uint32(v)) << sh
			}
		case *array.Uint32:
			for r, v := range a.Uint32Values() {
				dst[r] |= uint64(v) << sh
			}
		case *array.Date32:
			for r, v := range a.Date32Values() {
				dst[r] |= uint64(uint32(v)) << sh
			}
		case *array.Boolean:
			for r := range dst {
				if a.Value(r) {
					dst[r] |= 1 << sh
				}
			}
		case *array.String:
			// Offsets index the whole values buffer (ValueBytes starts
			// at a slice's first value).
			offs := a.ValueOffsets()
			var data []byte
			if b := a.Data().Buffers()[2]; b != nil {
				data = b.Bytes()
			}
			lenAt := sh + uint(8*f.cap)
			for r := range dst {
				lo, hi := offs[r], offs[r+1]
				var v uint64
				if int(lo)+8 <= len(data) {
					// One load for the (at most 7) bytes, masked to the
					// value's length (1<<64 is 0: a mask of all ones).
					v = binary.LittleEndian.Uint64(data[lo:]) & (1<<(8*uint(hi-lo)) - 1)
				} else {
					for k, b := range data[lo:hi] {
						v |= uint64(b) << (8 * k)
					}
				}
				dst[r] |= v<<sh | uint64(hi-lo)<<lenAt
			}
		}
		if c.NullN() > 0 {
			// A NULL is its bit alone: clear what its slot held.
			null := uint64(1) << (sh + f.bits)
			mask := (null<<1 - 1) &^ (uint64(1)<<sh - 1)
			for r := range dst {
				if c.IsNull(r) {
					dst[r] = dst[r]&^mask | null
				}
			}
		}
	}
}

// unpack rebuilds the key columns of packed keys (the table changing to
// byte keys when a later batch's strings are too long for their fields).
func (p *packing) unpack(mem memory.Allocator, keys []uint64) []arrow.Array {
	out := make([]arrow.Array, len(p.fields))
	for i, f := range p.fields {
		b := array.NewBuilder(mem, f.typ)
		valMask := uint64(1)<<f.bits - 1
		for _, k := range keys {
			if k>>(f.shift+f.bits)&1 == 1 {
				b.AppendNull()
				continue
			}
			v := k >> f.shift & valMask
			switch bb := b.(type) {
			case *array.Int8Builder:
				bb.Append(int8(v))
			case *array.Uint8Builder:
				bb.Append(uint8(v))
			case *array.Int16Builder:
				bb.Append(int16(v))
			case *array.Uint16Builder:
				bb.Append(uint16(v))
			case *array.Int32Builder:
				bb.Append(int32(v))
			case *array.Uint32Builder:
				bb.Append(uint32(v))
			case *array.Date32Builder:
				bb.Append(arrow.Date32(int32(v)))
			case *array.BooleanBuilder:
				bb.Append(v == 1)
			case *array.StringBuilder:
				n := int(v >> uint(8*f.cap))
				s := make([]byte, n)
				for j := range s {
					s[j] = byte(v >> uint(8*j))
				}
				bb.BinaryBuilder.Append(s)
			}
		}
		out[i] = b.NewArray()
		b.Release()
	}
	return out
}
