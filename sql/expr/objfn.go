package expr

import (
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Scalar functions over Doris's BITMAP and HLL values (kernels in
// sql/eval/objfn.go). Merged into the registry at init so the registry
// literal stays one engineer's.

func init() {
	for k, v := range objFuncs {
		registry[k] = v
	}
}

// objArg resolves an argument that must be a BITMAP (or HLL): NULL passes,
// anything else is wrong arguments (Doris: "does not support type").
func objArg(fn string, kind types.Kind, a Expr) (types.T, error) {
	switch t := a.Type(); {
	case t.Kind == kind:
		return keep, nil
	case t.Kind == types.Null:
		return keep, nil // the kernel sees an all-NULL array
	}
	return types.T{}, sqlerr.WrongArguments.New(fn)
}

// objFn: every argument of the given object kind, result ret.
func objFn(fn string, kind types.Kind, ret types.T) resolver {
	return func(args []Expr) ([]types.T, types.T, error) {
		to := make([]types.T, len(args))
		for i, a := range args {
			t, err := objArg(fn, kind, a)
			if err != nil {
				return nil, types.T{}, err
			}
			to[i] = t
		}
		return to, ret, nil
	}
}

// valueArg takes a number as BIGINT and anything else as its text.
func valueArg(a Expr) types.T {
	if t := a.Type(); t.IsInteger() && t.Kind != types.LargeInt || t.Kind == types.Boolean {
		return i64
	}
	return str
}

var objFuncs = map[string]fnDef{
	"to_bitmap": {1, 1, func(args []Expr) ([]types.T, types.T, error) {
		return []types.T{valueArg(args[0])}, types.BitmapT, nil
	}, always},
	"bitmap_hash":        {1, 1, fixed(types.BitmapT, str), nil},
	"bitmap_from_string": {1, 1, fixed(types.BitmapT, str), always},
	"bitmap_to_string":   {1, 1, objFn("bitmap_to_string", types.Bitmap, str), nil},
	"bitmap_empty":       {0, 0, fixed(types.BitmapT), never},
	"bitmap_count":       {1, 1, objFn("bitmap_count", types.Bitmap, i64), never},
	"bitmap_min":         {1, 1, objFn("bitmap_min", types.Bitmap, i64), always},
	"bitmap_max":         {1, 1, objFn("bitmap_max", types.Bitmap, i64), always},
	"bitmap_and":         {2, -1, objFn("bitmap_and", types.Bitmap, types.BitmapT), nil},
	"bitmap_or":          {2, -1, objFn("bitmap_or", types.Bitmap, types.BitmapT), nil},
	"bitmap_xor":         {2, -1, objFn("bitmap_xor", types.Bitmap, types.BitmapT), nil},
	"bitmap_not":         {2, 2, objFn("bitmap_not", types.Bitmap, types.BitmapT), nil},
	"bitmap_and_count":   {2, -1, objFn("bitmap_and_count", types.Bitmap, i64), nil},
	"bitmap_or_count":    {2, -1, objFn("bitmap_or_count", types.Bitmap, i64), nil},
	"bitmap_contains": {2, 2, func(args []Expr) ([]types.T, types.T, error) {
		t, err := objArg("bitmap_contains", types.Bitmap, args[0])
		if err != nil {
			return nil, types.T{}, err
		}
		return []types.T{t, i64}, bl, nil
	}, nil},
	"hll_hash":        {1, 1, fixed(types.HLLT, str), never},
	"hll_empty":       {0, 0, fixed(types.HLLT), never},
	"hll_cardinality": {1, 1, objFn("hll_cardinality", types.HLL, i64), never},
}
