package streamload

import (
	"errors"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/sql/eval"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// castRows converts arr (of type from) to type to with the strict load
// rules (eval.CastStrict), row by row: a value the strict cast refuses
// becomes NULL and its row (0-based) goes to bad. A load decides per row what such a value means (NULL, or a filtered row under
// strict_mode). String lengths are left to the caller, for whom a too long
// string filters its row whatever strict_mode says.
func castRows(arr arrow.Array, from, to types.T, column string, bad func(row int)) (arrow.Array, error) {
	if to.IsString() {
		to = types.StringT
	}
	if from == to || arrow.TypeEqual(arr.DataType(), to.Arrow()) && from.SameFamily(to) && !to.IsString() {
		arr.Retain()
		return arr, nil
	}
	return castRange(arr, 0, arr.Len(), from, to, column, bad)
}

// castRange casts rows [off, off+n) of arr, halving the range around
// values the cast refuses, so that k bad values among n cost about
// k·log(n) casts and the good ones are converted in bulk.
func castRange(arr arrow.Array, off, n int, from, to types.T, column string, bad func(int)) (arrow.Array, error) {
	part := array.NewSlice(arr, int64(off), int64(off+n))
	out, err := eval.CastStrict(part, from, to, column, 1, memory.DefaultAllocator)
	part.Release()
	if err == nil {
		return out, nil
	}
	if !isValueError(err) {
		return nil, err
	}
	if n == 1 {
		bad(off)
		return array.MakeArrayOfNull(memory.DefaultAllocator, to.Arrow(), 1), nil
	}
	left, err := castRange(arr, off, n/2, from, to, column, bad)
	if err != nil {
		return nil, err
	}
	defer left.Release()
	right, err := castRange(arr, off+n/2, n-n/2, from, to, column, bad)
	if err != nil {
		return nil, err
	}
	defer right.Release()
	return array.Concatenate([]arrow.Array{left, right}, memory.DefaultAllocator)
}

// isValueError: err is the strict cast refusing one value (a bad string or
// date, a number out of range, a string too long), not a failure of the
// cast itself.
func isValueError(err error) bool {
	var e *sqlerr.Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code {
	case sqlerr.IncorrectValue.Code, sqlerr.TruncatedWrongValue.Code, sqlerr.WarnDataOutOfRange.Code, sqlerr.DataTooLong.Code:
		return true
	}
	return false
}
