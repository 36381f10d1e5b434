package be

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/execution/op/build"
	"github.com/dorisgo/dorisgo/execution/op/exchange"
	"github.com/dorisgo/dorisgo/execution/op/scan"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// inboxKey names the receiving end of one exchange in one instance.
type inboxKey struct {
	exchange fragment.NodeID
	receiver int
}

// outboxKey names the outbox of one sender instance.
type outboxKey struct {
	exchange fragment.NodeID
	sender   int
}

// queryState is what a backend holds for one query.
type queryState struct {
	cancels  map[*context.CancelFunc]struct{}
	inboxes  map[inboxKey]*exchange.Inbox
	outboxes map[outboxKey]*exchange.Inbox
	// expected is how many instances of the query the FE starts on this
	// backend and registered how many of them did: the FE starts every
	// fragment at once, so a stream can reach an inbox that does not exist
	// yet, and only once all have registered does a missing inbox mean
	// "its instance is done" rather than "not here yet".
	expected   int
	registered int
	// running are the instances past building, with their counters (the
	// live part of query_status).
	running map[*instance]liveInstance
}

// liveInstance is a running instance's counters and start.
type liveInstance struct {
	prof  *build.Profile
	start time.Time
}

func (b *Backend) query(q string) *queryState {
	s := b.queries[q]
	if s == nil {
		s = &queryState{cancels: map[*context.CancelFunc]struct{}{}, inboxes: map[inboxKey]*exchange.Inbox{},
			outboxes: map[outboxKey]*exchange.Inbox{}, running: map[*instance]liveInstance{}}
		b.queries[q] = s
	}
	return s
}

// gc forgets a query whose instances here have all run and whose outboxes
// were read; one with instances still to come stays, or their early
// streams would take its inboxes for gone.
func (b *Backend) gc(q string) {
	s := b.queries[q]
	if s == nil || len(s.cancels) > 0 || len(s.inboxes) > 0 || len(s.outboxes) > 0 || s.registered < s.expected {
		return
	}
	delete(b.queries, q)
	b.endLocked(q)
}

// endedTTL is how long a backend remembers a finished or cancelled query,
// so that a stream or instance arriving after its end is turned away
// instead of waiting for a registration that never comes.
const endedTTL = time.Minute

// endLocked records that q ended on this backend.
func (b *Backend) endLocked(q string) {
	now := time.Now()
	for len(b.endedOrder) > 0 {
		old := b.endedOrder[0]
		if now.Sub(b.ended[old]) < endedTTL {
			break
		}
		delete(b.ended, old)
		b.endedOrder = b.endedOrder[1:]
	}
	if _, ok := b.ended[q]; !ok {
		b.endedOrder = append(b.endedOrder, q)
	}
	b.ended[q] = now
	delete(b.adapt, q)
	delete(b.rfilters, q)
	b.notifyLocked()
}

// notifyLocked wakes the streams waiting for an inbox to be registered.
func (b *Backend) notifyLocked() {
	close(b.regChanged)
	b.regChanged = make(chan struct{})
}

// inbox returns the inbox of id, waiting while its instance has not
// registered yet; nil means the receiver is done (or the query ended).
func (b *Backend) inbox(ctx context.Context, id rpc.StreamID) (*exchange.Inbox, error) {
	key := inboxKey{id.Exchange, id.Receiver}
	for early := false; ; early = true {
		b.mu.Lock()
		s := b.queries[id.QueryID]
		_, ended := b.ended[id.QueryID]
		var ib *exchange.Inbox
		if s != nil {
			ib = s.inboxes[key]
		}
		settled := ib != nil || ended || (s != nil && s.registered >= s.expected)
		wait := b.regChanged
		b.mu.Unlock()
		if settled {
			if early {
				b.earlyStreams.Add(-1)
			}
			return ib, nil
		}
		if !early {
			b.earlyStreams.Add(1)
		}
		select {
		case <-wait:
		case <-ctx.Done():
			b.earlyStreams.Add(-1)
			return nil, ctx.Err()
		}
	}
}

// cancelQuery cancels a query's instances and drops its inboxes and
// outboxes (the FE sends it for KILL and errors).
func (b *Backend) cancelQuery(q string) {
	b.mu.Lock()
	s := b.queries[q]
	delete(b.queries, q)
	b.endLocked(q)
	b.mu.Unlock()
	if s == nil {
		return
	}
	for c := range s.cancels {
		(*c)()
	}
	for _, ib := range s.inboxes {
		ib.Fail(context.Canceled)
	}
	for _, ob := range s.outboxes {
		ob.Close()
	}
}

