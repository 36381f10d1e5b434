package op

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/sql/eval"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// Helpers shared by the operators of this package: evaluating expression
// lists, gathering rows by index, sizing batches.

// MaxBatchRows bounds every batch an operator returns.
const MaxBatchRows = 4096

// EvalCols evaluates exprs over rec. Plain column references, the common
// case for keys, are read directly. The caller releases the arrays.
func EvalCols(env *Env, exprs []expr.Expr, rec arrow.Record) ([]arrow.Array, error) {
	out := make([]arrow.Array, len(exprs))
	for i, e := range exprs {
		if c, ok := e.(*expr.ColRef); ok {
			out[i] = rec.Column(c.Index)
			out[i].Retain()
			continue
		}
		a, err := eval.Eval(env.Eval, e, rec, env.Mem)
		if err != nil {
			ReleaseAll(out[:i])
			return nil, err
		}
		out[i] = a
	}
	return out, nil
}

func ReleaseAll(as []arrow.Array) {
	for _, a := range as {
		if a != nil {
			a.Release()
		}
	}
}

func ReleaseRecs(rs []arrow.Record) {
	for _, r := range rs {
		if r != nil {
			r.Release()
		}
	}
}

// ArrayBytes approximates the memory an array holds (its buffers).
func ArrayBytes(a arrow.Array) int64 {
	var n int64
	var walk func(d arrow.ArrayData)
	walk = func(d arrow.ArrayData) {
		for _, b := range d.Buffers() {
			if b != nil {
				n += int64(b.Len())
			}
		}
		for _, c := range d.Children() {
			walk(c)
		}
	}
	walk(a.Data())
	return n
}

func RecordMemBytes(r arrow.Record) int64 {
	var n int64
	for _, c := range r.Columns() {
		n += ArrayBytes(c)
	}
	return n
}

// NewRecord makes a record owning cols (it releases the caller's references).
func NewRecord(sc *arrow.Schema, cols []arrow.Array, rows int) arrow.Record {
	r := array.NewRecord(sc, cols, int64(rows))
	ReleaseAll(cols)
	return r
}

// TakeCols gathers rows idx (negative = NULL) of every column.
func TakeCols(mem memory.Allocator, cols []arrow.Array, idx []int32) ([]arrow.Array, error) {
	for _, c := range cols {
		if c.DataType().ID() == arrow.NULL {
			return takeWithNulls(mem, cols, idx)
		}
	}
	return eval.TakeColumns(mem, cols, idx)
}

// takeWithNulls is TakeCols when some column is of the NULL type, which
// Take does not gather.
func takeWithNulls(mem memory.Allocator, cols []arrow.Array, idx []int32) ([]arrow.Array, error) {
	out := make([]arrow.Array, len(cols))
	for i, c := range cols {
		if c.DataType().ID() == arrow.NULL {
			out[i] = array.MakeArrayOfNull(mem, arrow.Null, len(idx))
			continue
		}
		a, err := eval.Take(mem, c, idx)
		if err != nil {
			ReleaseAll(out[:i])
			return nil, err
		}
		out[i] = a
	}
	return out, nil
}

// TakeOrSlice is TakeCols, but rows idx that are one ascending run (a
// probe batch whose every row matched once) are sliced, not copied.
func TakeOrSlice(mem memory.Allocator, cols []arrow.Array, idx []int32) ([]arrow.Array, error) {
	if len(idx) == 0 || idx[0] < 0 {
		return TakeCols(mem, cols, idx)
	}
	for i, v := range idx {
		if v != idx[0]+int32(i) {
			return TakeCols(mem, cols, idx)
		}
	}
	out := make([]arrow.Array, len(cols))
	for i, c := range cols {
		out[i] = array.NewSlice(c, int64(idx[0]), int64(idx[0])+int64(len(idx)))
	}
	return out, nil
}

