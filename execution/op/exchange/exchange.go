package exchange

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// DefaultExchangeBudget bounds the unread bytes one exchange receiver
// instance buffers before it stops reading its senders' streams.
const DefaultExchangeBudget = 8 << 20

// ErrReceiverClosed tells a sender that the receiver stopped reading (a
// satisfied LIMIT, an empty build side): the sender drops what it would
// have sent there and stops once every receiver is closed.
var ErrReceiverClosed = errors.New("exchange receiver closed")

// ExchangeStats counts one side of an exchange.
type ExchangeStats struct {
	Rows  int64 `json:"rows"`
	Bytes int64 `json:"bytes"` // Arrow buffer bytes of the batches
	// WireBytes is what a sender put on the wire (IPC messages).
	WireBytes int64 `json:"wire_bytes,omitempty"`
	Batches   int64 `json:"batches"`
	// BlockedNs is the time spent waiting on the byte budget (receiver) or
	// on a receiver that would not take more (sender).
	BlockedNs int64 `json:"blocked_ns"`
	// PeakBytes is the highest unread byte count (receiver side).
	PeakBytes int64 `json:"peak_bytes,omitempty"`
	// DestRows and DestBytes (sender side) split Rows and Bytes by receiver
	// instance: how even a shuffle is, where a broadcast's copies went.
	DestRows  []int64 `json:"dest_rows,omitempty"`
	DestBytes []int64 `json:"dest_bytes,omitempty"`
}

// Add accumulates o into s (peaks take the maximum; per receiver counts
// add up receiver by receiver).
func (s *ExchangeStats) Add(o ExchangeStats) {
	s.Rows += o.Rows
	s.Bytes += o.Bytes
	s.WireBytes += o.WireBytes
	s.Batches += o.Batches
	s.BlockedNs += o.BlockedNs
	s.PeakBytes = max(s.PeakBytes, o.PeakBytes)
	s.DestRows = addEach(s.DestRows, o.DestRows)
	s.DestBytes = addEach(s.DestBytes, o.DestBytes)
}

func addEach(a, b []int64) []int64 {
	for len(a) < len(b) {
		a = append(a, 0)
	}
	for i, v := range b {
		a[i] += v
	}
	return a
}

// Inbox buffers what the senders of one exchange send to one receiver
// instance. Put blocks while the unread bytes exceed the budget, so the
// caller (a stream handler) stops reading its gRPC stream and flow control
// throttles the sender. A sender whose own queue is empty may always put one
// batch, so a merging receiver that waits for that sender cannot deadlock.
type Inbox struct {
	schema *arrow.Schema
	budget int64

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every state change
	queues  [][]arrow.Record
	done    []bool
	live    int
	bytes   int64
	rr      int
	err     error
	closed  bool
	merging bool
	stats   ExchangeStats
}

// NewInbox returns an inbox for senders senders; budget ≤ 0 means DefaultExchangeBudget.
func NewInbox(schema *arrow.Schema, senders int, budget int64) *Inbox {
	if budget <= 0 {
		budget = DefaultExchangeBudget
	}
	return &Inbox{schema: schema, budget: budget, changed: make(chan struct{}),
		queues: make([][]arrow.Record, senders), done: make([]bool, senders), live: senders}
}

func (b *Inbox) signal() {
	close(b.changed)
	b.changed = make(chan struct{})
}

// Senders is the number of senders the inbox waits for.
func (b *Inbox) Senders() int { return len(b.queues) }