func (b *Backend) cancelAll() {
	b.mu.Lock()
	var qs []string
	for q := range b.queries {
		qs = append(qs, q)
	}
	b.mu.Unlock()
	for _, q := range qs {
		b.cancelQuery(q)
	}
}

func (b *Backend) queryStatus(q string) rpc.QueryStatusResp {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.queries[q]
	if s == nil {
		return rpc.QueryStatusResp{}
	}
	r := rpc.QueryStatusResp{Instances: len(s.cancels), Inboxes: len(s.inboxes) + len(s.outboxes)}
	for _, ib := range s.inboxes {
		r.Buffered += ib.Buffered()
		r.PeakBytes = max(r.PeakBytes, ib.Stats().PeakBytes)
	}
	for _, ob := range s.outboxes {
		r.Buffered += ob.Buffered()
		r.PeakBytes = max(r.PeakBytes, ob.Stats().PeakBytes)
	}
	for in, l := range s.running {
		rep := rpc.InstanceReport{Fragment: in.req.Fragment, Instance: in.req.Instance, Backend: b.Addr(),
			Operators: l.prof.Stats(), WallNs: int64(time.Since(l.start)), Exchanges: map[fragment.NodeID]exchange.ExchangeStats{}}
		for id, ib := range in.inboxes {
			rep.Exchanges[id] = ib.Stats()
		}
		if ts := in.sink.Load(); ts != nil {
			rep.Table = &scan.TableSinkStats{Rows: ts.Written()}
		}
		if xs := in.xsink.Load(); xs != nil {
			rep.Sink, rep.AdaptMode = xs.Stats(), xs.Mode()
		}
		r.Live = append(r.Live, rep)
	}
	return r
}

// live makes a built instance's counters visible to query_status until it ends.
func (in *instance) live(prof *build.Profile, start time.Time) (end func()) {
	b := in.b
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.queries[in.req.QueryID]
	if s == nil || prof == nil {
		return func() {}
	}
	s.running[in] = liveInstance{prof: prof, start: start}
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		delete(s.running, in)
	}
}

// peer returns a client for pushing exchange streams to another backend.
func (b *Backend) peer(addr string) (*rpc.Client, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if c, ok := b.clients[addr]; ok {
		return c, nil
	}
	c, err := rpc.Dial(addr, b.guard.Token())
	if err != nil {
		return nil, err
	}
	b.clients[addr] = c
	return c, nil
}

// instance is one running fragment instance.
type instance struct {
	b       *Backend
	req     *rpc.ExecFragmentReq
	env     *op.Env
	inboxes map[fragment.NodeID]*exchange.Inbox
	outs    []exchange.Outlet
	// sink is the running table sink, whose rows so far query_status
	// reports (a load's progress); xsink the running exchange sink.
	sink  atomic.Pointer[scan.TableSink]
	xsink atomic.Pointer[exchange.ExchangeSink]
}

// execFragment runs the instances of one exec_fragment call (all of a
// query's instances on this backend, rpc.MarshalExecBatch) for the whole of
// the call: it registers every one, answers "started", runs them at once and
// sends each one's report as it ends. The first instance to fail ends the
// call with its error once the others (cancelled) have stopped.
func (b *Backend) execFragment(body []byte, stream flight.FlightService_DoActionServer) error {
	reqs, err := rpc.UnmarshalExecBatch(body)
	if err != nil {
		return rpc.ToStatus(err)
	}
	start := time.Now()
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	// Each instance registers under a cancel of its own (the same function:
	// the key is the pointer) and unregisters as it ends, closing its
	// inboxes then, as a lone instance would.
	ins := make([]*instance, 0, len(reqs))
	cancels := make([]context.CancelFunc, len(reqs))
	registered := make([]bool, len(reqs))
	defer func() {
		for i, in := range ins {
			if registered[i] {
				in.unregister(&cancels[i])
			}
		}
	}()
	for i, req := range reqs {
		in := b.newInstance(ctx, req)
		ins = append(ins, in)
		cancels[i], registered[i] = cancel, true
		if err := in.register(&cancels[i]); err != nil {
			return rpc.ToStatus(err)
		}
	}
	if err := stream.Send(&flight.Result{}); err != nil { // started
		return rpc.ToStatus(err)
	}
	var (
		mu      sync.Mutex
		wg      sync.WaitGroup
		first   error // the first failure, a primary one if any
		sendErr error
	)
	for i, in := range ins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rep, err := in.run(ctx)
			b.metrics.instanceDone(rep, time.Since(start))
			mu.Lock()
			registered[i] = false
			mu.Unlock()
			in.unregister(&cancels[i])
			var out []byte
			if err == nil {
				rep.WallNs = int64(time.Since(start))
				out, err = rpc.MarshalReport(rep)
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				in.abortOutlets(err)
				if first == nil || rpc.IsSecondary(first) && !rpc.IsSecondary(err) {
					first = err
				}
				cancel()
				return
			}
			if first == nil && sendErr == nil {
				sendErr = stream.Send(&flight.Result{Body: out})
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return rpc.ToStatus(first)
	}
	if sendErr != nil {
		return rpc.ToStatus(sendErr)
	}
	return nil
}

