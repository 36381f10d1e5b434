package coord

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/op/scan"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/sql/eval"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// LoadResult reports a committed, visible load.
type LoadResult struct {
	Txn   storage.TxnID
	Label string
	Rows  int64
	Bytes int64
}

// Source produces a load's rows: it calls yield with batches holding every
// column of the table in schema order, already typed and validated.
type Source func(yield func(arrow.Record) error) error

// Load runs one load transaction into table t: every replica of every
// tablet on an alive backend gets its rows, then the FE commits once a
// majority of each tablet's replicas made them durable (one synced catalog
// write: the commit point; the others are marked lagging, quorum.go) and
// the backends publish. After a crash a committed
// load is re-published by Recover, an uncommitted one aborted, so a load is
// visible everywhere or nowhere.
func (c *Coordinator) Load(ctx context.Context, db string, t *catalog.Table, label string, src Source) (*LoadResult, error) {
	return c.load(ctx, db, t, label, func(l *loader) (*prepared, error) { return l.write(src) })
}

// LoadPlan runs an INSERT … SELECT as one load transaction into table t:
// the plan's table sink instances write every replica from the backends
// (rows never pass through the FE), then the FE commits as Load does. An
// attempt that lost a backend before its commit runs again (loadretry.go).
func (c *Coordinator) LoadPlan(ctx context.Context, db string, t *catalog.Table, label string, sp *SinkPlan) (*LoadResult, error) {
	return c.loadPlanRetrying(ctx, sp, func(sp *SinkPlan) (*LoadResult, error) {
		return c.load(ctx, db, t, label, func(l *loader) (*prepared, error) { return l.writePlan(sp) })
	})
}

func (c *Coordinator) load(ctx context.Context, db string, t *catalog.Table, label string, write func(*loader) (*prepared, error)) (*LoadResult, error) {
	if cur, ok := c.cat.TableByID(t.ID); ok {
		t = cur
	} else {
		return nil, sqlerr.NoSuchTable.New(db, t.Name)
	}
	txn, err := c.cat.BeginTxnWith(db, label, []catalog.TableID{t.ID}, loadInfo(ctx))
	if err != nil {
		return nil, err
	}
	// The replicas to write are read after the transaction began: a clone
	// replica added before it is written too, and a move waits for the
	// transactions open when it added its replica (clone.go).
	if cur, ok := c.cat.TableByID(t.ID); ok {
		t = cur
	}
	l := &loader{c: c, t: t, txn: txn.ID, ctx: ctx, streams: map[catalog.BackendID]*rpc.Loader{}, touched: map[storage.TabletID]*catalog.Partition{},
		precommit: twoPhase(ctx)}
	defer c.untrackLoad(txn.ID) // a table sink's progress (loadprogress.go)
	// A failure before the commit point aborts the transaction everywhere;
	// after it the rows are durable and must stay (Recover publishes what
	// publishing missed). A panic, in the source (the statement's
	// operators) or here, aborts the same way on its way to the caller's
	// recover, so the label is not left held by a transaction nobody runs.
	defer func() {
		if r := recover(); r != nil {
			if !l.committed {
				l.abort(fmt.Errorf("unexpected panic: %v", r))
			}
			panic(r)
		}
	}()
	res, err := l.run(write)
	if err != nil {
		if !l.committed {
			l.abort(err)
		}
		return nil, err
	}
	res.Label = txn.Label
	return res, nil
}

