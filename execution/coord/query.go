package coord

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/execution/op/build"
	"github.com/dorisgo/dorisgo/execution/op/exchange"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// secondaryGrace is how long a query that saw only a consequential error
// (a cancellation, a broken stream) waits for the error that caused it.
const secondaryGrace = 300 * time.Millisecond

// Profile is what a finished query measured.
type Profile struct {
	QueryID string
	// Instances are the backend instances' reports, by fragment then instance.
	Instances []*rpc.InstanceReport
	// Root is fragment 0's per-operator counters; RootExchanges its receiving side.
	Root          []build.OpStats
	RootExchanges map[fragment.NodeID]exchange.ExchangeStats
	// Adaptive is how each adaptive join ran, by join node id order.
	Adaptive []AdaptOutcome
}

// ExchangeStats sums the sending side of the exchange reading fragment f.
func (p *Profile) ExchangeStats(f fragment.FragmentID) exchange.ExchangeStats {
	var s exchange.ExchangeStats
	for _, r := range p.Instances {
		if r.Fragment == f {
			s.Add(r.Sink)
		}
	}
	return s
}

// Scanned sums what the query's scans read from storage, over every
// instance that reported (all of them once the query reached its end).
func (p *Profile) Scanned() (rows, bytes int64) {
	add := func(stats []build.OpStats) {
		for _, o := range stats {
			rows += o.ScanRows
			bytes += o.ScanBytes
		}
	}
	add(p.Root)
	for _, r := range p.Instances {
		add(r.Operators)
	}
	return rows, bytes
}

// Warnings adds what every instance that reported warned to w.
func (p *Profile) Warnings(w *expr.Warnings) {
	for _, r := range p.Instances {
		w.Merge(r.WarnCount, r.Warnings)
	}
}

// Query is a running query: its root operator (fragment 0, run here) plus
// the remote instances feeding it.
type Query struct {
	op.Operator
	q *query
}

// ID is the query's id on every backend.
func (r *Query) ID() string { return r.q.id }

// Close closes the root and cancels whatever still runs remotely.
func (r *Query) Close() {
	r.Operator.Close()
	r.q.finish()
}

// Next returns the root's next batch; a failure anywhere in the query
// surfaces here as the error that caused it.
func (r *Query) Next(ctx context.Context) (arrow.Record, error) {
	rec, err := r.Operator.Next(ctx)
	if err == io.EOF {
		if qerr := r.q.waitReports(); qerr != nil {
			return nil, qerr
		}
		return nil, io.EOF
	}
	if err != nil {
		if qerr := r.q.error(); qerr != nil {
			return nil, qerr
		}
	}
	return rec, err
}

// Cancel fails the query with err (KILL) and cancels every instance on every backend.
func (r *Query) Cancel(err error) { r.q.fail(err) }

// Profile returns the counters gathered so far (complete after EOF).
func (r *Query) Profile() *Profile {
	q := r.q
	q.mu.Lock()
	defer q.mu.Unlock()
	p := &Profile{QueryID: q.id, Instances: append([]*rpc.InstanceReport(nil), q.reports...),
		RootExchanges: map[fragment.NodeID]exchange.ExchangeStats{}}
	sort.Slice(p.Instances, func(i, j int) bool {
		a, b := p.Instances[i], p.Instances[j]
		return a.Fragment < b.Fragment || a.Fragment == b.Fragment && a.Instance < b.Instance
	})
	if q.prof != nil {
		p.Root = q.prof.Stats()
	}
	for id, ib := range q.inboxes {
		p.RootExchanges[id] = ib.Stats()
	}
	p.Adaptive = append([]AdaptOutcome(nil), q.adaptOut...)
	sort.Slice(p.Adaptive, func(i, j int) bool { return p.Adaptive[i].Join < p.Adaptive[j].Join })
	return p
}

type query struct {
	c        *Coordinator
	id       string
	plan     *fragment.Plan
	now      int64
	memLimit int64
	env      *op.Env
	ctx      context.Context // cancelled on failure and at the end
	cancel   context.CancelFunc
	stopCtx  func() bool
	// sink is set for a table sink plan: fragment 0 runs on the backends.
	sink *sinkRun

	mu        sync.Mutex
	err       error // the first primary error
	secondary error
	aborted   bool
	done      bool
	backends  map[catalog.BackendID]bool
	inboxes   map[fragment.NodeID]*exchange.Inbox
	prof      *build.Profile
	reports   []*rpc.InstanceReport
	pending   int           // instances without a report
	allIn     chan struct{} // closed when pending reaches 0
	grace     *time.Timer
	watchDone chan struct{}
	// adaptive are the plan's adaptive joins by exchange id; adaptOut how
	// those settled so far ran (adapt.go).
	adaptive map[fragment.NodeID]*adaptJoin
	adaptOut []AdaptOutcome
}

