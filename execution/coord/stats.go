package coord

import (
	"context"
	"sync"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/storage"
)

// ReplicaStats is what the backends report of the replicas of some tables
// at their partitions' visible versions: rows (before UNIQUE/AGGREGATE
// merging), stored bytes and rowset count. A replica whose backend is down
// or did not answer is absent.
type ReplicaStats map[storage.TabletID]map[catalog.BackendID]storage.TabletStats

// statsTimeout bounds asking the backends for replica stats (a SHOW must
// not hang on a backend that stopped answering).
const statsTimeout = 5 * time.Second

// TableStats asks every alive backend holding replicas of tables for their
// stats, all backends at once.
func (c *Coordinator) TableStats(ctx context.Context, tables ...*catalog.Table) ReplicaStats {
	per := map[catalog.BackendID]map[storage.TabletID]storage.Version{}
	for _, t := range tables {
		for _, p := range t.Partitions {
			for _, tb := range p.Tablets {
				for _, r := range tb.Replicas {
					if per[r.BackendID] == nil {
						per[r.BackendID] = map[storage.TabletID]storage.Version{}
					}
					per[r.BackendID][tb.ID] = p.VisibleVersion
				}
			}
		}
	}
	ctx, cancel := context.WithTimeout(ctx, statsTimeout)
	defer cancel()
	out := ReplicaStats{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for be, vs := range per {
		if b, ok := c.cat.Backend(be); !ok || !b.Alive {
			continue
		}
		cl, err := c.Client(be)
		if err != nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var resp rpc.TabletStatsResp
			if err := cl.Do(ctx, rpc.ActTabletStats, rpc.TabletStatsReq{Versions: vs}, &resp); err != nil {
				c.log.Debug("tablet stats", "backend", be, "err", err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for tid, st := range resp.Stats {
				if out[tid] == nil {
					out[tid] = map[catalog.BackendID]storage.TabletStats{}
				}
				out[tid][be] = st
			}
		}()
	}
	wg.Wait()
	return out
}

// TabletBytes is a tablet's stored size: its largest replica's (replicas
// that lag hold less).
func (s ReplicaStats) TabletBytes(id storage.TabletID) int64 {
	var n int64
	for _, st := range s[id] {
		n = max(n, st.Bytes)
	}
	return n
}

// ReplicaBytes sums the stored bytes of every replica of t's tablets.
func (s ReplicaStats) ReplicaBytes(t *catalog.Table) (bytes int64, replicas int) {
	for _, p := range t.Partitions {
		for _, tb := range p.Tablets {
			replicas += len(tb.Replicas)
			for _, st := range s[tb.ID] {
				bytes += st.Bytes
			}
		}
	}
	return bytes, replicas
}
