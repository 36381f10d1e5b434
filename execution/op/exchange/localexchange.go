package exchange

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Local exchanges move batches between the pipeline tasks of one fragment
// instance (seed 000). Each producer task runs in its own goroutine and
// routes its batches into one Inbox per consumer task, so the byte budget
// that throttles network exchanges also bounds what a slow consumer task
// lets producers buffer here.

// TaskRoute says which consumer task a row goes to.
type TaskRoute struct {
	Kind fragment.LocalExchangeKind
	// Keys (hash kinds) are over the producers' output columns.
	Keys []expr.Expr
	// Instances is the fragment's instance count: a hash-partitioned
	// exchange already sent row h to instance h mod Instances, so the task
	// is taken from the quotient (h / Instances) mod tasks, which keeps the
	// tasks balanced and agrees with the receiving end of such an exchange.
	Instances int
	// Buckets (LocalBucketHashShuffle): the storage bucket count; the task
	// is bucket mod tasks, as scans assign tablets to tasks.
	Buckets int
}

// taskOfHash is where a hashed row goes under r with tasks consumers.
func (r *TaskRoute) taskOfHash(h uint64, tasks int) int {
	if r.Kind == fragment.LocalBucketHashShuffle {
		return types.Bucket(h, r.Buckets) % tasks
	}
	return int((h / uint64(max(r.Instances, 1))) % uint64(tasks))
}

// LocalExchange fans producers' batches out to consumers tasks.
type LocalExchange struct {
	env       *op.Env
	producers []op.Operator
	route     TaskRoute
	inboxes   []*Inbox
	schema    *arrow.Schema

	mu     sync.Mutex
	start  sync.Once
	cancel context.CancelFunc
	wg     sync.WaitGroup
	open   int // consumers not yet closed
	closed bool
}

// NewLocalExchange returns the exchange; Consumers gives its outputs.
// LocalPassToOne makes one consumer whatever tasks says.
func NewLocalExchange(env *op.Env, producers []op.Operator, route TaskRoute, tasks int, budget int64) (*LocalExchange, error) {
	if len(producers) == 0 {
		return nil, sqlerr.Assertf("local exchange without producers")
	}
	switch route.Kind {
	case fragment.LocalPassToOne:
		tasks = 1
	case fragment.LocalBucketHashShuffle:
		if route.Buckets <= 0 {
			return nil, sqlerr.Assertf("bucket hash local exchange without a bucket count")
		}
	}
	x := &LocalExchange{env: env, producers: producers, route: route, schema: producers[0].Schema(), open: tasks}
	for range tasks {
		x.inboxes = append(x.inboxes, NewInbox(x.schema, len(producers), budget))
	}
	return x, nil
}

// Consumers returns one operator per consumer task.
func (x *LocalExchange) Consumers() []op.Operator {
	out := make([]op.Operator, len(x.inboxes))
	for i, ib := range x.inboxes {
		out[i] = &localConsumer{x: x, src: ib.Source()}
	}
	return out
}

// Run starts the producer goroutines under a context of the exchange's own
// (cancelled when the last consumer closes).
func (x *LocalExchange) Run(ctx context.Context) {
	x.start.Do(func() {
		x.mu.Lock()
		defer x.mu.Unlock()
		if x.closed {
			return
		}
		ctx, x.cancel = context.WithCancel(ctx)
		for p, o := range x.producers {
			x.wg.Add(1)
			go func() {
				defer x.wg.Done()
				if err := x.produce(ctx, p, o); err != nil {
					for _, ib := range x.inboxes {
						ib.Fail(err)
					}
				}
			}()
		}
	})
}

func (x *LocalExchange) produce(ctx context.Context, p int, o op.Operator) (err error) {
	defer op.RecoverTo(&err)
	rr := p // round robin start, spread over producers
	var hashes []uint64
	for {
		rec, err := o.Next(ctx)
		if err == io.EOF {
			for _, ib := range x.inboxes {
				ib.Done(p)
			}
			return nil
		}
		if err != nil {
			return err
		}
		n := len(x.inboxes)
		switch x.route.Kind {
		case fragment.LocalBroadcast:
			live := 0
			for _, ib := range x.inboxes {
				rec.Retain()
				if err := ib.Put(ctx, p, rec); err == nil {
					live++
				} else if !errors.Is(err, ErrReceiverClosed) {
					rec.Release()
					return err
				}
			}
			rec.Release()
			if live == 0 {
				return nil
			}
		case fragment.LocalHashShuffle, fragment.LocalBucketHashShuffle:
			hashes, err = x.scatter(ctx, p, rec, hashes)
			rec.Release()
			if err != nil {
				return err
			}
		default: // PASSTHROUGH, ADAPTIVE_PASSTHROUGH, PASS_TO_ONE
			t := rr % n
			if x.route.Kind == fragment.LocalAdaptivePassthrough {
				t = x.leastLoaded(rr)
			}
			rr++
			if err := x.putOpen(ctx, p, t, rec); err != nil {
				if errors.Is(err, ErrReceiverClosed) {
					return nil // every consumer is gone
				}
				return err
			}
		}
	}
}

