package aggregate

import (
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Typed column readers and builders for aggregate and window states: each
// reads a whole column into a Go slice of one of four value classes, so
// state updates are plain typed loops.

type valClass uint8

const (
	classInt   valClass = iota // BOOLEAN, TINYINT..BIGINT, DATE, DATETIME, NULL
	classFloat                 // FLOAT, DOUBLE
	classDec                   // DECIMAL, LARGEINT
	classStr                   // CHAR, VARCHAR, STRING
)

func classOf(t types.T) valClass {
	switch {
	case t.IsFloat():
		return classFloat
	case t.Kind == types.Decimal || t.Kind == types.LargeInt:
		return classDec
	case t.IsString():
		return classStr
	}
	return classInt
}

// int64Values reads an integer-like column as int64 (NULL slots undefined).
func int64Values(a arrow.Array, buf []int64) []int64 {
	n := a.Len()
	switch c := a.(type) {
	case *array.Int64:
		return c.Int64Values()
	case *array.Timestamp:
		return arrow.GetData[int64](arrow.GetBytes(c.TimestampValues()))
	}
	if cap(buf) < n {
		buf = make([]int64, n)
	}
	buf = buf[:n]
	switch c := a.(type) {
	case *array.Int8:
		for i, v := range c.Int8Values() {
			buf[i] = int64(v)
		}
	case *array.Int16:
		for i, v := range c.Int16Values() {
			buf[i] = int64(v)
		}
	case *array.Int32:
		for i, v := range c.Int32Values() {
			buf[i] = int64(v)
		}
	case *array.Date32:
		for i, v := range c.Date32Values() {
			buf[i] = int64(v)
		}
	case *array.Boolean:
		for i := range buf {
			buf[i] = 0
			if c.Value(i) {
				buf[i] = 1
			}
		}
	case *array.Float64:
		for i, v := range c.Float64Values() {
			buf[i] = int64(v)
		}
	default:
		clear(buf)
	}
	return buf
}

// float64Values reads any numeric (or numeric-string) column as float64.
func float64Values(a arrow.Array, buf []float64) []float64 {
	if c, ok := a.(*array.Float64); ok {
		return c.Float64Values()
	}
	n := a.Len()
	if cap(buf) < n {
		buf = make([]float64, n)
	}
	buf = buf[:n]
	switch c := a.(type) {
	case *array.Float32:
		for i, v := range c.Float32Values() {
			buf[i] = float64(v)
		}
	case *array.Decimal128:
		sc := c.DataType().(*arrow.Decimal128Type).Scale
		for i := range buf {
			buf[i] = c.Value(i).ToFloat64(sc)
		}
	case *array.String:
		for i := range buf {
			buf[i] = parseFloatPrefix(c.Value(i))
		}
	default:
		for i, v := range int64Values(a, nil) {
			buf[i] = float64(v)
		}
	}
	return buf
}

// parseFloatPrefix converts a string as MySQL does in numeric context: its
// longest numeric prefix, 0 if none.
func parseFloatPrefix(s string) float64 {
	s = strings.TrimSpace(s)
	for end := len(s); end > 0; end-- {
		if f, err := strconv.ParseFloat(s[:end], 64); err == nil {
			return f
		}
	}
	return 0
}

// decValues reads a decimal (or integer) column as 128-bit scaled integers
// at the column's own scale.
func decValues(a arrow.Array, buf []decimal128.Num) []decimal128.Num {
	if c, ok := a.(*array.Decimal128); ok {
		return c.Values()
	}
	n := a.Len()
	if cap(buf) < n {
		buf = make([]decimal128.Num, n)
	}
	buf = buf[:n]
	for i, v := range int64Values(a, nil) {
		buf[i] = decimal128.FromI64(v)
	}
	return buf
}

// buildInts builds a column of type t (an integer-like type) from vals;
// valid nil means all valid.
func buildInts(mem memory.Allocator, t types.T, vals []int64, valid []bool) arrow.Array {
	b := array.NewBuilder(mem, t.Arrow())
	defer b.Release()
	b.Reserve(len(vals))
	ok := func(i int) bool { return valid == nil || valid[i] }
	switch bb := b.(type) {
	case *array.Int64Builder:
		for i, v := range vals {
			if ok(i) {
				bb.UnsafeAppend(v)
			} else {
				bb.UnsafeAppendBoolToBitmap(false)
			}
		}
	case *array.Int32Builder:
		for i, v := range vals {
			if ok(i) {
				bb.UnsafeAppend(int32(v))
			} else {
				bb.UnsafeAppendBoolToBitmap(false)
			}
		}
	case *array.Int16Builder:
		for i, v := range vals {
			if ok(i) {
				bb.UnsafeAppend(int16(v))
			} else {
				bb.UnsafeAppendBoolToBitmap(false)
			}
		}
	case *array.Int8Builder:
		for i, v := range vals {
			if ok(i) {
				bb.UnsafeAppend(int8(v))
			} else {
				bb.UnsafeAppendBoolToBitmap(false)
			}
		}
	case *array.Date32Builder:
		for i, v := range vals {
			if ok(i) {
				bb.UnsafeAppend(arrow.Date32(v))
			} else {
				bb.UnsafeAppendBoolToBitmap(false)
			}
		}
	case *array.TimestampBuilder:
		for i, v := range vals {
			if ok(i) {
				bb.UnsafeAppend(arrow.Timestamp(v))
			} else {
				bb.UnsafeAppendBoolToBitmap(false)
			}
		}
	case *array.BooleanBuilder:
		for i, v := range vals {
			if ok(i) {
				bb.UnsafeAppend(v != 0)
			} else {
				bb.UnsafeAppendBoolToBitmap(false)
			}
		}
	case *array.NullBuilder:
		for range vals {
			bb.AppendNull()
		}
	}
	return b.NewArray()
}

func buildFloats(mem memory.Allocator, t types.T, vals []float64, valid []bool) arrow.Array {
	if t.Kind == types.Float {
		b := array.NewFloat32Builder(mem)
		defer b.Release()
		b.Reserve(len(vals))
		for i, v := range vals {
			if valid == nil || valid[i] {
				b.UnsafeAppend(float32(v))
			} else {
				b.UnsafeAppendBoolToBitmap(false)
			}
		}
		return b.NewArray()
	}
	b := array.NewFloat64Builder(mem)
	defer b.Release()
	b.Reserve(len(vals))
	for i, v := range vals {
		if valid == nil || valid[i] {
			b.UnsafeAppend(v)
		} else {
			b.UnsafeAppendBoolToBitmap(false)
		}
	}
	return b.NewArray()
}

func buildDecs(mem memory.Allocator, t types.T, vals []decimal128.Num, valid []bool) arrow.Array {
	b := array.NewDecimal128Builder(mem, t.Arrow().(*arrow.Decimal128Type))
	defer b.Release()
	b.Reserve(len(vals))
	for i, v := range vals {
		if valid == nil || valid[i] {
			b.UnsafeAppend(v)
		} else {
			b.UnsafeAppendBoolToBitmap(false)
		}
	}
	return b.NewArray()
}

func buildStrings(mem memory.Allocator, vals []string, valid []bool) arrow.Array {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.Reserve(len(vals))
	for i, v := range vals {
		if valid == nil || valid[i] {
			b.Append(v)
		} else {
			b.AppendNull()
		}
	}
	return b.NewArray()
}

// decDivRound divides a scaled decimal by a count, rounding half away from
// zero, after raising its scale by up.
func decDivRound(sum decimal128.Num, up int32, n int64) decimal128.Num {
	if up > 0 {
		sum = sum.IncreaseScaleBy(up)
	}
	d := decimal128.FromI64(n)
	q, r := sum.Div(d)
	// |2r| ≥ n rounds away from zero.
	if r.Abs().Mul(decimal128.FromI64(2)).GreaterEqual(d) {
		if sum.Sign() < 0 {
			q = q.Sub(decimal128.FromI64(1))
		} else {
			q = q.Add(decimal128.FromI64(1))
		}
	}
	return q
}
