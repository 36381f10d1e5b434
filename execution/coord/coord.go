// Package coord is the FE's coordinator: it reaches the backends over rpc,
// keeps their liveness in the catalog (heartbeats), creates and drops their
// tablets, runs load transactions Doris-style (write every replica, prepare,
// commit in the FE's catalog once a majority of each tablet's replicas has
// the rows, publish), repairs replicas (tabletsched.go, clone.go) and runs distributed
// plans (planner/fragment): schedule.go places every fragment's instances
// (scan fragments where their chosen replicas live, bucket-aligned for
// hash-partitioned storage fragments; exchange-fed fragments on every alive
// backend; unpartitioned ones once), query.go starts them on their
// backends receivers-first, runs fragment 0 here over exchanges that pull
// from the senders' outboxes, and turns any instance's failure, a dead
// backend or a KILL into cancelling every instance of the query.
package coord

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// HeartbeatInterval is how often the FE pings every backend. A backend that
// refuses or breaks the call is marked dead at once; one that does not
// answer in time is asked once more and marked dead only if that times
// out too (about 2 s), so a starved but live process (two loaded cores)
// does not fail the queries it takes part in; while this process itself
// runs late (lag.go), timeouts are forgiven for up to starvedGrace.
const HeartbeatInterval = time.Second

// heartbeatTimeout bounds one ping.
const heartbeatTimeout = HeartbeatInterval

// Coordinator is the FE's handle on the backends.
type Coordinator struct {
	cat *catalog.Catalog
	log *slog.Logger
	// ExchangeBudget bounds the unread bytes of every exchange receiver
	// (and outbox) of the queries this coordinator runs; 0 means
	// exchange.DefaultExchangeBudget. Set it before running queries.
	ExchangeBudget int64
	// BatchRows is the rows per batch scans produce; ≤ 0: the storage
	// default (16K). Set it before running queries.
	BatchRows int
	// ClusterToken is presented on every call to a backend (rpc.TokenGuard);
	// set it before Start.
	ClusterToken string

	mu      sync.Mutex
	clients map[catalog.BackendID]*rpc.Client
	// pings are the heartbeat's own connections, so a ping does not queue
	// behind multi-megabyte plans and batches on the query connection.
	pings map[catalog.BackendID]*rpc.Client
	// lag tells whether this process itself ran late while a ping went
	// unanswered: then the timeout says nothing about the backend.
	lag lagMeter
	// publishLocks serialize the commit and publication of loads per table
	// so partition versions become visible in commit order; the rows are
	// written before, concurrently.
	publishLocks map[catalog.TableID]chan struct{}
	// loads are the running table sink loads by transaction (storage.TxnID
	// → *runningLoad; loadprogress.go).
	loads sync.Map
	// alter: backends that missed a schema change (alter.go).
	alter alterState
	// sched is the tablet scheduler repairing replicas (tabletsched.go).
	sched *tabletSched
	// starts are the backends' process start times seen (restart.go; under mu).
	starts map[catalog.BackendID]time.Time
	// report: the tablet reports dropping stale tablets (report.go; under mu).
	report reportState
	// rejoin: the backends coming back after they were lost (rejoin.go; under mu).
	rejoin rejoinState
	// staleRetries counts the re-plans of stale queries (retry.go).
	staleRetries atomic.Int64

	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	// bg counts the goroutines of queries (exchange pulls, instance
	// waits, cancellations) still talking to backends; Close waits for
	// them before closing the connections they use. closing (under bgMu)
	// refuses new ones once Close began, and base, cancelled by Close,
	// parents every query's context so that running ones stop.
	bg         sync.WaitGroup
	bgMu       sync.Mutex
	closing    bool
	base       context.Context
	cancelBase context.CancelFunc
	started    bool
	// master: this frontend runs the master's duties (Start, Promote).
	master atomic.Bool
}

// goTracked runs f in a goroutine Close waits for; once Close began it
// runs nothing and returns false.
func (c *Coordinator) goTracked(f func()) bool {
	c.bgMu.Lock()
	if c.closing {
		c.bgMu.Unlock()
		return false
	}
	c.bg.Add(1)
	c.bgMu.Unlock()
	go func() {
		defer c.bg.Done()
		f()
	}()
	return true
}

// New returns a coordinator over cat; call Start to begin heartbeats.
func New(cat *catalog.Catalog, log *slog.Logger) *Coordinator {
	if log == nil {
		log = slog.Default()
	}
	base, cancel := context.WithCancel(context.Background())
	c := &Coordinator{cat: cat, log: log, clients: map[catalog.BackendID]*rpc.Client{}, pings: map[catalog.BackendID]*rpc.Client{},
		publishLocks: map[catalog.TableID]chan struct{}{}, stop: make(chan struct{}), done: make(chan struct{}),
		base: base, cancelBase: cancel}
	c.sched = newTabletSched(c)
	return c
}

// Start runs one heartbeat round synchronously (so a fresh FE knows which
// backends are alive before serving), recovers unfinished transactions, and
// then heartbeats in the background.
func (c *Coordinator) Start(ctx context.Context) error {
	c.master.Store(true)
	c.Heartbeat(ctx)
	if err := c.Recover(ctx); err != nil {
		return err
	}
	c.started = true
	go c.loop()
	c.goTracked(c.sched.run)
	return nil
}

// StartFollower starts a coordinator on a frontend that is not the master:
// it heartbeats the backends (so its queries route to live ones) but
// leaves transactions, tablet reports, schema catch-up and repairs to the
// master. Promote makes it the master's.
func (c *Coordinator) StartFollower(ctx context.Context) {
	c.Heartbeat(ctx)
	c.started = true
	go c.loop()
}