// putOpen puts rec into consumer t, or the next one still open.
func (x *LocalExchange) putOpen(ctx context.Context, p, t int, rec arrow.Record) error {
	n := len(x.inboxes)
	for i := range n {
		if i < n-1 {
			rec.Retain()
		}
		err := x.inboxes[(t+i)%n].Put(ctx, p, rec)
		if err == nil {
			if i < n-1 {
				rec.Release()
			}
			return nil
		}
		if !errors.Is(err, ErrReceiverClosed) {
			if i < n-1 {
				rec.Release()
			}
			return err
		}
	}
	return ErrReceiverClosed
}

func (x *LocalExchange) leastLoaded(from int) int {
	n := len(x.inboxes)
	best, bestBytes := from%n, int64(-1)
	for i := range n {
		t := (from + i) % n
		if b := x.inboxes[t].Buffered(); bestBytes < 0 || b < bestBytes {
			best, bestBytes = t, b
		}
	}
	return best
}

// scatter hashes rec's keys and sends each consumer its rows.
func (x *LocalExchange) scatter(ctx context.Context, p int, rec arrow.Record, hashes []uint64) ([]uint64, error) {
	rows := int(rec.NumRows())
	cols, err := op.EvalCols(x.env, x.route.Keys, rec)
	if err != nil {
		return hashes, err
	}
	if cap(hashes) < rows {
		hashes = make([]uint64, rows)
	}
	hs := hashes[:rows]
	clear(hs)
	types.HashColumns(cols, hs)
	op.ReleaseAll(cols)
	n := len(x.inboxes)
	parts := make([][]int32, n)
	for r, h := range hs {
		t := x.route.taskOfHash(h, n)
		parts[t] = append(parts[t], int32(r))
	}
	for t, idx := range parts {
		if len(idx) == 0 {
			continue
		}
		var piece arrow.Record
		if len(idx) == rows {
			rec.Retain()
			piece = rec
		} else {
			taken, err := op.TakeCols(x.env.Mem, rec.Columns(), idx)
			if err != nil {
				return hashes, err
			}
			piece = op.NewRecord(rec.Schema(), taken, len(idx))
		}
		if err := x.inboxes[t].Put(ctx, p, piece); err != nil && !errors.Is(err, ErrReceiverClosed) {
			return hashes, err
		}
	}
	return hashes, nil
}

// consumerClosed stops the producers and closes them once no consumer is left.
func (x *LocalExchange) consumerClosed() {
	x.mu.Lock()
	x.open--
	last := x.open == 0 && !x.closed
	if last {
		x.closed = true
	}
	cancel := x.cancel
	x.mu.Unlock()
	if !last {
		return
	}
	if cancel != nil {
		cancel()
	}
	x.wg.Wait()
	for _, o := range x.producers {
		o.Close()
	}
}

type localConsumer struct {
	x      *LocalExchange
	src    op.Operator
	closed bool
}

func (c *localConsumer) Schema() *arrow.Schema { return c.x.schema }

func (c *localConsumer) Next(ctx context.Context) (arrow.Record, error) {
	c.x.Run(ctx)
	return c.src.Next(ctx)
}

func (c *localConsumer) Close() {
	if c.closed {
		return
	}
	c.closed = true
	c.src.Close()
	c.x.consumerClosed()
}

// Union merges several task streams into one (a PASS_TO_ONE local exchange).
func Union(env *op.Env, ops []op.Operator, budget int64) (op.Operator, error) {
	if len(ops) == 1 {
		return ops[0], nil
	}
	x, err := NewLocalExchange(env, ops, TaskRoute{Kind: fragment.LocalPassToOne}, 1, budget)
	if err != nil {
		return nil, err
	}
	return x.Consumers()[0], nil
}

// SharedReader lets several tasks read one inbox: each batch goes to one of
// them, and the inbox closes with the last reader.
func SharedReader(ib *Inbox, readers int) []op.Operator {
	s := &sharedInbox{ib: ib, open: readers}
	out := make([]op.Operator, readers)
	for i := range out {
		out[i] = &sharedInboxReader{s: s}
	}
	return out
}

type sharedInbox struct {
	ib   *Inbox
	mu   sync.Mutex
	open int
}

type sharedInboxReader struct {
	s      *sharedInbox
	closed bool
}

func (r *sharedInboxReader) Schema() *arrow.Schema { return r.s.ib.schema }
func (r *sharedInboxReader) Next(ctx context.Context) (arrow.Record, error) {
	return r.s.ib.next(ctx, -1)
}
func (r *sharedInboxReader) Close() {
	if r.closed {
		return
	}
	r.closed = true
	r.s.mu.Lock()
	r.s.open--
	last := r.s.open == 0
	r.s.mu.Unlock()
	if last {
		r.s.ib.Close()
	}
}
