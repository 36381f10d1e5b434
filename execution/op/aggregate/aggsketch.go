package aggregate

import (
	"encoding/binary"
	"math"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/axiomhq/hyperloglog"
	"github.com/dorisgo/dorisgo/sql/sketch"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Sketch aggregates: NDV / APPROX_COUNT_DISTINCT and the HLL unions over
// HyperLogLog, the bitmap unions over 64-bit Roaring bitmaps. Their partial
// state is the serialized sketch (one STRING column), so the exchange
// carries a few KB per group instead of the distinct values.

// valueBytes appends row i's value in a fixed byte form (what NDV hashes):
// integers and dates as 8 bytes, floats by their bits (−0 as 0), decimals
// as 16 bytes, strings as themselves.
func valueBytes(b []byte, col arrow.Array, i int) []byte {
	switch c := col.(type) {
	case *array.String:
		return append(b, c.Value(i)...)
	case *array.Float64:
		v := c.Value(i)
		if v == 0 {
			v = 0
		}
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	case *array.Float32:
		v := float64(c.Value(i))
		if v == 0 {
			v = 0
		}
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	case *array.Decimal128:
		v := c.Value(i)
		b = binary.LittleEndian.AppendUint64(b, v.LowBits())
		return binary.LittleEndian.AppendUint64(b, uint64(v.HighBits()))
	case *array.Int64:
		return binary.LittleEndian.AppendUint64(b, uint64(c.Value(i)))
	case *array.Int32:
		return binary.LittleEndian.AppendUint64(b, uint64(c.Value(i)))
	case *array.Int16:
		return binary.LittleEndian.AppendUint64(b, uint64(c.Value(i)))
	case *array.Int8:
		return binary.LittleEndian.AppendUint64(b, uint64(c.Value(i)))
	case *array.Date32:
		return binary.LittleEndian.AppendUint64(b, uint64(c.Value(i)))
	case *array.Timestamp:
		return binary.LittleEndian.AppendUint64(b, uint64(c.Value(i)))
	case *array.Boolean:
		if c.Value(i) {
			return append(b, 1)
		}
		return append(b, 0)
	}
	return b
}

type hllMode uint8

const (
	hllNDV      hllMode = iota // NDV(x): values in, count out
	hllUnionAgg                // HLL_UNION_AGG(h): HLLs in, count out
	hllUnion                   // HLL_UNION(h): HLLs in, HLL out
)

// hllAgg keeps one sketch per group (nil until the group's first value).
type hllAgg struct {
	mode hllMode
	sks  []*hyperloglog.Sketch
	buf  []byte
	live int64
}

func (a *hllAgg) resize(g int) { a.sks = resizeSlice(a.sks, g) }

func (a *hllAgg) sk(g int32) *hyperloglog.Sketch {
	if a.sks[g] == nil {
		a.sks[g] = sketch.NewHLL()
		a.live++
	}
	return a.sks[g]
}

func (a *hllAgg) update(gids []int32, args []arrow.Array) {
	col := args[0]
	if col.DataType().ID() == arrow.NULL {
		return
	}
	if a.mode != hllNDV {
		a.merge(gids, args)
		return
	}
	nulls := col.NullN() > 0
	for i, g := range gids {
		if nulls && col.IsNull(i) {
			continue
		}
		a.buf = valueBytes(a.buf[:0], col, i)
		a.sk(g).Insert(a.buf)
	}
}

func (a *hllAgg) merge(gids []int32, states []arrow.Array) {
	sc, ok := states[0].(*array.String)
	if !ok {
		return
	}
	for i, g := range gids {
		if sc.IsNull(i) {
			continue
		}
		sketch.MergeHLL(a.sk(g), sketch.HLL([]byte(sc.Value(i))))
	}
}

func (a *hllAgg) serialize(mem memory.Allocator, from, to int) []arrow.Array {
	out := make([]string, to-from)
	for i := range out {
		if s := a.sks[from+i]; s != nil {
			out[i] = string(sketch.HLLBytes(s))
		}
	}
	return []arrow.Array{buildStrings(mem, out, nil)}
}

// finalize: the counts are 0 for a group without values (Doris: count-like),
// HLL_UNION's sketch is then the empty sketch.
func (a *hllAgg) finalize(mem memory.Allocator, from, to int) arrow.Array {
	if a.mode == hllUnion {
		out := make([]string, to-from)
		for i := range out {
			if s := a.sks[from+i]; s != nil {
				out[i] = string(sketch.HLLBytes(s))
			}
		}
		return buildStrings(mem, out, nil)
	}
	out := make([]int64, to-from)
	for i := range out {
		if s := a.sks[from+i]; s != nil {
			out[i] = int64(s.Estimate())
		}
	}
	return buildInts(mem, types.BigIntT, out, nil)
}

// memBytes charges 2 KB per live group: a sketch stays sparse (a few
// bytes per distinct value) until it turns dense at 16 KB, so 16 KB per
// group would refuse a GROUP BY of many small groups that fits.
func (a *hllAgg) memBytes() int64 { return int64(cap(a.sks)*8) + a.live*2048 }

type bitmapMode uint8

const (
	bmUnion      bitmapMode = iota // BITMAP_UNION(b) → BITMAP
	bmUnionCount                   // BITMAP_UNION_COUNT(b) → BIGINT
	bmIntersect                    // BITMAP_INTERSECT(b) → BITMAP
	bmXor                          // GROUP_BITMAP_XOR(b) → BITMAP
	bmUnionInt                     // BITMAP_UNION_INT(x): integers in, BIGINT out
)

// bitmapAgg keeps one bitmap per group (nil until the group's first
// value: BITMAP_INTERSECT must tell "no rows" from "empty intersection";
// its partial state is NULL for the former).
type bitmapAgg struct {
	mode  bitmapMode
	bms   []*roaring64.Bitmap
	ibuf  []int64
	bytes int64 // estimated: the size of every folded bitmap, 2 per added value
}

func (a *bitmapAgg) resize(g int) { a.bms = resizeSlice(a.bms, g) }

func (a *bitmapAgg) fold(g int32, b *roaring64.Bitmap) {
	cur := a.bms[g]
	a.bytes += int64(b.GetSizeInBytes())
	if cur == nil {
		a.bms[g] = b
		return
	}
	switch a.mode {
	case bmIntersect:
		cur.And(b)
	case bmXor:
		cur.Xor(b)
	default:
		cur.Or(b)
	}
}

func (a *bitmapAgg) update(gids []int32, args []arrow.Array) {
	col := args[0]
	if col.DataType().ID() == arrow.NULL {
		return
	}
	if a.mode != bmUnionInt {
		a.mergeBitmaps(gids, col)
		return
	}
	vs := int64Values(col, a.ibuf)
	a.ibuf = vs
	nulls := col.NullN() > 0
	for i, g := range gids {
		if nulls && col.IsNull(i) || vs[i] < 0 {
			continue
		}
		if a.bms[g] == nil {
			a.bms[g] = roaring64.New()
		}
		a.bms[g].Add(uint64(vs[i]))
		a.bytes += 2
	}
}

func (a *bitmapAgg) mergeBitmaps(gids []int32, col arrow.Array) {
	sc, ok := col.(*array.String)
	if !ok {
		return
	}
	for i, g := range gids {
		if sc.IsNull(i) {
			continue
		}
		a.fold(g, sketch.Bitmap([]byte(sc.Value(i))))
	}
}

func (a *bitmapAgg) merge(gids []int32, states []arrow.Array) {
	// BITMAP_UNION_INT's state is a bitmap too: fold it as a union.
	mode := a.mode
	if mode == bmUnionInt {
		a.mode = bmUnion
		defer func() { a.mode = mode }()
	}
	a.mergeBitmaps(gids, states[0])
}

func (a *bitmapAgg) serialize(mem memory.Allocator, from, to int) []arrow.Array {
	out := make([]string, to-from)
	valid := make([]bool, to-from)
	for i := range out {
		if b := a.bms[from+i]; b != nil {
			out[i], valid[i] = string(sketch.BitmapBytes(b)), true
		}
	}
	return []arrow.Array{buildStrings(mem, out, valid)}
}

// finalize: counts are 0 for a group without values; bitmaps are then the
// empty bitmap (Doris's unions are not nullable).
func (a *bitmapAgg) finalize(mem memory.Allocator, from, to int) arrow.Array {
	if a.mode == bmUnionCount || a.mode == bmUnionInt {
		out := make([]int64, to-from)
		for i := range out {
			if b := a.bms[from+i]; b != nil {
				out[i] = int64(b.GetCardinality())
			}
		}
		return buildInts(mem, types.BigIntT, out, nil)
	}
	out := make([]string, to-from)
	for i := range out {
		if b := a.bms[from+i]; b != nil {
			out[i] = string(sketch.BitmapBytes(b))
		}
	}
	return buildStrings(mem, out, nil)
}

func (a *bitmapAgg) memBytes() int64 { return int64(cap(a.bms)*8) + a.bytes }

// sqlTypeOf is the SQL type to render an argument column with when only
// its Arrow type is known (INTERSECT_COUNT's filter column and values).
func sqlTypeOf(c arrow.Array) types.T {
	switch dt := c.DataType().(type) {
	case *arrow.Date32Type:
		return types.DateT
	case *arrow.TimestampType:
		return types.T{Kind: types.DateTime, Scale: 6}
	case *arrow.Decimal128Type:
		return types.DecimalT(int(dt.Precision), int(dt.Scale))
	case *arrow.Float32Type, *arrow.Float64Type:
		return types.DoubleT
	case *arrow.StringType:
		return types.StringT
	case *arrow.BooleanType:
		return types.BoolT
	}
	return types.BigIntT
}

// intersectAgg is INTERSECT_COUNT(b, col, v1, v2, ...): the size of the
// intersection, over the filter values, of the union of b over the rows
// whose col equals that value (compared as text, as the values are
// constants of any type). One phase (expr.aggSpecs).
type intersectAgg struct {
	vals []string              // filter values' texts, from the first batch
	bms  [][]*roaring64.Bitmap // per group, per filter value
}

func (a *intersectAgg) resize(g int) { a.bms = resizeSlice(a.bms, g) }

func (a *intersectAgg) update(gids []int32, args []arrow.Array) {
	if a.vals == nil {
		a.vals = []string{}
		for _, c := range args[2:] {
			if c.Len() > 0 && c.IsValid(0) && c.DataType().ID() != arrow.NULL {
				a.vals = append(a.vals, textOf(c, 0, sqlTypeOf(c)))
			} else {
				a.vals = append(a.vals, "\x00NULL") // matches no row
			}
		}
	}
	bc, ok := args[0].(*array.String)
	fc := args[1]
	if !ok || fc.DataType().ID() == arrow.NULL {
		return
	}
	ft := sqlTypeOf(fc)
	for i, g := range gids {
		if bc.IsNull(i) || fc.IsNull(i) {
			continue
		}
		v := textOf(fc, i, ft)
		for j, want := range a.vals {
			if v != want {
				continue
			}
			if a.bms[g] == nil {
				a.bms[g] = make([]*roaring64.Bitmap, len(a.vals))
			}
			if a.bms[g][j] == nil {
				a.bms[g][j] = roaring64.New()
			}
			a.bms[g][j].Or(sketch.Bitmap([]byte(bc.Value(i))))
		}
	}
}

func (a *intersectAgg) merge(gids []int32, states []arrow.Array) { a.update(gids, states) }
func (a *intersectAgg) serialize(mem memory.Allocator, from, to int) []arrow.Array {
	return []arrow.Array{a.finalize(mem, from, to)}
}

func (a *intersectAgg) finalize(mem memory.Allocator, from, to int) arrow.Array {
	out := make([]int64, to-from)
	for i := range out {
		per := a.bms[from+i]
		if per == nil {
			continue
		}
		var acc *roaring64.Bitmap
		for _, b := range per {
			if b == nil {
				acc = nil
				break
			}
			if acc == nil {
				acc = b.Clone()
			} else {
				acc.And(b)
			}
		}
		if acc != nil {
			out[i] = int64(acc.GetCardinality())
		}
	}
	return buildInts(mem, types.BigIntT, out, nil)
}

func (a *intersectAgg) memBytes() int64 { return int64(cap(a.bms) * 24) }
