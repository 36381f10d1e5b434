package storage

import (
	"cmp"
	"slices"
	"strings"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// mergeRows merges rows with equal keys of a UNIQUE or AGGREGATE tablet.
// cols are the columns load (schema indexes; keys first) over all rows in
// write order (older rowsets first, within a rowset in write order). It sorts
// a permutation by key (ties by write order), so the last row of a group is
// the newest, then builds each output column with one gather or fold.
// Output rows are in key order.
func mergeRows(sc *TabletSchema, load []int, cols []arrow.Array) ([]arrow.Array, int, error) {
	n := cols[0].Len()
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	keys := make([]func(i, j int32) int, sc.NumKeys)
	for k := range keys {
		keys[k] = colCompare(cols[k])
	}
	cmpKeys := func(a, b int32) int {
		for _, f := range keys {
			if c := f(a, b); c != 0 {
				return c
			}
		}
		return 0
	}
	slices.SortFunc(perm, func(a, b int32) int {
		if c := cmpKeys(a, b); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	var ends []int // exclusive end (in perm) of each key group
	for i := 1; i <= n; i++ {
		if i == n || cmpKeys(perm[i-1], perm[i]) != 0 {
			ends = append(ends, i)
		}
	}
	last := make([]int32, len(ends))
	for g, e := range ends {
		last[g] = perm[e-1]
	}
	out := make([]arrow.Array, len(load))
	for i, c := range load {
		agg := AggReplace
		if sc.Keys == AggKeys && i >= sc.NumKeys && c < len(sc.Agg) && sc.Agg[c] != AggNone {
			agg = sc.Agg[c]
		}
		if i < sc.NumKeys {
			agg = AggReplace
		}
		a := cols[i]
		switch agg {
		case AggReplace:
			out[i] = take(a, last)
		case AggReplaceIfNotNull:
			out[i] = take(a, pickPerGroup(a, perm, ends, nil))
		case AggMax:
			f := colCompare(a)
			out[i] = take(a, pickPerGroup(a, perm, ends, func(x, y int32) bool { return f(x, y) > 0 }))
		case AggMin:
			f := colCompare(a)
			out[i] = take(a, pickPerGroup(a, perm, ends, func(x, y int32) bool { return f(x, y) < 0 }))
		case AggBitmapUnion, AggHLLUnion:
			out[i] = unionGroups(a, perm, ends, agg)
		case AggSum:
			s, err := sumGroups(a, perm, ends)
			if err != nil {
				releaseAll(out[:i])
				return nil, 0, err
			}
			out[i] = s
		}
	}
	return out, len(ends), nil
}

// pickPerGroup chooses one row per group among its non-NULL rows: the newest
// when better is nil (REPLACE_IF_NOT_NULL), else the best (MAX/MIN). A group
// of only NULLs yields its last (NULL) row, as Doris' aggregates ignore NULLs.
func pickPerGroup(a arrow.Array, perm []int32, ends []int, better func(x, y int32) bool) []int32 {
	out := make([]int32, len(ends))
	start := 0
	for g, e := range ends {
		pick := int32(-1)
		for _, r := range perm[start:e] {
			if a.IsNull(int(r)) {
				continue
			}
			if pick < 0 || better == nil || better(r, pick) {
				pick = r
			}
		}
		if pick < 0 {
			pick = perm[e-1]
		}
		out[g] = pick
		start = e
	}
	return out
}

// colCompare orders two rows of a column: NULL first, ints numerically,
// strings byte-wise, decimals exactly.
func colCompare(a arrow.Array) func(i, j int32) int {
	var f func(i, j int32) int
	switch x := a.(type) {
	case *array.Boolean:
		f = func(i, j int32) int { return boolCmp(x.Value(int(i)), x.Value(int(j))) }
	case *array.Int8:
		f = ordCmp(x.Int8Values())
	case *array.Int16:
		f = ordCmp(x.Int16Values())
	case *array.Int32:
		f = ordCmp(x.Int32Values())
	case *array.Int64:
		f = ordCmp(x.Int64Values())
	case *array.Float32:
		f = ordCmp(x.Float32Values())
	case *array.Float64:
		f = ordCmp(x.Float64Values())
	case *array.Date32:
		f = ordCmp(x.Date32Values())
	case *array.Timestamp:
		f = ordCmp(x.TimestampValues())
	case *array.Decimal128:
		f = func(i, j int32) int { return x.Value(int(i)).Cmp(x.Value(int(j))) }
	case *array.String:
		f = func(i, j int32) int { return strings.Compare(x.Value(int(i)), x.Value(int(j))) }
	default:
		f = func(i, j int32) int { return 0 }
	}
	if a.NullN() == 0 {
		return f
	}
	return func(i, j int32) int {
		ni, nj := a.IsNull(int(i)), a.IsNull(int(j))
		switch {
		case ni && nj:
			return 0
		case ni:
			return -1
		case nj:
			return 1
		}
		return f(i, j)
	}
}

func ordCmp[T cmp.Ordered](v []T) func(i, j int32) int {
	return func(i, j int32) int { return cmp.Compare(v[i], v[j]) }
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// take gathers rows idx of a into a new array.
func take(a arrow.Array, idx []int32) arrow.Array {
	n := len(idx)
	dt := a.DataType()
	if dt.ID() == arrow.NULL {
		return array.NewNull(n)
	}
	if isNestedArrow(dt) {
		return takeNested(a, idx)
	}
	var validity *memory.Buffer
	nulls := 0
	if a.NullN() > 0 {
		bm := make([]byte, bitutil.BytesForBits(int64(n)))
		for k, i := range idx {
			if a.IsValid(int(i)) {
				bitutil.SetBit(bm, k)
			} else {
				nulls++
			}
		}
		validity = memory.NewBufferBytes(bm)
	}
	var bufs []*memory.Buffer
	switch x := a.(type) {
	case *array.Boolean:
		bm := make([]byte, bitutil.BytesForBits(int64(n)))
		for k, i := range idx {
			if x.Value(int(i)) {
				bitutil.SetBit(bm, k)
			}
		}
		bufs = []*memory.Buffer{validity, memory.NewBufferBytes(bm)}
	case *array.String:
		offs := make([]int32, n+1)
		total := 0
		for k, i := range idx {
			total += x.ValueLen(int(i))
			offs[k+1] = int32(total)
		}
		data := make([]byte, 0, total)
		for _, i := range idx {
			data = append(data, x.Value(int(i))...)
		}
		bufs = []*memory.Buffer{validity, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offs)), memory.NewBufferBytes(data)}
	default:
		src := a.Data().Buffers()[1].Bytes()
		off := a.Data().Offset()
		var vals []byte
		switch dt.(arrow.FixedWidthDataType).BitWidth() {
		case 8:
			vals = gather[uint8](src, off, idx)
		case 16:
			vals = gather[uint16](src, off, idx)
		case 32:
			vals = gather[uint32](src, off, idx)
		case 64:
			vals = gather[uint64](src, off, idx)
		default:
			vals = gather[[2]uint64](src, off, idx)
		}
		bufs = []*memory.Buffer{validity, memory.NewBufferBytes(vals)}
	}
	d := array.NewData(dt, n, bufs, nil, nulls, 0)
	defer d.Release()
	return array.MakeFromData(d)
}

func gather[T any](src []byte, off int, idx []int32) []byte {
	size := int(unsafe.Sizeof(*new(T)))
	out := make([]T, len(idx))
	if len(idx) == 0 {
		return nil
	}
	s := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(src))), len(src)/size)[off:]
	for k, i := range idx {
		out[k] = s[i]
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(out))), len(out)*size)
}

