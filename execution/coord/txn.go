package coord

import (
	"context"
	"fmt"
	"slices"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/storage"
)

// ExplicitTxn is a multi-statement transaction (BEGIN … COMMIT, or a
// session with autocommit off). As in Doris, each statement writes a load
// transaction of its own (a sub-transaction), so a failed statement rolls
// back alone while what the others wrote stays. COMMIT commits every
// sub-transaction in one catalog write (all durable or none, across a
// crash) and makes them visible in another (readers see all or none). A
// head transaction without tables holds the label from BEGIN on.
type ExplicitTxn struct {
	c     *Coordinator
	db    string
	head  storage.TxnID
	label string
	subs  []subLoad
	done  bool
}

type subLoad struct {
	txn      storage.TxnID
	table    catalog.TableID
	pr       *prepared
	backends []catalog.BackendID
	rows     int64
	delete   bool // a DELETE's condition, not rows
	// failed are backends whose replicas missed it (majority writes): told
	// to drop what they got once the transaction commits.
	failed []catalog.BackendID
}

// BeginExplicit starts a transaction on db; label "" gets a generated one.
// A label already used by a transaction that was not aborted is refused.
func (c *Coordinator) BeginExplicit(db, label string) (*ExplicitTxn, error) {
	t, err := c.cat.BeginTxn(db, label, nil)
	if err != nil {
		return nil, err
	}
	return &ExplicitTxn{c: c, db: db, head: t.ID, label: t.Label}, nil
}

// Label is the transaction's label.
func (x *ExplicitTxn) Label() string { return x.label }

// DB is the database every statement of the transaction must write.
func (x *ExplicitTxn) DB() string { return x.db }

// ID is the transaction id shown to the client: the first statement's,
// as Doris shows it (0 before any statement wrote).
func (x *ExplicitTxn) ID() storage.TxnID {
	if len(x.subs) == 0 {
		return 0
	}
	return x.subs[0].txn
}

// Wrote reports whether a statement of the transaction wrote table id.
func (x *ExplicitTxn) Wrote(id catalog.TableID) bool {
	for _, s := range x.subs {
		if s.table == id {
			return true
		}
	}
	return false
}

// Load runs one statement of the transaction: src's rows are written to
// every replica of t and made durable, but stay invisible until Commit. A
// failure aborts this statement's rows only.
func (x *ExplicitTxn) Load(ctx context.Context, t *catalog.Table, src Source) (*LoadResult, error) {
	return x.load(ctx, t, func(l *loader) (*prepared, error) { return l.write(src) })
}

// LoadPlan runs an INSERT … SELECT as one statement of the transaction:
// the plan's table sink instances write from the backends (LoadPlan).
func (x *ExplicitTxn) LoadPlan(ctx context.Context, t *catalog.Table, sp *SinkPlan) (*LoadResult, error) {
	res, err := x.load(ctx, t, func(l *loader) (*prepared, error) { return l.writePlan(sp) })
	return res, unwrapLost(err) // not retried: the transaction's statement fails (loadretry.go)
}

func (x *ExplicitTxn) load(ctx context.Context, t *catalog.Table, write func(*loader) (*prepared, error)) (*LoadResult, error) {
	if x.done {
		return nil, sqlerr.Doris.New("the transaction has already ended")
	}
	c := x.c
	if cur, ok := c.cat.TableByID(t.ID); ok {
		t = cur
	} else {
		return nil, sqlerr.NoSuchTable.New(x.db, t.Name)
	}
	txn, err := c.cat.BeginTxn(x.db, fmt.Sprintf("%s_%d", x.label, len(x.subs)+1), []catalog.TableID{t.ID})
	if err != nil {
		return nil, err
	}
	if cur, ok := c.cat.TableByID(t.ID); ok {
		t = cur // the replicas as of after the begin (load.go)
	}
	l := &loader{c: c, t: t, txn: txn.ID, ctx: ctx, streams: map[catalog.BackendID]*rpc.Loader{}, touched: map[storage.TabletID]*catalog.Partition{}}
	defer c.untrackLoad(txn.ID) // a table sink's progress (loadprogress.go)
	defer func() {
		if r := recover(); r != nil {
			l.abort(fmt.Errorf("unexpected panic: %v", r))
			panic(r)
		}
	}()
	pr, err := write(l)
	if err != nil {
		l.abort(err)
		return nil, err
	}
	var bes []catalog.BackendID
	for be := range l.streams {
		bes = append(bes, be)
	}
	for be := range l.remote {
		if _, ok := l.streams[be]; !ok {
			bes = append(bes, be)
		}
	}
	var failed []catalog.BackendID
	for be := range l.failed {
		failed = append(failed, be)
	}
	x.subs = append(x.subs, subLoad{txn: txn.ID, table: t.ID, pr: pr, backends: bes, rows: l.rows, failed: failed})
	return &LoadResult{Txn: txn.ID, Label: x.label, Rows: l.rows, Bytes: pr.total()}, nil
}

