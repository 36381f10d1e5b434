package op

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// drainConcurrently reads every consumer in its own goroutine, as pipeline
// tasks do, and returns each one's rows.
func drainConcurrently(t *testing.T, cons []Operator) [][]string {
	t.Helper()
	out := make([][]string, len(cons))
	var wg sync.WaitGroup
	errs := make([]error, len(cons))
	for i, c := range cons {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = Drain(context.Background(), c, func(rec arrow.Record) error {
				for r := 0; r < int(rec.NumRows()); r++ {
					out[i] = append(out[i], types.DatumAt(rec.Column(0), r, types.BigIntT).String()+"|"+
						types.DatumAt(rec.Column(1), r, types.BigIntT).String())
				}
				return nil
			})
			c.Close()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func producers(mem memory.Allocator, rows []row, n, batch int) ([]Operator, []*sliceOp) {
	cs := cols("k", types.BigIntT, "v", types.BigIntT)
	var ops []Operator
	var srcs []*sliceOp
	for p := range n {
		var part []row
		for i := p; i < len(rows); i += n {
			part = append(part, rows[i])
		}
		s := newSource(mem, cs, part, batch)
		ops, srcs = append(ops, s), append(srcs, s)
	}
	return ops, srcs
}

func TestLocalExchangeKinds(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	rows := randRows(r, 3000, 50, 0.1)
	var want []string
	for _, rw := range rows {
		want = append(want, fmtRow(rw))
	}
	want = sorted(want)
	kinds := []fragment.LocalExchangeKind{fragment.LocalPassthrough, fragment.LocalAdaptivePassthrough,
		fragment.LocalHashShuffle, fragment.LocalBucketHashShuffle, fragment.LocalBroadcast, fragment.LocalPassToOne}
	for _, kind := range kinds {
		for _, np := range []int{1, 3} {
			for _, nc := range []int{1, 2, 3} {
				t.Run(fmt.Sprintf("%s/%dto%d", kind, np, nc), func(t *testing.T) {
					mem, check := checked(t)
					defer check()
					ops, srcs := producers(mem, rows, np, 7)
					route := TaskRoute{Kind: kind, Keys: []expr.Expr{colRef(0, types.BigIntT)}, Instances: 2, Buckets: 5}
					x, err := NewLocalExchange(testEnv(mem), ops, route, nc, 4<<10)
					if err != nil {
						t.Fatal(err)
					}
					got := drainConcurrently(t, x.Consumers())
					for _, s := range srcs {
						if !s.closed {
							t.Fatal("a producer was not closed")
						}
					}
					if kind == fragment.LocalPassToOne && len(got) != 1 {
						t.Fatalf("PASS_TO_ONE made %d consumers", len(got))
					}
					if kind == fragment.LocalBroadcast {
						for c := range got {
							equalRows(t, sorted(got[c]), want)
						}
						return
					}
					var all []string
					owner := map[string]int{}
					for c, rs := range got {
						all = append(all, rs...)
						if kind == fragment.LocalHashShuffle || kind == fragment.LocalBucketHashShuffle {
							for _, rw := range rs {
								key, _, _ := strings.Cut(rw, "|")
								if o, ok := owner[key]; ok && o != c {
									t.Fatalf("key %s went to consumers %d and %d", key, o, c)
								}
								owner[key] = c
							}
						}
					}
					equalRows(t, sorted(all), want)
					if (kind == fragment.LocalHashShuffle || kind == fragment.LocalBucketHashShuffle) && nc > 1 {
						used := map[int]bool{}
						for _, c := range owner {
							used[c] = true
						}
						if len(used) < 2 {
							t.Fatalf("50 keys all went to one of %d consumers", nc)
						}
					}
				})
			}
		}
	}
}

// A consumer that reads slowly holds producers back: what the exchange
// buffers for it stays within its byte budget plus one batch.
func TestLocalExchangeBudget(t *testing.T) {
	mem, check := checked(t)
	defer check()
	r := rand.New(rand.NewSource(3))
	rows := randRows(r, 20000, 1000, 0)
	ops, _ := producers(mem, rows, 2, 100)
	const budget = 8 << 10
	x, err := NewLocalExchange(testEnv(mem), ops, TaskRoute{Kind: fragment.LocalPassToOne}, 1, budget)
	if err != nil {
		t.Fatal(err)
	}
	c := x.Consumers()[0]
	ctx := context.Background()
	n := 0
	var peak int64
	for {
		rec, err := c.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n += int(rec.NumRows())
		rec.Release()
		peak = max(peak, x.inboxes[0].Stats().PeakBytes)
	}
	c.Close()
	if n != len(rows) {
		t.Fatalf("got %d rows, want %d", n, len(rows))
	}
	const batch = 100 * 16
	if peak > budget+batch {
		t.Fatalf("buffered %d bytes, budget %d", peak, budget)
	}
	if x.inboxes[0].Stats().BlockedNs == 0 {
		t.Fatal("producers never waited on the budget")
	}
}

// Consumers that stop early (a satisfied LIMIT) stop the producers too.
func TestLocalExchangeEarlyClose(t *testing.T) {
	mem, check := checked(t)
	defer check()
	rows := randRows(rand.New(rand.NewSource(5)), 50000, 100, 0)
	ops, srcs := producers(mem, rows, 3, 10)
	x, err := NewLocalExchange(testEnv(mem), ops, TaskRoute{Kind: fragment.LocalPassthrough}, 2, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range x.Consumers() {
		rec, err := c.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		rec.Release()
		c.Close()
	}
	for _, s := range srcs {
		if !s.closed {
			t.Fatal("a producer was not closed")
		}
	}
}

type failingOp struct{ sc *arrow.Schema }

var errBoom = errors.New("boom")

func (f *failingOp) Schema() *arrow.Schema                      { return f.sc }
func (f *failingOp) Next(context.Context) (arrow.Record, error) { return nil, errBoom }
func (f *failingOp) Close()                                     {}

// A producer's error reaches every consumer.
func TestLocalExchangeError(t *testing.T) {
	mem, check := checked(t)
	defer check()
	ops, _ := producers(mem, randRows(rand.New(rand.NewSource(1)), 100, 10, 0), 1, 10)
	ops = append(ops, &failingOp{sc: ops[0].Schema()})
	x, err := NewLocalExchange(testEnv(mem), ops, TaskRoute{Kind: fragment.LocalPassthrough}, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range x.Consumers() {
		err := Drain(context.Background(), c, func(arrow.Record) error { return nil })
		if !errors.Is(err, errBoom) {
			t.Fatalf("consumer got %v, want boom", err)
		}
		c.Close()
	}
}

// Probe tasks sharing one build side (a broadcast join run as pipeline
// tasks) return what one join over all probe rows returns.
func TestSharedBuildJoins(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	left, right := randRows(r, 2000, 60, 0.1), randRows(r, 500, 60, 0.1)
	for _, typ := range []fragment.JoinType{fragment.JoinInner, fragment.JoinLeftOuter, fragment.JoinLeftSemi, fragment.JoinLeftAnti, fragment.JoinNullAwareLeftAnti} {
		for _, nested := range []bool{false, true} {
			if nested && typ == fragment.JoinNullAwareLeftAnti {
				continue
			}
			t.Run(fmt.Sprintf("%s/nested=%v", typ, nested), func(t *testing.T) {
				want := runHashJoin(t, typ, left, right, false, false, 64)
				mem, check := checked(t)
				defer check()
				env := testEnv(mem)
				tracker := NewMemTracker(0)
				rc := cols("rk", types.BigIntT, "w", types.BigIntT)
				probes, _ := producers(mem, left, 3, 64)
				build := newSource(mem, rc, right, 64)
				s := NewSharedBuild(build, len(probes), tracker)
				var joins []Operator
				for _, p := range probes {
					empty := emptyOf(build)
					if nested {
						eq, _ := expr.NewCall("eq", colRef(0, types.BigIntT), colRef(2, types.BigIntT))
						j, err := NewNestedLoopJoin(env, p, empty, NestedLoopJoinSpec{Type: typ, Conjuncts: []expr.Expr{eq},
							Output: joinOutput(typ), Mem: tracker})
						if err != nil {
							t.Fatal(err)
						}
						j.ShareBuild(s)
						joins = append(joins, j)
						continue
					}
					j, err := NewHashJoin(env, p, empty, HashJoinSpec{Type: typ, LeftKeys: []expr.Expr{colRef(0, types.BigIntT)},
						RightKeys: []expr.Expr{colRef(0, types.BigIntT)}, Output: joinOutput(typ), Mem: tracker})
					if err != nil {
						t.Fatal(err)
					}
					if err := j.ShareBuild(s); err != nil {
						t.Fatal(err)
					}
					joins = append(joins, j)
				}
				var got []string
				var mu sync.Mutex
				var wg sync.WaitGroup
				for _, j := range joins {
					wg.Add(1)
					go func() {
						defer wg.Done()
						rows := drain(t, j)
						j.Close()
						mu.Lock()
						got = append(got, rows...)
						mu.Unlock()
					}()
				}
				wg.Wait()
				equalRows(t, sorted(got), want)
				if u := tracker.Used(); u != 0 {
					t.Fatalf("tracker holds %d bytes after every join closed", u)
				}
			})
		}
	}
}

// A sort run as tasks over a passthrough local exchange, with far more
// rows than the exchange budget: every task's sort must be fed while the
// merge above reads one task's output at a time (no deadlock), and the
// merged output is in order.
func TestBuildTasksSortMerge(t *testing.T) {
	mem, check := checked(t)
	defer check()
	cs := cols("k", types.BigIntT, "v", types.BigIntT)
	rows := randRows(rand.New(rand.NewSource(9)), 20000, 5000, 0)
	x := &fragment.Node{ID: 1, Kind: fragment.KindExchange, Output: cs, Exchange: &fragment.ExchangeSpec{From: 1}}
	sortNode := &fragment.Node{ID: 2, Kind: fragment.KindSort, Output: cs, Children: []*fragment.Node{x},
		Sort:           &fragment.SortSpec{Keys: []fragment.SortKey{{Expr: fragment.Ex{Expr: colRef(0, types.BigIntT)}}, {Expr: fragment.Ex{Expr: colRef(1, types.BigIntT)}}}},
		LocalExchanges: []fragment.LocalExchange{{Kind: fragment.LocalPassthrough}}}
	tp := TaskPlan{Tasks: 3, Instances: 1, Budget: 2 << 10, Exchange: func(n *fragment.Node, tasks int) ([]Operator, error) {
		ops, _ := producers(mem, rows, tasks, 50)
		return ops, nil
	}}
	env := testEnv(mem)
	roots, _, err := BuildTasks(env, sortNode, &Sources{}, tp)
	if err != nil {
		t.Fatal(err)
	}
	if len(roots) != 1 {
		t.Fatalf("a sort over tasks gave %d streams, want 1 (merged)", len(roots))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var prev []int64
	n := 0
	err = Drain(ctx, roots[0], func(rec arrow.Record) error {
		for r := 0; r < int(rec.NumRows()); r++ {
			cur := []int64{rec.Column(0).(*array.Int64).Value(r), rec.Column(1).(*array.Int64).Value(r)}
			if prev != nil && (cur[0] < prev[0] || cur[0] == prev[0] && cur[1] < prev[1]) {
				return fmt.Errorf("row %d out of order: %v after %v", n, cur, prev)
			}
			prev = cur
			n++
		}
		return nil
	})
	roots[0].Close()
	if err != nil {
		t.Fatal(err)
	}
	if n != len(rows) {
		t.Fatalf("%d rows, want %d", n, len(rows))
	}
}