// Put queues rec (taking ownership) from sender s, first waiting while it
// would take the unread bytes over the budget. It returns ErrReceiverClosed
// once the receiver closed.
func (b *Inbox) Put(ctx context.Context, s int, rec arrow.Record) error {
	b.mu.Lock()
	if b.closed || b.err != nil {
		err := b.err
		b.mu.Unlock()
		rec.Release()
		if err == nil {
			err = ErrReceiverClosed
		}
		return err
	}
	n := op.RecordBytes(rec)
	// Wait for room before queueing: an empty inbox always takes one batch
	// (however big), and a merging one always takes a batch from a sender
	// it has nothing queued from (the merge may be waiting for it).
	var start time.Time
	for !b.closed && b.err == nil && b.bytes > 0 && b.bytes+n > b.budget && !(b.merging && len(b.queues[s]) == 0) {
		if start.IsZero() {
			start = time.Now()
		}
		ch := b.changed
		b.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			rec.Release()
			b.mu.Lock()
			b.stats.BlockedNs += int64(time.Since(start))
			b.mu.Unlock()
			return ctx.Err()
		}
		b.mu.Lock()
	}
	if !start.IsZero() {
		b.stats.BlockedNs += int64(time.Since(start))
	}
	if b.closed || b.err != nil {
		err := b.err
		b.mu.Unlock()
		rec.Release()
		if err == nil {
			err = ErrReceiverClosed
		}
		return err
	}
	b.queues[s] = append(b.queues[s], rec)
	b.bytes += n
	b.stats.Rows += rec.NumRows()
	b.stats.Bytes += n
	b.stats.Batches++
	b.stats.PeakBytes = max(b.stats.PeakBytes, b.bytes)
	b.signal()
	b.mu.Unlock()
	return nil
}

// Done records that sender s finished.
func (b *Inbox) Done(s int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.done[s] {
		b.done[s] = true
		b.live--
		b.signal()
	}
}

// Fail makes the receiver return err (the first one wins).
func (b *Inbox) Fail(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err == nil {
		b.err = err
		b.signal()
	}
}

// Close stops receiving: queued batches are dropped and senders get
// ErrReceiverClosed.
func (b *Inbox) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.closed = true
	for i, q := range b.queues {
		op.ReleaseRecs(q)
		b.queues[i] = nil
	}
	b.bytes = 0
	b.signal()
}

// Closed reports whether the receiver closed.
func (b *Inbox) Closed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closed
}

// Stats returns the receiver's counters so far.
func (b *Inbox) Stats() ExchangeStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stats
}

// Buffered is the current unread byte count.
func (b *Inbox) Buffered() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.bytes
}

// next pops a batch from sender s (s < 0: any sender, round robin).
func (b *Inbox) next(ctx context.Context, s int) (arrow.Record, error) {
	b.mu.Lock()
	for {
		if b.err != nil {
			err := b.err
			b.mu.Unlock()
			return nil, err
		}
		if b.closed {
			b.mu.Unlock()
			return nil, io.EOF
		}
		q := s
		if q < 0 {
			for i := range b.queues {
				j := (b.rr + i) % len(b.queues)
				if len(b.queues[j]) > 0 {
					q = j
					b.rr = j + 1
					break
				}
			}
		}
		if q >= 0 && len(b.queues[q]) > 0 {
			rec := b.queues[q][0]
			b.queues[q][0] = nil
			b.queues[q] = b.queues[q][1:]
			b.bytes -= op.RecordBytes(rec)
			b.signal()
			b.mu.Unlock()
			if !rec.Schema().Equal(b.schema) {
				rec = op.Relabel(rec, b.schema)
			}
			return rec, nil
		}
		if (s < 0 && b.live == 0) || (s >= 0 && b.done[s]) {
			b.mu.Unlock()
			return nil, io.EOF
		}
		ch := b.changed
		b.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		b.mu.Lock()
	}
}

// Source is the receiving operator: batches of every sender in arrival
// order. Closing it closes the inbox.
func (b *Inbox) Source() op.Operator { return &inboxSource{b: b, s: -1} }

// MergingSource merges the senders' streams, each sorted by keys, into one
// sorted stream (a MERGING-EXCHANGE).
func (b *Inbox) MergingSource(env *op.Env, keys []op.SortKey) op.Operator {
	b.mu.Lock()
	b.merging = true
	b.signal()
	b.mu.Unlock()
	children := make([]op.Operator, len(b.queues))
	for i := range children {
		children[i] = &inboxSource{b: b, s: i}
	}
	if len(children) == 0 {
		return &inboxSource{b: b, s: -1}
	}
	return NewMergeSorted(env, children, keys, 0, -1)
}

