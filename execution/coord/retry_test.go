package coord_test

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/execution/coord"
	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// A query planned at version 2 of a tablet whose every replica was then
// cloned at version 3 (the clone merges versions [2, 3]: version 2 can no
// longer be read) fails with E-230 when run as planned. RunRetrying plans
// it again and answers the rows of version 3 without the caller seeing
// the failure; a plan that stays stale is retried a bounded number of
// times and then fails with the E-230 error.
func TestRunRetryingReplansStaleQuery(t *testing.T) {
	c := newCluster(t, 3)
	c.co.SetBalanceDisabled(true)
	tb := c.table("t", types.BigIntT, "k", 1, 3, "")
	ints := func(lo, hi int) ([]int64, []any) {
		var ks []int64
		var xs []any
		for i := lo; i < hi; i++ {
			ks, xs = append(ks, int64(i)), append(xs, int64(i))
		}
		return ks, xs
	}
	ks, xs := ints(0, 100)
	c.load(tb, ks, xs)
	gather := fragment.Sink{Kind: fragment.StreamGather, ExchangeID: 100}
	plan := func() *fragment.Plan {
		s := c.scan(10, "t")
		return &fragment.Plan{Fragments: []*fragment.Fragment{gatherRoot(100, 1, s.Output, false),
			frag(1, s, fragment.RandomPartitioned, gather)}}
	}
	stale := plan() // at version 2
	ks, xs = ints(100, 200)
	c.load(tb, ks, xs)
	cur, _ := c.cat.TableByID(tb.ID)
	tab, v := cur.Partitions[0].Tablets[0].ID, cur.Partitions[0].VisibleVersion
	// Every replica becomes a clone at v, as a repair installs it.
	src := c.bes[0].Store()
	sc, err := src.Schema(tab)
	if err != nil {
		t.Fatal(err)
	}
	it, err := src.Scan(context.Background(), storage.ScanRequest{Tablet: tab, Version: v, Columns: []int{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	var recs []arrow.Record
	for {
		rec, err := it.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	it.Close()
	for _, b := range c.bes {
		i := 0
		if _, err := b.Store().InstallClone(tab, sc, v, func() (arrow.Record, error) {
			if i == len(recs) {
				return nil, io.EOF
			}
			recs[i].Retain()
			i++
			return recs[i-1], nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range recs {
		r.Release()
	}

	if _, err := drainCount(c.co.Run, stale); !coord.StalePlan(err) {
		t.Fatalf("the stale plan run as planned: %v, want an E-230 error", err)
	}
	replans := 0
	run := func(ctx context.Context, id string, p *fragment.Plan, env *op.Env, now int64) (op.Operator, error) {
		return c.co.RunRetrying(ctx, id, p, func() (*fragment.Plan, error) { replans++; return plan(), nil }, env, now)
	}
	n, err := drainCount(run, stale)
	if err != nil || n != 200 {
		t.Fatalf("RunRetrying: %d rows, %v; want the 200 rows of version %d", n, err, v)
	}
	if replans != 1 {
		t.Errorf("%d re-plans, want 1", replans)
	}
	// Planned stale every time: bounded, and the cause reaches the caller.
	replans = 0
	start := time.Now()
	run = func(ctx context.Context, id string, p *fragment.Plan, env *op.Env, now int64) (op.Operator, error) {
		return c.co.RunRetrying(ctx, id, p, func() (*fragment.Plan, error) { replans++; return stale, nil }, env, now)
	}
	if _, err := drainCount(run, stale); !coord.StalePlan(err) {
		t.Fatalf("always stale: %v, want the E-230 error", err)
	}
	if replans != 3 {
		t.Errorf("always stale: %d re-plans, want 3", replans)
	}
	t.Logf("3 retries took %v", time.Since(start))
	// Another error is not retried.
	replans = 0
	bad := plan()
	bad.Fragments[1].Root.Scan.Tablets[0].Tablet = 1 << 40
	if _, err := drainCount(run, bad); err == nil || coord.StalePlan(err) || replans != 0 {
		t.Errorf("a scan of a missing tablet: %v after %d re-plans, want its own error and none", err, replans)
	}
}

type runFunc func(ctx context.Context, id string, p *fragment.Plan, env *op.Env, now int64) (op.Operator, error)

// drainCount runs plan with run and counts its rows.
func drainCount(run runFunc, plan *fragment.Plan) (int64, error) {
	env := &op.Env{Mem: memory.DefaultAllocator, Eval: &expr.Context{Now: time.Unix(0, 0)}}
	root, err := run(context.Background(), "", plan, env, 0)
	if err != nil {
		return 0, err
	}
	defer root.Close()
	var n int64
	err = op.Drain(context.Background(), root, func(rec arrow.Record) error { n += rec.NumRows(); return nil })
	return n, err
}

// A plan naming only replicas that moved away since it was planned (a
// balance or repair moved the tablet) is stale too: RunRetrying plans it
// again over the catalog's replicas now.
func TestRunRetryingAfterReplicasMoved(t *testing.T) {
	c := newCluster(t, 3)
	c.co.SetBalanceDisabled(true)
	tb := c.table("m", types.BigIntT, "k", 1, 2, "")
	c.load(tb, []int64{1, 2, 3}, []any{int64(1), int64(2), int64(3)})
	gather := fragment.Sink{Kind: fragment.StreamGather, ExchangeID: 100}
	plan := func() *fragment.Plan {
		s := c.scan(10, "m")
		return &fragment.Plan{Fragments: []*fragment.Fragment{gatherRoot(100, 1, s.Output, false),
			frag(1, s, fragment.RandomPartitioned, gather)}}
	}
	stale := plan()
	// As planned before the move: the replicas were on the backend that
	// holds none now.
	cur, _ := c.cat.TableByID(tb.ID)
	var away fragment.BackendID
	for _, id := range c.ids {
		if !slices.Contains(cur.Partitions[0].Tablets[0].HealthyOn(), id) {
			away = fragment.BackendID(id)
		}
	}
	stale.Fragments[1].Root.Scan.Tablets[0].Replicas = []fragment.BackendID{away}
	if _, err := drainCount(c.co.Run, stale); !coord.StalePlan(err) || !strings.Contains(err.Error(), "replica moved") {
		t.Fatalf("a plan whose replicas moved, run as planned: %v, want an E-230 error saying they moved", err)
	}
	run := func(ctx context.Context, id string, p *fragment.Plan, env *op.Env, now int64) (op.Operator, error) {
		return c.co.RunRetrying(ctx, id, p, func() (*fragment.Plan, error) { return plan(), nil }, env, now)
	}
	if n, err := drainCount(run, stale); err != nil || n != 3 {
		t.Fatalf("RunRetrying after the move: %d rows, %v; want 3", n, err)
	}
}
