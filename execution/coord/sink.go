package coord

import (
	"context"
	"fmt"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/execution/op/exchange"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/storage"
)

// SinkPlan is an INSERT … SELECT ready to run: a plan whose root fragment
// ends in an OLAP TABLE SINK (planner/physical.PlanInsert), and what its
// instances run with.
type SinkPlan struct {
	Plan    *fragment.Plan
	QueryID string // "" draws one
	Env     *op.Env
	Now     int64 // unix micros
	// Target, when set, replaces the plan's sink partitions (INSERT
	// OVERWRITE writes new tablets the plan does not know).
	Target *fragment.TableSink
	// Profile, when set, receives what the instances reported.
	Profile func(*Profile)
	// EstRows is the planner's estimate of the rows the sink takes in
	// (LoadProgress); -1 unknown.
	EstRows int64
}

// writePlan runs the plan's fragments on the backends, the table sink
// fragment included, and collects what its instances wrote: the rows
// never reach the FE. Every instance must report success; any failure
// (an instance's error, KILL, a timeout, a backend dying) fails the load
// and the caller aborts the transaction.
func (l *loader) writePlan(sp *SinkPlan) (*prepared, error) {
	root := sp.Plan.Fragments[0]
	if root.Sink.Kind != fragment.TableSinkKind || root.Sink.Table == nil {
		return nil, sqlerr.Assertf("coord: load plan without a table sink")
	}
	target := root.Sink.Table
	if sp.Target != nil {
		target = sp.Target
	}
	if !target.Overwrite {
		// Only healthy replicas on alive backends are written; the
		// majority decides (quorum.go). An overwrite's new tablets need
		// every replica.
		target = l.c.writableTarget(target)
	}
	l.abortOn = map[catalog.BackendID]bool{}
	for _, p := range target.Partitions {
		for _, tb := range p.Tablets {
			for _, r := range tb.Replicas {
				l.abortOn[catalog.BackendID(r)] = true
			}
		}
	}
	reports, err := l.c.runSink(l.ctx, sp, l, target)
	if err != nil {
		return nil, err
	}
	if err := l.ctx.Err(); err != nil {
		return nil, err
	}
	l.remote = map[catalog.BackendID]bool{}
	parts := map[int64]bool{}
	for _, r := range reports {
		if r.Fragment != 0 {
			continue
		}
		if r.Table == nil {
			return nil, sqlerr.Assertf("coord: table sink instance %d sent no report", r.Instance)
		}
		l.rows += r.Table.Rows
		for _, be := range r.Table.Backends {
			l.remote[catalog.BackendID(be)] = true
		}
		for _, tb := range r.Table.Tablets {
			l.touched[tb] = nil
		}
		for _, f := range r.Table.Failed {
			l.fail(catalog.BackendID(f.Backend), sqlerr.Doris.New(f.Error))
		}
		for _, p := range r.Table.Partitions {
			parts[p] = true
		}
	}
	pr, err := l.prepareAll()
	if err != nil {
		return nil, err
	}
	for _, p := range target.Partitions {
		if parts[p.ID] {
			pr.parts = append(pr.parts, catalog.PartitionID(p.ID))
		}
	}
	if target.Overwrite && len(l.failed) > 0 {
		for _, err := range l.failed {
			return nil, err
		}
	}
	return pr, nil
}

// runSink runs a table sink plan to its end and returns every instance's
// report.
func (c *Coordinator) runSink(ctx context.Context, sp *SinkPlan, l *loader, target *fragment.TableSink) ([]*rpc.InstanceReport, error) {
	fs, err := c.scheduleFresh(sp.Plan)
	if err != nil {
		return nil, err
	}
	id := sp.QueryID
	if id == "" {
		id = NewQueryID()
	}
	q := &query{c: c, id: id, plan: sp.Plan, now: sp.Now, env: sp.Env, backends: map[catalog.BackendID]bool{},
		inboxes: map[fragment.NodeID]*exchange.Inbox{}, allIn: make(chan struct{}), watchDone: make(chan struct{}),
		sink: &sinkRun{txn: l.txn, target: target}}
	if sp.Env != nil && sp.Env.Tracker != nil {
		q.memLimit = sp.Env.Tracker.Limit()
	}
	q.sink.replicas = map[fragment.BackendID]string{}
	for _, b := range c.cat.Backends() {
		if b.Alive {
			q.sink.replicas[fragment.BackendID(b.ID)] = addrOf(b)
		}
	}
	for _, s := range fs {
		for _, in := range s.instances {
			q.backends[in.backend] = true
			q.pending++
		}
	}
	q.ctx, q.cancel = context.WithCancel(c.base)
	q.stopCtx = context.AfterFunc(ctx, func() {
		defer q.recoverQuery("cancelling on KILL")
		q.fail(sqlerr.QueryInterrupted.New())
	})
	defer q.finish()
	c.trackLoad(l.txn, q, sp.EstRows)
	go q.watch()
	if err := q.startAll(fs); err != nil {
		q.fail(err)
	}
	// Every instance reports (a failure cancels the others, which then
	// report too) before the load may commit or abort: an abort while an
	// instance still streams could leave its rows behind on a backend.
	<-q.allIn
	q.mu.Lock()
	err = q.err
	if err == nil {
		err = q.secondary
	}
	reports := append([]*rpc.InstanceReport(nil), q.reports...)
	q.mu.Unlock()
	if sp.Profile != nil {
		r := &Query{q: q}
		sp.Profile(r.Profile())
	}
	if err != nil {
		return nil, c.lostOf(q.backends, err)
	}
	n := 0
	for _, r := range reports {
		if r.Fragment == 0 {
			n++
		}
	}
	if n != len(fs[0].instances) {
		return nil, sqlerr.Doris.New(fmt.Sprintf("table sink: %d of %d instances reported", n, len(fs[0].instances)))
	}
	return reports, nil
}

// sinkRun is what a table sink query's root instances write under.
type sinkRun struct {
	txn      storage.TxnID
	target   *fragment.TableSink
	replicas map[fragment.BackendID]string
}

// placeTableSink places the table sink fragment fed by a bucket shuffle:
// bucket b's owner is the backend of the first alive replica of the
// bucket's tablet (first partition), one instance per such backend. A
// RANDOM table's sink gets an instance on every backend holding tablets.
func (c *Coordinator) placeTableSink(s *fragSched) error {
	t := s.f.Sink.Table
	if len(t.Partitions) == 0 || t.Buckets <= 0 {
		return sqlerr.Doris.New(fmt.Sprintf("table %s has no partition to write", t.Table))
	}
	byBE := map[catalog.BackendID]int{}
	s.bucketOwner = make([]int, t.Buckets)
	for b := 0; b < t.Buckets; b++ {
		tb := t.Partitions[0].Tablets[b]
		be := catalog.BackendID(0)
		for i := range tb.Replicas {
			r := catalog.BackendID(tb.Replicas[(b+i)%len(tb.Replicas)])
			if x, ok := c.cat.Backend(r); ok && x.Alive {
				be = r
				break
			}
		}
		if be == 0 {
			return sqlerr.Doris.New(fmt.Sprintf("no alive replica for tablet %d (backends %v)", tb.Tablet, tb.Replicas))
		}
		i, ok := byBE[be]
		if !ok {
			in, err := c.newInstance(be, nil)
			if err != nil {
				return err
			}
			i = len(s.instances)
			byBE[be] = i
			s.instances = append(s.instances, in)
		}
		s.bucketOwner[b] = i
	}
	return nil
}
