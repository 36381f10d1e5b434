package coord

import (
	"context"
	"errors"
	"sync"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/storage"
)

// alterState remembers the backends that missed a schema change (down or
// failing when ALTER TABLE sent it): the next successful heartbeat of one
// sends it every table's schema again.
type alterState struct {
	mu    sync.Mutex
	dirty map[catalog.BackendID]bool
}

func (a *alterState) mark(be catalog.BackendID, dirty bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.dirty == nil {
		a.dirty = map[catalog.BackendID]bool{}
	}
	if dirty {
		a.dirty[be] = true
	} else {
		delete(a.dirty, be)
	}
}

func (a *alterState) isDirty(be catalog.BackendID) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.dirty[be]
}

// tabletsByBackend lists t's tablets per backend holding a replica (all
// partitions, or only p when p is not nil).
func tabletsByBackend(t *catalog.Table, p *catalog.Partition) map[catalog.BackendID][]storage.TabletID {
	per := map[catalog.BackendID][]storage.TabletID{}
	for _, part := range t.Partitions {
		if p != nil && part != p {
			continue
		}
		for _, tb := range part.Tablets {
			for _, r := range tb.Replicas {
				per[r.BackendID] = append(per[r.BackendID], tb.ID)
			}
		}
	}
	return per
}

// AlterTablets sends t's (new) schema to every backend holding one of its
// tablets, after the catalog committed the change. A backend that cannot
// take it now is marked to get it at its next heartbeat; until then its
// replicas refuse scans planned at the new version (storage checks the
// schema version), so no query reads them under the wrong schema.
func (c *Coordinator) AlterTablets(ctx context.Context, t *catalog.Table) error {
	schema := t.Schema()
	var errs []error
	for be, ids := range tabletsByBackend(t, nil) {
		if err := c.alterOn(ctx, be, ids, schema); err != nil {
			c.alter.mark(be, true)
			c.log.Warn("alter tablets: backend will get the schema at its next heartbeat", "backend", be, "table", t.Name, "err", err)
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (c *Coordinator) alterOn(ctx context.Context, be catalog.BackendID, ids []storage.TabletID, schema *storage.TabletSchema) error {
	cl, err := c.Client(be)
	if err != nil {
		return err
	}
	if err := cl.Do(ctx, rpc.ActAlterTablet, rpc.CreateTabletReq{Tablets: ids, Schema: schema}, nil); err != nil {
		return c.backendErr(be, err)
	}
	return nil
}

// syncSchemas brings backend be to the catalog's schema of every table it
// holds tablets of (after a restart of either side, or a missed ALTER):
// backends ignore schemas that are not newer than theirs.
func (c *Coordinator) syncSchemas(ctx context.Context, be catalog.BackendID) {
	ok := true
	for _, d := range c.cat.Databases() {
		tables, err := c.cat.Tables(d.Name)
		if err != nil {
			continue
		}
		for _, t := range tables {
			if t.SchemaVersion == 0 {
				continue // never altered: the tablets were created with it
			}
			ids := tabletsByBackend(t, nil)[be]
			if len(ids) == 0 {
				continue
			}
			if err := c.alterOn(ctx, be, ids, t.Schema()); err != nil {
				c.log.Warn("sync tablet schemas", "backend", be, "table", t.Name, "err", err)
				ok = false
			}
		}
	}
	c.alter.mark(be, !ok)
}

// CreatePartitionTablets creates every replica of partition p of t (ADD
// PARTITION), with the table's current schema.
func (c *Coordinator) CreatePartitionTablets(ctx context.Context, t *catalog.Table, p *catalog.Partition) error {
	schema := t.Schema()
	for be, ids := range tabletsByBackend(t, p) {
		cl, err := c.Client(be)
		if err != nil {
			return err
		}
		if err := cl.Do(ctx, rpc.ActCreateTablet, rpc.CreateTabletReq{Tablets: ids, Schema: schema}, nil); err != nil {
			return c.backendErr(be, err)
		}
	}
	return nil
}

// DropPartitionTablets drops every replica of partition p (of t, as it was
// when p belonged to it); a backend that cannot be reached drops them at
// its next tablet report.
func (c *Coordinator) DropPartitionTablets(ctx context.Context, t *catalog.Table, p *catalog.Partition) {
	per := map[catalog.BackendID][]storage.TabletID{}
	for _, tb := range p.Tablets {
		for _, r := range tb.Replicas {
			per[r.BackendID] = append(per[r.BackendID], tb.ID)
		}
	}
	for be, ids := range per {
		cl, err := c.Client(be)
		if err != nil {
			c.rememberOrphans(be, ids)
			continue
		}
		if err := cl.Do(ctx, rpc.ActDropTablet, rpc.DropTabletReq{Tablets: ids}, nil); err != nil {
			c.rememberOrphans(be, ids) // its next tablet report drops them
			c.log.Warn("drop partition tablets", "backend", be, "err", err)
		}
	}
}
