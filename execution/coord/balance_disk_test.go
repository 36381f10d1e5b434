package coord_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Balance evens data sizes as well as replica counts. Least-loaded
// placement puts two large 1-bucket tables on the first backend (each
// time all counts are equal, and no data is loaded yet); dropping a
// filler table then leaves that backend two replicas above the lightest.
// The balancer moves a large tablet, not a small one, to even the
// counts, then stops: the large tablets sit on different backends, the
// counts differ by at most one, no move follows, and the rows are intact.
func TestBalanceEvensDataSize(t *testing.T) {
	c := newCluster(t, 3)
	ctx := context.Background()
	c.co.SetBalanceDisabled(true)                        // until the layout is set up
	small := c.table("a", types.BigIntT, "k", 3, 1, "")  // 10000, 10001, 10002
	h1 := c.table("h1", types.BigIntT, "k", 1, 1, "")    // 10000
	filler := c.table("f", types.BigIntT, "k", 2, 1, "") // 10001, 10002
	h2 := c.table("h2", types.BigIntT, "k", 1, 1, "")    // 10000
	c.table("g", types.BigIntT, "k", 1, 1, "")           // 10001
	rows := func(n int) ([]int64, []any) {
		ks, xs := make([]int64, n), make([]any, n)
		for i := range ks {
			ks[i], xs[i] = int64(i), int64(uint64(i)*0x9E3779B97F4A7C15>>1)
		}
		return ks, xs
	}
	ks, xs := rows(30)
	c.load(small, ks, xs)
	ks, xs = rows(60_000)
	c.load(h1, ks, xs)
	c.load(h2, ks, xs)
	if _, err := c.cat.DropTable("db", filler.Name, false); err != nil {
		t.Fatal(err)
	}
	c.co.DropTablets(ctx, filler) // counts 3, 2, 1
	on := func(tb *catalog.Table) catalog.BackendID {
		cur, _ := c.cat.TableByID(tb.ID)
		r := cur.Partitions[0].Tablets[0].Replicas
		if len(r) != 1 || !r[0].Healthy() {
			return 0
		}
		return r[0].BackendID
	}
	if on(h1) != on(h2) {
		t.Fatalf("the large tablets start on %d and %d, want one backend", on(h1), on(h2))
	}
	placed := func(tb *catalog.Table) []catalog.BackendID {
		cur, _ := c.cat.TableByID(tb.ID)
		var out []catalog.BackendID
		for _, tab := range cur.Partitions[0].Tablets {
			out = append(out, tab.HealthyOn()...)
		}
		return out
	}
	smallAt := placed(small)
	c.co.SetBalanceDisabled(false)
	c.waitUntil(30*time.Second, "the large tablets on different backends, balance idle", func() bool {
		st := c.co.BalanceStatus()
		return on(h1) != 0 && on(h2) != 0 && on(h1) != on(h2) && st.Running == 0
	})
	counts := c.co.BalanceStatus().Replicas
	lo, hi := 1<<30, 0
	for _, id := range c.ids {
		lo, hi = min(lo, counts[id]), max(hi, counts[id])
	}
	if hi-lo > 1 {
		t.Errorf("replica counts %v differ by more than one", counts)
	}
	done := c.co.SchedulerStats().Done
	time.Sleep(2 * time.Second) // several scheduler rounds
	if st := c.co.SchedulerStats(); st.Done != done || st.Running != 0 {
		t.Errorf("balance kept moving after it settled: %d moves done, then %d (%d running)", done, st.Done, st.Running)
	}
	// One move evened both: a large tablet (counting replicas alone, the
	// first candidate, a small one, would have moved first).
	if done != 1 || !slices.Equal(placed(small), smallAt) {
		t.Errorf("%d moves, the small table from %v to %v; want one move, of a large tablet", done, smallAt, placed(small))
	}
	t.Logf("%d moves; counts %v", done, counts)
	for _, tb := range []*catalog.Table{small, h1, h2} {
		cur, _ := c.cat.TableByID(tb.ID)
		p := cur.Partitions[0]
		var n int64
		for _, tab := range p.Tablets {
			k, _, err := c.co.TabletChecksum(ctx, tab.HealthyOn()[0], tab.ID, p.VisibleVersion)
			if err != nil {
				t.Fatal(err)
			}
			n += k
		}
		if want := map[string]int64{"a": 30, "h1": 60_000, "h2": 60_000}[tb.Name]; n != want {
			t.Errorf("%s holds %d rows after balance, want %d", tb.Name, n, want)
		}
	}
}
