package coord_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/be"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// waitUntil polls cond (heartbeating) until it holds or d passes.
func (c *cluster) waitUntil(d time.Duration, what string, cond func() bool) {
	c.t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			c.t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		c.co.Heartbeat(context.Background())
		time.Sleep(50 * time.Millisecond)
	}
}

// A backend dead past the repair delay has its replicas re-created on the
// others; a table is dropped while it is still away. When it returns, its
// tablet report drops every tablet the catalog no longer assigns to it
// (the replaced replicas and the dropped table's) and frees their disk,
// while a tablet the catalog does not know and nobody dropped (as INSERT
// OVERWRITE's new tablets are before their commit) stays; the rows read
// the same.
func TestReturningBackendDropsStaleTablets(t *testing.T) {
	c := newCluster(t, 4)
	ctx := context.Background()
	c.co.SetBalanceDisabled(true)
	c.co.SetRepairDelay(300 * time.Millisecond)
	tb := c.table("r", types.BigIntT, "k", 4, 3, "")
	gone := c.table("gone", types.BigIntT, "k", 2, 3, "")
	const n = 100_000
	ks, xs := make([]int64, n), make([]any, n)
	for i := range ks {
		ks[i], xs[i] = int64(i), int64(uint64(i)*0x9E3779B97F4A7C15>>1)
	}
	c.load(tb, ks, xs)
	c.load(gone, ks[:1000], xs[:1000])
	victim := 3
	id, addr := c.ids[victim], c.bes[victim].Addr()
	held := c.bes[victim].Store().Tablets()
	if len(held) == 0 {
		t.Fatal("the victim holds no tablet")
	}
	c.bes[victim].Kill()
	c.bes[victim] = nil
	onVictim := func() int {
		n := 0
		for _, name := range []string{"r", "gone"} {
			cur, err := c.cat.Table("db", name)
			if err != nil {
				continue
			}
			for _, tab := range cur.Partitions[0].Tablets {
				for _, r := range tab.Replicas {
					if r.BackendID == id {
						n++
					}
				}
			}
		}
		return n
	}
	c.waitUntil(30*time.Second, "the dead backend's replicas re-created elsewhere", func() bool {
		cur, _ := c.cat.TableByID(tb.ID)
		for _, tab := range cur.Partitions[0].Tablets {
			if len(tab.HealthyOn()) != 3 || len(tab.Replicas) != 3 {
				return false
			}
		}
		return onVictim() == 0
	})
	// Dropped while the victim is away: it cannot be told.
	dropped, err := c.cat.DropTable("db", "gone", false)
	if err != nil {
		t.Fatal(err)
	}
	c.co.DropTablets(ctx, dropped)

	b, err := be.Start(c.dirs[victim], addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.bes[victim] = b
	st := b.Store()
	if got := st.Tablets(); !slices.Equal(got, held) {
		t.Fatalf("restarted victim holds %v, want its old %v", got, held)
	}
	before := st.DiskUsage()
	// Not in the catalog and dropped by nobody: kept.
	const foreign = storage.TabletID(1 << 40)
	if err := st.CreateTablet(foreign, &storage.TabletSchema{Keys: storage.DupKeys, NumKeys: 1,
		Columns: []types.Column{{Name: "k", Type: types.BigIntT}}}); err != nil {
		t.Fatal(err)
	}
	c.waitUntil(20*time.Second, "the returned backend's stale tablets dropped", func() bool {
		return slices.Equal(st.Tablets(), []storage.TabletID{foreign}) && c.co.ReportDropped(id) >= len(held)
	})
	if got := c.co.ReportDropped(id); got != len(held) {
		t.Errorf("the report dropped %d tablets, want the %d the victim held", got, len(held))
	}
	c.waitUntil(20*time.Second, "the dropped tablets' disk freed", func() bool { return st.DiskUsage() < before/2 })
	t.Logf("victim's disk: %d bytes before the report, %d after", before, st.DiskUsage())
	// The other replicas are untouched: every tablet's rows add up.
	cur, _ := c.cat.TableByID(tb.ID)
	p := cur.Partitions[0]
	var total int64
	for _, tab := range p.Tablets {
		for i, be := range tab.HealthyOn() {
			rows, _, err := c.co.TabletChecksum(ctx, be, tab.ID, p.VisibleVersion)
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				total += rows
			}
		}
	}
	if total != n {
		t.Errorf("%d rows over the tablets after the report, want %d", total, n)
	}
	for _, tab := range p.Tablets {
		if slices.Contains(tab.HealthyOn(), catalog.BackendID(id)) {
			t.Errorf("tablet %d has a replica on the returned backend", tab.ID)
		}
	}
}

// A backend replaced while away comes back empty: its tablet report arms
// the balancer (disable_balance is false, nobody added a backend), which
// moves replicas back onto it until the counts differ by at most one,
// every tablet keeping 3 healthy replicas with its rows.
func TestReturningBackendIsRebalanced(t *testing.T) {
	c := newCluster(t, 4)
	ctx := context.Background()
	c.co.SetRepairDelay(300 * time.Millisecond)
	tb := c.table("r", types.BigIntT, "k", 4, 3, "")
	ks, xs := make([]int64, 1000), make([]any, 1000)
	for i := range ks {
		ks[i], xs[i] = int64(i), int64(i)
	}
	c.load(tb, ks, xs)
	victim := 2
	id, addr := c.ids[victim], c.bes[victim].Addr()
	c.bes[victim].Kill()
	c.bes[victim] = nil
	counts := func() map[catalog.BackendID]int { return c.co.BalanceStatus().Replicas }
	c.waitUntil(30*time.Second, "the dead backend's replicas re-created elsewhere", func() bool {
		cur, _ := c.cat.TableByID(tb.ID)
		for _, tab := range cur.Partitions[0].Tablets {
			if len(tab.HealthyOn()) != 3 || len(tab.Replicas) != 3 {
				return false
			}
		}
		return counts()[id] == 0
	})
	b, err := be.Start(c.dirs[victim], addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.bes[victim] = b
	c.waitUntil(30*time.Second, "the returned backend refilled", func() bool {
		m := counts()
		lo, hi := 1<<30, 0
		for _, id := range c.ids {
			lo, hi = min(lo, m[id]), max(hi, m[id])
		}
		return hi-lo <= 1 && m[id] > 0 && c.co.BalanceStatus().Running == 0
	})
	cur, _ := c.cat.TableByID(tb.ID)
	p := cur.Partitions[0]
	var total int64
	for _, tab := range p.Tablets {
		if len(tab.HealthyOn()) != 3 || len(tab.Replicas) != 3 {
			t.Errorf("tablet %d: replicas %+v after the balance", tab.ID, tab.Replicas)
			continue
		}
		rows, _, err := c.co.TabletChecksum(ctx, tab.HealthyOn()[0], tab.ID, p.VisibleVersion)
		if err != nil {
			t.Fatal(err)
		}
		total += rows
	}
	if total != 1000 {
		t.Errorf("%d rows after the balance, want 1000", total)
	}
	t.Logf("counts after the return: %v", counts())
}
