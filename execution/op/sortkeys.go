package op

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dorisgo/dorisgo/sql/expr"
)

// SortKey is one ORDER BY item.
type SortKey struct {
	Expr expr.Expr
	Desc bool
	// NullsFirst places NULLs before all values; DefaultNullsFirst gives
	// MySQL's default.
	NullsFirst bool
}

// DefaultNullsFirst is MySQL's NULL placement: first for ASC, last for DESC
// (NULL is smaller than every value).
func DefaultNullsFirst(desc bool) bool { return !desc }

// SortEnc holds order-preserving ("memcomparable") keys of one batch:
// bytes.Compare of two rows' keys is their ORDER BY order. Per column: a
// NULL marker byte placing NULLs first or last, then the value in
// big-endian sign-flipped form (bytes inverted for DESC); strings escape
// 0x00 as 00 FF and end with 00 01 so a prefix sorts first.
type SortEnc struct {
	Buf  []byte
	Offs []int32
}

func (e *SortEnc) Key(i int) []byte { return e.Buf[e.Offs[i]:e.Offs[i+1]] }
func (e *SortEnc) rows() int        { return len(e.Offs) - 1 }

// prefix is the key's first 8 bytes as a big-endian integer (zero padded),
// a cheap first comparison.
func (e *SortEnc) prefix(i int) uint64 {
	k := e.Key(i)
	if len(k) >= 8 {
		return binary.BigEndian.Uint64(k)
	}
	var b [8]byte
	copy(b[:], k)
	return binary.BigEndian.Uint64(b[:])
}

func sortWidth(a arrow.Array, i int) int32 {
	switch c := a.(type) {
	case *array.String:
		if c.IsNull(i) {
			return 1
		}
		s := c.Value(i)
		n := int32(len(s)) + 3
		for j := 0; j < len(s); j++ {
			if s[j] == 0 {
				n++
			}
		}
		return n
	case *array.Decimal128:
		return 17
	case *array.Null:
		return 1
	}
	return 9
}

func (e *SortEnc) Encode(cols []arrow.Array, keys []SortKey) {
	n := 0
	if len(cols) > 0 {
		n = cols[0].Len()
	}
	e.Offs = GrowInt32(e.Offs, n+1)
	clear(e.Offs)
	for _, c := range cols {
		switch c.(type) {
		case *array.String:
			for i := 0; i < n; i++ {
				e.Offs[i+1] += sortWidth(c, i)
			}
		default:
			w := sortWidth(c, 0)
			for i := 0; i < n; i++ {
				e.Offs[i+1] += w
			}
		}
	}
	for i := 1; i <= n; i++ {
		e.Offs[i] += e.Offs[i-1]
	}
	total := int(e.Offs[n])
	if cap(e.Buf) < total {
		e.Buf = make([]byte, total)
	}
	e.Buf = e.Buf[:total]
	pos := make([]int32, n)
	copy(pos, e.Offs[:n])
	for ci, c := range cols {
		sortEncodeColumn(c, keys[ci], e.Buf, pos)
	}
}

