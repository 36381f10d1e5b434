package storage

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dorisgo/dorisgo/sql/sketch"
)

// unionGroups folds BITMAP_UNION / HLL_UNION per group of an AGGREGATE
// tablet: the union of the group's non-NULL values (serialized structures
// in a String column, sql/sketch); a group of only NULLs stays NULL.
func unionGroups(a arrow.Array, perm []int32, ends []int, agg AggType) arrow.Array {
	sc, _ := a.(*array.String)
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	start := 0
	for _, e := range ends {
		group := perm[start:e]
		start = e
		var vals [][]byte
		for _, r := range group {
			if sc != nil && sc.IsValid(int(r)) {
				vals = append(vals, []byte(sc.Value(int(r))))
			}
		}
		switch {
		case len(vals) == 0:
			b.AppendNull()
		case len(vals) == 1:
			b.BinaryBuilder.Append(vals[0])
		case agg == AggBitmapUnion:
			bm := sketch.Bitmap(vals[0])
			for _, v := range vals[1:] {
				bm.Or(sketch.Bitmap(v))
			}
			b.BinaryBuilder.Append(sketch.BitmapBytes(bm))
		default:
			sk := sketch.HLL(vals[0])
			for _, v := range vals[1:] {
				sketch.MergeHLL(sk, sketch.HLL(v))
			}
			b.BinaryBuilder.Append(sketch.HLLBytes(sk))
		}
	}
	return b.NewArray()
}
