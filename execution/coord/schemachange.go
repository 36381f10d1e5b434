package coord

import (
	"context"
	"fmt"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/storage"
)

// A heavy schema change's data path (the job itself is catalog.AlterJob,
// the plan comes from the FE's session layer). Each round converts some
// partitions of the table as they are at one snapshot: new shadow tablets
// with the new schema are created, a table sink plan (a SELECT of the old
// tablets with CASTs into the new columns) writes them under a load
// transaction, and every replica publishes them at
// catalog.OverwriteVersion. The transaction stays PREPARE: only
// CommitSchemaChange, with the other rounds' transactions, makes it
// VISIBLE, so until that commit point no query reads the shadow tablets
// and a crash leaves them as orphans.

// ConvertSource labels the conversion transactions (SHOW TRANSACTION's
// LoadJobSourceType; SHOW LOAD does not list them).
const ConvertSource = "SCHEMA_CHANGE"

// ConvertResult is one round's transaction and what it wrote per tablet.
type ConvertResult struct {
	Txn         storage.TxnID
	Rows, Bytes map[storage.TabletID]int64
}

// ConvertPartitions runs one conversion round: shadow holds the new
// schema and, as its partitions, the shadow partitions to write; t is the
// table being changed (its current version). started sees the
// transaction as soon as it exists (the job's progress reads it). On
// failure the transaction is aborted and the round's shadow tablets are
// dropped.
func (c *Coordinator) ConvertPartitions(ctx context.Context, db string, t, shadow *catalog.Table, label string, sp *SinkPlan, started func(storage.TxnID)) (*ConvertResult, error) {
	if err := c.CreateTablets(ctx, shadow); err != nil {
		c.DropTablets(context.Background(), shadow)
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			c.DropTablets(context.Background(), shadow)
		}
	}()
	txn, err := c.cat.BeginTxnWith(db, label, []catalog.TableID{t.ID}, catalog.TxnInfo{Source: ConvertSource})
	if err != nil {
		return nil, err
	}
	started(txn.ID)
	defer c.untrackLoad(txn.ID) // the sink's progress (loadprogress.go)
	l := &loader{c: c, t: t, txn: txn.ID, ctx: ctx, streams: map[catalog.BackendID]*rpc.Loader{}, touched: map[storage.TabletID]*catalog.Partition{}}
	defer func() {
		if r := recover(); r != nil {
			l.abort(fmt.Errorf("unexpected panic: %v", r))
			panic(r)
		}
	}()
	pr, err := c.convert(l, shadow, sp)
	if err != nil {
		l.abort(err)
		return nil, err
	}
	ok = true
	return &ConvertResult{Txn: txn.ID, Rows: pr.rows, Bytes: pr.bytes}, nil
}

func (c *Coordinator) convert(l *loader, shadow *catalog.Table, sp *SinkPlan) (*prepared, error) {
	pr, err := l.writePlan(sp)
	if err != nil {
		return nil, err
	}
	if err := c.publishFresh(l, shadow.Partitions); err != nil {
		return nil, err
	}
	return pr, l.ctx.Err()
}

// LockTable takes table id's publish lock (loads commit and publish under
// it): a schema change holds it from its last check of the table's
// versions through its commit point, so no load commits in between.
func (c *Coordinator) LockTable(ctx context.Context, id catalog.TableID) (unlock func(), err error) {
	return c.lockTable(ctx, id)
}

// AbortConversions aborts a cancelled job's conversion transactions (in
// the catalog; the backends published them into shadow tablets that are
// dropped with them) and drops the shadow tablets.
func (c *Coordinator) AbortConversions(ctx context.Context, job *catalog.AlterJob, txns []storage.TxnID, reason string) {
	for _, id := range txns {
		if t, ok := c.cat.Txn(id); ok && t.State == catalog.TxnPrepare {
			_ = c.cat.AbortTxn(id, reason)
		}
	}
	c.DropTablets(ctx, job.Shadow)
}

// dropRetiredAlters drops the old tablets of finished schema change jobs
// that a restart kept from being dropped. Unfinished jobs are left to the
// server, which resumes them (their conversion transactions were aborted
// with every other PREPARE one).
func (c *Coordinator) dropRetiredAlters(ctx context.Context) {
	for _, j := range c.cat.AlterJobs(0) {
		if len(j.Retired) > 0 {
			c.DropRetired(ctx, j)
		}
	}
}

// DropRetired drops a finished job's old tablets and records it.
func (c *Coordinator) DropRetired(ctx context.Context, j *catalog.AlterJob) {
	c.DropTablets(ctx, &catalog.Table{Partitions: j.Retired})
	if err := c.cat.RetiredDropped(j.ID); err != nil {
		c.log.Warn("schema change: record the old tablets dropped", "job", j.ID, "err", err)
	}
}
