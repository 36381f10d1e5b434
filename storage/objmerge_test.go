package storage

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dorisgo/dorisgo/sql/sketch"
)

func TestUnionGroups(t *testing.T) {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	for _, v := range [][]byte{sketch.BitmapOf(1, 2), sketch.BitmapOf(2, 3), nil, sketch.BitmapOf(9)} {
		b.BinaryBuilder.Append(v)
	}
	b.AppendNull()
	col := b.NewArray()
	b.Release()
	defer col.Release()
	// Groups: rows {0, 1}, {3, 2}, {4}: a union, a union with the empty
	// bitmap, a group of only NULL.
	out := unionGroups(col, []int32{0, 1, 3, 2, 4}, []int{2, 4, 5}, AggBitmapUnion)
	defer out.Release()
	s := out.(*array.String)
	if got := sketch.BitmapString(sketch.Bitmap([]byte(s.Value(0)))); got != "1,2,3" {
		t.Errorf("group 0: %s", got)
	}
	if got := sketch.BitmapString(sketch.Bitmap([]byte(s.Value(1)))); got != "9" {
		t.Errorf("group 1: %s", got)
	}
	if !s.IsNull(2) {
		t.Errorf("group 2 is not NULL")
	}

	h := array.NewStringBuilder(memory.DefaultAllocator)
	h.BinaryBuilder.Append(sketch.HLLOf([]byte("a")))
	h.BinaryBuilder.Append(sketch.HLLOf([]byte("b")))
	h.BinaryBuilder.Append(sketch.HLLOf([]byte("a")))
	hc := h.NewArray()
	h.Release()
	defer hc.Release()
	ho := unionGroups(hc, []int32{0, 1, 2}, []int{3}, AggHLLUnion)
	defer ho.Release()
	if e := sketch.HLL([]byte(ho.(*array.String).Value(0))).Estimate(); e != 2 {
		t.Errorf("HLL union estimate %d, want 2", e)
	}
}
