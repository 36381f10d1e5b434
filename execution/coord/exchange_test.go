package coord_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/dorisgo/dorisgo/execution/coord"
	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/types"
)

const (
	nA = 30000
	nB = 6000
)

// joinData loads a(k, x varchar) with k = 0..nA-1 and b(k, x bigint) with
// k = 7i mod 20000 (every b row matches one a row, some b keys repeat),
// plain and colocated, and returns the single-node join answer.
func joinData(c *cluster) (want []string) {
	aK, aX := make([]int64, nA), make([]any, nA)
	for i := range aK {
		aK[i], aX[i] = int64(i), fmt.Sprintf("value-%06d", i)
	}
	bK, bX := make([]int64, nB), make([]any, nB)
	for i := range bK {
		bK[i], bX[i] = int64(i*7%20000), int64(i)
	}
	c.load(c.table("a", types.VarcharT(32), "k", 6, 1, ""), aK, aX)
	c.load(c.table("b", types.BigIntT, "k", 6, 1, ""), bK, bX)
	c.load(c.table("ca", types.VarcharT(32), "k", 6, 1, "g"), aK, aX)
	c.load(c.table("cb", types.BigIntT, "k", 6, 1, "g"), bK, bX)
	for i := range bK {
		want = append(want, fmt.Sprintf("%d|%s|%d|%d", bK[i], aX[bK[i]], bK[i], i))
	}
	sort.Strings(want)
	return want
}