// ConcatRecords concatenates recs (all of schema sc) into one record.
func ConcatRecords(mem memory.Allocator, sc *arrow.Schema, recs []arrow.Record) (arrow.Record, error) {
	if len(recs) == 1 {
		recs[0].Retain()
		return recs[0], nil
	}
	cols := make([]arrow.Array, sc.NumFields())
	rows := 0
	for _, r := range recs {
		rows += int(r.NumRows())
	}
	for i := range cols {
		if len(recs) == 0 {
			cols[i] = array.MakeArrayOfNull(mem, sc.Field(i).Type, 0)
			continue
		}
		parts := make([]arrow.Array, len(recs))
		for j, r := range recs {
			parts[j] = r.Column(i)
		}
		c, err := array.Concatenate(parts, mem)
		if err != nil {
			ReleaseAll(cols[:i])
			return nil, sqlerr.Assertf("concatenate: %v", err)
		}
		cols[i] = c
	}
	return NewRecord(sc, cols, rows), nil
}

// ConcatArrays concatenates same-typed arrays (at least one).
func ConcatArrays(mem memory.Allocator, parts []arrow.Array) (arrow.Array, error) {
	if len(parts) == 1 {
		parts[0].Retain()
		return parts[0], nil
	}
	c, err := array.Concatenate(parts, mem)
	if err != nil {
		return nil, sqlerr.Assertf("concatenate: %v", err)
	}
	return c, nil
}

// Interleave builds an array whose row i is row rows[i] of srcs[src[i]];
// a negative src gives NULL. All sources share type dt.
func Interleave(mem memory.Allocator, dt arrow.DataType, srcs []arrow.Array, src, rows []int32) arrow.Array {
	n := len(src)
	switch dt.ID() {
	case arrow.NULL:
		return array.MakeArrayOfNull(mem, dt, n)
	case arrow.INT8:
		return interleaveFixed[int8](mem, dt, srcs, src, rows)
	case arrow.INT16:
		return interleaveFixed[int16](mem, dt, srcs, src, rows)
	case arrow.INT32:
		return interleaveFixed[int32](mem, dt, srcs, src, rows)
	case arrow.INT64:
		return interleaveFixed[int64](mem, dt, srcs, src, rows)
	case arrow.FLOAT32:
		return interleaveFixed[float32](mem, dt, srcs, src, rows)
	case arrow.FLOAT64:
		return interleaveFixed[float64](mem, dt, srcs, src, rows)
	case arrow.DATE32:
		return interleaveFixed[arrow.Date32](mem, dt, srcs, src, rows)
	case arrow.TIMESTAMP:
		return interleaveFixed[arrow.Timestamp](mem, dt, srcs, src, rows)
	case arrow.DECIMAL128:
		return interleaveFixed[decimal128.Num](mem, dt, srcs, src, rows)
	case arrow.BOOL:
		b := array.NewBooleanBuilder(mem)
		defer b.Release()
		b.Reserve(n)
		for i, s := range src {
			if s < 0 || srcs[s].IsNull(int(rows[i])) {
				b.UnsafeAppendBoolToBitmap(false)
				continue
			}
			b.UnsafeAppend(srcs[s].(*array.Boolean).Value(int(rows[i])))
		}
		return b.NewArray()
	case arrow.STRING:
		b := array.NewStringBuilder(mem)
		defer b.Release()
		b.Reserve(n)
		ss := make([]*array.String, len(srcs))
		for i, a := range srcs {
			ss[i] = a.(*array.String)
		}
		for i, s := range src {
			if s < 0 || ss[s].IsNull(int(rows[i])) {
				b.AppendNull()
				continue
			}
			b.Append(ss[s].Value(int(rows[i])))
		}
		return b.NewArray()
	}
	if out, ok := interleaveNested(mem, dt, srcs, src, rows); ok {
		return out
	}
	panic("op: interleave of unsupported type " + dt.String())
}