type inboxSource struct {
	b *Inbox
	s int
}

func (o *inboxSource) Schema() *arrow.Schema { return o.b.schema }
func (o *inboxSource) Next(ctx context.Context) (arrow.Record, error) {
	return o.b.next(ctx, o.s)
}
func (o *inboxSource) Close() { o.b.Close() }

// Outlet is one receiver instance as a sender sees it.
type Outlet interface {
	// Send sends rec (the caller keeps its reference). ErrReceiverClosed
	// means the receiver stopped reading.
	Send(ctx context.Context, rec arrow.Record) error
	// Close ends the stream, waiting until the receiver has it all.
	Close(ctx context.Context) error
}

// SinkSpec is how an ExchangeSink routes rows (planner/fragment/doc.go).
type SinkSpec struct {
	Kind    fragment.SinkKind
	Keys    []expr.Expr
	Buckets int
	// BucketOwner maps a storage bucket to the receiver instance reading it
	// (StreamBucketHash).
	BucketOwner []int
}

// SinkAdapt is an ExchangeSink's part in an adaptive join
// (fragment.AdaptiveJoin): a build sink holds its rows back until it has
// seen them all or more than MaxRows/MaxBytes and reports what it saw; a
// probe sink holds its first rows and reports their frequent keys; both
// then wait to be told how the join runs before sending.
type SinkAdapt struct {
	Build             bool
	MaxRows, MaxBytes int64
	// Local are the receivers on the sender's own backend (probe side).
	Local []int
	// SkewShare (probe side) > 0: report the keys near this share of the
	// sampled rows.
	SkewShare float64
	// Measured is called once with what was held back: the build side's
	// rows and bytes (over: the limits were passed before the end), or the
	// probe side's sample and its frequent key hashes.
	Measured func(rows, bytes int64, over bool, keys map[uint64]int64)
	// Await blocks until the join's distribution is settled; skew are the
	// key hashes to spread over every receiver.
	Await func(ctx context.Context) (mode fragment.AdaptMode, skew []uint64, err error)
}

// skewSampleRows is how many first rows a probe sink samples for skew.
const skewSampleRows = 8192

// ExchangeSink is a fragment instance's STREAM DATA SINK: it drains its
// child and routes every row to receiver outlets.
type ExchangeSink struct {
	env    *op.Env
	child  op.Operator
	spec   SinkSpec
	outs   []Outlet
	open   []bool
	nopen  int
	rr     int
	hashes []uint64
	// adapt, when set, settles the routing at run time; forward then says
	// the probe side's rows go to local receivers only.
	adapt   *SinkAdapt
	forward bool
	mode    fragment.AdaptMode
	// skew: key hashes whose probe rows go round robin and whose build
	// rows go to every receiver (a skewed PARTITIONED adaptive join).
	skew map[uint64]bool

	// pend holds, per receiver, small pieces not sent yet (a selective
	// filter or a hash split leaves a few rows a batch): they go as one
	// batch once they reach coalesceRows or coalesceBytes, have waited
	// coalesceAge, or the child ends. Sends to the root fragment are not
	// held, so that a LIMIT above them ends the query early.
	pend      [][]arrow.Record
	pendRows  []int64
	pendBytes []int64
	pendSince []time.Time
	maxAge    time.Duration // coalesceAge; tests make it long

	mu    sync.Mutex // stats are read live (query_status) while Run writes them
	stats ExchangeStats
}

// Pieces smaller than this are held and sent together (Doris sends blocks
// of batch_size rows).
const (
	coalesceRows  = 4096
	coalesceBytes = 1 << 20
	coalesceAge   = 20 * time.Millisecond
)

