package types

import (
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/zeebo/xxh3"
)

// The distribution hash. It is written once, here, and used by every place
// that must agree on which bucket a row belongs to: the load path routing
// rows to tablets, bucket pruning in the planner, and the bucket-shuffle
// exchange sink sending probe rows to the instance owning their bucket.
//
// Values hash by their logical value, not their physical width: every
// integer kind (and BOOLEAN, DATE, DATETIME) hashes as its int64, so INT 5
// and BIGINT 5 land in the same bucket; floats hash as float64 bits; decimals
// by their 128-bit scaled integer; strings by their bytes. A NULL hashes to a
// fixed constant, so NULL keys (for <=>) meet in one bucket.

const (
	hashSeed = 0x9e3779b97f4a7c15
	nullHash = 0x5bd1e9955bd1e995
)

func mix(h, v uint64) uint64 {
	h ^= v + hashSeed + (h << 6) + (h >> 2)
	// murmur3 finalizer for avalanche
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

func hashInt(v int64) uint64 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(v))
	return xxh3.Hash(b[:])
}

// HashDatums hashes one row's distribution values.
func HashDatums(ds []Datum) uint64 {
	var h uint64
	for _, d := range ds {
		h = mix(h, datumHash(d))
	}
	return h
}

func datumHash(d Datum) uint64 {
	if d.Null {
		return nullHash
	}
	switch d.T.Kind {
	case Float, Double:
		return hashInt(int64(floatBits(d.F)))
	case Decimal, LargeInt:
		return hashDec(d.Dec.LowBits(), d.Dec.HighBits())
	case Char, Varchar, String:
		return xxh3.HashString(d.S)
	}
	return hashInt(d.I)
}

func hashDec(lo uint64, hi int64) uint64 {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], lo)
	binary.LittleEndian.PutUint64(b[8:], uint64(hi))
	return xxh3.Hash(b[:])
}

// HashColumns combines into hashes (len = rows) the hash of each column,
// in order. hashes must be zeroed by the caller for the first call.
func HashColumns(cols []arrow.Array, hashes []uint64) {
	for _, c := range cols {
		hashColumn(c, hashes)
	}
}

func hashColumn(c arrow.Array, hs []uint64) {
	n := c.Len()
	nulls := c.NullN() > 0
	at := func(i int, v uint64) {
		if nulls && c.IsNull(i) {
			v = nullHash
		}
		hs[i] = mix(hs[i], v)
	}
	switch a := c.(type) {
	case *array.Boolean:
		for i := 0; i < n; i++ {
			v := int64(0)
			if a.Value(i) {
				v = 1
			}
			at(i, hashInt(v))
		}
	case *array.Int8:
		for i, v := range a.Int8Values() {
			at(i, hashInt(int64(v)))
		}
	case *array.Int16:
		for i, v := range a.Int16Values() {
			at(i, hashInt(int64(v)))
		}
	case *array.Int32:
		for i, v := range a.Int32Values() {
			at(i, hashInt(int64(v)))
		}
	case *array.Int64:
		for i, v := range a.Int64Values() {
			at(i, hashInt(v))
		}
	case *array.Date32:
		for i, v := range a.Date32Values() {
			at(i, hashInt(int64(v)))
		}
	case *array.Timestamp:
		for i, v := range a.TimestampValues() {
			at(i, hashInt(int64(v)))
		}
	case *array.Float32:
		for i, v := range a.Float32Values() {
			at(i, hashInt(int64(floatBits(float64(v)))))
		}
	case *array.Float64:
		for i, v := range a.Float64Values() {
			at(i, hashInt(int64(floatBits(v))))
		}
	case *array.Decimal128:
		for i := 0; i < n; i++ {
			v := a.Value(i)
			at(i, hashDec(v.LowBits(), v.HighBits()))
		}
	case *array.String:
		for i := 0; i < n; i++ {
			at(i, xxh3.HashString(a.Value(i)))
		}
	case *array.Null:
		for i := 0; i < n; i++ {
			hs[i] = mix(hs[i], nullHash)
		}
	default:
		panic("types: HashColumns on unsupported array " + c.DataType().String())
	}
}

// Bucket maps a distribution hash to a bucket in [0, buckets).
func Bucket(h uint64, buckets int) int { return int(h % uint64(buckets)) }

// floatBits is the bits a float hashes as: -0 as 0, since SQL finds them
// equal (a join or GROUP BY must meet them in one place).
func floatBits(f float64) uint64 {
	if f == 0 {
		return 0
	}
	return math.Float64bits(f)
}
