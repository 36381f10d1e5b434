package coord

import (
	"context"
	"maps"
	"slices"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/storage"
)

// CreateTablets creates every replica of every tablet of t on its backend,
// every backend at once (each makes its replicas durable with one fsync).
func (c *Coordinator) CreateTablets(ctx context.Context, t *catalog.Table) error {
	schema := t.Schema()
	errs := c.eachBackend(tabletsPerBackend(t), "creating tablets", func(be catalog.BackendID, cl *rpc.Client, ids []storage.TabletID) error {
		return cl.Do(ctx, rpc.ActCreateTablet, rpc.CreateTabletReq{Tablets: ids, Schema: schema}, nil)
	})
	for _, be := range slices.Sorted(maps.Keys(errs)) { // the same backend's error every time
		return c.backendErr(be, errs[be])
	}
	return nil
}

// DropTablets drops every replica of t's tablets, every backend at once; a
// backend that cannot be reached drops them at its next tablet report
// (report.go).
func (c *Coordinator) DropTablets(ctx context.Context, t *catalog.Table) {
	per := tabletsPerBackend(t)
	errs := c.eachBackend(per, "dropping tablets", func(be catalog.BackendID, cl *rpc.Client, ids []storage.TabletID) error {
		return cl.Do(ctx, rpc.ActDropTablet, rpc.DropTabletReq{Tablets: ids}, nil)
	})
	for be, err := range errs {
		c.rememberOrphans(be, per[be]) // its next tablet report drops them
		c.log.Warn("drop tablets", "backend", be, "err", err)
	}
}

// tabletsPerBackend lists t's tablets by the backends holding a replica.
func tabletsPerBackend(t *catalog.Table) map[catalog.BackendID][]storage.TabletID {
	per := map[catalog.BackendID][]storage.TabletID{}
	for _, p := range t.Partitions {
		for _, tb := range p.Tablets {
			for _, r := range tb.Replicas {
				per[r.BackendID] = append(per[r.BackendID], tb.ID)
			}
		}
	}
	return per
}

// eachBackend calls f for every backend of per at once, with its client
// and tablets, and returns the backends it failed on (what names the work
// in the log of a panic).
func (c *Coordinator) eachBackend(per map[catalog.BackendID][]storage.TabletID, what string,
	f func(be catalog.BackendID, cl *rpc.Client, ids []storage.TabletID) error) map[catalog.BackendID]error {
	type result struct {
		be  catalog.BackendID
		err error
	}
	out := make(chan result, len(per))
	for be, ids := range per {
		go func() {
			r := result{be: be}
			defer func() { out <- r }() // after the recover: every backend answers
			defer c.recoverTo(&r.err, what, "backend", be)
			cl, err := c.Client(be)
			if err == nil {
				err = f(be, cl, ids)
			}
			r.err = err
		}()
	}
	errs := map[catalog.BackendID]error{}
	for range per {
		if r := <-out; r.err != nil {
			errs[r.be] = r.err
		}
	}
	return errs
}
