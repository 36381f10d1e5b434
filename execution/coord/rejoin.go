package coord

import (
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/rpc"
)

// rejoinDelay is how long a backend that was alive, then lost, must answer
// heartbeats again before it takes queries. While it was unreachable
// (hung, paused, cut off) its peers kept pinging their connections to it,
// and a ping it could not answer closes such a connection up to
// rpc.KeepaliveTimeout after it came back: an exchange stream a query
// opened on one meanwhile broke ("unreachable (connection failed or
// closed)"). A fresh backend, never alive before, joins at once.
const rejoinDelay = rpc.KeepaliveTimeout + HeartbeatInterval/2

// rejoinState tracks the backends coming back (under Coordinator.mu).
type rejoinState struct {
	seenAlive map[catalog.BackendID]bool
	backSince map[catalog.BackendID]time.Time
}

// mayRejoin reports whether backend b, which answered a heartbeat now, is
// alive: at once if it was alive already or never was, else once it has
// answered for rejoinDelay in a row.
func (c *Coordinator) mayRejoin(b *catalog.Backend, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := &c.rejoin
	if r.seenAlive == nil {
		r.seenAlive, r.backSince = map[catalog.BackendID]bool{}, map[catalog.BackendID]time.Time{}
	}
	if b.Alive || !r.seenAlive[b.ID] {
		r.seenAlive[b.ID] = true
		delete(r.backSince, b.ID)
		return true
	}
	since, ok := r.backSince[b.ID]
	if !ok {
		r.backSince[b.ID] = now
		return false
	}
	if now.Sub(since) < rejoinDelay {
		return false
	}
	delete(r.backSince, b.ID)
	return true
}

// missedBeat restarts the count of a backend coming back.
func (c *Coordinator) missedBeat(id catalog.BackendID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.rejoin.backSince, id)
}