// Promote takes over the master's duties on a frontend that became master:
// it finishes what the previous master left (Recover) and starts the
// tablet scheduler.
func (c *Coordinator) Promote(ctx context.Context) error {
	if c.master.Swap(true) {
		return nil
	}
	if err := c.Recover(ctx); err != nil {
		return err
	}
	c.goTracked(c.sched.run)
	return nil
}

// Close stops heartbeats and closes backend connections.
func (c *Coordinator) Close() {
	c.closeOnce.Do(func() { close(c.stop) })
	if c.started {
		<-c.done
	}
	c.bgMu.Lock()
	c.closing = true
	c.bgMu.Unlock()
	c.cancelBase()
	c.bg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cl := range c.clients {
		cl.Close()
	}
	for _, cl := range c.pings {
		cl.Close()
	}
}

func (c *Coordinator) loop() {
	defer close(c.done)
	lagDone := make(chan struct{})
	go func() {
		defer close(lagDone)
		c.lag.run(c.stop)
	}()
	defer func() { <-lagDone }()
	t := time.NewTicker(HeartbeatInterval)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), starvedGrace+2*heartbeatTimeout+time.Second)
			c.Heartbeat(ctx)
			cancel()
			if c.master.Load() {
				c.republish()
				c.abortStalePrecommitted()
			}
		}
	}
}

// Heartbeat pings every backend once, in parallel, and records the result.
func (c *Coordinator) Heartbeat(ctx context.Context) {
	var wg sync.WaitGroup
	for _, b := range c.cat.Backends() {
		wg.Add(1)
		go func(b *catalog.Backend) {
			defer wg.Done()
			cl, err := c.pingClient(b.ID)
			// A ping that only timed out is retried: once at once (a
			// starved but live backend gets a second chance), then for up
			// to starvedGrace while this process itself runs late, when a
			// timeout says nothing about the backend. A hung backend next
			// to a responsive FE is dead after two timeouts in a row.
			first := time.Now()
			var resp rpc.HeartbeatResp
			for try := 0; err == nil; try++ {
				start := time.Now()
				hctx, cancel := context.WithTimeout(ctx, heartbeatTimeout)
				resp = rpc.HeartbeatResp{}
				err = cl.Do(hctx, rpc.ActHeartbeat, struct{}{}, &resp)
				// A timeout may reach us as the backend's deadline error a
				// moment before our own context reports it.
				slow := err != nil && ctx.Err() == nil && (hctx.Err() != nil || time.Since(start) >= heartbeatTimeout*9/10)
				cancel()
				if !slow {
					break
				}
				if try == 0 || (c.lag.lateSince(start) && time.Since(first) < starvedGrace) {
					err = nil
				}
			}
			if err != nil {
				c.missedBeat(b.ID)
				c.cat.SetBackendState(b.ID, false, err.Error(), b.LastHeartbeat)
				return
			}
			if !c.mayRejoin(b, time.Now()) {
				c.cat.SetBackendState(b.ID, false, fmt.Sprintf("answering again: rejoins after %v of heartbeats", rejoinDelay), time.Now())
				return
			}
			c.cat.SetBackendState(b.ID, true, "", time.Now())
			c.cat.SetBackendDisk(b.ID, resp.DataUsed, resp.DiskTotal, resp.DiskAvail)
			restarted := c.noteStart(b, resp.StartTime)
			if !c.master.Load() {
				return // reports and schema catch-up are the master's
			}
			c.maybeReport(b.ID, !b.Alive || restarted)
			if !b.Alive || c.alter.isDirty(b.ID) {
				c.syncSchemas(ctx, b.ID) // it may have missed an ALTER TABLE
			}
		}(b)
	}
	wg.Wait()
}

// Client returns the rpc client of a backend.
func (c *Coordinator) Client(id catalog.BackendID) (*rpc.Client, error) {
	return c.dial(c.clients, id)
}

// pingClient is the heartbeat's connection to a backend.
func (c *Coordinator) pingClient(id catalog.BackendID) (*rpc.Client, error) {
	return c.dial(c.pings, id)
}

// dial returns pool's connection to backend id, opening it the first time.
func (c *Coordinator) dial(pool map[catalog.BackendID]*rpc.Client, id catalog.BackendID) (*rpc.Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl, ok := pool[id]; ok {
		return cl, nil
	}
	b, ok := c.cat.Backend(id)
	if !ok {
		return nil, sqlerr.Doris.New(fmt.Sprintf("backend %d does not exist", id))
	}
	cl, err := rpc.Dial(fmt.Sprintf("%s:%d", b.Host, b.Port), c.ClusterToken)
	if err != nil {
		return nil, err
	}
	pool[id] = cl
	return cl, nil
}

// ForgetBackend closes the connections of a dropped backend.
func (c *Coordinator) ForgetBackend(id catalog.BackendID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl, ok := c.clients[id]; ok {
		cl.Close()
		delete(c.clients, id)
	}
	if cl, ok := c.pings[id]; ok {
		cl.Close()
		delete(c.pings, id)
	}
}

// backendErr names the backend in an rpc failure, as users need to know which node failed.
func (c *Coordinator) backendErr(id catalog.BackendID, err error) error {
	if err == nil {
		return nil
	}
	addr := ""
	if b, ok := c.cat.Backend(id); ok {
		addr = fmt.Sprintf("%s:%d", b.Host, b.Port)
	}
	if se, ok := err.(*sqlerr.Error); ok {
		if rpc.IsPeerFailure(err) {
			// Its exchange to another backend failed: name both ends.
			return sqlerr.Doris.New(fmt.Sprintf("backend %d (%s): %s", id, addr, rpc.PeerMessage(se.Message)))
		}
		return err
	}
	return sqlerr.Doris.New(fmt.Sprintf("backend %d (%s): %s", id, addr, rpc.Cause(err)))
}
