package aggregate

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/sql/types"
)

// anyNestedAgg is ANY_VALUE over an ARRAY, MAP or STRUCT: the first
// non-NULL value a group sees, kept as its Datum (the value's text); the
// partial state is a column of the value's type.
type anyNestedAgg struct {
	t     types.T
	vals  []types.Datum
	has   []bool
	bytes int64
}

func (a *anyNestedAgg) resize(g int) {
	a.vals = resizeSlice(a.vals, g)
	a.has = resizeSlice(a.has, g)
}

func (a *anyNestedAgg) update(gids []int32, args []arrow.Array) {
	col := args[0]
	if col.DataType().ID() == arrow.NULL {
		return
	}
	for i, g := range gids {
		if !a.has[g] && col.IsValid(i) {
			a.vals[g], a.has[g] = types.DatumAt(col, i, a.t), true
			a.bytes += int64(len(a.vals[g].S)) + 96
		}
	}
}

func (a *anyNestedAgg) merge(gids []int32, states []arrow.Array) { a.update(gids, states) }

func (a *anyNestedAgg) serialize(mem memory.Allocator, from, to int) []arrow.Array {
	return []arrow.Array{a.finalize(mem, from, to)}
}

func (a *anyNestedAgg) finalize(mem memory.Allocator, from, to int) arrow.Array {
	b := array.NewBuilder(mem, a.t.Arrow())
	defer b.Release()
	for g := from; g < to; g++ {
		if a.has[g] {
			types.AppendDatum(b, a.vals[g])
		} else {
			b.AppendNull()
		}
	}
	return b.NewArray()
}

func (a *anyNestedAgg) memBytes() int64 { return int64(cap(a.vals)*96) + a.bytes }
