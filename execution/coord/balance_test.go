package coord_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/be"
	"github.com/dorisgo/dorisgo/sql/types"
)

// A fourth backend joins three holding plain and colocate tablets: the
// balancer moves replicas (and one colocate bucket, as a whole) until the
// per-backend counts differ by at most 1, the group is stable again with
// the new backend in its sequence, and every tablet has replication_num
// healthy replicas holding the same rows as before. (In process, so the
// race detector sees the balancer next to the repair clones.)
func TestBalanceAfterAddBackend(t *testing.T) {
	c := newCluster(t, 3)
	ctx := context.Background()
	tables := []*catalog.Table{
		c.table("a", types.BigIntT, "k", 6, 1, ""),
		c.table("b", types.BigIntT, "k", 3, 2, ""),
		c.table("c1", types.BigIntT, "k", 4, 1, "g"),
		c.table("c2", types.BigIntT, "k", 4, 1, "g"),
	}
	var ks []int64
	var xs []any
	for i := range 200 {
		ks, xs = append(ks, int64(i)), append(xs, int64(i))
	}
	for _, tb := range tables {
		c.load(tb, ks, xs)
	}
	// rows counts a table's rows over one healthy replica per tablet, and
	// checks each tablet has exactly replication_num replicas, all healthy.
	rows := func(tb *catalog.Table) (int64, error) {
		cur, _ := c.cat.TableByID(tb.ID)
		p := cur.Partitions[0]
		var n int64
		for _, tab := range p.Tablets {
			if len(tab.Replicas) != cur.ReplicationNum || len(tab.HealthyOn()) != cur.ReplicationNum {
				return 0, fmt.Errorf("tablet %d of %s: replicas %+v", tab.ID, cur.Name, tab.Replicas)
			}
			k, _, err := c.co.TabletChecksum(ctx, tab.HealthyOn()[0], tab.ID, p.VisibleVersion)
			if err != nil {
				return 0, err
			}
			n += k
		}
		return n, nil
	}
	for _, tb := range tables {
		if n, err := rows(tb); err != nil || n != 200 {
			t.Fatalf("%s before: %d rows, %v", tb.Name, n, err)
		}
	}
	dir := t.TempDir()
	b, err := be.Start(dir, "127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	c.bes = append(c.bes, b)
	var port int
	fmt.Sscanf(b.Addr()[strings.LastIndex(b.Addr(), ":")+1:], "%d", &port)
	rec, err := c.cat.AddBackend("127.0.0.1", port)
	if err != nil {
		t.Fatal(err)
	}
	counts := func() map[catalog.BackendID]int { return c.co.BalanceStatus().Replicas }
	g0, _ := c.cat.GroupOfTable(tables[2])
	eventually(t, "a balanced cluster", func() bool {
		c.co.Heartbeat(ctx)
		m := counts()
		lo, hi := 1<<30, 0
		for _, id := range append(c.ids, rec.ID) {
			lo, hi = min(lo, m[id]), max(hi, m[id])
		}
		g, _ := c.cat.GroupOfTable(tables[2])
		return hi-lo <= 1 && !g.Unstable && c.co.BalanceStatus().Running == 0 && c.co.SchedulerStats().Running == 0
	})
	m := counts()
	if m[rec.ID] < 4 {
		t.Errorf("the new backend holds %d replicas: %v", m[rec.ID], m)
	}
	g, _ := c.cat.GroupOfTable(tables[2])
	moved := 0
	for i, seq := range g.BucketSeq {
		if fmt.Sprint(seq) != fmt.Sprint(g0.BucketSeq[i]) {
			moved++
			if seq[0] != rec.ID {
				t.Errorf("bucket %d moved to %v, not the new backend %d", i, seq, rec.ID)
			}
		}
	}
	if moved != 1 {
		t.Errorf("%d buckets of the group moved (%v → %v), want 1", moved, g0.BucketSeq, g.BucketSeq)
	}
	for _, tb := range tables {
		if n, err := rows(tb); err != nil || n != 200 {
			t.Errorf("%s after the balance: %d rows, %v", tb.Name, n, err)
		}
	}
}
