package coord

import (
	"maps"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/storage"
)

// The tablet scheduler, Doris's TabletChecker and TabletScheduler in one
// goroutine on the FE: every round it checks each tablet's replicas and
// repairs, by clone (clone.go), a replica that is lagging (its backend
// came back after missing loads), missing (its backend dead longer than
// tablet_repair_delay_factor_second, dropped, or decommissioned) or short
// of replication_num. Clones are rate limited — at most
// maxClonesPerBackend in flight per backend, as source or destination —
// so queries and loads keep running.

// schedInterval is how often the scheduler checks the tablets.
const schedInterval = 300 * time.Millisecond

// maxClonesPerBackend bounds the clones a backend takes part in at once.
const maxClonesPerBackend = 2

// DefaultRepairDelay is Doris's tablet_repair_delay_factor_second (60).
const DefaultRepairDelay = 60 * time.Second

// TabletStatus is Doris's tablet health classes (TabletHealth.TabletStatus).
type TabletStatus string

const (
	TabletHealthy         TabletStatus = "HEALTHY"
	TabletReplicaMissing  TabletStatus = "REPLICA_MISSING"
	TabletVersionMissing  TabletStatus = "VERSION_INCOMPLETE"
	TabletReplicaRelocate TabletStatus = "REPLICA_RELOCATING"
	TabletRedundant       TabletStatus = "REDUNDANT"
	TabletUnrecoverable   TabletStatus = "UNRECOVERABLE"
)

type tabletSched struct {
	c     *Coordinator
	delay atomic.Int64 // tablet_repair_delay_factor_second, as a duration

	mu        sync.Mutex
	deadSince map[catalog.BackendID]time.Time
	// emptySince: when a decommissioned backend's last replica moved.
	emptySince map[catalog.BackendID]time.Time
	busy       map[catalog.BackendID]int    // clones in flight per backend
	running    map[storage.TabletID]bool    // tablets being cloned
	priority   map[catalog.TableID]bool     // ADMIN REPAIR TABLE
	stats      struct{ done, failed int64 } // cumulative, for SHOW PROC
	lastErr    map[storage.TabletID]string
	// counts: replicas per backend this round (only the run goroutine).
	counts map[catalog.BackendID]int
	// inconsistent: tablets whose replicas' checksums differed (CheckTablets).
	inconsistent map[storage.TabletID]bool
	// balance.go: disable_balance, the balance moves in flight, and the
	// repairs the last round found but could not start yet.
	noBalance atomic.Bool
	threshold atomic.Uint64 // balance_load_score_threshold, float64 bits
	balancing map[storage.TabletID]repairJob
	pending   int
}

func newTabletSched(c *Coordinator) *tabletSched {
	s := &tabletSched{c: c, deadSince: map[catalog.BackendID]time.Time{}, emptySince: map[catalog.BackendID]time.Time{}, busy: map[catalog.BackendID]int{},
		running: map[storage.TabletID]bool{}, priority: map[catalog.TableID]bool{}, lastErr: map[storage.TabletID]string{},
		inconsistent: map[storage.TabletID]bool{}, balancing: map[storage.TabletID]repairJob{}}
	s.delay.Store(int64(DefaultRepairDelay))
	s.threshold.Store(math.Float64bits(DefaultBalanceThreshold))
	return s
}

// SetRepairDelay sets tablet_repair_delay_factor_second.
func (c *Coordinator) SetRepairDelay(d time.Duration) { c.sched.delay.Store(int64(d)) }

// RepairDelay is tablet_repair_delay_factor_second.
func (c *Coordinator) RepairDelay() time.Duration { return time.Duration(c.sched.delay.Load()) }

// RepairTable gives the table's tablets priority (ADMIN REPAIR TABLE);
// cancel removes it (ADMIN CANCEL REPAIR TABLE).
func (c *Coordinator) RepairTable(id catalog.TableID, cancel bool) {
	c.sched.mu.Lock()
	defer c.sched.mu.Unlock()
	if cancel {
		delete(c.sched.priority, id)
	} else {
		c.sched.priority[id] = true
	}
}

