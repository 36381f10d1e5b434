package op

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dorisgo/dorisgo/sql/types"
)

// Row keys. Hash joins, aggregation, DISTINCT and set operations compare
// multi-column keys by encoding each row's key values, column by column
// (one typed loop per column, never per-row dispatch), into one byte
// string per row; equal values give equal bytes. Integer kinds (and BOOLEAN,
// DATE, DATETIME) encode as int64 as types.HashColumns hashes them, so keys
// of different integer widths still meet. Sorting uses a second,
// order-preserving encoding (sortkeys.go).

// EncKeys holds the encoded keys of one batch.
type EncKeys struct {
	Buf  []byte
	Offs []int32 // row i is buf[offs[i]:offs[i+1]]
	// Null[i]: row i has a NULL in a column compared with '=' (never equal).
	Null    []bool
	AnyNull bool
	pos     []int32 // scratch: each row's write position
}

func (k *EncKeys) Key(i int) []byte { return k.Buf[k.Offs[i]:k.Offs[i+1]] }

// FixedWidth is the encoded width of a non-string value (0 for strings).
func FixedWidth(a arrow.Array) int {
	switch a.DataType().ID() {
	case arrow.STRING:
		return 0
	case arrow.DECIMAL128:
		return 16
	case arrow.NULL:
		return 0
	}
	return 8
}

// ValueKeyed says whether cols is one column whose rows FixedKeyValues
// turns into 8-byte values that are equal exactly when the keys are.
func ValueKeyed(cols []arrow.Array) bool { return len(cols) == 1 && FixedWidth(cols[0]) == 8 }

// Encode fills k from cols. nullSafe[c] marks a '<=>' column (NULL equals
// NULL); nil means every column is null-safe (GROUP BY, DISTINCT, set ops).
func (k *EncKeys) Encode(cols []arrow.Array, nullSafe []bool) {
	n := 0
	if len(cols) > 0 {
		n = cols[0].Len()
	}
	k.Offs = GrowInt32(k.Offs, n+1)
	k.Null = GrowBool(k.Null, n)
	clear(k.Null)
	k.AnyNull = false
	stride, varLen := 0, false
	for _, c := range cols {
		if c.DataType().ID() == arrow.STRING {
			varLen = true
		}
		stride += 1 + FixedWidth(c)
	}
	if !varLen {
		for i := 0; i <= n; i++ {
			k.Offs[i] = int32(i * stride)
		}
	} else {
		for i := 0; i <= n; i++ {
			k.Offs[i] = 0
		}
		for _, c := range cols {
			w := int32(1 + FixedWidth(c))
			s, isStr := c.(*array.String)
			if !isStr {
				for i := 0; i < n; i++ {
					k.Offs[i+1] += w
				}
				continue
			}
			// A string is its marker, a 4-byte length and its bytes (a NULL
			// only the marker): offsets straight from Arrow's.
			vo := s.ValueOffsets()
			nulls := c.NullN() > 0
			for i := 0; i < n; i++ {
				if nulls && c.IsNull(i) {
					k.Offs[i+1] += w
				} else {
					k.Offs[i+1] += w + 4 + vo[i+1] - vo[i]
				}
			}
		}
		for i := 1; i <= n; i++ {
			k.Offs[i] += k.Offs[i-1]
		}
	}
	total := int(k.Offs[n])
	if cap(k.Buf) < total {
		k.Buf = make([]byte, total)
	}
	k.Buf = k.Buf[:total]
	k.pos = GrowInt32(k.pos, n)
	pos := k.pos
	copy(pos, k.Offs[:n])
	for ci, c := range cols {
		strict := nullSafe != nil && !nullSafe[ci]
		if c.NullN() > 0 {
			for i := 0; i < n; i++ {
				if c.IsNull(i) {
					k.AnyNull = true
					if strict {
						k.Null[i] = true
					}
				}
			}
		}
		encodeColumn(c, k.Buf, pos)
	}
}

