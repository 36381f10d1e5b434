package coord

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/storage"
)

// DeleteJob is a DELETE with its condition and the tablets it applies to
// (the planner's partition and bucket pruning of the condition).
type DeleteJob struct {
	Table   *catalog.Table
	Tablets []storage.TabletID // each of a partition of Table
	Cond    storage.DeleteCond
	Info    catalog.DeleteInfo // for SHOW DELETE
}

// deleteAbortTimeout bounds telling the backends to drop an aborted
// delete's pending condition.
const deleteAbortTimeout = 5 * time.Second

// Delete runs a DELETE as Doris runs it, a load transaction writing no
// rows: every replica of every chosen tablet gets the condition as a
// pending rowset and makes it durable (Prepare), the FE commits (the
// commit point, giving each partition its next version) and every backend
// publishes. A crash before the commit aborts it everywhere, one after it
// is published by Recover: the delete applies to every tablet or none.
func (c *Coordinator) Delete(ctx context.Context, db string, job DeleteJob) (*LoadResult, error) {
	txn, t, per, parts, err := c.beginDelete(db, job)
	if err != nil {
		return nil, err
	}
	d := &deleter{c: c, txn: txn.ID, per: per, tablets: job.Tablets}
	defer func() {
		if r := recover(); r != nil {
			if !d.committed {
				d.abort(fmt.Errorf("unexpected panic: %v", r))
			}
			panic(r)
		}
	}()
	if err := d.run(ctx, t, parts, job.Cond); err != nil {
		if !d.committed {
			d.abort(err)
		}
		return nil, err
	}
	return &LoadResult{Txn: txn.ID, Label: txn.Label}, nil
}

// beginDelete begins the DELETE's transaction, then resolves its targets:
// the replicas are read after the transaction began, as a load's are
// (load.go), so a move waiting for open transactions covers them.
func (c *Coordinator) beginDelete(db string, job DeleteJob) (*catalog.Txn, *catalog.Table, map[catalog.BackendID][]storage.TabletID, []catalog.PartitionID, error) {
	txn, err := c.cat.BeginDelete(db, job.Table.ID, job.Info)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	t, per, parts, err := c.deleteTargets(db, job)
	if err != nil {
		_ = c.cat.AbortTxn(txn.ID, err.Error())
		return nil, nil, nil, nil, err
	}
	return txn, t, per, parts, nil
}

// deleteTargets resolves job's tablets to the table's current version, the
// backends holding their replicas and the partitions they belong to.
func (c *Coordinator) deleteTargets(db string, job DeleteJob) (*catalog.Table, map[catalog.BackendID][]storage.TabletID, []catalog.PartitionID, error) {
	t, ok := c.cat.TableByID(job.Table.ID)
	if !ok {
		return nil, nil, nil, sqlerr.NoSuchTable.New(db, job.Table.Name)
	}
	want := map[storage.TabletID]bool{}
	for _, id := range job.Tablets {
		want[id] = true
	}
	per := map[catalog.BackendID][]storage.TabletID{}
	var parts []catalog.PartitionID
	for _, p := range t.Partitions {
		in := false
		for _, tb := range p.Tablets {
			if !want[tb.ID] {
				continue
			}
			in = true
			delete(want, tb.ID)
			for _, r := range tb.Replicas {
				per[r.BackendID] = append(per[r.BackendID], tb.ID)
			}
		}
		if in {
			parts = append(parts, p.ID)
		}
	}
	if len(want) > 0 {
		// A partition was dropped or the table truncated since planning.
		return nil, nil, nil, sqlerr.Doris.New(fmt.Sprintf("table %s changed while the delete was planned; retry it", t.Name))
	}
	return t, per, parts, nil
}

type deleter struct {
	c         *Coordinator
	txn       storage.TxnID
	per       map[catalog.BackendID][]storage.TabletID
	committed bool
	// written: per tablet, the backends that made the condition durable
	// (the commit needs a majority of each tablet's replicas, quorum.go).
	written map[storage.TabletID][]catalog.BackendID
	failed  []error
	tablets []storage.TabletID // every tablet the condition applies to
}

func (d *deleter) run(ctx context.Context, t *catalog.Table, parts []catalog.PartitionID, cond storage.DeleteCond) error {
	if err := d.prepare(ctx, cond); err != nil {
		return err
	}
	// Commit and publish under the table's publish lock, so versions
	// become visible in the order they were assigned (as loads do).
	unlock, err := d.c.lockTable(ctx, t.ID)
	if err != nil {
		return err
	}
	defer unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	if _, err := d.c.cat.CommitTxns([]catalog.TxnCommit{{ID: d.txn, Partitions: parts, Written: d.written}}); err != nil {
		if len(d.failed) > 0 {
			return sqlerr.Doris.New(fmt.Sprintf("%v: %v", err, errors.Join(d.failed...)))
		}
		return err
	}
	d.committed = true
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), publishTimeout)
	defer cancel()
	if err := d.c.publish(pctx, d.txn); err != nil {
		return sqlerr.Doris.New(fmt.Sprintf("delete committed but not yet visible: %v", err))
	}
	return nil
}

// prepare writes the condition to every replica and has each backend make
// it durable, all backends at once.
func (d *deleter) prepare(ctx context.Context, cond storage.DeleteCond) error {
	type result struct {
		be  catalog.BackendID
		err error
	}
	errs := make(chan result, len(d.per))
	for be, tablets := range d.per {
		go func() {
			r := result{be: be}
			defer func() { errs <- r }() // after the recover: Delete waits for every backend
			defer d.c.recoverTo(&r.err, "preparing a delete", "txn", d.txn, "backend", be)
			r.err = d.prepareOn(ctx, be, tablets, cond)
		}()
	}
	d.written = map[storage.TabletID][]catalog.BackendID{}
	for _, tb := range d.tablets {
		d.written[tb] = nil
	}
	failed := map[catalog.BackendID]error{}
	for range d.per {
		r := <-errs
		if r.err != nil {
			// The commit decides: a majority of each tablet's replicas suffices.
			d.failed = append(d.failed, r.err)
			failed[r.be] = r.err
			continue
		}
		for _, tb := range d.per[r.be] {
			d.written[tb] = append(d.written[tb], r.be)
		}
	}
	if len(failed) == len(d.per) {
		if err := d.c.refusal(0, failed); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return nil
}

func (d *deleter) prepareOn(ctx context.Context, be catalog.BackendID, tablets []storage.TabletID, cond storage.DeleteCond) error {
	if b, ok := d.c.cat.Backend(be); !ok || !b.Alive {
		return sqlerr.Doris.New(fmt.Sprintf("backend %d is not alive: cannot write its replicas", be))
	}
	cl, err := d.c.Client(be)
	if err != nil {
		return err
	}
	slices.Sort(tablets)
	var resp rpc.PrepareResp // the backend prepares in the same call
	if err := cl.Do(ctx, rpc.ActWriteDelete, rpc.WriteDeleteReq{Txn: d.txn, Tablets: tablets, Cond: cond}, &resp); err != nil {
		return d.c.backendErr(be, err)
	}
	return nil
}

func (d *deleter) abort(cause error) {
	ctx, cancel := context.WithTimeout(context.Background(), deleteAbortTimeout)
	defer cancel()
	for be := range d.per {
		if cl, err := d.c.Client(be); err == nil {
			_ = cl.Do(ctx, rpc.ActAbort, rpc.TxnReq{Txn: d.txn}, nil)
		}
	}
	_ = d.c.cat.AbortTxn(d.txn, cause.Error())
}