func (s *tabletSched) run() {
	t := time.NewTicker(schedInterval)
	defer t.Stop()
	for {
		select {
		case <-s.c.stop:
			return
		case <-t.C:
			s.round()
		}
	}
}

// repairJob is one clone the scheduler decided.
type repairJob struct {
	table  catalog.TableID
	tablet storage.TabletID
	from   catalog.BackendID // a healthy replica's backend
	to     catalog.BackendID
	drop   catalog.BackendID // the replica the new one replaces (0: none)
}

// missing reports whether a replica on be counts as gone for good: its
// backend dropped, decommissioned, or dead longer than the repair delay.
func (s *tabletSched) missing(be catalog.BackendID, now time.Time) bool {
	b, ok := s.c.cat.Backend(be)
	if !ok || b.Decommissioned {
		return true
	}
	if b.Alive {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return now.Sub(s.deadSince[be]) >= time.Duration(s.delay.Load())
}

func (s *tabletSched) round() {
	now := time.Now()
	s.counts = nil
	bes := s.c.cat.Backends()
	s.mu.Lock()
	for _, b := range bes {
		if b.Alive {
			delete(s.deadSince, b.ID)
		} else if _, ok := s.deadSince[b.ID]; !ok {
			s.deadSince[b.ID] = now
		}
	}
	prio := maps.Clone(s.priority)
	s.mu.Unlock()
	var jobs, later []repairJob
	for _, t := range s.tables() {
		for _, p := range t.Partitions {
			if p.NextVersion != p.VisibleVersion+1 {
				continue // a committed load still publishing: its replicas settle first
			}
			for _, tb := range p.Tablets {
				j, ok := s.plan(t, tb, bes, now)
				if !ok {
					continue
				}
				if prio[t.ID] {
					jobs = append(jobs, j)
				} else {
					later = append(later, j)
				}
			}
		}
	}
	pending, waiting := 0, 0
	for _, j := range append(jobs, later...) {
		s.mu.Lock()
		running := s.running[j.tablet]
		s.mu.Unlock()
		if running {
			continue // e.g. a balance move's new replica, still lagging
		}
		waiting++
		if !s.start(j) {
			pending++
		}
	}
	s.mu.Lock()
	s.pending = pending
	s.mu.Unlock()
	if waiting == 0 {
		s.balance(bes) // repairs first: balance only when none is wanted
	}
	s.finishDecommission(bes)
}

func (s *tabletSched) tables() []*catalog.Table {
	var out []*catalog.Table
	for _, d := range s.c.cat.Databases() {
		ts, err := s.c.cat.Tables(d.Name)
		if err != nil {
			continue
		}
		out = append(out, ts...)
	}
	return out
}

// Classify is a tablet's health as the scheduler sees it now.
func (c *Coordinator) Classify(t *catalog.Table, tb *catalog.Tablet) TabletStatus {
	return c.sched.classify(t, tb, time.Now())
}

func (s *tabletSched) classify(t *catalog.Table, tb *catalog.Tablet, now time.Time) TabletStatus {
	healthy, lagging, gone := 0, 0, 0
	for _, r := range tb.Replicas {
		switch {
		case s.missing(r.BackendID, now):
			gone++
		case !r.Healthy():
			lagging++
		default:
			healthy++
		}
	}
	want := replicationOf(t, tb)
	switch {
	case healthy == 0 && lagging == 0:
		return TabletUnrecoverable
	case healthy+lagging < want:
		return TabletReplicaMissing
	case gone > 0:
		return TabletReplicaRelocate
	case lagging > 0:
		return TabletVersionMissing
	case healthy > want:
		return TabletRedundant
	}
	return TabletHealthy
}

// plan picks the repair tablet tb needs, if any: catch a lagging replica
// up; replace a missing one (a new replica on another backend, the
// missing one dropped when it is complete); add one when short of
// replication_num; drop a redundant one.
func (s *tabletSched) plan(t *catalog.Table, tb *catalog.Tablet, bes []*catalog.Backend, now time.Time) (repairJob, bool) {
	var sources, holders, lagging, gone []catalog.BackendID
	healthy := 0
	for _, r := range tb.Replicas {
		holders = append(holders, r.BackendID)
		b, ok := s.c.cat.Backend(r.BackendID)
		alive := ok && b.Alive
		if r.Healthy() {
			healthy++
		}
		switch {
		case r.Healthy() && alive:
			sources = append(sources, r.BackendID)
			if b.Decommissioned {
				gone = append(gone, r.BackendID)
			}
		case s.missing(r.BackendID, now):
			gone = append(gone, r.BackendID)
		case !r.Healthy() && alive:
			lagging = append(lagging, r.BackendID)
		}
	}
	if len(sources) == 0 {
		return repairJob{}, false // nothing healthy to copy from: unrecoverable until a backend returns
	}
	want := replicationOf(t, tb)
	keep := len(tb.Replicas) - len(gone)
	j := repairJob{table: t.ID, tablet: tb.ID}
	switch {
	case len(lagging) > 0:
		j.to = lagging[0] // catch-up: the returned backend copies what it missed
	case len(gone) > 0 && keep >= want:
		j.drop = gone[0] // replaced already: only drop it
		return j, true
	case len(gone) > 0 || len(tb.Replicas) < want:
		if len(gone) > 0 {
			j.drop = gone[0]
		}
		if j.to = s.destination(t, tb, holders, bes); j.to == 0 {
			return repairJob{}, false
		}
	case s.misplaced(t, tb, &j):
		// A colocate tablet off its bucket's backends (the bucket moved):
		// follow the sequence.
	case healthy > want:
		// Redundant: drop the replica on the backend holding most.
		counts := s.roundCounts()
		for _, be := range holders {
			if j.drop == 0 || counts[be] > counts[j.drop] {
				j.drop = be
			}
		}
		return j, true
	default:
		return repairJob{}, false
	}
	// Prefer a source that is not leaving and not busy.
	slices.SortStableFunc(sources, func(a, b catalog.BackendID) int { return s.load(a) - s.load(b) })
	j.from = sources[0]
	if j.from == j.to {
		return repairJob{}, false
	}
	return j, true
}

// load is a backend's clones in flight, plus a penalty when it is leaving.
func (s *tabletSched) load(be catalog.BackendID) int {
	s.mu.Lock()
	n := s.busy[be]
	s.mu.Unlock()
	if b, ok := s.c.cat.Backend(be); ok && b.Decommissioned {
		n += maxClonesPerBackend
	}
	return n
}

// destination picks where a new replica of tb goes: an alive backend not
// decommissioned and not holding the tablet, the one with fewest tablets
// (then fewest clones in flight). A colocate table keeps the backend its
// group's bucket sequence names, when that one can take it.
func (s *tabletSched) destination(t *catalog.Table, tb *catalog.Tablet, holders []catalog.BackendID, bes []*catalog.Backend) catalog.BackendID {
	counts := s.roundCounts()
	var best catalog.BackendID
	bestN := 0
	for _, b := range bes {
		if !b.Alive || b.Decommissioned || slices.Contains(holders, b.ID) {
			continue
		}
		n := counts[b.ID]*8 + s.load(b.ID)
		if best == 0 || n < bestN {
			best, bestN = b.ID, n
		}
	}
	if g, ok := s.c.cat.GroupOfTable(t); ok && tb.Bucket < len(g.BucketSeq) {
		for _, be := range g.BucketSeq[tb.Bucket] {
			if b, ok := s.c.cat.Backend(be); ok && b.Alive && !b.Decommissioned && !slices.Contains(holders, be) {
				return be
			}
		}
	}
	return best
}

// roundCounts is the replicas per backend, counted once per round (the
// round's own moves shift it a little; the next round sees them).
func (s *tabletSched) roundCounts() map[catalog.BackendID]int {
	if s.counts == nil {
		s.counts = s.c.replicaCounts()
	}
	return s.counts
}

// replicaCounts counts the catalog's replicas per backend.
func (c *Coordinator) replicaCounts() map[catalog.BackendID]int {
	out := map[catalog.BackendID]int{}
	for _, d := range c.cat.Databases() {
		ts, err := c.cat.Tables(d.Name)
		if err != nil {
			continue
		}
		for _, t := range ts {
			for _, p := range t.Partitions {
				for _, tb := range p.Tablets {
					for _, r := range tb.Replicas {
						out[r.BackendID]++
					}
				}
			}
		}
	}
	return out
}

// start runs j unless its tablet is already being cloned or a backend of
// it is at its limit; it reports whether j started (or already runs).
func (s *tabletSched) start(j repairJob) bool {
	s.mu.Lock()
	if s.running[j.tablet] {
		s.mu.Unlock()
		return true
	}
	if s.busy[j.from] >= maxClonesPerBackend || s.busy[j.to] >= maxClonesPerBackend {
		s.mu.Unlock()
		return false
	}
	s.running[j.tablet] = true
	s.busy[j.from]++
	s.busy[j.to]++
	s.mu.Unlock()
	ok := s.c.goTracked(func() {
		var err error
		if j.to == 0 {
			err = s.c.dropReplica(s.c.base, j)
		} else {
			err = s.c.clone(s.c.base, j)
		}
		s.mu.Lock()
		delete(s.running, j.tablet)
		delete(s.balancing, j.tablet)
		s.busy[j.from]--
		s.busy[j.to]--
		if err != nil {
			s.stats.failed++
			s.lastErr[j.tablet] = err.Error()
		} else {
			s.stats.done++
			delete(s.lastErr, j.tablet)
		}
		s.mu.Unlock()
		if err != nil {
			s.c.log.Debug("clone", "tablet", j.tablet, "from", j.from, "to", j.to, "err", err)
		}
	})
	if !ok {
		s.mu.Lock()
		delete(s.running, j.tablet)
		s.busy[j.from]--
		s.busy[j.to]--
		s.mu.Unlock()
		return false
	}
	return true
}

// finishDecommission drops each decommissioned backend no replica is
// left on (Doris drops it once its tablets moved).
func (s *tabletSched) finishDecommission(bes []*catalog.Backend) {
	var leaving []*catalog.Backend
	for _, b := range bes {
		if b.Decommissioned {
			leaving = append(leaving, b)
		}
	}
	if len(leaving) == 0 {
		return
	}
	counts := s.c.replicaCounts()
	now := time.Now()
	for _, b := range leaving {
		s.mu.Lock()
		since, ok := s.emptySince[b.ID]
		if counts[b.ID] > 0 {
			delete(s.emptySince, b.ID)
		} else if !ok {
			s.emptySince[b.ID] = now
		}
		s.mu.Unlock()
		// Queries scheduled before its last replica moved may still read
		// it: it leaves once they had dropGrace to finish.
		if counts[b.ID] > 0 || !ok || now.Sub(since) < s.c.dropGrace() {
			continue
		}
		s.c.ForgetBackend(b.ID)
		if err := s.c.cat.DropBackend(b.Host, b.Port); err != nil {
			s.c.log.Warn("drop decommissioned backend", "backend", b.ID, "err", err)
		}
	}
}

// SchedStats is the scheduler's cumulative counters and clones in flight.
type SchedStats struct {
	Done, Failed int64
	Running      int
}

// SchedulerStats reports the tablet scheduler's counters.
func (c *Coordinator) SchedulerStats() SchedStats {
	c.sched.mu.Lock()
	defer c.sched.mu.Unlock()
	return SchedStats{Done: c.sched.stats.done, Failed: c.sched.stats.failed, Running: len(c.sched.running)}
}

// CloneError is the last failed clone's error of a tablet ("" if none).
func (c *Coordinator) CloneError(id storage.TabletID) string {
	c.sched.mu.Lock()
	defer c.sched.mu.Unlock()
	return c.sched.lastErr[id]
}