// Run starts plan as query queryID (NewQueryID's form; "" draws a new
// one): every backend fragment's instances are started on their backends,
// receivers before senders, and fragment 0 is built here over exchanges
// that pull its input from the senders' outboxes. The returned operator (a
// *Query) streams the result. The id names the query's instances on every
// backend, so no two running queries may share it: the FE gives each
// statement its own when it starts, so that the statement's log lines and
// its backends' carry the same id.
func (c *Coordinator) Run(ctx context.Context, queryID string, plan *fragment.Plan, env *op.Env, nowMicro int64) (op.Operator, error) {
	if plan.Fragments[0].Sink.Kind == fragment.TableSinkKind {
		return nil, sqlerr.Assertf("coord: a table sink plan runs through LoadPlan")
	}
	fs, err := c.scheduleFresh(plan)
	if err != nil {
		return nil, err
	}
	if queryID == "" {
		queryID = NewQueryID()
	}
	q := &query{c: c, id: queryID, plan: plan, now: nowMicro, env: env, backends: map[catalog.BackendID]bool{},
		inboxes: map[fragment.NodeID]*exchange.Inbox{}, allIn: make(chan struct{}), watchDone: make(chan struct{})}
	if env.Tracker != nil {
		q.memLimit = env.Tracker.Limit()
	}
	// The backends are known before anything can cancel the query (a KILL
	// that came first cancels at once, reading them).
	remote := remoteRoot(plan.Fragments[0])
	for _, s := range fs {
		if s.f.ID == 0 && !remote {
			continue
		}
		for _, in := range s.instances {
			q.backends[in.backend] = true
			q.pending++
		}
	}
	if q.pending == 0 {
		close(q.allIn)
	}
	q.ctx, q.cancel = context.WithCancel(c.base)
	// KILL (the caller's ctx cancelled) cancels every instance at once.
	q.stopCtx = context.AfterFunc(ctx, func() {
		defer q.recoverQuery("cancelling on KILL")
		q.fail(sqlerr.QueryInterrupted.New())
	})
	// Whatever ends Run without a *Query, a panic building fragment 0
	// included (it reaches the caller's recover), stops what was started.
	started := false
	defer func() {
		if !started {
			q.finish()
		}
	}()
	go q.watch()
	if err := q.startAll(fs); err != nil {
		q.fail(err)
		return nil, q.error()
	}
	var root op.Operator
	var prof *build.Profile
	if remote {
		f0 := plan.Fragments[0]
		root, err = q.receive(fs, &fragment.Node{ID: rootExchange, Kind: fragment.KindExchange, Output: f0.Root.Output,
			Exchange: &fragment.ExchangeSpec{From: 0}})
	} else {
		src := &build.Sources{Exchange: func(n *fragment.Node) (op.Operator, error) { return q.receive(fs, n) }}
		root, prof, err = build.BuildProfiled(env, plan.Fragments[0].Root, src)
	}
	if err != nil {
		q.fail(err)
		return nil, err
	}
	q.mu.Lock()
	q.prof = prof
	q.mu.Unlock()
	started = true
	return &Query{Operator: root, q: q}, nil
}

// startAll starts every backend instance at once and returns when all
// have registered their inboxes. A sender may thus start before its
// receiver: the receiving backend holds the stream until the inbox exists
// (each request says how many instances its backend gets, so the backend
// knows when none is still to come). Starting level by level would cost a
// round trip per plan level before the leaves could run.
func (q *query) startAll(fs []*fragSched) error {
	remote := fs
	if q.sink == nil && !remoteRoot(fs[0].f) {
		remote = fs[1:] // fragment 0 runs here
	}
	q.adaptive = findAdaptive(fs)
	perBackend := map[catalog.BackendID]int{}
	for _, s := range remote {
		for _, in := range s.instances {
			perBackend[in.backend]++
		}
	}
	// One exec_fragment call per backend carries all its instances.
	batches := map[catalog.BackendID][]*rpc.ExecFragmentReq{}
	var order []catalog.BackendID
	for _, s := range remote {
		for i := range s.instances {
			req, err := q.request(fs, s, i)
			if err != nil {
				return err
			}
			be := s.instances[i].backend
			req.BackendInstances = perBackend[be]
			if batches[be] == nil {
				order = append(order, be)
			}
			batches[be] = append(batches[be], req)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	for _, be := range order {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer q.recoverQuery("starting instances")
			if err := q.start(be, batches[be]); err != nil {
				select {
				case errs <- err:
				default:
				}
			}
		}()
	}
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
	}
	q.settleAdaptive()
	return nil
}

