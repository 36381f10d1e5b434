package coord

import (
	"context"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/planner/fragment"
)

// Transparent retry of a query whose plan went stale between planning and
// reading: a replica cloned meanwhile holds the tablet from the clone's
// version on only, a schema change gave the tablet a new schema version,
// or the replicas the plan names moved. Those fail with E-230 ("retry the
// query"); the client would only run the same statement again. Before the
// query returned any batch (nothing reached the client), RunRetrying
// closes it, plans the statement again — at the versions visible now,
// over the catalog's replicas now — and runs that, at most
// maxStaleRetries times. Any other error, or one after the first batch,
// reaches the caller as it is.

// maxStaleRetries bounds the re-plans of one statement.
const maxStaleRetries = 3

// staleBackoff is the wait before retry n (n × staleBackoff), so that a
// clone or schema change in progress can finish.
const staleBackoff = 50 * time.Millisecond

// StalePlan reports whether err means the plan went stale (E-230): the
// same statement planned again may well succeed.
func StalePlan(err error) bool {
	return err != nil && strings.Contains(err.Error(), "[E-230]")
}

// Retrying is a query run by RunRetrying: the attempt running now.
type Retrying struct {
	c      *Coordinator
	ctx    context.Context // the statement's (KILL cancels it)
	replan func() (*fragment.Plan, error)
	env    *op.Env
	now    int64
	sent   bool // a batch went to the caller: no retry any more
	tries  int

	mu  sync.Mutex // cur is read by the web UI's live profile too
	cur *Query
}

func (r *Retrying) current() *Query {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cur
}

// RunRetrying runs plan as Run does, and when the query fails with a
// stale-plan error before its first batch, runs replan's new plan instead
// (each attempt under its own query id: the cancellation of the one
// before must not reach it).
func (c *Coordinator) RunRetrying(ctx context.Context, queryID string, plan *fragment.Plan, replan func() (*fragment.Plan, error), env *op.Env, nowMicro int64) (op.Operator, error) {
	r := &Retrying{c: c, ctx: ctx, replan: replan, env: env, now: nowMicro}
	root, err := c.Run(ctx, queryID, plan, env, nowMicro)
	for err != nil {
		if !r.mayRetry(err) {
			return nil, err
		}
		root, err = r.again(err)
	}
	r.cur = root.(*Query)
	return r, nil
}

func (r *Retrying) mayRetry(err error) bool {
	return !r.sent && r.tries < maxStaleRetries && StalePlan(err) && r.ctx.Err() == nil
}

// again plans and starts the next attempt after failure cause.
func (r *Retrying) again(cause error) (op.Operator, error) {
	r.tries++
	r.c.staleRetries.Add(1)
	r.c.log.Info("query plan went stale: planning it again", "attempt", r.tries+1, "cause", cause.Error())
	select {
	case <-r.ctx.Done():
		return nil, cause
	case <-time.After(time.Duration(r.tries) * staleBackoff):
	}
	plan, err := r.replan()
	if err != nil {
		return nil, err
	}
	return r.c.Run(r.ctx, NewQueryID(), plan, r.env, r.now)
}

// Schema is the query's result schema (the same for every attempt: one
// statement planned again).
func (r *Retrying) Schema() *arrow.Schema { return r.current().Schema() }

// Next returns the next batch, retrying a stale attempt while none was
// returned.
func (r *Retrying) Next(ctx context.Context) (arrow.Record, error) {
	for {
		cur := r.current()
		rec, err := cur.Next(ctx)
		if err == nil {
			r.sent = true
			return rec, nil
		}
		if err == io.EOF || !r.mayRetry(err) {
			return nil, err
		}
		cur.Close()
		root, rerr := r.again(err)
		for rerr != nil {
			if !r.mayRetry(rerr) {
				return nil, rerr
			}
			root, rerr = r.again(rerr)
		}
		r.mu.Lock()
		r.cur = root.(*Query)
		r.mu.Unlock()
	}
}

// Close closes the attempt running now.
func (r *Retrying) Close() { r.current().Close() }

// Profile is the running attempt's profile.
func (r *Retrying) Profile() *Profile { return r.current().Profile() }

// LiveProfile is the running attempt's live profile (the web UI's).
func (r *Retrying) LiveProfile(ctx context.Context) *Profile { return r.current().LiveProfile(ctx) }

// ID is the running attempt's query id.
func (r *Retrying) ID() string { return r.current().ID() }

// Cancel cancels the running attempt (KILL).
func (r *Retrying) Cancel(err error) { r.current().Cancel(err) }

// StaleRetries counts the stale queries planned again so far.
func (c *Coordinator) StaleRetries() int64 { return c.staleRetries.Load() }

// Attempts is how many times the statement ran (1: no retry).
func (r *Retrying) Attempts() int { return r.tries + 1 }