// interleaveNested handles ARRAY, MAP and STRUCT: one Take over the
// concatenated sources (arrow's kernels copy the child buffers).
func interleaveNested(mem memory.Allocator, dt arrow.DataType, srcs []arrow.Array, src, rows []int32) (arrow.Array, bool) {
	switch dt.ID() {
	case arrow.LIST, arrow.MAP, arrow.STRUCT:
	default:
		return nil, false
	}
	if len(srcs) == 0 {
		return array.MakeArrayOfNull(mem, dt, len(src)), true
	}
	all, err := array.Concatenate(srcs, mem)
	if err != nil {
		panic("op: interleave: " + err.Error())
	}
	defer all.Release()
	base := make([]int32, len(srcs))
	n := int32(0)
	for i, a := range srcs {
		base[i] = n
		n += int32(a.Len())
	}
	idx := make([]int32, len(src))
	for i, s := range src {
		idx[i] = -1
		if s >= 0 {
			idx[i] = base[s] + rows[i]
		}
	}
	out, err := eval.Take(mem, all, idx)
	if err != nil {
		panic("op: interleave: " + err.Error())
	}
	return out, true
}

func interleaveFixed[T arrow.FixedWidthType](mem memory.Allocator, dt arrow.DataType, srcs []arrow.Array, src, rows []int32) arrow.Array {
	n := len(src)
	vals := make([][]T, len(srcs))
	for i, a := range srcs {
		vals[i] = arrow.GetValues[T](a.Data(), 1)
	}
	var zero T
	size := int(unsafe.Sizeof(zero))
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(n * size)
	out := arrow.GetData[T](buf.Bytes())[:n]
	vb := memory.NewResizableBuffer(mem)
	vb.Resize((n + 7) / 8)
	valid := vb.Bytes()
	for i := range valid {
		valid[i] = 0
	}
	nulls := 0
	for i, s := range src {
		r := int(rows[i])
		if s < 0 || srcs[s].IsNull(r) {
			out[i] = zero
			nulls++
			continue
		}
		out[i] = vals[s][r]
		valid[i/8] |= 1 << (i % 8)
	}
	d := array.NewData(dt, n, []*memory.Buffer{vb, buf}, nil, nulls, 0)
	buf.Release()
	vb.Release()
	defer d.Release()
	return array.MakeFromData(d)
}

// RecordBytes is the bytes of a batch's rows in Arrow layout (what an
// exchange counts): slices count only their own rows, so a batch that is a
// window on a larger array is not charged for all of it.
func RecordBytes(r arrow.Record) int64 {
	var n int64
	for _, c := range r.Columns() {
		n += sliceBytes(c)
	}
	return n
}

func offsetsBytes(offs []int32) int64 {
	if len(offs) == 0 {
		return 0
	}
	return 4*int64(len(offs)) + int64(offs[len(offs)-1]-offs[0])
}

func sliceBytes(a arrow.Array) int64 {
	n := int64(a.Len())
	var bytes int64
	if a.NullN() > 0 {
		bytes += (n + 7) / 8
	}
	switch x := a.(type) {
	case *array.String:
		return bytes + offsetsBytes(x.ValueOffsets())
	case *array.Binary:
		return bytes + offsetsBytes(x.ValueOffsets())
	case *array.Boolean:
		return bytes + (n+7)/8
	}
	if fw, ok := a.DataType().(arrow.FixedWidthDataType); ok && fw.BitWidth() >= 8 {
		return bytes + n*int64(fw.BitWidth()/8)
	}
	return ArrayBytes(a)
}

// Relabel returns rec's columns under schema sc (same physical types).
func Relabel(rec arrow.Record, sc *arrow.Schema) arrow.Record {
	if rec.Schema().Equal(sc) {
		return rec
	}
	cols := rec.Columns()
	out := arrowNewRecord(sc, cols, rec.NumRows())
	rec.Release()
	return out
}
