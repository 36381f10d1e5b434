package exchange

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/execution/op/optest"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// drainConcurrently reads every consumer in its own goroutine, as pipeline
// tasks do, and returns each one's rows.
func drainConcurrently(t *testing.T, cons []op.Operator) [][]string {
	t.Helper()
	out := make([][]string, len(cons))
	var wg sync.WaitGroup
	errs := make([]error, len(cons))
	for i, c := range cons {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = op.Drain(context.Background(), c, func(rec arrow.Record) error {
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

func TestLocalExchangeKinds(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	rows := optest.RandRows(r, 3000, 50, 0.1)
	var want []string
	for _, rw := range rows {
		want = append(want, optest.FmtRow(rw))
	}
	want = optest.Sorted(want)
	kinds := []fragment.LocalExchangeKind{fragment.LocalPassthrough, fragment.LocalAdaptivePassthrough,
		fragment.LocalHashShuffle, fragment.LocalBucketHashShuffle, fragment.LocalBroadcast, fragment.LocalPassToOne}
	for _, kind := range kinds {
		for _, np := range []int{1, 3} {
			for _, nc := range []int{1, 2, 3} {
				t.Run(fmt.Sprintf("%s/%dto%d", kind, np, nc), func(t *testing.T) {
					mem, check := optest.Checked(t)
					defer check()
					ops, srcs := optest.Producers(mem, rows, np, 7)
					route := TaskRoute{Kind: kind, Keys: []expr.Expr{optest.ColRef(0, types.BigIntT)}, Instances: 2, Buckets: 5}
					x, err := NewLocalExchange(optest.Env(mem), ops, route, nc, 4<<10)
					if err != nil {
						t.Fatal(err)
					}
					got := drainConcurrently(t, x.Consumers())
					for _, s := range srcs {
						if !s.Closed {
							t.Fatal("a producer was not closed")
						}
					}
					if kind == fragment.LocalPassToOne && len(got) != 1 {
						t.Fatalf("PASS_TO_ONE made %d consumers", len(got))
					}
					if kind == fragment.LocalBroadcast {
						for c := range got {
							optest.EqualRows(t, optest.Sorted(got[c]), want)
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
					optest.EqualRows(t, optest.Sorted(all), want)
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
	mem, check := optest.Checked(t)
	defer check()
	r := rand.New(rand.NewSource(3))
	rows := optest.RandRows(r, 20000, 1000, 0)
	ops, _ := optest.Producers(mem, rows, 2, 100)
	const budget = 8 << 10
	x, err := NewLocalExchange(optest.Env(mem), ops, TaskRoute{Kind: fragment.LocalPassToOne}, 1, budget)
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
	mem, check := optest.Checked(t)
	defer check()
	rows := optest.RandRows(rand.New(rand.NewSource(5)), 50000, 100, 0)
	ops, srcs := optest.Producers(mem, rows, 3, 10)
	x, err := NewLocalExchange(optest.Env(mem), ops, TaskRoute{Kind: fragment.LocalPassthrough}, 2, 1<<10)
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
		if !s.Closed {
			t.Fatal("a producer was not closed")
		}
	}
}

type failingOp struct{ sc *arrow.Schema }

func (f *failingOp) Schema() *arrow.Schema                      { return f.sc }
func (f *failingOp) Next(context.Context) (arrow.Record, error) { return nil, optest.ErrBoom }
func (f *failingOp) Close()                                     {}

// A producer's error reaches every consumer.
func TestLocalExchangeError(t *testing.T) {
	mem, check := optest.Checked(t)
	defer check()
	ops, _ := optest.Producers(mem, optest.RandRows(rand.New(rand.NewSource(1)), 100, 10, 0), 1, 10)
	ops = append(ops, &failingOp{sc: ops[0].Schema()})
	x, err := NewLocalExchange(optest.Env(mem), ops, TaskRoute{Kind: fragment.LocalPassthrough}, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range x.Consumers() {
		err := op.Drain(context.Background(), c, func(arrow.Record) error { return nil })
		if !errors.Is(err, optest.ErrBoom) {
			t.Fatalf("consumer got %v, want boom", err)
		}
		c.Close()
	}
}
