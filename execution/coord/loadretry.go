package coord

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/rpc"
)

// An INSERT … SELECT / VALUES runs its table sink fragment on backends.
// Killed under it, a backend takes its instances along, and until the
// next heartbeat (up to HeartbeatInterval) the FE still places new ones
// there: each such load failed with "backend N: unreachable" although the
// replicas' majority was fine — a third to a half of the INSERTs of a
// busy cluster in that second, where Doris commits on the majority. So a
// load plan that failed before its commit point because a backend it ran
// on is gone (confirmed by a ping of its own, as the heartbeat would, so
// the next statements avoid it at once — Doris's scheduler blacklist) is
// aborted as before and run again under a new transaction, placed on the
// backends alive now; nothing of the failed attempt was committed, so
// nothing is written twice. At most maxLostRetries times.

const maxLostRetries = 2

// lostBackend marks a load attempt that failed because a backend it ran
// instances on is gone; the message is the failure's.
type lostBackend struct {
	be  catalog.BackendID
	err error
}

func (e *lostBackend) Error() string { return e.err.Error() }
func (e *lostBackend) Unwrap() error { return e.err }

// loadPlanRetrying runs attempt, and again on the backends alive now when
// it failed uncommitted with a lost backend.
func (c *Coordinator) loadPlanRetrying(ctx context.Context, sp *SinkPlan, attempt func(*SinkPlan) (*LoadResult, error)) (*LoadResult, error) {
	res, err := attempt(sp)
	for try := 0; try < maxLostRetries && err != nil && ctx.Err() == nil && sp.Target == nil; try++ {
		var lost *lostBackend
		if !errors.As(err, &lost) {
			break
		}
		c.log.Info("load lost a backend before its commit: running it again", "backend", lost.be, "attempt", try+2, "cause", err)
		again := *sp
		again.QueryID = NewQueryID() // the failed attempt's cancellation must not reach this one
		res, err = attempt(&again)
	}
	return res, unwrapLost(err)
}

// unwrapLost is err without the lostBackend mark.
func unwrapLost(err error) error {
	var lost *lostBackend
	if errors.As(err, &lost) {
		return lost.err
	}
	return err
}

// lostOf wraps err when one of the backends a sink query ran on is gone:
// already marked dead, or failing a ping now (then marked dead). A ping
// that only times out proves nothing (a starved backend): the heartbeat
// decides those.
func (c *Coordinator) lostOf(backends map[catalog.BackendID]bool, err error) error {
	var mu sync.Mutex
	var lost catalog.BackendID
	var wg sync.WaitGroup
	for be := range backends {
		b, ok := c.cat.Backend(be)
		if !ok {
			continue
		}
		if !b.Alive {
			lost = be
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if c.probe(b) {
				return
			}
			mu.Lock()
			lost = be
			mu.Unlock()
		}()
	}
	wg.Wait()
	if lost == 0 {
		return err
	}
	return &lostBackend{be: lost, err: err}
}

// probe pings backend b once; a ping refused or broken (not merely slow)
// marks it dead, as the heartbeat would. It reports whether b answered or
// may still be alive.
func (c *Coordinator) probe(b *catalog.Backend) bool {
	cl, err := c.pingClient(b.ID)
	if err == nil {
		ctx, cancel := context.WithTimeout(c.base, heartbeatTimeout)
		start := time.Now()
		var resp rpc.HeartbeatResp
		err = cl.Do(ctx, rpc.ActHeartbeat, struct{}{}, &resp)
		slow := err != nil && (ctx.Err() != nil || time.Since(start) >= heartbeatTimeout*9/10)
		cancel()
		if err == nil || slow {
			return true
		}
	}
	c.cat.SetBackendState(b.ID, false, err.Error(), b.LastHeartbeat)
	return false
}
