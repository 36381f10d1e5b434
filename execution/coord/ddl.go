package coord

import (
	"context"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/storage"
)

// CreateTablets creates every replica of every tablet of t on its backend.
func (c *Coordinator) CreateTablets(ctx context.Context, t *catalog.Table) error {
	per := map[catalog.BackendID][]storage.TabletID{}
	for _, p := range t.Partitions {
		for _, tb := range p.Tablets {
			for _, r := range tb.Replicas {
				per[r.BackendID] = append(per[r.BackendID], tb.ID)
			}
		}
	}
	schema := t.Schema()
	for be, ids := range per {
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

// DropTablets drops every replica of t's tablets; a backend that cannot be
// reached drops them at its next tablet report (report.go).
func (c *Coordinator) DropTablets(ctx context.Context, t *catalog.Table) {
	per := map[catalog.BackendID][]storage.TabletID{}
	for _, p := range t.Partitions {
		for _, tb := range p.Tablets {
			for _, r := range tb.Replicas {
				per[r.BackendID] = append(per[r.BackendID], tb.ID)
			}
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
			c.log.Warn("drop tablets", "backend", be, "err", err)
		}
	}
}
