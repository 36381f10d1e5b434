package coord

import (
	"context"
	"fmt"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/storage"
)

// cloneTimeout bounds one clone.
const cloneTimeout = 2 * time.Minute

// clone copies tablet j.tablet from j.from to j.to (Doris's clone task)
// under the table's publish lock, so no load's version becomes visible
// while it runs: the copy is the tablet at the visible version V, which
// every healthy replica has exactly. The destination streams the rows and
// verifies each batch's checksum; the FE then compares both replicas' row
// counts and checksums at V and only then registers the replica
// (catalog.FinishRepair), dropping the one it replaces. Loads wait at
// their commit meanwhile, not while they write.
func (c *Coordinator) clone(ctx context.Context, j repairJob) error {
	ctx, cancel := context.WithTimeout(ctx, cloneTimeout)
	defer cancel()
	if err := c.addCloneReplica(ctx, j); err != nil {
		return err
	}
	if err := c.waitOpenLoads(ctx, j); err != nil {
		return err
	}
	unlock, err := c.lockTable(ctx, j.table)
	if err != nil {
		return err
	}
	defer unlock()
	pl, ok := c.cat.FindTablet(j.tablet)
	if !ok {
		return sqlerr.Doris.New(fmt.Sprintf("tablet %d was dropped", j.tablet))
	}
	p := pl.Partition
	if p.NextVersion != p.VisibleVersion+1 {
		return sqlerr.Doris.New(fmt.Sprintf("tablet %d: a committed load is still publishing", j.tablet))
	}
	healthy := false
	for _, r := range pl.Tablet.Replicas {
		healthy = healthy || (r.BackendID == j.from && r.Healthy())
	}
	if !healthy || !c.isAlive(j.from) || !c.isAlive(j.to) {
		return sqlerr.Doris.New(fmt.Sprintf("tablet %d: source backend %d or destination %d changed", j.tablet, j.from, j.to))
	}
	v := p.VisibleVersion
	src, _ := c.cat.Backend(j.from)
	dst, err := c.Client(j.to)
	if err != nil {
		return err
	}
	var resp rpc.CloneResp
	req := rpc.CloneReq{Tablet: j.tablet, Version: v, Schema: pl.Table.Schema(), Source: addrOf(src)}
	if err := dst.Do(ctx, rpc.ActCloneTablet, req, &resp); err != nil {
		return c.backendErr(j.to, err)
	}
	want, err := c.checksum(ctx, j.from, j.tablet, v)
	if err != nil {
		return err
	}
	got, err := c.checksum(ctx, j.to, j.tablet, v)
	if err != nil {
		return err
	}
	if got != want {
		return sqlerr.Doris.New(fmt.Sprintf("clone of tablet %d to backend %d: %d rows with checksum %d, the source has %d rows with checksum %d",
			j.tablet, j.to, got.Rows, got.Checksum, want.Rows, want.Checksum))
	}
	if err := c.cat.FinishRepair(catalog.Repair{Tablet: j.tablet, To: j.to, Version: v, Drop: j.drop}); err != nil {
		return err
	}
	if j.drop != 0 {
		c.dropLater(j.drop, j.tablet)
	}
	return nil
}

// moveWait bounds how long a move waits for the loads that may not write
// its new replica; past it the move fails and the scheduler tries again.
const moveWait = 30 * time.Second

// waitOpenLoads waits, when j replaces a healthy replica (a balance or
// decommission move), for the load transactions on the table that began
// before the new replica was registered: they write the old replica but
// not the new one, and would lose their only copy, or their majority, if
// the old one were dropped before they commit (Doris waits the same way
// for the transactions before its watermark). A load that begins later
// writes both.
func (c *Coordinator) waitOpenLoads(ctx context.Context, j repairJob) error {
	if j.drop == 0 || !c.isAlive(j.drop) {
		return nil
	}
	pl, ok := c.cat.FindTablet(j.tablet)
	if !ok {
		return sqlerr.Doris.New(fmt.Sprintf("tablet %d was dropped", j.tablet))
	}
	healthy := false
	for _, r := range pl.Tablet.Replicas {
		healthy = healthy || (r.BackendID == j.drop && r.Healthy())
	}
	if !healthy {
		return nil
	}
	open := c.cat.OpenTxnsOn(j.table)
	deadline := time.Now().Add(moveWait)
	for len(open) > 0 {
		if t, ok := c.cat.Txn(open[0]); ok && (t.State == catalog.TxnPrepare || t.State == catalog.TxnPrecommitted) {
			if time.Now().After(deadline) {
				return sqlerr.Doris.New(fmt.Sprintf("tablet %d: move to backend %d waits for load transaction %d, still open after %v", j.tablet, j.to, t.ID, moveWait))
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-c.stop:
				return sqlerr.Doris.New("the frontend is stopping")
			case <-time.After(50 * time.Millisecond):
			}
			continue
		}
		open = open[1:]
	}
	return nil
}

// dropGrace is how long a removed replica's data stays on its backend, so
// queries scheduled on it before the removal still read it; a shorter
// tablet_repair_delay_factor_second shortens it too (tests).
const maxDropGrace = 10 * time.Second

func (c *Coordinator) dropGrace() time.Duration { return min(maxDropGrace, c.RepairDelay()) }