func sortEncodeColumn(c arrow.Array, k SortKey, buf []byte, pos []int32) {
	nullMark := byte(2)
	if k.NullsFirst {
		nullMark = 0
	}
	var inv byte
	if k.Desc {
		inv = 0xff
	}
	nulls := c.NullN() > 0
	put := func(i int, v uint64) {
		p := pos[i]
		if nulls && c.IsNull(i) {
			buf[p] = nullMark
			clear(buf[p+1 : p+9])
		} else {
			buf[p] = 1
			binary.BigEndian.PutUint64(buf[p+1:], v)
			if inv != 0 {
				for j := p + 1; j < p+9; j++ {
					buf[j] ^= inv
				}
			}
		}
		pos[i] = p + 9
	}
	const sign = uint64(1) << 63
	switch a := c.(type) {
	case *array.Int8:
		for i, v := range a.Int8Values() {
			put(i, uint64(int64(v))^sign)
		}
	case *array.Int16:
		for i, v := range a.Int16Values() {
			put(i, uint64(int64(v))^sign)
		}
	case *array.Int32:
		for i, v := range a.Int32Values() {
			put(i, uint64(int64(v))^sign)
		}
	case *array.Int64:
		for i, v := range a.Int64Values() {
			put(i, uint64(v)^sign)
		}
	case *array.Date32:
		for i, v := range a.Date32Values() {
			put(i, uint64(int64(v))^sign)
		}
	case *array.Timestamp:
		for i, v := range a.TimestampValues() {
			put(i, uint64(int64(v))^sign)
		}
	case *array.Boolean:
		for i := 0; i < a.Len(); i++ {
			v := uint64(0)
			if a.Value(i) {
				v = 1
			}
			put(i, v)
		}
	case *array.Float32:
		for i, v := range a.Float32Values() {
			put(i, floatSortBits(float64(v)))
		}
	case *array.Float64:
		for i, v := range a.Float64Values() {
			put(i, floatSortBits(v))
		}
	case *array.Decimal128:
		for i := 0; i < a.Len(); i++ {
			p := pos[i]
			pos[i] = p + 17
			if nulls && a.IsNull(i) {
				buf[p] = nullMark
				clear(buf[p+1 : p+17])
				continue
			}
			v := a.Value(i)
			buf[p] = 1
			binary.BigEndian.PutUint64(buf[p+1:], uint64(v.HighBits())^sign)
			binary.BigEndian.PutUint64(buf[p+9:], v.LowBits())
			if inv != 0 {
				for j := p + 1; j < p+17; j++ {
					buf[j] ^= inv
				}
			}
		}
	case *array.String:
		for i := 0; i < a.Len(); i++ {
			p := pos[i]
			if nulls && a.IsNull(i) {
				buf[p] = nullMark
				pos[i] = p + 1
				continue
			}
			buf[p] = 1
			q := p + 1
			s := a.Value(i)
			for j := 0; j < len(s); j++ {
				buf[q] = s[j] ^ inv
				q++
				if s[j] == 0 {
					buf[q] = 0xff ^ inv
					q++
				}
			}
			buf[q], buf[q+1] = inv, 1^inv
			pos[i] = q + 2
		}
	case *array.Null:
		for i := range pos {
			buf[pos[i]] = nullMark
			pos[i]++
		}
	default:
		panic("op: sort key of unsupported type " + c.DataType().String())
	}
}

func floatSortBits(f float64) uint64 {
	if f == 0 {
		f = 0 // -0 sorts with 0
	}
	b := math.Float64bits(f)
	if b&(1<<63) != 0 {
		return ^b
	}
	return b | 1<<63
}

// SortEntry is one row to sort: its key prefix, then its full key through
// the batch's SortEnc; seq breaks ties so sorting is stable.
type SortEntry struct {
	pre uint64
	Seq int32
}

// SortedOrder returns the rows of e in key order (stable).
func SortedOrder(e *SortEnc) []SortEntry {
	n := e.rows()
	ents := make([]SortEntry, n)
	for i := range ents {
		ents[i] = SortEntry{pre: e.prefix(i), Seq: int32(i)}
	}
	sortEntries(ents, e)
	return ents
}

func sortEntries(ents []SortEntry, e *SortEnc) {
	slices.SortFunc(ents, func(a, b SortEntry) int {
		if a.pre != b.pre {
			if a.pre < b.pre {
				return -1
			}
			return 1
		}
		if c := bytes.Compare(e.Key(int(a.Seq)), e.Key(int(b.Seq))); c != 0 {
			return c
		}
		return int(a.Seq - b.Seq)
	})
}

func SortKeyCols(env *Env, keys []SortKey, rec arrow.Record) ([]arrow.Array, error) {
	es := make([]expr.Expr, len(keys))
	for i, k := range keys {
		es[i] = k.Expr
	}
	return EvalCols(env, es, rec)
}
