package coord

import (
	"context"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/planner/fragment"
)

// noteStart records a backend's process start time from its heartbeat. A
// start time that changed means the backend restarted between two
// heartbeats (so quickly it never looked dead): what it ran before is
// gone — its queries' and loads' calls broke with the old process, and the
// loads' unprepared rows went with it, so those loads count it as a failed
// replica (quorum.go) — and it may have missed a schema change, so it is
// brought up to date like a backend coming back. It reports whether the
// backend restarted.
func (c *Coordinator) noteStart(b *catalog.Backend, startMs int64) bool {
	if startMs <= 0 {
		return false
	}
	start := time.UnixMilli(startMs)
	c.mu.Lock()
	if c.starts == nil {
		c.starts = map[catalog.BackendID]time.Time{}
	}
	prev, known := c.starts[b.ID]
	c.starts[b.ID] = start
	c.mu.Unlock()
	c.cat.SetBackendStartTime(b.ID, start)
	if known && !prev.Equal(start) {
		c.log.Info("backend restarted", "backend", b.ID, "start_time", start)
		c.alter.mark(b.ID, true)
		return true
	}
	return false
}

// scheduleFresh schedules plan; when that fails while a backend is marked
// dead, it pings the backends once and tries again, so a backend that just
// came back (restarted since the last heartbeat) is used at once instead
// of failing the query on a liveness up to a heartbeat old.
func (c *Coordinator) scheduleFresh(plan *fragment.Plan) ([]*fragSched, error) {
	fs, err := c.schedule(plan)
	if err == nil {
		return fs, nil
	}
	dead := false
	for _, b := range c.cat.Backends() {
		dead = dead || !b.Alive
	}
	if !dead {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(c.base, 2*heartbeatTimeout)
	c.Heartbeat(ctx)
	cancel()
	return c.schedule(plan)
}

// startOf is backend be's process start time as its heartbeats report it
// (zero before the first).
func (c *Coordinator) startOf(be catalog.BackendID) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.starts[be]
}