// Delete runs a DELETE as one statement of the transaction: its condition
// is written to every replica and made durable, but applies only once the
// transaction commits. As in Doris, a table the transaction already
// inserted into cannot be deleted from (the delete would have to see rows
// no statement of the transaction sees).
func (x *ExplicitTxn) Delete(ctx context.Context, job DeleteJob) (*LoadResult, error) {
	if x.done {
		return nil, sqlerr.Doris.New("the transaction has already ended")
	}
	for _, s := range x.subs {
		if s.table == job.Table.ID && !s.delete {
			return nil, sqlerr.Doris.New("Can not delete because there is a insert operation for the same table")
		}
	}
	c := x.c
	txn, t, per, parts, err := c.beginDelete(x.db, job)
	if err != nil {
		return nil, err
	}
	d := &deleter{c: c, txn: txn.ID, per: per, tablets: job.Tablets}
	defer func() {
		if r := recover(); r != nil {
			d.abort(fmt.Errorf("unexpected panic: %v", r))
			panic(r)
		}
	}()
	if err := d.prepare(ctx, job.Cond); err != nil {
		d.abort(err)
		return nil, err
	}
	var bes []catalog.BackendID
	for be := range per {
		bes = append(bes, be)
	}
	x.subs = append(x.subs, subLoad{txn: txn.ID, table: t.ID, pr: &prepared{parts: parts, written: d.written}, backends: bes, delete: true})
	return &LoadResult{Txn: txn.ID, Label: x.label}, nil
}

// Commit makes every statement's rows durable in one catalog write, then
// visible together. A failure before the commit point rolls everything
// back; after it the rows stay and become visible (Recover finishes what
// publishing could not).
func (x *ExplicitTxn) Commit(ctx context.Context) (*LoadResult, error) {
	if x.done {
		return nil, sqlerr.Doris.New("the transaction has already ended")
	}
	c := x.c
	var tables []catalog.TableID
	for _, s := range x.subs {
		if !slices.Contains(tables, s.table) {
			tables = append(tables, s.table)
		}
	}
	// Table publish locks in one order, so two transactions cannot deadlock.
	slices.Sort(tables)
	for _, id := range tables {
		unlock, err := c.lockTable(ctx, id)
		if err != nil {
			x.Rollback(err.Error())
			return nil, err
		}
		defer unlock()
	}
	if err := ctx.Err(); err != nil {
		x.Rollback(err.Error())
		return nil, err
	}
	items := []catalog.TxnCommit{{ID: x.head}}
	ids := []storage.TxnID{x.head}
	res := &LoadResult{Txn: x.ID(), Label: x.label}
	for _, s := range x.subs {
		items = append(items, catalog.TxnCommit{ID: s.txn, Partitions: s.pr.parts, Rows: s.pr.rows, Bytes: s.pr.bytes, Written: s.pr.written})
		ids = append(ids, s.txn)
		res.Rows += s.rows
		res.Bytes += s.pr.total()
	}
	// The commit point.
	if _, err := c.cat.CommitTxns(items); err != nil {
		x.Rollback(err.Error())
		return nil, err
	}
	x.done = true
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), publishTimeout)
	defer cancel()
	for _, s := range x.subs {
		for _, be := range s.failed {
			if cl, err := c.Client(be); err == nil && c.isAlive(be) {
				_ = cl.Do(pctx, rpc.ActAbort, rpc.TxnReq{Txn: s.txn}, nil)
			}
		}
	}
	for _, s := range x.subs {
		if err := c.publishBackends(pctx, s.txn); err != nil {
			return nil, sqlerr.Doris.New(fmt.Sprintf("transaction committed but not yet visible: %v", err))
		}
	}
	if err := c.cat.FinishTxns(ids); err != nil {
		return nil, sqlerr.Doris.New(fmt.Sprintf("transaction committed but not yet visible: %v", err))
	}
	return res, nil
}

// Rollback discards every statement's rows and frees the label.
func (x *ExplicitTxn) Rollback(reason string) {
	if x.done {
		return
	}
	x.done = true
	c := x.c
	ctx, cancel := context.WithTimeout(context.Background(), abortTimeout)
	defer cancel()
	for _, s := range x.subs {
		for _, be := range s.backends {
			if cl, err := c.Client(be); err == nil {
				_ = cl.Do(ctx, rpc.ActAbort, rpc.TxnReq{Txn: s.txn}, nil)
			}
		}
		_ = c.cat.AbortTxn(s.txn, reason)
	}
	_ = c.cat.AbortTxn(x.head, reason)
}