// NewExchangeSink routes child's rows to outs (one per receiver instance).
func NewExchangeSink(env *op.Env, child op.Operator, spec SinkSpec, outs []Outlet) *ExchangeSink {
	open := make([]bool, len(outs))
	for i := range open {
		open[i] = true
	}
	s := &ExchangeSink{env: env, child: child, spec: spec, outs: outs, open: open, nopen: len(outs),
		stats: ExchangeStats{DestRows: make([]int64, len(outs)), DestBytes: make([]int64, len(outs))}}
	if spec.Kind != fragment.StreamGather && spec.Kind != fragment.ResultSink {
		s.pend = make([][]arrow.Record, len(outs))
		s.pendRows = make([]int64, len(outs))
		s.pendBytes = make([]int64, len(outs))
		s.pendSince = make([]time.Time, len(outs))
		s.maxAge = coalesceAge
	}
	return s
}

// Adapt makes the sink one side of an adaptive join.
func (s *ExchangeSink) Adapt(a *SinkAdapt) { s.adapt = a }

// Mode is how an adaptive sink was told to run (AdaptUndecided: not
// adaptive, or not settled yet).
func (s *ExchangeSink) Mode() fragment.AdaptMode {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode
}

// Stats is what the sink sent so far.
func (s *ExchangeSink) Stats() ExchangeStats {
	s.mu.Lock()
	st := s.stats
	st.DestRows = append([]int64(nil), st.DestRows...)
	st.DestBytes = append([]int64(nil), st.DestBytes...)
	s.mu.Unlock()
	for _, o := range s.outs {
		if w, ok := o.(interface{ WireBytes() int64 }); ok {
			st.WireBytes += w.WireBytes()
		}
	}
	return st
}

