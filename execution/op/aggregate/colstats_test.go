package aggregate

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dorisgo/dorisgo/sql/types"
)

// int64Col builds an INT column of vals; -1 is NULL.
func int64Col(vals []int64) *array.Int64 {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	for _, v := range vals {
		if v < 0 {
			b.AppendNull()
		} else {
			b.Append(v)
		}
	}
	return b.NewInt64Array()
}

func TestColumnStatsMergeAcrossTablets(t *testing.T) {
	// Two tablets holding the same 100 values (and a NULL each): the
	// merged NDV is 100, not 200; min and max span both.
	var parts []ColumnPartial
	for tablet := 0; tablet < 2; tablet++ {
		c := NewColumnCollector(types.BigIntT, 1, uint64(tablet))
		var vals []int64
		for i := 0; i < 1000; i++ {
			vals = append(vals, int64(i%100+tablet*5))
		}
		vals = append(vals, -1)
		col := int64Col(vals)
		c.Add(col)
		col.Release()
		parts = append(parts, c.Partial())
	}
	s := MergeColumnPartials(parts, 2002)
	if s.Rows != 2002 || s.Nulls != 2 || s.NDV != 105 || s.Bytes != 2000*8 {
		t.Fatalf("rows, nulls, ndv, bytes = %d %d %d %d; want 2002 2 105 16000", s.Rows, s.Nulls, s.NDV, s.Bytes)
	}
	if s.Min.I != 0 || s.Max.I != 104 {
		t.Fatalf("min, max = %v, %v", s.Min, s.Max)
	}
	// The histogram covers the non-NULL rows in ascending, disjoint buckets.
	var total float64
	for i, b := range s.Histogram {
		if math.Abs(b.PreSum-total) > 1e-6 || types.Compare(b.Lower, b.Upper) > 0 ||
			i > 0 && types.Compare(s.Histogram[i-1].Upper, b.Lower) >= 0 {
			t.Fatalf("bucket %d = %+v (rows before %v)", i, b, total)
		}
		total += b.Count
	}
	if len(s.Histogram) < 50 || math.Abs(total-2000) > 1e-6 {
		t.Fatalf("%d buckets over %v rows, want >= 50 over 2000", len(s.Histogram), total)
	}
}

func TestColumnStatsSample(t *testing.T) {
	// A 10% sample of 100,000 distinct values scales rows and NDV back.
	c := NewColumnCollector(types.BigIntT, 0.1, 7)
	vals := make([]int64, 100000)
	for i := range vals {
		vals[i] = int64(i)
	}
	col := int64Col(vals)
	c.Add(col)
	col.Release()
	p := c.Partial()
	if p.Rows < 9000 || p.Rows > 11000 {
		t.Fatalf("sampled %d rows of 100000 at 10%%", p.Rows)
	}
	s := MergeColumnPartials([]ColumnPartial{p}, 100000)
	if s.Rows != 100000 || s.NDV < 90000 || s.NDV > 110000 {
		t.Fatalf("rows, ndv = %d, %d; want 100000, about 100000", s.Rows, s.NDV)
	}
}
