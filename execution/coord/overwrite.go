package coord

import (
	"context"
	"fmt"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/storage"
)

// OverwriteJob is an INSERT OVERWRITE: the partitions it replaces and the
// new ones (catalog.ReserveOverwrite) its sink plan writes (sp.Target
// names their tablets).
type OverwriteJob struct {
	DB    string
	Table *catalog.Table
	Label string
	Old   []*catalog.Partition
	Fresh []*catalog.Partition
	Plan  *SinkPlan
}

// Overwrite runs an INSERT OVERWRITE as Doris does with temporary
// partitions: the new tablets are created, the query's table sink writes
// them under a load transaction, every replica publishes them, and one
// catalog write (CommitOverwrite, the commit point) makes the transaction
// visible and swaps the new partitions in; the old tablets are dropped
// afterwards. Before the commit point a failure (or kill -9) leaves the
// old data and orphan new tablets; after it the new data is the table's.
func (c *Coordinator) Overwrite(ctx context.Context, job OverwriteJob) (*LoadResult, error) {
	t := job.Table
	// The new tablets take the whole table header: its schema version,
	// merge-on-write and every other property that shapes a tablet.
	header := *t
	fresh := &header
	fresh.Partitions = job.Fresh
	if err := c.CreateTablets(ctx, fresh); err != nil {
		c.DropTablets(context.Background(), fresh)
		return nil, err
	}
	committed := false
	defer func() {
		if !committed {
			c.DropTablets(context.Background(), fresh)
		}
	}()
	txn, err := c.cat.BeginTxnWith(job.DB, job.Label, []catalog.TableID{t.ID}, loadInfo(ctx))
	if err != nil {
		return nil, err
	}
	l := &loader{c: c, t: t, txn: txn.ID, ctx: ctx, streams: map[catalog.BackendID]*rpc.Loader{}, touched: map[storage.TabletID]*catalog.Partition{}}
	defer c.untrackLoad(txn.ID) // a table sink's progress (loadprogress.go)
	defer func() {
		if r := recover(); r != nil {
			if !committed {
				l.abort(fmt.Errorf("unexpected panic: %v", r))
			}
			panic(r)
		}
	}()
	res, err := c.overwrite(l, job)
	if err != nil {
		if !l.committed {
			l.abort(err)
		}
		return nil, err
	}
	committed = true
	res.Label = txn.Label
	// The old tablets no catalog entry points at any more.
	old := &catalog.Table{ID: t.ID, Name: t.Name, Partitions: job.Old}
	c.DropTablets(context.WithoutCancel(ctx), old)
	return res, nil
}

func (c *Coordinator) overwrite(l *loader, job OverwriteJob) (*LoadResult, error) {
	if len(job.Old) != len(job.Fresh) {
		return nil, sqlerr.Assertf("coord: overwrite of %d partitions with %d", len(job.Old), len(job.Fresh))
	}
	pr, err := l.writePlan(job.Plan)
	if err != nil {
		return nil, err
	}
	if err := c.publishFresh(l, job.Fresh); err != nil {
		return nil, err
	}
	unlock, err := c.lockTable(l.ctx, job.Table.ID)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := l.ctx.Err(); err != nil {
		return nil, err
	}
	replace := map[catalog.PartitionID]*catalog.Partition{}
	for i, p := range job.Old {
		replace[p.ID] = job.Fresh[i]
	}
	// The commit point.
	if _, err := c.cat.CommitOverwrite(l.txn, job.Table.ID, job.Table.SchemaVersion, replace, pr.rows, pr.bytes); err != nil {
		return nil, err
	}
	l.committed = true
	return &LoadResult{Txn: l.txn, Rows: l.rows, Bytes: pr.total()}, nil
}

// publishFresh publishes a load's new tablets (an overwrite's, a schema
// change's shadow ones) at catalog.OverwriteVersion on every replica before
// the commit point, so they are readable the moment the swap makes them
// the table's; until then no query reads them.
func (c *Coordinator) publishFresh(l *loader, parts []*catalog.Partition) error {
	per := map[catalog.BackendID]map[storage.TabletID]storage.Version{}
	for _, p := range parts {
		for _, tb := range p.Tablets {
			for _, r := range tb.Replicas {
				if per[r.BackendID] == nil {
					per[r.BackendID] = map[storage.TabletID]storage.Version{}
				}
				per[r.BackendID][tb.ID] = catalog.OverwriteVersion
			}
		}
	}
	for be, vs := range per {
		cl, err := c.Client(be)
		if err != nil {
			return err
		}
		if err := cl.Do(l.ctx, rpc.ActPublish, rpc.PublishReq{Txn: l.txn, Versions: vs}, nil); err != nil {
			return c.backendErr(be, err)
		}
	}
	return nil
}