// newInstance prepares req's instance (not yet registered).
func (b *Backend) newInstance(ctx context.Context, req *rpc.ExecFragmentReq) *instance {
	in := &instance{b: b, req: req, inboxes: map[fragment.NodeID]*exchange.Inbox{}}
	// Sets: a long IN list becomes a hash set once per instance, not per batch.
	in.env = &op.Env{Mem: memory.DefaultAllocator, Eval: &expr.Context{Now: time.UnixMicro(req.NowMicro), Sets: &expr.InSets{}, Ctx: ctx, Warn: &expr.Warnings{}},
		Tracker: op.NewMemTracker(req.MemLimit)}
	if req.Spill != nil {
		sp := *req.Spill
		sp.Dir = b.spillDir()
		in.env.Spill = &sp
	}
	return in
}

// abortOutlets breaks a failed instance's outgoing streams, so that their
// receivers fail rather than wait.
func (in *instance) abortOutlets(err error) {
	for _, o := range in.outs {
		switch o := o.(type) {
		case *rpc.Pusher:
			o.Abort()
		case exchange.InboxOutlet:
			o.In.Fail(err)
		case *localOutlet:
			o.abort(err)
		}
	}
}

// register creates the instance's inboxes and outbox so that streams
// arriving after the "started" answer find them.
func (in *instance) register(cancel *context.CancelFunc) error {
	b, req := in.b, in.req
	nodes := map[fragment.NodeID]*fragment.Node{}
	walk(req.Root, func(n *fragment.Node) { nodes[n.ID] = n })
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ended := b.ended[req.QueryID]; ended {
		return sqlerr.Doris.New(fmt.Sprintf("query %s already ended on this backend (cancelled?)", req.QueryID))
	}
	s := b.query(req.QueryID)
	s.cancels[cancel] = struct{}{}
	s.expected = max(s.expected, req.BackendInstances)
	s.registered++
	defer b.notifyLocked()
	for id, x := range req.Exchanges {
		n := nodes[id]
		if n == nil || n.Kind != fragment.KindExchange {
			return sqlerr.Assertf("exchange %d is not a node of fragment %d", id, req.Fragment)
		}
		ib := exchange.NewInbox(types.ArrowSchema(n.Output), x.Senders, req.Budget)
		in.inboxes[id] = ib
		s.inboxes[inboxKey{id, req.Instance}] = ib
	}
	in.outs = make([]exchange.Outlet, len(req.Sink.Receivers))
	for i, d := range req.Sink.Receivers {
		if d.Pull {
			ob := exchange.NewInbox(types.ArrowSchema(req.Root.Output), 1, req.Budget)
			s.outboxes[outboxKey{req.Sink.ExchangeID, req.Instance}] = ob
			in.outs[i] = exchange.InboxOutlet{In: ob}
		}
	}
	return nil
}

func (in *instance) unregister(cancel *context.CancelFunc) {
	b := in.b
	b.mu.Lock()
	if s := b.queries[in.req.QueryID]; s != nil {
		delete(s.cancels, cancel)
		for id := range in.inboxes {
			delete(s.inboxes, inboxKey{id, in.req.Instance})
		}
		b.gc(in.req.QueryID)
	}
	b.mu.Unlock()
	for _, ib := range in.inboxes {
		ib.Close()
	}
}