// sumGroups folds SUM per group, ignoring NULLs (all-NULL groups are NULL).
// Integers wrap on overflow in their own width.
func sumGroups(a arrow.Array, perm []int32, ends []int) (arrow.Array, error) {
	var vals []byte
	var bm []byte
	var nulls int
	switch x := a.(type) {
	case *array.Int8:
		vals, bm, nulls = sumTyped(x.Int8Values(), a, perm, ends, func(s int64, v int8) int64 { return s + int64(v) })
	case *array.Int16:
		vals, bm, nulls = sumTyped(x.Int16Values(), a, perm, ends, func(s int64, v int16) int64 { return s + int64(v) })
	case *array.Int32:
		vals, bm, nulls = sumTyped(x.Int32Values(), a, perm, ends, func(s int64, v int32) int64 { return s + int64(v) })
	case *array.Int64:
		vals, bm, nulls = sumTyped(x.Int64Values(), a, perm, ends, func(s int64, v int64) int64 { return s + v })
	case *array.Float32:
		vals, bm, nulls = sumTyped(x.Float32Values(), a, perm, ends, func(s float64, v float32) float64 { return s + float64(v) })
	case *array.Float64:
		vals, bm, nulls = sumTyped(x.Float64Values(), a, perm, ends, func(s float64, v float64) float64 { return s + v })
	case *array.Decimal128:
		vals, bm, nulls = sumTyped(x.Values(), a, perm, ends, func(s decimal128.Num, v decimal128.Num) decimal128.Num { return s.Add(v) })
	default:
		return nil, sqlerr.Assertf("storage: SUM over %s", a.DataType())
	}
	var validity *memory.Buffer
	if nulls > 0 {
		validity = memory.NewBufferBytes(bm)
	}
	d := array.NewData(a.DataType(), len(ends), []*memory.Buffer{validity, memory.NewBufferBytes(vals)}, nil, nulls, 0)
	defer d.Release()
	return array.MakeFromData(d), nil
}

// sumTyped accumulates in A (int64, float64 or decimal) and stores as T.
func sumTyped[T int8 | int16 | int32 | int64 | float32 | float64 | decimal128.Num, A int64 | float64 | decimal128.Num](
	v []T, a arrow.Array, perm []int32, ends []int, add func(A, T) A,
) ([]byte, []byte, int) {
	out := make([]T, len(ends))
	bm := make([]byte, bitutil.BytesForBits(int64(len(ends))))
	nulls, start := 0, 0
	for g, e := range ends {
		var s A
		seen := false
		for _, r := range perm[start:e] {
			if a.IsValid(int(r)) {
				s = add(s, v[r])
				seen = true
			}
		}
		if seen {
			out[g] = convert[T](s)
			bitutil.SetBit(bm, g)
		} else {
			nulls++
		}
		start = e
	}
	var zero T
	size := int(unsafe.Sizeof(zero))
	if len(out) == 0 {
		return nil, bm, nulls
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(out))), len(out)*size), bm, nulls
}

func convert[T int8 | int16 | int32 | int64 | float32 | float64 | decimal128.Num, A int64 | float64 | decimal128.Num](s A) T {
	var out T
	switch p := any(&out).(type) {
	case *int8:
		*p = int8(any(s).(int64))
	case *int16:
		*p = int16(any(s).(int64))
	case *int32:
		*p = int32(any(s).(int64))
	case *int64:
		*p = any(s).(int64)
	case *float32:
		*p = float32(any(s).(float64))
	case *float64:
		*p = any(s).(float64)
	case *decimal128.Num:
		*p = any(s).(decimal128.Num)
	}
	return out
}
