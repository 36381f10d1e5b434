package storage

import (
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/maypok86/otter/v2"
)

// colKey names one decoded segment column of one store.
type colKey struct {
	store uint64
	tab   TabletID
	rs    rowsetID
	seg   int32
	col   int32
}

// colCache keeps decoded segment columns (Doris's page cache, after
// decoding): segments are immutable and a compaction writes new rowset
// ids, so an entry never goes stale; it only ages out. A hit costs no read,
// copy or allocation. Arrays are shared read-only; eviction drops the
// cache's reference and the Go GC frees the memory once no batch uses it.
var colCache struct {
	once  sync.Once
	size  int64
	cache *otter.Cache[colKey, arrow.Array]
}

var nextStoreID atomic.Uint64

// DefaultColumnCacheBytes is the decoded column cache without SetColumnCacheBytes.
const DefaultColumnCacheBytes = 512 << 20

// ColumnCacheBytes is what the column cache holds now.
func ColumnCacheBytes() int64 {
	if c := columnCache(); c != nil {
		return int64(c.WeightedSize())
	}
	return 0
}

// SetColumnCacheBytes sizes the process's decoded column cache (0: off);
// it only takes effect before the first scan.
func SetColumnCacheBytes(n int64) {
	if n == 0 {
		n = -1
	}
	colCache.size = n
}

func columnCache() *otter.Cache[colKey, arrow.Array] {
	colCache.once.Do(func() {
		n := colCache.size
		if n == 0 {
			n = DefaultColumnCacheBytes
		}
		if n < 0 {
			return
		}
		colCache.cache = otter.Must(&otter.Options[colKey, arrow.Array]{
			MaximumWeight: uint64(n),
			Weigher:       func(_ colKey, a arrow.Array) uint32 { return uint32(min(arrayBytes(a), 1<<31)) },
		})
	})
	return colCache.cache
}

// arrayBytes is the memory a decoded array holds.
func arrayBytes(a arrow.Array) int {
	n := 64
	for _, b := range a.Data().Buffers() {
		if b != nil {
			n += b.Len()
		}
	}
	return n
}

// ColumnCacheStats are the column cache hits and misses of s's scans.
func (s *Store) ColumnCacheStats() (hits, misses int64) { return s.colHits.Load(), s.colMisses.Load() }