// start starts reqs' instances on backend be and waits for their reports
// in the background; every instance reports once (nil when it failed or
// could not start).
func (q *query) start(be catalog.BackendID, reqs []*rpc.ExecFragmentReq) error {
	failed := func() {
		for range reqs {
			q.report(nil)
		}
	}
	cl, err := q.c.Client(be)
	if err != nil {
		failed()
		return err
	}
	ex, err := cl.ExecFragments(q.ctx, reqs)
	if err != nil {
		failed()
		return q.c.backendErr(be, err)
	}
	if !q.c.goTracked(func() {
		left := len(reqs)
		defer func() { // after the recover: every instance reports once
			for ; left > 0; left-- {
				q.report(nil)
			}
		}()
		defer q.recoverQuery("waiting for instances")
		for left > 0 {
			rep, err := ex.Next()
			if err != nil {
				if !rpc.IsSecondary(err) {
					err = q.c.backendErr(be, err)
				}
				q.fail(err)
				return
			}
			left--
			q.report(rep)
		}
	}) {
		failed()
		return errClosing
	}
	return nil
}

func (q *query) report(rep *rpc.InstanceReport) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if rep != nil {
		q.reports = append(q.reports, rep)
	}
	q.pending--
	if q.pending == 0 {
		close(q.allIn)
	}
}

// waitReports waits (briefly) for every instance's report after the root
// reached its end, and returns the query's error if one came in meanwhile.
func (q *query) waitReports() error {
	select {
	case <-q.allIn:
	case <-time.After(5 * time.Second):
	}
	// Any error, even a consequential one, means the result may be short.
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err != nil {
		return q.err
	}
	return q.secondary
}

// receive builds fragment 0's receiving side of exchange node n: an inbox
// fed by one pull stream per sender instance.
func (q *query) receive(fs []*fragSched, n *fragment.Node) (op.Operator, error) {
	s := fs[n.Exchange.From]
	ib := exchange.NewInbox(types.ArrowSchema(n.Output), len(s.instances), q.c.ExchangeBudget)
	q.mu.Lock()
	q.inboxes[n.ID] = ib
	failed := q.err
	q.mu.Unlock()
	if failed != nil {
		ib.Fail(failed)
	}
	for i, in := range s.instances {
		if !q.c.goTracked(func() { q.pull(ib, n.ID, i, in.backend) }) {
			ib.Fail(errClosing)
		}
	}
	var keys []fragment.SortKey
	if n.Exchange.Merge && len(n.Exchange.SortKeys) == 0 {
		k, err := mergeKeys(s.f)
		if err != nil {
			ib.Close()
			return nil, err
		}
		keys = k
	}
	return build.ExchangeSource(q.env, ib, n, keys), nil
}

func (q *query) pull(ib *exchange.Inbox, exchange fragment.NodeID, sender int, be catalog.BackendID) {
	defer q.recoverQuery("pulling an exchange stream")
	fail := func(err error) {
		if !rpc.IsSecondary(err) {
			err = q.c.backendErr(be, err)
		}
		q.fail(err)
	}
	cl, err := q.c.Client(be)
	if err != nil {
		fail(err)
		return
	}
	st, err := cl.Pull(q.ctx, rpc.StreamID{QueryID: q.id, Exchange: exchange, Sender: sender})
	if err != nil {
		fail(err)
		return
	}
	defer st.Close()
	for {
		rec, err := st.Next()
		if err == io.EOF {
			ib.Done(sender)
			return
		}
		if err != nil {
			fail(err)
			return
		}
		if err := ib.Put(q.ctx, sender, rec); err != nil {
			return // closed (the root stopped reading) or cancelled
		}
	}
}

// fail records an error and aborts the query: a primary error at once, a
// secondary one after a grace period in which the primary may still come.
func (q *query) fail(err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.done || err == nil {
		return
	}
	if rpc.IsSecondary(err) {
		if q.secondary == nil {
			q.secondary = err
		}
		if q.err == nil && q.grace == nil && !q.aborted {
			q.grace = time.AfterFunc(secondaryGrace, func() {
				defer q.recoverQuery("aborting after a secondary error")
				q.mu.Lock()
				defer q.mu.Unlock()
				q.abortLocked()
			})
		}
		return
	}
	if q.err == nil {
		q.err = err
	}
	q.abortLocked()
}