func TestDistributedJoins(t *testing.T) {
	c := newCluster(t, 3)
	want := joinData(c)
	a, b := c.scan(10, "a"), c.scan(20, "b")
	joinOut := append(append([]types.Column(nil), a.Output...), b.Output...)
	gather := fragment.Sink{Kind: fragment.StreamGather, ExchangeID: 100}

	// Baselines: each table gathered whole measures its bytes A and B.
	_, pa := c.run(&fragment.Plan{Fragments: []*fragment.Fragment{gatherRoot(100, 1, a.Output, false),
		frag(1, c.scan(10, "a"), fragment.RandomPartitioned, gather)}})
	_, pb := c.run(&fragment.Plan{Fragments: []*fragment.Fragment{gatherRoot(100, 1, b.Output, false),
		frag(1, c.scan(20, "b"), fragment.RandomPartitioned, gather)}})
	bytesA, bytesB := pa.ExchangeStats(1).Bytes, pb.ExchangeStats(1).Bytes
	t.Logf("A = %d bytes, B = %d bytes", bytesA, bytesB)

	near := func(what string, got, want int64) {
		t.Helper()
		d := float64(got-want) / float64(want)
		t.Logf("%s: %d bytes, formula %d (%+.1f%%)", what, got, want, 100*d)
		if d > 0.1 || d < -0.1 {
			t.Errorf("%s: %d bytes, want %d ± 10%%", what, got, want)
		}
	}

	t.Run("shuffle", func(t *testing.T) {
		hash := func(ex fragment.NodeID) fragment.Sink {
			return fragment.Sink{Kind: fragment.StreamHash, ExchangeID: ex, Keys: []fragment.Ex{ref(0, types.BigIntT)}}
		}
		plan := &fragment.Plan{Fragments: []*fragment.Fragment{
			gatherRoot(100, 3, joinOut, false),
			frag(1, c.scan(10, "a"), fragment.RandomPartitioned, hash(31)),
			frag(2, c.scan(20, "b"), fragment.RandomPartitioned, hash(32)),
			frag(3, hashJoin(30, exchange(31, 1, a.Output, false), exchange(32, 2, b.Output, false), fragment.DistPartitioned),
				fragment.HashPartitioned, gather),
		}}
		got, p := c.run(plan)
		sameRows(t, "shuffle join", sorted(got), want)
		near("shuffle A+B", p.ExchangeStats(1).Bytes+p.ExchangeStats(2).Bytes, bytesA+bytesB)
		if n := countInstances(p, 3); n != 3 {
			t.Errorf("join fragment ran %d instances, want one per backend (3)", n)
		}
	})
	t.Run("broadcast", func(t *testing.T) {
		plan := &fragment.Plan{Fragments: []*fragment.Fragment{
			gatherRoot(100, 1, joinOut, false),
			frag(1, hashJoin(30, c.scan(10, "a"), exchange(32, 2, b.Output, false), fragment.DistBroadcast), fragment.RandomPartitioned, gather),
			frag(2, c.scan(20, "b"), fragment.RandomPartitioned, fragment.Sink{Kind: fragment.StreamBroadcast, ExchangeID: 32}),
		}}
		got, p := c.run(plan)
		sameRows(t, "broadcast join", sorted(got), want)
		near("broadcast B×nodes", p.ExchangeStats(2).Bytes, 3*bytesB)
	})
	t.Run("bucket_shuffle", func(t *testing.T) {
		plan := &fragment.Plan{Fragments: []*fragment.Fragment{
			gatherRoot(100, 1, joinOut, false),
			frag(1, hashJoin(30, c.scan(10, "a"), exchange(32, 2, b.Output, false), fragment.DistBucketShuffle), fragment.HashPartitioned, gather),
			frag(2, c.scan(20, "b"), fragment.RandomPartitioned, fragment.Sink{Kind: fragment.StreamBucketHash, ExchangeID: 32,
				Keys: []fragment.Ex{ref(0, types.BigIntT)}, Buckets: 6}),
		}}
		got, p := c.run(plan)
		sameRows(t, "bucket shuffle join", sorted(got), want)
		near("bucket shuffle B", p.ExchangeStats(2).Bytes, bytesB)
	})
	t.Run("colocate", func(t *testing.T) {
		ca, cb := c.scan(10, "ca"), c.scan(20, "cb")
		plan := &fragment.Plan{Fragments: []*fragment.Fragment{
			gatherRoot(100, 1, joinOut, false),
			frag(1, hashJoin(30, ca, cb, fragment.DistColocate), fragment.HashPartitioned, gather),
		}}
		got, p := c.run(plan)
		sameRows(t, "colocate join", sorted(got), want)
		if n := countInstances(p, 1); n != 3 {
			t.Errorf("colocate fragment ran %d instances, want 3", n)
		}
	})
	t.Run("two_phase_agg", func(t *testing.T) {
		sum := fragment.AggCall{Fn: "sum", Args: []fragment.Ex{ref(1, types.BigIntT)}, ArgType: types.BigIntT}
		cnt := fragment.AggCall{Fn: "count", ArgType: types.BigIntT}
		out := []types.Column{{Name: "k", Type: types.BigIntT, Nullable: true}, {Name: "s", Type: types.BigIntT, Nullable: true},
			{Name: "c", Type: types.BigIntT}}
		update := &fragment.Node{ID: 40, Kind: fragment.KindAgg, Children: []*fragment.Node{c.scan(20, "b")}, Output: out,
			Agg: &fragment.AggSpec{Phase: fragment.AggUpdateSerialize, Groups: []fragment.Ex{ref(0, types.BigIntT)}, Aggs: []fragment.AggCall{sum, cnt}}}
		msum, mcnt := sum, cnt
		msum.Args, mcnt.Args = []fragment.Ex{ref(1, types.BigIntT)}, []fragment.Ex{ref(2, types.BigIntT)}
		merge := &fragment.Node{ID: 50, Kind: fragment.KindAgg, Children: []*fragment.Node{exchange(51, 1, out, false)}, Output: out,
			Agg: &fragment.AggSpec{Phase: fragment.AggMergeFinalize, Groups: []fragment.Ex{ref(0, types.BigIntT)}, Aggs: []fragment.AggCall{msum, mcnt}}}
		plan := &fragment.Plan{Fragments: []*fragment.Fragment{
			gatherRoot(100, 2, out, false),
			frag(1, update, fragment.RandomPartitioned, fragment.Sink{Kind: fragment.StreamHash, ExchangeID: 51, Keys: []fragment.Ex{ref(0, types.BigIntT)}}),
			frag(2, merge, fragment.HashPartitioned, gather),
		}}
		got, _ := c.run(plan)
		sums, cnts := map[int64]int64{}, map[int64]int64{}
		for i := 0; i < nB; i++ {
			k := int64(i * 7 % 20000)
			sums[k] += int64(i)
			cnts[k]++
		}
		var wantAgg []string
		for k := range sums {
			wantAgg = append(wantAgg, fmt.Sprintf("%d|%d|%d", k, sums[k], cnts[k]))
		}
		sort.Strings(wantAgg)
		sameRows(t, "two-phase aggregation", sorted(got), wantAgg)
	})
	t.Run("merging_exchange", func(t *testing.T) {
		sortNode := &fragment.Node{ID: 60, Kind: fragment.KindSort, Children: []*fragment.Node{c.scan(10, "a")}, Output: a.Output,
			Sort: &fragment.SortSpec{Keys: []fragment.SortKey{{Expr: ref(0, types.BigIntT), Desc: true}}}}
		plan := &fragment.Plan{Fragments: []*fragment.Fragment{
			gatherRoot(100, 1, a.Output, true),
			frag(1, sortNode, fragment.RandomPartitioned, gather),
		}}
		got, _ := c.run(plan)
		if len(got) != nA {
			t.Fatalf("%d rows, want %d", len(got), nA)
		}
		for i, r := range got {
			if w := fmt.Sprintf("%d|value-%06d", nA-1-i, nA-1-i); r != w {
				t.Fatalf("row %d = %q, want %q (merge lost the order)", i, r, w)
			}
		}
	})
	t.Run("limit_stops_senders", func(t *testing.T) {
		// The root stops after 10 rows; the senders must not stall.
		lim := &fragment.Node{ID: 101, Kind: fragment.KindLimit, Children: []*fragment.Node{exchange(100, 1, a.Output, false)},
			Output: a.Output, Limit: &fragment.LimitSpec{Count: 10}}
		plan := &fragment.Plan{Fragments: []*fragment.Fragment{
			frag(0, lim, fragment.Unpartitioned, fragment.Sink{Kind: fragment.ResultSink}),
			frag(1, c.scan(10, "a"), fragment.RandomPartitioned, gather),
		}}
		q, err := c.start(context.Background(), plan)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for {
			rec, err := q.Next(context.Background())
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			n += int(rec.NumRows())
			rec.Release()
		}
		q.Close()
		if n != 10 {
			t.Fatalf("%d rows, want 10", n)
		}
		eventually(t, "instances to stop after LIMIT", func() bool { return c.status(q.ID()).Instances == 0 })
	})
}

