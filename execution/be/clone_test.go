package be

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The clone checksum sums row hashes: any order or batching of the same
// rows gives the same sum, a changed value another; nested and binary
// columns are hashed too.
func TestRecordChecksum(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
		{Name: "b", Type: arrow.BinaryTypes.Binary, Nullable: true},
	}, nil)
	build := func(ks []int64) arrow.Record {
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		defer b.Release()
		for _, k := range ks {
			b.Field(0).(*array.Int64Builder).Append(k)
			lb := b.Field(1).(*array.ListBuilder)
			lb.Append(true)
			lb.ValueBuilder().(*array.Int32Builder).AppendValues([]int32{int32(k), int32(k * 2)}, nil)
			b.Field(2).(*array.BinaryBuilder).Append([]byte{byte(k)})
		}
		return b.NewRecord()
	}
	all := build([]int64{1, 2, 3, 4})
	defer all.Release()
	rev := build([]int64{4, 3, 2, 1})
	defer rev.Release()
	lo, hi := all.NewSlice(0, 1), all.NewSlice(1, 4)
	defer lo.Release()
	defer hi.Release()
	other := build([]int64{1, 2, 3, 5})
	defer other.Release()
	sum := RecordChecksum(all)
	if got := RecordChecksum(rev); got != sum {
		t.Errorf("reordered rows: %d, want %d", got, sum)
	}
	if got := RecordChecksum(lo) + RecordChecksum(hi); got != sum {
		t.Errorf("split batches: %d, want %d", got, sum)
	}
	if RecordChecksum(other) == sum {
		t.Error("different rows, same checksum")
	}
}