func (in *instance) run(ctx context.Context) (_ *rpc.InstanceReport, err error) {
	defer op.RecoverTo(&err)
	req := in.req
	schema := types.ArrowSchema(req.Root.Output)
	for i, d := range req.Sink.Receivers {
		if d.Pull {
			continue
		}
		id := rpc.StreamID{QueryID: req.QueryID, Exchange: req.Sink.ExchangeID, Receiver: d.Instance, Sender: req.Instance}
		if d.Local {
			in.outs[i] = &localOutlet{b: in.b, id: id}
			continue
		}
		cl, err := in.b.peer(d.Addr)
		if err != nil {
			return nil, err
		}
		p, err := pushRetrying(ctx, cl, id, schema)
		if err != nil {
			in.b.log.Warn("exchange stream to a peer failed to open", "query_id", req.QueryID, "peer", d.Addr, "err", err)
			return nil, sqlerr.Doris.New(fmt.Sprintf("exchange to backend %s: %v", d.Addr, err))
		}
		in.outs[i] = p
	}
	src := &build.Sources{Store: in.b.store, Tablets: req.Tablets, Exchange: func(n *fragment.Node) (op.Operator, error) {
		ib := in.inboxes[n.ID]
		if ib == nil {
			return nil, sqlerr.Assertf("exchange %d of fragment %d has no senders", n.ID, req.Fragment)
		}
		return build.ExchangeSource(in.env, ib, n, req.Exchanges[n.ID].MergeKeys), nil
	}, Filters: in.runtimeFilters(), BatchRows: req.BatchRows}
	root, prof, tasks, err := in.build(src)
	if err != nil {
		return nil, err
	}
	defer in.live(prof, time.Now())()
	rep := &rpc.InstanceReport{Fragment: req.Fragment, Instance: req.Instance, Backend: in.b.Addr(),
		Exchanges: map[fragment.NodeID]exchange.ExchangeStats{}, Tasks: tasks}
	if req.Sink.Kind == fragment.TableSinkKind {
		st, err := in.runTableSink(ctx, root)
		root.Close()
		if err != nil {
			return nil, err
		}
		rep.Table = &st
	} else {
		spec := exchange.SinkSpec{Kind: req.Sink.Kind, Keys: fragment.Unwrap(req.Sink.Keys), Buckets: req.Sink.Buckets,
			BucketOwner: req.Sink.BucketOwner}
		sink := exchange.NewExchangeSink(in.env, root, spec, in.outs)
		if req.Sink.Adapt != nil {
			sink.Adapt(in.sinkAdapt(req.Sink.Adapt))
		}
		in.xsink.Store(sink)
		err = sink.Run(ctx)
		root.Close()
		if err != nil {
			return nil, err
		}
		rep.Sink, rep.AdaptMode = sink.Stats(), sink.Mode()
	}
	rep.Operators = prof.Stats()
	rep.WarnCount, rep.Warnings = in.env.Eval.Warn.Count(), in.env.Eval.Warn.List()
	for id, ib := range in.inboxes {
		rep.Exchanges[id] = ib.Stats()
	}
	return rep, nil
}

// build builds the instance's operators: as pipeline tasks merged into
// the one sink when the plan asks for tasks and allows them, else as one.
func (in *instance) build(src *build.Sources) (op.Operator, *build.Profile, int, error) {
	req := in.req
	if req.Tasks > 1 {
		tp := build.TaskPlan{Tasks: req.Tasks, Instances: max(req.Instances, 1), Budget: req.Budget, Exchange: in.exchangeTasks}
		roots, prof, err := build.BuildTasks(in.env, req.Root, src, tp)
		if err == nil {
			root, err := exchange.Union(in.env, roots, req.Budget)
			if err != nil {
				return nil, nil, 0, err
			}
			return root, prof, req.Tasks, nil
		}
		if !errors.Is(err, build.ErrSerial) {
			return nil, nil, 0, err
		}
	}
	root, prof, err := build.BuildProfiled(in.env, req.Root, src)
	return root, prof, 1, err
}

// exchangeTasks is an exchange node's output as tasks streams. A hash
// partitioned exchange is split by the senders' hash, so each task gets
// whole keys (what the planner's G1 NOOP above it relies on); other
// exchanges are read by the tasks in turn; a merging one stays one stream.
func (in *instance) exchangeTasks(n *fragment.Node, tasks int) ([]op.Operator, error) {
	ib := in.inboxes[n.ID]
	if ib == nil {
		return nil, sqlerr.Assertf("exchange %d of fragment %d has no senders", n.ID, in.req.Fragment)
	}
	x := in.req.Exchanges[n.ID]
	if n.Exchange.Merge {
		return []op.Operator{build.ExchangeSource(in.env, ib, n, x.MergeKeys)}, nil
	}
	route := exchange.TaskRoute{Keys: fragment.Unwrap(x.SenderKeys), Instances: max(x.Receivers, 1), Buckets: x.Buckets}
	switch x.SenderKind {
	case fragment.StreamHash:
		route.Kind = fragment.LocalHashShuffle
	case fragment.StreamBucketHash:
		route.Kind = fragment.LocalBucketHashShuffle
	default:
		return exchange.SharedReader(ib, tasks), nil
	}
	lx, err := exchange.NewLocalExchange(in.env, []op.Operator{ib.Source()}, route, tasks, in.req.Budget)
	if err != nil {
		return nil, err
	}
	return lx.Consumers(), nil
}