// Run drains the child (stopping early once every receiver closed) and
// closes the outlets. It does not close the child.
func (s *ExchangeSink) Run(ctx context.Context) error {
	if len(s.outs) == 0 {
		return sqlerr.Assertf("exchange sink without receivers")
	}
	defer func() {
		for i := range s.pend {
			op.ReleaseRecs(s.pend[i])
			s.pend[i] = nil
		}
	}()
	done := false
	if s.adapt != nil {
		var err error
		if done, err = s.settle(ctx); err != nil {
			return err
		}
	}
	for s.nopen > 0 && !done {
		rec, err := s.child.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		err = s.route(ctx, rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	for i := range s.pend {
		if err := s.flush(ctx, i); err != nil {
			return err
		}
	}
	var first error
	for i, o := range s.outs {
		if err := o.Close(ctx); err != nil && !errors.Is(err, ErrReceiverClosed) && first == nil {
			first = err
		}
		s.open[i] = false
	}
	return first
}

// settle holds rows back until the adaptive join's mode is known, then
// sends them the way it says; done: the child has no more rows.
func (s *ExchangeSink) settle(ctx context.Context) (done bool, err error) {
	a := s.adapt
	var held []arrow.Record
	defer func() { op.ReleaseRecs(held) }()
	var rows, bytes int64
	for {
		rec, err := s.child.Next(ctx)
		if err == io.EOF {
			done = true
			break
		}
		if err != nil {
			return false, err
		}
		held = append(held, rec)
		rows += rec.NumRows()
		bytes += op.RecordBytes(rec)
		// The probe side holds its first rows only, as a sample: it starts
		// reading, but sends nothing before the build side is measured.
		if a.Build && (rows > a.MaxRows || bytes > a.MaxBytes) || !a.Build && (a.SkewShare <= 0 || rows >= skewSampleRows) {
			break
		}
	}
	var keys map[uint64]int64
	if !a.Build && a.SkewShare > 0 {
		if keys, err = s.frequentKeys(held, rows, a.SkewShare); err != nil {
			return false, err
		}
	}
	if a.Measured != nil {
		a.Measured(rows, bytes, !done, keys)
	}
	type decision struct {
		mode fragment.AdaptMode
		skew []uint64
		err  error
	}
	decided := make(chan decision, 1)
	go func() {
		m, sk, err := a.Await(ctx)
		decided <- decision{m, sk, err}
	}()
	// While the build side is measured, the probe side reads on, up to
	// what its receiver would have buffered: the scan keeps going as it
	// would into the planned shuffle's inbox.
	var got decision
wait:
	for {
		select {
		case got = <-decided:
			break wait
		default:
		}
		if a.Build || done || bytes >= DefaultExchangeBudget {
			got = <-decided
			break
		}
		rec, err := s.child.Next(ctx)
		if err == io.EOF {
			done = true
			continue
		}
		if err != nil {
			return false, err
		}
		held = append(held, rec)
		bytes += op.RecordBytes(rec)
	}
	mode, skew, err := got.mode, got.skew, got.err
	if err != nil {
		return false, err
	}
	if len(skew) > 0 {
		s.skew = map[uint64]bool{}
		for _, h := range skew {
			s.skew[h] = true
		}
	}
	s.mu.Lock()
	s.mode = mode
	s.mu.Unlock()
	if mode == fragment.AdaptBroadcast {
		if a.Build {
			s.spec.Kind = fragment.StreamBroadcast
		} else {
			s.forward = true
		}
	}
	for i, rec := range held {
		err := s.route(ctx, rec)
		rec.Release()
		held[i] = nil
		if err != nil {
			return false, err
		}
	}
	return done, nil
}

// frequentKeys counts the key hashes of the sampled batches and keeps
// those over half of share (a key that is skewed over every sender is
// frequent in most samples).
func (s *ExchangeSink) frequentKeys(held []arrow.Record, rows int64, share float64) (map[uint64]int64, error) {
	counts := map[uint64]int64{}
	for _, rec := range held {
		hs, err := s.hash(rec)
		if err != nil {
			return nil, err
		}
		for _, h := range hs {
			counts[h]++
		}
	}
	out := map[uint64]int64{}
	for h, n := range counts {
		if float64(n) >= share/2*float64(rows) {
			out[h] = n
		}
	}
	return out, nil
}

// hash is the exchange hash of each row's keys (what StreamHash routes by).
func (s *ExchangeSink) hash(rec arrow.Record) ([]uint64, error) {
	rows := int(rec.NumRows())
	cols, err := op.EvalCols(s.env, s.spec.Keys, rec)
	if err != nil {
		return nil, err
	}
	if cap(s.hashes) < rows {
		s.hashes = make([]uint64, rows)
	}
	hs := s.hashes[:rows]
	clear(hs)
	types.HashColumns(cols, hs)
	op.ReleaseAll(cols)
	return hs, nil
}

// send sends rec to receiver i, or holds it with the pieces pending there.
func (s *ExchangeSink) send(ctx context.Context, i int, rec arrow.Record) error {
	if !s.open[i] {
		return nil
	}
	if s.pend == nil || rec.NumRows() >= coalesceRows && len(s.pend[i]) == 0 {
		return s.sendNow(ctx, i, rec)
	}
	if len(s.pend[i]) == 0 {
		s.pendSince[i] = time.Now()
	}
	rec.Retain()
	s.pend[i] = append(s.pend[i], rec)
	s.pendRows[i] += rec.NumRows()
	s.pendBytes[i] += op.RecordBytes(rec)
	if s.pendRows[i] >= coalesceRows || s.pendBytes[i] >= coalesceBytes || time.Since(s.pendSince[i]) >= s.maxAge {
		return s.flush(ctx, i)
	}
	return nil
}

// flush sends the pieces pending for receiver i as one batch.
func (s *ExchangeSink) flush(ctx context.Context, i int) error {
	recs := s.pend[i]
	if len(recs) == 0 {
		return nil
	}
	s.pend[i], s.pendRows[i], s.pendBytes[i] = nil, 0, 0
	defer op.ReleaseRecs(recs)
	if !s.open[i] {
		return nil
	}
	one, err := op.ConcatRecords(s.env.Mem, recs[0].Schema(), recs)
	if err != nil {
		return err
	}
	defer one.Release()
	return s.sendNow(ctx, i, one)
}

func (s *ExchangeSink) sendNow(ctx context.Context, i int, rec arrow.Record) error {
	start := time.Now()
	err := s.outs[i].Send(ctx, rec)
	blocked := int64(time.Since(start))
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.BlockedNs += blocked
	if errors.Is(err, ErrReceiverClosed) {
		s.open[i] = false
		s.nopen--
		return nil
	}
	if err != nil {
		return err
	}
	n, b := rec.NumRows(), op.RecordBytes(rec)
	s.stats.Rows += n
	s.stats.Bytes += b
	s.stats.Batches++
	s.stats.DestRows[i] += n
	s.stats.DestBytes[i] += b
	return nil
}

func (s *ExchangeSink) route(ctx context.Context, rec arrow.Record) error {
	n := len(s.outs)
	if s.forward {
		// A broadcast adaptive join's probe side stays on its backend.
		local := s.adapt.Local
		s.rr++
		if len(local) == 0 {
			return s.send(ctx, s.rr%n, rec)
		}
		return s.send(ctx, local[s.rr%len(local)], rec)
	}
	switch s.spec.Kind {
	case fragment.StreamGather, fragment.ResultSink:
		return s.send(ctx, 0, rec)
	case fragment.StreamBroadcast:
		for i := range s.outs {
			if err := s.send(ctx, i, rec); err != nil {
				return err
			}
		}
		return nil
	case fragment.StreamRandom:
		i := s.rr % n
		s.rr++
		return s.send(ctx, i, rec)
	case fragment.StreamHash:
	case fragment.StreamBucketHash:
		if s.spec.Buckets <= 0 {
			return sqlerr.Assertf("bucket shuffle sink without a bucket count")
		}
	default:
		return sqlerr.Assertf("unknown sink kind %d", s.spec.Kind)
	}
	rows := int(rec.NumRows())
	hs, err := s.hash(rec)
	if err != nil {
		return err
	}
	parts := make([][]int32, n)
	skew := s.skew // nil but for a skewed adaptive join: one map lookup a row then
	for r, h := range hs {
		var d int
		switch {
		case skew != nil && skew[h] && s.adapt.Build:
			// A skewed key's build rows go to every receiver, its probe
			// rows round robin: each receiver joins its share of them.
			for i := range parts {
				parts[i] = append(parts[i], int32(r))
			}
			continue
		case skew != nil && skew[h]:
			d = s.rr % n
			s.rr++
		case s.spec.Kind == fragment.StreamHash:
			d = int(h % uint64(n))
		default:
			b := types.Bucket(h, s.spec.Buckets)
			if b >= len(s.spec.BucketOwner) {
				return sqlerr.Assertf("bucket %d has no receiver", b)
			}
			d = s.spec.BucketOwner[b]
		}
		parts[d] = append(parts[d], int32(r))
	}
	for d, idx := range parts {
		if len(idx) == 0 || !s.open[d] {
			continue
		}
		if len(idx) == rows {
			if err := s.send(ctx, d, rec); err != nil {
				return err
			}
			continue
		}
		taken, err := op.TakeCols(s.env.Mem, rec.Columns(), idx)
		if err != nil {
			return err
		}
		piece := op.NewRecord(rec.Schema(), taken, len(idx))
		err = s.send(ctx, d, piece)
		piece.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// InboxOutlet is an Outlet into a local inbox (a same-process receiver or
// an outbox the FE pulls from).
type InboxOutlet struct {
	In     *Inbox
	Sender int
}

// Send puts a reference to rec into the inbox.
func (o InboxOutlet) Send(ctx context.Context, rec arrow.Record) error {
	rec.Retain()
	return o.In.Put(ctx, o.Sender, rec)
}

// Close marks the sender done.
func (o InboxOutlet) Close(context.Context) error {
	o.In.Done(o.Sender)
	return nil
}