// encodeColumn appends column c's value of row i at buf[pos[i]] and
// advances pos[i]. A NULL writes only its marker byte (and zero padding for
// fixed widths, so that strides stay fixed).
func encodeColumn(c arrow.Array, buf []byte, pos []int32) {
	nulls := c.NullN() > 0
	put8 := func(i int, v uint64) {
		p := pos[i]
		if nulls && c.IsNull(i) {
			buf[p] = 0
			binary.LittleEndian.PutUint64(buf[p+1:], 0)
		} else {
			buf[p] = 1
			binary.LittleEndian.PutUint64(buf[p+1:], v)
		}
		pos[i] = p + 9
	}
	switch a := c.(type) {
	case *array.Int8:
		for i, v := range a.Int8Values() {
			put8(i, uint64(int64(v)))
		}
	case *array.Int16:
		for i, v := range a.Int16Values() {
			put8(i, uint64(int64(v)))
		}
	case *array.Int32:
		for i, v := range a.Int32Values() {
			put8(i, uint64(int64(v)))
		}
	case *array.Int64:
		for i, v := range a.Int64Values() {
			put8(i, uint64(v))
		}
	case *array.Date32:
		for i, v := range a.Date32Values() {
			put8(i, uint64(int64(v)))
		}
	case *array.Timestamp:
		for i, v := range a.TimestampValues() {
			put8(i, uint64(int64(v)))
		}
	case *array.Float32:
		for i, v := range a.Float32Values() {
			put8(i, floatKey(float64(v)))
		}
	case *array.Float64:
		for i, v := range a.Float64Values() {
			put8(i, floatKey(v))
		}
	case *array.Boolean:
		for i := 0; i < a.Len(); i++ {
			v := uint64(0)
			if a.Value(i) {
				v = 1
			}
			put8(i, v)
		}
	case *array.Decimal128:
		for i := 0; i < a.Len(); i++ {
			p := pos[i]
			if nulls && a.IsNull(i) {
				buf[p] = 0
				clear(buf[p+1 : p+17])
			} else {
				v := a.Value(i)
				buf[p] = 1
				binary.LittleEndian.PutUint64(buf[p+1:], v.LowBits())
				binary.LittleEndian.PutUint64(buf[p+9:], uint64(v.HighBits()))
			}
			pos[i] = p + 17
		}
	case *array.String:
		vo, data := a.ValueOffsets(), a.ValueBytes()
		base := vo[0] // ValueBytes starts at the array's first value
		for i := 0; i < a.Len(); i++ {
			p := pos[i]
			if nulls && a.IsNull(i) {
				buf[p] = 0
				pos[i] = p + 1
				continue
			}
			v := data[vo[i]-base : vo[i+1]-base]
			buf[p] = 1
			binary.LittleEndian.PutUint32(buf[p+1:], uint32(len(v)))
			copy(buf[p+5:], v)
			pos[i] = p + 5 + int32(len(v))
		}
	case *array.Null:
		for i := range pos {
			buf[pos[i]] = 0
			pos[i]++
		}
	default:
		panic("op: key of unsupported type " + c.DataType().String())
	}
}

// FixedKeyValues writes the 8-byte key value of every row of a (as
// encodeColumn encodes it, so integer widths still meet; NULL rows get 0)
// into dst (len a.Len()).
func FixedKeyValues(a arrow.Array, dst []uint64) []uint64 {
	switch c := a.(type) {
	case *array.Int8:
		for i, v := range c.Int8Values() {
			dst[i] = uint64(int64(v))
		}
	case *array.Int16:
		for i, v := range c.Int16Values() {
			dst[i] = uint64(int64(v))
		}
	case *array.Int32:
		for i, v := range c.Int32Values() {
			dst[i] = uint64(int64(v))
		}
	case *array.Int64:
		for i, v := range c.Int64Values() {
			dst[i] = uint64(v)
		}
	case *array.Date32:
		for i, v := range c.Date32Values() {
			dst[i] = uint64(int64(v))
		}
	case *array.Timestamp:
		for i, v := range c.TimestampValues() {
			dst[i] = uint64(int64(v))
		}
	case *array.Float32:
		for i, v := range c.Float32Values() {
			dst[i] = floatKey(float64(v))
		}
	case *array.Float64:
		for i, v := range c.Float64Values() {
			dst[i] = floatKey(v)
		}
	case *array.Boolean:
		for i := range dst {
			dst[i] = 0
			if c.Value(i) {
				dst[i] = 1
			}
		}
	default:
		panic("op: fixed key of unsupported type " + a.DataType().String())
	}
	if a.NullN() > 0 {
		for i := range dst {
			if a.IsNull(i) {
				dst[i] = 0
			}
		}
	}
	return dst
}

// FixedHash mixes a key value (murmur3's finalizer) so that its top bits,
// which pick the bucket, depend on every input bit.
func FixedHash(v uint64) uint64 {
	v ^= v >> 33
	v *= 0xff51afd7ed558ccd
	v ^= v >> 33
	v *= 0xc4ceb9fe1a85ec53
	return v ^ v>>33
}

// floatKey makes -0 equal 0, as SQL compares them.
func floatKey(f float64) uint64 {
	if f == 0 {
		return 0
	}
	return math.Float64bits(f)
}

func GrowInt32(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:n]
}

func GrowBool(s []bool, n int) []bool {
	if cap(s) < n {
		return make([]bool, n)
	}
	return s[:n]
}

func GrowU64(s []uint64, n int) []uint64 {
	if cap(s) < n {
		return make([]uint64, n)
	}
	return s[:n]
}

// HashKeys fills hs with types.HashColumns of cols.
func HashKeys(cols []arrow.Array, hs []uint64) []uint64 {
	n := 0
	if len(cols) > 0 {
		n = cols[0].Len()
	}
	hs = GrowU64(hs, n)
	clear(hs)
	types.HashColumns(cols, hs)
	return hs
}

// TableBits sizes a power-of-two bucket array for n entries (load ≤ 1).
func TableBits(n int) uint {
	b := uint(bits.Len(uint(n)))
	if b < 4 {
		b = 4
	}
	return b
}

// BucketOf uses the hash's top bits: its low bits are shared by every row
// of one hash-shuffled instance (the exchange routes by hash mod n).
func BucketOf(h uint64, b uint) int { return int(h >> (64 - b)) }
