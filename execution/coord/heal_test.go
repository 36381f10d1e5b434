package coord_test

import (
	"context"
	"testing"

	"github.com/dorisgo/dorisgo/execution/be"
	"github.com/dorisgo/dorisgo/sql/types"
)

// With one of three backends killed, loads into a 3-replica table commit
// on the majority and leave that backend's replicas lagging; restarted,
// the tablet scheduler clones them back: every replica healthy, with the
// same rows and checksum at the visible version as the others. (In
// process, so the race detector sees the scheduler, clones and loads.)
func TestMajorityLoadThenCatchUp(t *testing.T) {
	c := newCluster(t, 3)
	ctx := context.Background()
	tb := c.table("r", types.BigIntT, "k", 3, 3, "")
	rows := func(lo, hi int) ([]int64, []any) {
		var ks []int64
		var xs []any
		for i := lo; i < hi; i++ {
			ks = append(ks, int64(i))
			xs = append(xs, int64(i*7))
		}
		return ks, xs
	}
	ks, xs := rows(0, 100)
	c.load(tb, ks, xs)
	addr := c.bes[2].Addr()
	c.bes[2].Kill()
	c.bes[2] = nil
	c.co.Heartbeat(ctx)
	ks, xs = rows(100, 300)
	c.load(tb, ks, xs)
	ks, xs = rows(300, 310)
	c.load(tb, ks, xs)
	cur, _ := c.cat.TableByID(tb.ID)
	for _, tab := range cur.Partitions[0].Tablets {
		for _, r := range tab.Replicas {
			if (r.BackendID == c.ids[2]) == r.Healthy() {
				t.Fatalf("tablet %d replica on %d: %+v (backend %d is down)", tab.ID, r.BackendID, r, c.ids[2])
			}
		}
	}
	b, err := be.Start(c.dirs[2], addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.bes[2] = b
	eventually(t, "every replica healthy", func() bool {
		c.co.Heartbeat(ctx)
		cur, _ := c.cat.TableByID(tb.ID)
		for _, tab := range cur.Partitions[0].Tablets {
			for _, r := range tab.Replicas {
				if !r.Healthy() {
					return false
				}
			}
		}
		return true
	})
	cur, _ = c.cat.TableByID(tb.ID)
	p := cur.Partitions[0]
	var total int64
	for _, tab := range p.Tablets {
		var first *[2]uint64
		for _, r := range tab.Replicas {
			n, sum, err := c.co.TabletChecksum(ctx, r.BackendID, tab.ID, p.VisibleVersion)
			if err != nil {
				t.Fatal(err)
			}
			got := [2]uint64{uint64(n), sum}
			if first == nil {
				first = &got
				total += n
			} else if got != *first {
				t.Errorf("tablet %d: backend %d has %v (rows, checksum), another replica %v", tab.ID, r.BackendID, got, *first)
			}
		}
	}
	if total != 310 {
		t.Errorf("%d rows over the tablets, want 310", total)
	}
}
