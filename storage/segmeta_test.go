package storage

import "testing"

// TestSegMetaCacheBounded: the cache never holds more than its bound, and
// an entry just put is found.
func TestSegMetaCacheBounded(t *testing.T) {
	var c segMetaCache
	sc := &TabletSchema{}
	for i := range segMetaCacheMax + 100 {
		k := segMetaKey{tab: 1, rs: rowsetID(i), seg: 0}
		c.put(k, segMetaEntry{sc: sc, m: segMeta{Rows: i}})
		if e, ok := c.get(k); !ok || e.m.Rows != i {
			t.Fatalf("entry %d not found right after put", i)
		}
	}
	if n := len(c.m); n > segMetaCacheMax {
		t.Fatalf("%d entries, bound %d", n, segMetaCacheMax)
	}
}
