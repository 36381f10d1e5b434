package coord_test

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// spread is the largest minus the smallest replica count over ids.
func spread(m map[catalog.BackendID]int, ids []catalog.BackendID) int {
	lo, hi := 1<<30, 0
	for _, id := range ids {
		lo, hi = min(lo, m[id]), max(hi, m[id])
	}
	return hi - lo
}

func seqRows(n int) ([]int64, []any) {
	ks, xs := make([]int64, n), make([]any, n)
	for i := range ks {
		ks[i], xs[i] = int64(i), int64(i*3)
	}
	return ks, xs
}

// A fresh cluster whose tables are all created normally — plain ones of
// every shape, a colocate group, a partitioned table with a partition
// added later, a truncated table, a large one-bucket table — is balanced
// by placement alone: the
// balancer, running all the time, starts no clone over many scheduler
// rounds, and the replica counts differ by at most one.
func TestBalanceFreshClusterNoClones(t *testing.T) {
	c := newCluster(t, 3)
	ctx := context.Background()
	var tables []*catalog.Table
	for _, s := range []struct {
		name              string
		buckets, replicas int
		group             string
	}{{"a", 8, 1, ""}, {"b", 6, 2, ""}, {"c", 1, 1, ""}, {"d", 1, 1, ""}, {"e", 5, 3, ""}, {"f", 2, 2, ""},
		{"g1", 4, 1, "g"}, {"g2", 4, 1, "g"}, {"h", 1, 1, ""}} {
		tables = append(tables, c.table(s.name, types.BigIntT, "k", s.buckets, s.replicas, s.group))
	}
	spec := &catalog.TableSpec{Name: "p", Columns: []catalog.Column{col("k", types.BigIntT), col("x", types.BigIntT)},
		Keys: storage.DupKeys, KeyColumns: []string{"k"}, Dist: catalog.DistSpec{Kind: catalog.DistHash, Columns: []string{"k"}, Buckets: 2},
		ReplicationNum: 1, PartKind: catalog.PartRange, PartColumn: "k",
		Partitions: []catalog.PartitionSpec{{Name: "p1", Upper: datum("100")}, {Name: "p2", Upper: datum("200")}, {Name: "p3", Upper: datum("300")}}}
	pt, err := c.cat.CreateTable("db", spec, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.co.CreateTablets(ctx, pt); err != nil {
		t.Fatal(err)
	}
	if _, err := c.cat.AddPartition("db", "p", catalog.PartitionSpec{Name: "p4", Upper: datum("400")}, 0, func(t *catalog.Table, p *catalog.Partition) error {
		nt := *t
		nt.Partitions = []*catalog.Partition{p}
		return c.co.CreatePartitionTablets(ctx, &nt, p)
	}); err != nil {
		t.Fatal(err)
	}
	old, nt, err := c.cat.TruncateTable("db", "h", func(t *catalog.Table) error { return c.co.CreateTablets(ctx, t) })
	if err != nil {
		t.Fatal(err)
	}
	c.co.DropTablets(ctx, old)
	tables[len(tables)-1] = nt
	ks, xs := seqRows(3000)
	for _, tb := range tables {
		c.load(tb, ks, xs)
	}
	pt, _ = c.cat.Table("db", "p")
	ks, xs = seqRows(400)
	c.load(pt, ks, xs)
	// One large one-bucket table: its backend holds a megabyte or more
	// beyond the others (kilobytes), which no move can even (disk balance
	// leaves it).
	ks, xs = seqRows(200_000)
	c.load(tables[2], ks, xs)
	big, _ := c.cat.TableByID(tables[2].ID)
	if size := big.Partitions[0].DataSize; size < 1<<20 {
		t.Fatalf("the large table holds %d bytes, want a megabyte or more", size)
	}
	counts := c.co.BalanceStatus().Replicas
	if s := spread(counts, c.ids); s > 1 {
		t.Fatalf("replica counts after placement %v differ by %d", counts, s)
	}
	before := c.co.SchedulerStats()
	time.Sleep(10 * 300 * time.Millisecond) // ten scheduler rounds
	after := c.co.SchedulerStats()
	if after.Done != before.Done || after.Failed != before.Failed || after.Running != 0 || c.co.BalanceStatus().Running != 0 {
		t.Errorf("a fresh cluster cloned: %+v then %+v", before, after)
	}
	if after.Done != 0 {
		t.Errorf("%d clones in a cluster nobody grew", after.Done)
	}
	t.Logf("replicas per backend %v; clones %d", c.co.BalanceStatus().Replicas, after.Done)
}

func datum(s string) *types.Datum { d := types.StringDatum(s); return &d }

// readRows is the sorted rows of table name through the coordinator,
// replanned if a replica it planned on moved meanwhile (as the server
// does).
func (c *cluster) readRows(name string) ([]string, error) {
	gather := fragment.Sink{Kind: fragment.StreamGather, ExchangeID: 100}
	plan := func() *fragment.Plan {
		s := c.scan(10, name)
		return &fragment.Plan{Fragments: []*fragment.Fragment{gatherRoot(100, 1, s.Output, false),
			frag(1, s, fragment.RandomPartitioned, gather)}}
	}
	env := &op.Env{Mem: memory.DefaultAllocator, Eval: &expr.Context{Now: time.Unix(0, 0)}}
	o, err := c.co.RunRetrying(context.Background(), "", plan(), func() (*fragment.Plan, error) { return plan(), nil }, env, 0)
	if err != nil {
		return nil, err
	}
	defer o.Close()
	var rows []string
	for {
		rec, err := o.Next(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		rows = append(rows, recRows(rec)...)
		rec.Release()
	}
	slices.Sort(rows)
	return rows, nil
}

// Tables created while one backend was decommissioned leave it empty;
// once the decommission is cancelled the balancer — nobody added a
// backend — moves replicas (and whole colocate buckets, the group
// unstable meanwhile) onto it until the counts differ by at most one,
// with queries answering the same before, during and after.
func TestBalanceAfterDecommissionCancelled(t *testing.T) {
	c := newCluster(t, 3)
	light := c.ids[2]
	if err := c.cat.SetBackendDecommissioned(light, true); err != nil {
		t.Fatal(err)
	}
	tables := []*catalog.Table{
		c.table("a", types.BigIntT, "k", 6, 1, ""),
		c.table("b", types.BigIntT, "k", 3, 2, ""),
		c.table("c1", types.BigIntT, "k", 4, 1, "g"),
		c.table("c2", types.BigIntT, "k", 4, 1, "g"),
	}
	ks, xs := seqRows(500)
	want := map[string][]string{}
	for _, tb := range tables {
		c.load(tb, ks, xs)
		rows, err := c.readRows(tb.Name)
		if err != nil || len(rows) != 500 {
			t.Fatalf("%s before: %d rows, %v", tb.Name, len(rows), err)
		}
		want[tb.Name] = rows
	}
	counts := func() map[catalog.BackendID]int { return c.co.BalanceStatus().Replicas }
	before := counts()
	if before[light] != 0 {
		t.Fatalf("the decommissioned backend got %d replicas: %v", before[light], before)
	}
	if err := c.cat.SetBackendDecommissioned(light, false); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	var reads, bad atomic.Int64
	var firstBad atomic.Value
	var sawUnstable atomic.Bool
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			for _, tb := range tables {
				got, err := c.readRows(tb.Name)
				reads.Add(1)
				if err != nil || !slices.Equal(got, want[tb.Name]) {
					bad.Add(1)
					firstBad.CompareAndSwap(nil, fmt.Sprintf("%s: %d rows, %v", tb.Name, len(got), err))
				}
			}
			if g, ok := c.cat.GroupOfTable(tables[2]); ok && g.Unstable {
				sawUnstable.Store(true)
			}
		}
	}()
	start := time.Now()
	clones := c.co.SchedulerStats().Done
	c.waitUntil(30*time.Second, "counts even within one, the group stable, balance idle", func() bool {
		g, _ := c.cat.GroupOfTable(tables[2])
		if g.Unstable {
			sawUnstable.Store(true)
		}
		return spread(counts(), c.ids) <= 1 && !g.Unstable && c.co.BalanceStatus().Running == 0 && c.co.SchedulerStats().Running == 0
	})
	took := time.Since(start)
	stop.Store(true)
	wg.Wait()
	after := counts()
	moved := c.co.SchedulerStats().Done - clones
	t.Logf("counts %v → %v in %v, %d clones, %d reads during the balance", before, after, took, moved, reads.Load())
	if after[light] < 4 {
		t.Errorf("the backend back from decommission holds %d replicas: %v", after[light], after)
	}
	if bad.Load() > 0 {
		t.Errorf("%d of %d reads during the balance went wrong, first: %v", bad.Load(), reads.Load(), firstBad.Load())
	}
	if !sawUnstable.Load() {
		t.Error("the colocate group was never unstable, though a bucket had to move")
	}
	g, _ := c.cat.GroupOfTable(tables[2])
	onLight := 0
	for _, seq := range g.BucketSeq {
		if slices.Contains(seq, light) {
			onLight++
		}
	}
	if onLight == 0 {
		t.Errorf("no bucket of the group moved to %d: %v", light, g.BucketSeq)
	}
	for _, tb := range tables {
		cur, _ := c.cat.TableByID(tb.ID)
		for _, tab := range cur.Partitions[0].Tablets {
			if len(tab.Replicas) != cur.ReplicationNum || len(tab.HealthyOn()) != cur.ReplicationNum {
				t.Errorf("tablet %d of %s: replicas %+v", tab.ID, cur.Name, tab.Replicas)
			}
		}
		if got, err := c.readRows(tb.Name); err != nil || !slices.Equal(got, want[tb.Name]) {
			t.Errorf("%s after the balance: %d rows, %v", tb.Name, len(got), err)
		}
	}
	// Settled: more rounds move nothing.
	done := c.co.SchedulerStats().Done
	time.Sleep(6 * 300 * time.Millisecond)
	if st := c.co.SchedulerStats(); st.Done != done || st.Running != 0 {
		t.Errorf("balance kept moving after it settled: %d clones, then %d", done, st.Done)
	}
}