func (q *query) error() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err != nil {
		return q.err
	}
	if q.aborted {
		return q.secondary
	}
	return nil
}

// abortLocked cancels every instance: the calls running them (the backends
// see them cancelled) and, explicitly, the query on every backend.
func (q *query) abortLocked() {
	if q.aborted || q.done {
		return
	}
	q.aborted = true
	err := q.err
	if err == nil {
		err = q.secondary
	}
	for _, ib := range q.inboxes {
		ib.Fail(err)
	}
	q.cancel()
	q.c.goTracked(func() {
		defer q.recoverQuery("cancelling on the backends")
		q.cancelRemote()
	})
}

// cancelRemote sends ActCancel for the query to every backend it uses.
func (q *query) cancelRemote() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for be := range q.backends {
		if be == 0 {
			continue
		}
		// A backend marked dead cannot take the call (a hung one would hold
		// the query's error for the whole timeout); its fragment calls were
		// cancelled with the query, which it sees if it comes back.
		if b, ok := q.c.cat.Backend(be); ok && !b.Alive {
			continue
		}
		wg.Add(1)
		go func(be catalog.BackendID) {
			defer wg.Done()
			defer q.recoverQuery("cancelling on a backend")
			if cl, err := q.c.Client(be); err == nil {
				_ = cl.Do(ctx, rpc.ActCancel, rpc.CancelReq{QueryID: q.id}, nil)
			}
		}(be)
	}
	wg.Wait()
}

// finish ends the query: anything still running remotely (the root
// stopped early) is cancelled.
func (q *query) finish() {
	q.mu.Lock()
	if q.done {
		q.mu.Unlock()
		return
	}
	complete := q.pending == 0
	q.done = true
	if q.grace != nil {
		q.grace.Stop()
	}
	q.mu.Unlock()
	q.stopCtx()
	close(q.watchDone)
	q.cancel()
	if complete {
		return
	}
	// In the background, as abortLocked does: the statement's answer (to
	// KILL, a timeout, a LIMIT reached) does not wait on backends busy with
	// the query's work, which took up to a second on two loaded cores
	// (TestE2EStopEveryStage).
	if !q.c.goTracked(func() {
		defer q.recoverQuery("cancelling on the backends")
		q.cancelRemote()
	}) {
		q.cancelRemote()
	}
}

// watch fails the query when the heartbeat marks one of its backends dead
// (a backend that hangs without closing its connections).
func (q *query) watch() {
	defer q.recoverQuery("watching the backends")
	t := time.NewTicker(HeartbeatInterval / 4)
	defer t.Stop()
	started := map[catalog.BackendID]time.Time{}
	for be := range q.backends {
		started[be] = q.c.startOf(be)
	}
	for {
		select {
		case <-q.watchDone:
			return
		case <-t.C:
			for be := range q.backends {
				if b, ok := q.c.cat.Backend(be); ok && !b.Alive {
					q.fail(q.c.backendErr(be, errors.New("backend is not alive (missed heartbeat)")))
				}
				// Restarted between two heartbeats: what it ran for the query is gone.
				if s := q.c.startOf(be); !s.IsZero() && !started[be].IsZero() && !s.Equal(started[be]) {
					q.fail(q.c.backendErr(be, errors.New("backend restarted while the query ran")))
				}
			}
		}
	}
}

// pickReplica chooses an alive backend holding tablet t; the tablet id
// rotates the choice so replicas share the read load.
func (c *Coordinator) pickReplica(t fragment.TabletRef) (catalog.BackendID, error) {
	n := len(t.Replicas)
	for i := 0; i < n; i++ {
		be := catalog.BackendID(t.Replicas[(int(t.Tablet)+i)%n])
		if b, ok := c.cat.Backend(be); ok && b.Alive {
			return be, nil
		}
	}
	return 0, sqlerr.Doris.New(fmt.Sprintf("no alive replica for tablet %d (backends %v)", t.Tablet, t.Replicas))
}

// NewQueryID returns a random id (32 hex digits) naming a query's
// instances on every backend.
func NewQueryID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// errClosing fails what a query would start while the FE shuts down.
var errClosing = sqlerr.Doris.New("the frontend is shutting down")
