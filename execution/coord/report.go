package coord

import (
	"context"
	"slices"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/storage"
)

// The tablet report (Doris's ReportHandler: a tablet a backend holds that
// the FE's catalog does not assign to it is dropped there). When a backend
// comes back — alive again after being dead, or restarted (restart.go) —
// and every reportInterval, the FE lists the tablets it holds and drops
// those the catalog gives it no replica of: replicas replaced while it was
// away (the scheduler removed them from the catalog and could not reach
// it), and tablets dropped while it was unreachable (DropTablets remembers
// them: orphans, in memory). A tablet the catalog does not know and nobody
// dropped is kept: INSERT OVERWRITE creates its new tablets on the
// backends before the catalog has them. The drop frees the disk
// (storage's reclaim), so DataUsedCapacity falls.

// reportInterval is Doris's report_tablet_interval_seconds (60).
const reportInterval = time.Minute

// reportState is the reports' bookkeeping (under Coordinator.mu).
type reportState struct {
	last      map[catalog.BackendID]time.Time
	running   map[catalog.BackendID]bool
	orphans   map[catalog.BackendID]map[storage.TabletID]bool
	reclaimed map[catalog.BackendID]int // tablets dropped by reports, for tests
}

// rememberOrphans records tablets dropped from the catalog that backend be
// still holds (it could not be told): its next report drops them.
func (c *Coordinator) rememberOrphans(be catalog.BackendID, ids []storage.TabletID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.report.orphans == nil {
		c.report.orphans = map[catalog.BackendID]map[storage.TabletID]bool{}
	}
	if c.report.orphans[be] == nil {
		c.report.orphans[be] = map[storage.TabletID]bool{}
	}
	for _, id := range ids {
		c.report.orphans[be][id] = true
	}
}

// maybeReport starts backend be's tablet report when it came back (now)
// or its last one is reportInterval old, unless one runs.
func (c *Coordinator) maybeReport(be catalog.BackendID, now bool) {
	c.mu.Lock()
	if c.report.last == nil {
		c.report.last, c.report.running = map[catalog.BackendID]time.Time{}, map[catalog.BackendID]bool{}
	}
	if c.report.running[be] || (!now && time.Since(c.report.last[be]) < reportInterval) {
		c.mu.Unlock()
		return
	}
	c.report.running[be] = true
	c.report.last[be] = time.Now()
	c.mu.Unlock()
	if !c.goTracked(func() {
		defer func() {
			c.mu.Lock()
			delete(c.report.running, be)
			c.mu.Unlock()
		}()
		if err := c.reportTablets(c.base, be); err != nil {
			c.log.Debug("tablet report", "backend", be, "err", err)
		}
	}) {
		c.mu.Lock()
		delete(c.report.running, be)
		c.mu.Unlock()
	}
}

// reportTablets lists backend be's tablets and drops the stale ones, after
// dropGrace (a query scheduled on a replica before the catalog removed it
// may still read it), each checked again then.
func (c *Coordinator) reportTablets(ctx context.Context, be catalog.BackendID) error {
	cl, err := c.Client(be)
	if err != nil {
		return err
	}
	rctx, cancel := context.WithTimeout(ctx, abortTimeout)
	var rep rpc.TabletReportResp
	err = cl.Do(rctx, rpc.ActTabletReport, struct{}{}, &rep)
	cancel()
	if err != nil {
		return c.backendErr(be, err)
	}
	stale := c.staleTablets(be, rep.Tablets)
	if len(stale) == 0 {
		return nil
	}
	select {
	case <-c.stop:
		return nil
	case <-time.After(c.dropGrace()):
	}
	stale = c.staleTablets(be, stale) // stale ⊆ held: no orphan it holds is forgotten
	if len(stale) == 0 || !c.isAlive(be) {
		return nil
	}
	dctx, cancel := context.WithTimeout(ctx, cloneTimeout)
	defer cancel()
	if err := cl.Do(dctx, rpc.ActDropTablet, rpc.DropTabletReq{Tablets: stale}, nil); err != nil {
		return c.backendErr(be, err)
	}
	// Replicas of it re-created elsewhere while it was away leave it
	// lighter than the others: balance evens that out (balance.go).
	c.log.Info("tablet report: dropped stale tablets", "backend", be, "tablets", len(stale))
	c.mu.Lock()
	for _, id := range stale {
		delete(c.report.orphans[be], id)
	}
	if c.report.reclaimed == nil {
		c.report.reclaimed = map[catalog.BackendID]int{}
	}
	c.report.reclaimed[be] += len(stale)
	c.mu.Unlock()
	return nil
}

// staleTablets is the tablets of held (on backend be) that be should not
// hold: the catalog knows the tablet and has no replica of it on be, or
// the tablet was dropped while be could not be told. A tablet a clone
// works on is never stale (its new replica is created before the catalog
// registers it). Orphans be no longer holds are forgotten.
func (c *Coordinator) staleTablets(be catalog.BackendID, held []storage.TabletID) []storage.TabletID {
	held = slices.Sorted(slices.Values(held))
	known := map[storage.TabletID]bool{} // tablet → has a replica on be
	for _, t := range c.sched.tables() {
		for _, p := range t.Partitions {
			for _, tb := range p.Tablets {
				known[tb.ID] = hasReplica(tb, be)
			}
		}
	}
	c.sched.mu.Lock()
	cloning := make(map[storage.TabletID]bool, len(c.sched.running))
	for id := range c.sched.running {
		cloning[id] = true
	}
	c.sched.mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	orphans := c.report.orphans[be]
	for id := range orphans {
		if _, found := slices.BinarySearch(held, id); !found {
			delete(orphans, id)
		}
	}
	var out []storage.TabletID
	for _, id := range held {
		on, ok := known[id]
		if cloning[id] || on || (!ok && !orphans[id]) {
			continue
		}
		out = append(out, id)
	}
	return out
}

// ReportDropped is how many stale tablets the tablet reports dropped from
// backend be so far.
func (c *Coordinator) ReportDropped(be catalog.BackendID) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.report.reclaimed[be]
}
