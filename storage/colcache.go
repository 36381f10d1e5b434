package storage

import (
	"container/list"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
)

// colKey names one decoded segment column of one store.
type colKey struct {
	store uint64
	tab   TabletID
	rs    rowsetID
	seg   int32
	col   int32
	// del, for a column read without the rows delete conditions drop
	// (delete.go), names the conditions: the newest one's version and
	// their count; 0 for the column as stored.
	del  Version
	ndel int32
}

// lru is a byte-bounded least-recently-used map of decoded columns. Plain
// LRU, not a frequency-admitting cache: a query's columns are read once
// per run, and the next run of it (or of a query over the same columns)
// must find them, not earn admission first.
type lru struct {
	mu    sync.Mutex
	cap   int64
	used  int64
	ll    *list.List // front: most recent
	items map[colKey]*list.Element
}

type lruEntry struct {
	key  colKey
	arr  arrow.Array
	size int64
}

func (c *lru) get(k colKey) (arrow.Array, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[k]
	if !ok {
		return nil, false
	}
	c.ll.MoveToFront(e)
	return e.Value.(*lruEntry).arr, true
}

// put adds a (whose reference the cache keeps) and evicts the least
// recently used entries beyond the capacity.
func (c *lru) put(k colKey, a arrow.Array) {
	size := int64(arrayBytes(a))
	if size > c.cap/4 {
		return // one huge column would flush everything else
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		c.ll.MoveToFront(e)
		return
	}
	c.items[k] = c.ll.PushFront(&lruEntry{key: k, arr: a, size: size})
	c.used += size
	for c.used > c.cap {
		e := c.ll.Back()
		old := e.Value.(*lruEntry)
		c.ll.Remove(e)
		delete(c.items, old.key)
		c.used -= old.size
		// Batches still reading it hold their own references; the Go
		// GC frees the memory when the last one is done.
	}
}

// drop removes k's entry, if any (readers keep their own references).
func (c *lru) drop(k colKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		c.ll.Remove(e)
		delete(c.items, k)
		c.used -= e.Value.(*lruEntry).size
	}
}

func (c *lru) bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}

// colCache keeps decoded segment columns (Doris's page cache, after
// decoding): segments are immutable and a compaction writes new rowset
// ids, so an entry never goes stale; it only ages out. A hit costs no read,
// copy or allocation. Arrays are shared read-only.
var colCache struct {
	once  sync.Once
	size  int64
	cache *lru
}

var nextStoreID atomic.Uint64

// DefaultColumnCacheBytes is the decoded column cache without SetColumnCacheBytes.
const DefaultColumnCacheBytes = 512 << 20

// ColumnCacheBytes is what the column cache holds now.
func ColumnCacheBytes() int64 {
	if c := columnCache(); c != nil {
		return c.bytes()
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

func columnCache() *lru {
	colCache.once.Do(func() {
		n := colCache.size
		if n == 0 {
			n = DefaultColumnCacheBytes
		}
		if n < 0 {
			return
		}
		colCache.cache = &lru{cap: n, ll: list.New(), items: map[colKey]*list.Element{}}
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
