package storage

import (
	"container/list"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestColumnLRU: the cache stays within its bytes, evicts the least
// recently used column first (a get refreshes), and refuses a column
// bigger than a quarter of it.
func TestColumnLRU(t *testing.T) {
	col := func(n int) *array.Int64 {
		b := array.NewInt64Builder(memory.DefaultAllocator)
		b.AppendValues(make([]int64, n), nil)
		return b.NewInt64Array()
	}
	one := int64(arrayBytes(col(100)))
	c := &lru{cap: 4 * one, ll: list.New(), items: map[colKey]*list.Element{}}
	k := func(i int) colKey { return colKey{store: 1, seg: int32(i)} }
	for i := 0; i < 4; i++ {
		c.put(k(i), col(100))
	}
	if _, ok := c.get(k(0)); !ok { // 0 is now the most recent
		t.Fatal("column 0 missing")
	}
	c.put(k(4), col(100)) // evicts 1, the least recent
	if _, ok := c.get(k(1)); ok {
		t.Error("column 1 should have been evicted")
	}
	for _, i := range []int{0, 2, 3, 4} {
		if _, ok := c.get(k(i)); !ok {
			t.Errorf("column %d evicted", i)
		}
	}
	if c.bytes() > c.cap {
		t.Errorf("holds %d bytes, capacity %d", c.bytes(), c.cap)
	}
	c.put(k(9), col(1000))
	if _, ok := c.get(k(9)); ok {
		t.Error("a column larger than a quarter of the cache was kept")
	}
}