// receive feeds an exchange stream into its inbox. While the inbox is over
// its budget Put blocks, this handler stops reading, and gRPC flow control
// stops the sender. A stream that arrives before its receiver registered
// waits for it; a receiver that is gone or closed ends the stream with OK,
// which the sender takes as "stop sending here".
func (b *Backend) receive(ctx context.Context, r *flight.Reader, id rpc.StreamID) error {
	ib, err := b.inbox(ctx, id)
	if err != nil {
		return rpc.ToStatus(err)
	}
	if ib == nil {
		return nil
	}
	if id.Sender < 0 || id.Sender >= ib.Senders() {
		return rpc.ToStatus(sqlerr.Assertf("exchange %d: sender %d out of range", id.Exchange, id.Sender))
	}
	for r.Next() {
		rec := r.Record()
		rec.Retain()
		if err := ib.Put(ctx, id.Sender, rec); err != nil {
			if errors.Is(err, exchange.ErrReceiverClosed) {
				return nil
			}
			return rpc.ToStatus(err)
		}
	}
	if err := r.Err(); err != nil && !errors.Is(err, io.EOF) {
		ib.Fail(sqlerr.Doris.New(fmt.Sprintf("%s: sender instance %d: %v", rpc.BrokenStream, id.Sender, err)))
		return rpc.ToStatus(err)
	}
	ib.Done(id.Sender)
	return nil
}

// serveOutbox streams a sender instance's outbox to the FE, closing it
// when the FE stops reading (so the sender stops too).
func (b *Backend) serveOutbox(ctx context.Context, id rpc.StreamID, stream flight.FlightService_DoGetServer) error {
	key := outboxKey{id.Exchange, id.Sender}
	b.mu.Lock()
	var ob *exchange.Inbox
	if s := b.queries[id.QueryID]; s != nil {
		ob = s.outboxes[key]
	}
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		if s := b.queries[id.QueryID]; s != nil && s.outboxes[key] == ob {
			delete(s.outboxes, key)
			b.gc(id.QueryID)
		}
		b.mu.Unlock()
	}()
	if ob == nil {
		return rpc.ToStatus(sqlerr.Doris.New(fmt.Sprintf("query %s: no outbox for exchange %d sender %d (cancelled?)",
			id.QueryID, id.Exchange, id.Sender)))
	}
	src := ob.Source()
	defer src.Close()
	// The end of stream is written only on success: a broken outbox must
	// look broken to the FE, not like a short result.
	var w *flight.Writer
	for {
		rec, err := src.Next(ctx)
		if err == io.EOF {
			if w == nil {
				w = flight.NewRecordWriter(stream, ipc.WithSchema(src.Schema()))
			}
			return rpc.ToStatus(w.Close())
		}
		if err != nil {
			return rpc.ToStatus(err)
		}
		if w == nil {
			w = flight.NewRecordWriter(stream, ipc.WithSchema(src.Schema()))
		}
		err = w.Write(rec)
		rec.Release()
		if err != nil {
			return rpc.ToStatus(err)
		}
	}
}

func walk(n *fragment.Node, fn func(*fragment.Node)) {
	if n == nil {
		return
	}
	fn(n)
	for _, c := range n.Children {
		walk(c, fn)
	}
	if n.Apply != nil {
		walk(n.Apply.Sub, fn)
	}
}

// peerRedial bounds how long opening an exchange stream retries: a peer
// that was unreachable a moment ago (a healed link, a resumed process) is
// alive to the FE before this backend's connection to it has redialled,
// and gRPC fails calls at once while it waits out its backoff (≤ 1 s).
const peerRedial = 2 * time.Second

// pushRetrying opens the exchange stream id, retrying a failed open until
// peerRedial has passed; a peer that stays unreachable fails after it.
func pushRetrying(ctx context.Context, cl *rpc.Client, id rpc.StreamID, schema *arrow.Schema) (*rpc.Pusher, error) {
	deadline := time.Now().Add(peerRedial)
	for {
		p, err := cl.Push(ctx, id, schema)
		if err == nil || ctx.Err() != nil || time.Now().After(deadline) {
			return p, err
		}
		select {
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			return nil, err
		}
	}
}