// dropLater drops tablet from backend be after dropGrace, unless the
// catalog gave be a replica of it again meanwhile.
func (c *Coordinator) dropLater(be catalog.BackendID, tablet storage.TabletID) {
	c.goTracked(func() {
		select {
		case <-c.stop:
			return
		case <-time.After(c.dropGrace()):
		}
		if pl, ok := c.cat.FindTablet(tablet); ok {
			for _, r := range pl.Tablet.Replicas {
				if r.BackendID == be {
					return
				}
			}
		}
		if !c.isAlive(be) {
			c.rememberOrphans(be, []storage.TabletID{tablet}) // its tablet report drops it when it returns
			return
		}
		cl, err := c.Client(be)
		if err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(c.base, abortTimeout)
		defer cancel()
		_ = cl.Do(ctx, rpc.ActDropTablet, rpc.DropTabletReq{Tablets: []storage.TabletID{tablet}}, nil)
	})
}

// checksum asks backend be for its replica's rows and checksum at v.
func (c *Coordinator) checksum(ctx context.Context, be catalog.BackendID, tablet storage.TabletID, v storage.Version) (rpc.ChecksumResp, error) {
	var out rpc.ChecksumResp
	cl, err := c.Client(be)
	if err != nil {
		return out, err
	}
	if err := cl.Do(ctx, rpc.ActTabletChecksum, rpc.ChecksumReq{Tablet: tablet, Version: v}, &out); err != nil {
		return out, c.backendErr(be, err)
	}
	return out, nil
}

// TabletChecksum is a replica's row count and checksum at version v
// (ADMIN CHECK TABLET; tests compare replicas with it).
func (c *Coordinator) TabletChecksum(ctx context.Context, be catalog.BackendID, tablet storage.TabletID, v storage.Version) (rows int64, sum uint64, err error) {
	r, err := c.checksum(ctx, be, tablet, v)
	return r.Rows, r.Checksum, err
}

// addCloneReplica creates the tablet on a new replica's backend and
// registers the replica, lagging, before the copy: loads that begin from
// then on write it too, so under a steady stream of loads the copy plus
// what they wrote leave it complete (catalog.AddCloneReplica).
func (c *Coordinator) addCloneReplica(ctx context.Context, j repairJob) error {
	pl, ok := c.cat.FindTablet(j.tablet)
	if !ok {
		return sqlerr.Doris.New(fmt.Sprintf("tablet %d was dropped", j.tablet))
	}
	for _, r := range pl.Tablet.Replicas {
		if r.BackendID == j.to {
			return nil
		}
	}
	cl, err := c.Client(j.to)
	if err != nil {
		return err
	}
	// An existing tablet (a copy left from before) is replaced by the clone.
	_ = cl.Do(ctx, rpc.ActCreateTablet, rpc.CreateTabletReq{Tablets: []storage.TabletID{j.tablet}, Schema: pl.Table.Schema()}, nil)
	return c.cat.AddCloneReplica(j.tablet, j.to)
}

// dropReplica removes a redundant or replaced replica (j.drop) from the
// catalog, then from its backend if that one is alive.
func (c *Coordinator) dropReplica(ctx context.Context, j repairJob) error {
	ctx, cancel := context.WithTimeout(ctx, cloneTimeout)
	defer cancel()
	unlock, err := c.lockTable(ctx, j.table)
	if err != nil {
		return err
	}
	defer unlock()
	if err := c.cat.DropReplica(j.tablet, j.drop); err != nil {
		return err
	}
	c.dropLater(j.drop, j.tablet)
	return nil
}

// CheckTablets compares the rows and checksum of every healthy replica of
// each tablet at its visible version (Doris's ADMIN CHECK TABLET …
// "consistency"), under the table's publish lock so no version moves
// meanwhile. It returns the tablets whose replicas differ; SHOW PROC
// '/cluster_health/tablet_health' counts them until a check finds them
// consistent.
func (c *Coordinator) CheckTablets(ctx context.Context, ids []storage.TabletID) ([]storage.TabletID, error) {
	var bad []storage.TabletID
	for _, id := range ids {
		pl, ok := c.cat.FindTablet(id)
		if !ok {
			return nil, sqlerr.Doris.New(fmt.Sprintf("tablet %d does not exist", id))
		}
		ok, err := c.checkTablet(ctx, pl.Table.ID, id)
		if err != nil {
			return nil, err
		}
		c.sched.mu.Lock()
		if ok {
			delete(c.sched.inconsistent, id)
		} else {
			c.sched.inconsistent[id] = true
			bad = append(bad, id)
		}
		c.sched.mu.Unlock()
	}
	return bad, nil
}

func (c *Coordinator) checkTablet(ctx context.Context, table catalog.TableID, id storage.TabletID) (bool, error) {
	unlock, err := c.lockTable(ctx, table)
	if err != nil {
		return false, err
	}
	defer unlock()
	pl, ok := c.cat.FindTablet(id)
	if !ok {
		return true, nil
	}
	var first *rpc.ChecksumResp
	for _, r := range pl.Tablet.Replicas {
		if !r.Healthy() || !c.isAlive(r.BackendID) {
			continue
		}
		got, err := c.checksum(ctx, r.BackendID, id, pl.Partition.VisibleVersion)
		if err != nil {
			return false, err
		}
		if first == nil {
			first = &got
		} else if got != *first {
			return false, nil
		}
	}
	return true, nil
}

// Inconsistent reports whether the last check found tablet id's replicas different.
func (c *Coordinator) Inconsistent(id storage.TabletID) bool {
	c.sched.mu.Lock()
	defer c.sched.mu.Unlock()
	return c.sched.inconsistent[id]
}