// lockTable takes the table's publish lock, giving up when ctx ends.
func (c *Coordinator) lockTable(ctx context.Context, id catalog.TableID) (unlock func(), err error) {
	c.mu.Lock()
	ch, ok := c.publishLocks[id]
	if !ok {
		ch = make(chan struct{}, 1)
		c.publishLocks[id] = ch
	}
	c.mu.Unlock()
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// publishTimeout bounds publishing a committed load; past it the client
// hears "committed but not yet visible" and Recover's loop finishes it.
const publishTimeout = 30 * time.Second

type loader struct {
	c       *Coordinator
	t       *catalog.Table
	txn     storage.TxnID
	ctx     context.Context
	streams map[catalog.BackendID]*rpc.Loader
	touched map[storage.TabletID]*catalog.Partition
	rows    int64
	rr      int // round-robin cursor for RANDOM distribution
	// remote are the backends table sink instances streamed rows to
	// (prepared like the FE's own streams); abortOn every backend holding a
	// replica the sink could write (a failed instance does not report).
	remote  map[catalog.BackendID]bool
	abortOn map[catalog.BackendID]bool
	// committed is set once the FE's catalog committed the transaction
	// (or pre-committed it: precommit, a two-phase load).
	committed, precommit bool
	// failed are the backends whose replicas missed the load (a stream or
	// its prepare failed), with the cause: the load commits without them
	// when every tablet keeps a majority (quorum.go).
	failed map[catalog.BackendID]error
}

func (l *loader) run(write func(*loader) (*prepared, error)) (*LoadResult, error) {
	pr, err := write(l)
	if err != nil {
		return nil, err
	}
	if l.precommit {
		if err := l.ctx.Err(); err != nil {
			return nil, err
		}
		if err := l.c.cat.PrecommitTxn(catalog.TxnCommit{ID: l.txn, Partitions: pr.parts, Rows: pr.rows, Bytes: pr.bytes, Written: pr.written}); err != nil {
			return nil, err
		}
		l.committed = true
		return &LoadResult{Txn: l.txn, Rows: l.rows, Bytes: pr.total()}, nil
	}
	// Commit and publish under the table's publish lock, so versions
	// become visible in the order they were assigned. A TRUNCATE or DROP
	// since the rows were written makes CommitTxn fail.
	unlock, err := l.c.lockTable(l.ctx, l.t.ID)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := l.ctx.Err(); err != nil {
		return nil, err
	}
	// The commit point.
	if _, err := l.c.cat.CommitTxns([]catalog.TxnCommit{{ID: l.txn, Partitions: pr.parts, Rows: pr.rows, Bytes: pr.bytes, Written: pr.written}}); err != nil {
		return nil, err
	}
	l.committed = true
	l.dropFailed()
	// Past the commit point cancelling helps nobody: the rows stay either
	// way, so publishing finishes (bounded) to answer with visible rows.
	pctx, cancel := context.WithTimeout(context.WithoutCancel(l.ctx), publishTimeout)
	defer cancel()
	if err := l.c.publish(pctx, l.txn); err != nil {
		// Committed: durable, and Recover's retry loop will make it visible.
		return nil, sqlerr.Doris.New(fmt.Sprintf("load committed but not yet visible: %v", err))
	}
	return &LoadResult{Txn: l.txn, Rows: l.rows, Bytes: pr.total()}, nil
}

// prepared is what a load wrote and made durable, ready to commit.
type prepared struct {
	parts       []catalog.PartitionID
	rows, bytes map[storage.TabletID]int64
	// written: per tablet given rows, the backends that made them durable.
	written map[storage.TabletID][]catalog.BackendID
}

func (p *prepared) total() int64 {
	var n int64
	for _, b := range p.bytes {
		n += b
	}
	return n
}

// write sends src's rows to every replica and has each backend make them
// durable (the transaction stays PREPARE).
func (l *loader) write(src Source) (*prepared, error) {
	schema := types.ArrowSchema(tableColumns(l.t))
	if err := src(func(rec arrow.Record) error { return l.route(rec, schema) }); err != nil {
		return nil, err
	}
	// A source stopped by cancellation may return without an error (having
	// yielded only part of its rows): a cancelled load never commits.
	if err := l.ctx.Err(); err != nil {
		return nil, err
	}
	// Prepare: every backend fsyncs its pending rowsets.
	pr, err := l.prepareAll()
	if err != nil {
		return nil, err
	}
	seen := map[catalog.PartitionID]bool{}
	for _, p := range l.touched {
		if !seen[p.ID] {
			seen[p.ID] = true
			pr.parts = append(pr.parts, p.ID)
		}
	}
	return pr, nil
}

// prepare finishes every backend's load stream and asks the backend to
// make its rowsets durable, all backends at once: a backend's Prepare
// writes its tablets' last segments, the bulk of its storage work for a
// small load.
func (l *loader) prepare() (map[catalog.BackendID]rpc.PrepareResp, error) {
	type result struct {
		resp rpc.PrepareResp
		err  error
	}
	bes := map[catalog.BackendID]*rpc.Loader{}
	for be := range l.remote {
		bes[be] = nil
	}
	for be, s := range l.streams {
		bes[be] = s
	}
	for be := range l.failed {
		delete(bes, be)
	}
	type beResult struct {
		be catalog.BackendID
		result
	}
	out := make(chan beResult, len(bes))
	for be, s := range bes {
		go func() {
			r := beResult{be: be}
			defer func() { out <- r }() // after the recover: Load waits for every backend
			defer l.c.recoverTo(&r.err, "preparing a load", "txn", l.txn, "backend", be)
			cl, err := l.c.Client(be)
			var cerr error
			if s != nil {
				cerr = s.Close()
			}
			if cerr != nil {
				r.err = l.c.backendErr(be, cerr)
			} else if err != nil {
				r.err = err
			} else if err := cl.Do(l.ctx, rpc.ActPrepare, rpc.TxnReq{Txn: l.txn}, &r.resp); err != nil {
				r.err = l.c.backendErr(be, err)
			}
		}()
	}
	resps := map[catalog.BackendID]rpc.PrepareResp{}
	for range bes {
		r := <-out
		if r.err != nil {
			l.fail(r.be, r.err)
			continue
		}
		resps[r.be] = r.resp
	}
	return resps, nil
}

// abortTimeout bounds telling the backends to drop an aborted load's rows.
const abortTimeout = 5 * time.Second

func (l *loader) abort(cause error) {
	ctx, cancel := context.WithTimeout(context.Background(), abortTimeout)
	defer cancel()
	for be, s := range l.streams {
		s.Abort() // the stream may be broken; aborting on the backend drops what it got
		if cl, err := l.c.Client(be); err == nil {
			_ = cl.Do(ctx, rpc.ActAbort, rpc.TxnReq{Txn: l.txn}, nil)
		}
	}
	others := maps.Clone(l.abortOn)
	if others == nil {
		others = map[catalog.BackendID]bool{}
	}
	for be := range l.failed {
		others[be] = true
	}
	for be := range others {
		if _, done := l.streams[be]; done {
			continue
		}
		if b, ok := l.c.cat.Backend(be); !ok || !b.Alive {
			continue // its pending rows stay until the next Recover aborts them
		}
		if cl, err := l.c.Client(be); err == nil {
			_ = cl.Do(ctx, rpc.ActAbort, rpc.TxnReq{Txn: l.txn}, nil)
		}
	}
	_ = l.c.cat.AbortTxn(l.txn, cause.Error())
}

func tableColumns(t *catalog.Table) []types.Column {
	out := make([]types.Column, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = c.Column
	}
	return out
}

// route splits a batch by (partition, bucket) and sends each piece to every
// replica of its tablet.
func (l *loader) route(rec arrow.Record, schema *arrow.Schema) error {
	n := int(rec.NumRows())
	if n == 0 {
		return nil
	}
	if err := l.ctx.Err(); err != nil {
		return err
	}
	l.rows += int64(n)
	parts, err := partitionOf(l.t, rec)
	if err != nil {
		return err
	}
	var cols []arrow.Array
	if l.t.Dist.Kind == catalog.DistHash {
		for _, ci := range l.t.Dist.Columns {
			cols = append(cols, rec.Column(ci))
		}
	}
	nb := l.t.Dist.Buckets
	counts, idx := scan.TabletSlots(parts, scan.RowBuckets(cols, n, nb, &l.rr), len(l.t.Partitions), nb)
	for sl := 0; sl+1 < len(counts); sl++ {
		lo, hi := counts[sl], counts[sl+1]
		if lo == hi {
			continue
		}
		p := l.t.Partitions[sl/nb]
		tb := p.Tablets[sl%nb]
		l.touched[tb.ID] = p
		piece, err := take(rec, idx[lo:hi], schema)
		if err != nil {
			return err
		}
		if err := l.reachable(tb); err != nil {
			piece.Release()
			return err
		}
		for _, r := range tb.Replicas {
			// Lagging replicas are written too (they do not count for the
			// majority): a clone catching one up then leaves it complete.
			if l.failed[r.BackendID] != nil {
				continue
			}
			s, err := l.stream(r.BackendID, schema)
			if err == nil {
				err = s.Write(tb.ID, piece)
			}
			if err != nil {
				l.fail(r.BackendID, l.c.backendErr(r.BackendID, err))
			}
		}
		piece.Release()
		if err := l.reachable(tb); err != nil {
			return err
		}
	}
	return nil
}

func (l *loader) stream(be catalog.BackendID, schema *arrow.Schema) (*rpc.Loader, error) {
	if s, ok := l.streams[be]; ok {
		return s, nil
	}
	if b, ok := l.c.cat.Backend(be); !ok || !b.Alive {
		return nil, sqlerr.Doris.New(fmt.Sprintf("backend %d is not alive: cannot write its replicas", be))
	}
	cl, err := l.c.Client(be)
	if err != nil {
		return nil, err
	}
	s, err := cl.Load(l.ctx, l.txn, schema)
	if err != nil {
		return nil, l.c.backendErr(be, err)
	}
	l.streams[be] = s
	return s, nil
}

// take gathers rows idx of rec (all rows: rec itself, retained).
func take(rec arrow.Record, idx []int32, schema *arrow.Schema) (arrow.Record, error) {
	if len(idx) == int(rec.NumRows()) {
		rec.Retain()
		if !rec.Schema().Equal(schema) {
			out := array.NewRecord(schema, rec.Columns(), rec.NumRows())
			rec.Release()
			return out, nil
		}
		return rec, nil
	}
	cols := make([]arrow.Array, rec.NumCols())
	for i := range cols {
		a, err := eval.Take(memory.DefaultAllocator, rec.Column(i), idx)
		if err != nil {
			for _, c := range cols[:i] {
				c.Release()
			}
			return nil, err
		}
		cols[i] = a
	}
	out := array.NewRecord(schema, cols, int64(len(idx)))
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}

// partitionOf returns, per row, the index of the partition it belongs to.
func partitionOf(t *catalog.Table, rec arrow.Record) ([]int, error) {
	n := int(rec.NumRows())
	out := make([]int, n)
	if t.PartKind == catalog.PartNone {
		return out, nil
	}
	col := rec.Column(t.PartColumn)
	ct := t.Columns[t.PartColumn].Type
	for i := 0; i < n; i++ {
		v := types.DatumAt(col, i, ct)
		if out[i] = t.PartitionIndex(v); out[i] < 0 {
			return nil, sqlerr.Doris.New(fmt.Sprintf("no partition for value %s of column %s", v.String(), t.Columns[t.PartColumn].Name))
		}
	}
	return out, nil
}
