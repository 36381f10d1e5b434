package storage

import "sync"

// segMetaCache keeps decoded segment metas (row count, zone maps, column
// layout) between scans. Reading and decoding them was a seventh of a small
// query's allocations: every scan of a tablet planned every segment anew.
// Entries are immutable; the cache is bounded, evicting an arbitrary
// quarter when full (segments of dropped tablets and compacted rowsets
// leave that way, as their IDs are never reused).
type segMetaCache struct {
	mu sync.Mutex
	m  map[segMetaKey]segMetaEntry
}

type segMetaKey struct {
	tab TabletID
	rs  rowsetID
	seg int
}

// segMetaEntry is a segment meta decoded against schema sc.
type segMetaEntry struct {
	sc  *TabletSchema
	m   segMeta
	lay []int
}

// segMetaCacheMax bounds the entries: about 20,000 segments' zone maps of a
// few hundred bytes each.
const segMetaCacheMax = 1 << 14

func (c *segMetaCache) get(k segMetaKey) (segMetaEntry, bool) {
	c.mu.Lock()
	e, ok := c.m[k]
	c.mu.Unlock()
	return e, ok
}

func (c *segMetaCache) put(k segMetaKey, e segMetaEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[segMetaKey]segMetaEntry{}
	}
	if len(c.m) >= segMetaCacheMax {
		n := len(c.m) / 4
		for k := range c.m {
			if n == 0 {
				break
			}
			delete(c.m, k)
			n--
		}
	}
	c.m[k] = e
}