func countInstances(p *coord.Profile, f fragment.FragmentID) int {
	n := 0
	for _, r := range p.Instances {
		if r.Fragment == f {
			n++
		}
	}
	return n
}

// A consumer that stops reading holds the producers within the byte
// budget; cancelling the query stops every backend's instances.
func TestBackpressureAndCancel(t *testing.T) {
	c := newCluster(t, 3)
	const budget = 64 << 10
	c.co.ExchangeBudget = budget
	joinData(c)
	a, b := c.scan(10, "a"), c.scan(20, "b")
	joinOut := append(append([]types.Column(nil), a.Output...), b.Output...)
	// big is large enough that gRPC's windows cannot hide it all.
	const nBig = 150000
	bK, bX := make([]int64, nBig), make([]any, nBig)
	for i := range bK {
		bK[i], bX[i] = int64(i), fmt.Sprintf("value-%06d", i)
	}
	c.load(c.table("big", types.VarcharT(32), "k", 6, 1, ""), bK, bX)
	gplan := &fragment.Plan{Fragments: []*fragment.Fragment{gatherRoot(100, 1, a.Output, false),
		frag(1, c.scan(10, "big"), fragment.RandomPartitioned, fragment.Sink{Kind: fragment.StreamGather, ExchangeID: 100})}}

	t.Run("slow_consumer", func(t *testing.T) {
		q, err := c.start(context.Background(), gplan)
		if err != nil {
			t.Fatal(err)
		}
		defer q.Close()
		rec, err := q.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		maxBatch := op.RecordBytes(rec)
		n := int(rec.NumRows())
		rec.Release()
		// Hold the consumer: the senders fill their outboxes and block.
		eventually(t, "senders to block on the budget", func() bool {
			st := c.status(q.ID())
			return st.Instances == 3 && st.Buffered >= 3*budget
		})
		st := c.status(q.ID())
		t.Logf("held: %d bytes buffered over 3 backends, peak %d, budget %d", st.Buffered, st.PeakBytes, budget)
		if limit := int64(budget) + 2*maxBatch; st.PeakBytes > limit {
			t.Errorf("outbox peaked at %d bytes, over budget %d + a batch (%d)", st.PeakBytes, budget, maxBatch)
		}
		for {
			rec, err := q.Next(context.Background())
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			n += int(rec.NumRows())
			rec.Release()
		}
		if n != nBig {
			t.Fatalf("read %d rows, want %d", n, nBig)
		}
		p := q.Profile()
		var blocked int64
		for _, r := range p.Instances {
			blocked += r.Sink.BlockedNs
		}
		if blocked == 0 {
			t.Errorf("senders never waited on the budget")
		}
		if fe := p.RootExchanges[100]; fe.PeakBytes > int64(budget)+3*maxBatch {
			t.Errorf("FE receiver peaked at %d bytes, budget %d", fe.PeakBytes, budget)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		// The big gather: held by the budget, its instances are still
		// running after the first batch however fast the machine is (the
		// small join could finish first under load).
		q, err := c.start(ctx, gplan)
		if err != nil {
			t.Fatal(err)
		}
		defer q.Close()
		rec, err := q.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		rec.Release()
		if c.status(q.ID()).Instances == 0 {
			t.Fatal("no instance running")
		}
		start := time.Now()
		cancel() // KILL
		eventually(t, "every instance to stop", func() bool { return c.status(q.ID()).Instances == 0 })
		t.Logf("all instances stopped %v after the cancel", time.Since(start))
		// Batches already buffered may still come out; then the query must
		// end with the cancellation, not finish normally.
		for i := 0; ; i++ {
			rec, err := q.Next(context.Background())
			if err == io.EOF || i > 10000 {
				t.Fatal("cancelled query went on to completion")
			}
			if err != nil {
				break
			}
			rec.Release()
		}
	})
	t.Run("backend_error_cancels_all", func(t *testing.T) {
		// An instance failing on one backend (a bad bucket map) fails the query and stops the rest.
		bad := &fragment.Plan{Fragments: []*fragment.Fragment{
			gatherRoot(100, 1, joinOut, false),
			frag(1, hashJoin(30, c.scan(10, "a"), exchange(32, 2, b.Output, false), fragment.DistBucketShuffle), fragment.HashPartitioned,
				fragment.Sink{Kind: fragment.StreamGather, ExchangeID: 100}),
			frag(2, c.scan(20, "b"), fragment.RandomPartitioned, fragment.Sink{Kind: fragment.StreamBucketHash, ExchangeID: 32,
				Keys: []fragment.Ex{ref(0, types.BigIntT)}, Buckets: 0}),
		}}
		q, err := c.start(context.Background(), bad)
		if err == nil {
			defer q.Close()
			for err == nil {
				var n int
				rec, e := q.Next(context.Background())
				if e == nil {
					n = int(rec.NumRows())
					rec.Release()
				}
				_, err = n, e
			}
			if errors.Is(err, io.EOF) {
				t.Fatal("query with a failing instance succeeded")
			}
			eventually(t, "every instance to stop", func() bool { return c.status(q.ID()).Instances == 0 })
		}
		t.Logf("error: %v", err)
	})
}

// A backend killed mid-query fails the query within 5 s naming it; the
// next query reads the other replicas.
func TestBackendDeath(t *testing.T) {
	c := newCluster(t, 3)
	c.co.ExchangeBudget = 64 << 10
	const nR = 150000 // more than gRPC's windows hold, so the senders are still running
	aK, aX := make([]int64, nR), make([]any, nR)
	for i := range aK {
		aK[i], aX[i] = int64(i), fmt.Sprintf("value-%06d", i)
	}
	c.load(c.table("r", types.VarcharT(32), "k", 6, 3, ""), aK, aX)
	r := c.scan(10, "r")
	plan := func() *fragment.Plan {
		return &fragment.Plan{Fragments: []*fragment.Fragment{gatherRoot(100, 1, r.Output, false),
			frag(1, c.scan(10, "r"), fragment.RandomPartitioned, fragment.Sink{Kind: fragment.StreamGather, ExchangeID: 100})}}
	}
	q, err := c.start(context.Background(), plan())
	if err != nil {
		t.Fatal(err)
	}
	rec, err := q.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rec.Release()
	victim := 1
	eventually(t, "every sender to be running", func() bool { return c.status(q.ID()).Instances == 3 })
	addr := c.bes[victim].Addr()
	start := time.Now()
	c.bes[victim].Kill()
	c.bes[victim] = nil
	for err == nil {
		rec, err = q.Next(context.Background())
		if err == nil {
			rec.Release()
		}
	}
	took := time.Since(start)
	q.Close()
	t.Logf("failed after %v: %v", took, err)
	if err == io.EOF {
		t.Fatal("query survived its backend's death")
	}
	if took > 5*time.Second {
		t.Errorf("took %v to fail", took)
	}
	if !strings.Contains(err.Error(), addr) && !strings.Contains(err.Error(), fmt.Sprint(c.ids[victim])) {
		t.Errorf("error %q does not name backend %d (%s)", err, c.ids[victim], addr)
	}
	c.co.Heartbeat(context.Background())
	got, _ := c.run(plan())
	if len(got) != nR {
		t.Fatalf("after the death: %d rows, want %d", len(got), nR)
	}
}
