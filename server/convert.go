package server

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/sql/eval"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// toStorage converts a batch whose columns have types from into the table's
// column types with the strict load rules, and rejects NULLs in NOT NULL
// columns. firstRow numbers rec's first row (1-based) in error messages.
// This is the one gate every load path (INSERT, stream load) passes.
func toStorage(rec arrow.Record, from, to []types.Column, firstRow int) (arrow.Record, error) {
	cols := make([]arrow.Array, len(to))
	release := func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}
	for i, c := range to {
		src := rec.Column(i)
		var out arrow.Array
		if arrow.TypeEqual(src.DataType(), c.Type.Arrow()) && (from[i].Type.SameFamily(c.Type) && !c.Type.IsString() || from[i].Type == c.Type) {
			src.Retain()
			out = src
		} else {
			var err error
			out, err = eval.CastStrict(src, from[i].Type, c.Type, c.Name, firstRow, memory.DefaultAllocator)
			if err != nil {
				release()
				return nil, err
			}
		}
		cols[i] = out
		if !c.Nullable && out.NullN() > 0 {
			release()
			return nil, sqlerr.BadNull.New(c.Name)
		}
	}
	out := array.NewRecord(types.ArrowSchema(to), cols, rec.NumRows())
	release()
	return out, nil
}
