package coord

import (
	"slices"
	"sort"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/storage"
)

// Balance, in the tablet scheduler's round once no repair waits (repairs
// come first): Doris's BeLoadRebalancer moves replicas of ordinary
// tablets from the most loaded backend to the least loaded one until the
// replica counts differ by at most balanceTolerance; its
// ColocateTableCheckerAndBalancer evens each colocate group's bucket
// sequence, one bucket at a time: the bucket's backend is replaced in the
// sequence (catalog.MoveBucket), the group is unstable while plan's
// mismatch repair moves the members' tablets, and stable after. Only
// healthy replicas at the visible version move, never onto a backend
// that holds the tablet, at most maxBalanceMoves at once (and within the
// per-backend clone limit).
//
// Unlike Doris, which balances all the time, balance is armed when a
// backend joins a cluster holding replicas (ALTER SYSTEM ADD BACKEND) or
// when disable_balance is set to false, and disarms once balanced: a table's
// round-robin placement (every table starts at the first backend) is not
// churned in a cluster nobody grew.

const (
	balanceTolerance = 1
	maxBalanceMoves  = 2
)

// noteBackends records the backends there are when the scheduler starts:
// only those joining later arm the balancer.
func (s *tabletSched) noteBackends() {
	s.seen = map[catalog.BackendID]bool{}
	for _, b := range s.c.cat.Backends() {
		s.seen[b.ID] = true
	}
}

// SetBalanceDisabled is the disable_balance config; enabling it arms
// the balancer.
func (c *Coordinator) SetBalanceDisabled(off bool) {
	c.sched.noBalance.Store(off)
	if !off {
		c.sched.armed.Store(true)
	}
}

// BalanceDisabled reports disable_balance.
func (c *Coordinator) BalanceDisabled() bool { return c.sched.noBalance.Load() }

// balance starts the moves that even the cluster out, if any.
func (s *tabletSched) balance(bes []*catalog.Backend) {
	for _, b := range bes {
		if !s.seen[b.ID] {
			s.seen[b.ID] = true
			// A backend joining a cluster with data (not one being set up).
			if len(s.roundCounts()) > 0 {
				s.armed.Store(true)
			}
		}
	}
	if s.noBalance.Load() || !s.armed.Load() {
		return
	}
	var targets []catalog.BackendID
	for _, b := range bes {
		if !b.Alive || b.Decommissioned {
			return // a backend to repair or leaving: repairs first
		}
		targets = append(targets, b.ID)
	}
	if len(targets) < 2 {
		return
	}
	s.mu.Lock()
	inFlight := len(s.balancing)
	s.mu.Unlock()
	if inFlight == 0 && s.balanceGroups(targets) {
		return
	}
	if !s.balanceReplicas(targets) && inFlight == 0 {
		s.armed.Store(false) // balanced
	}
}

// balanceGroups moves one bucket of a colocate group whose sequence is
// uneven over targets; it reports whether it moved one. A group still
// unstable (a bucket moving) is left to finish first.
func (s *tabletSched) balanceGroups(targets []catalog.BackendID) bool {
	groups := s.c.cat.Groups()
	for _, g := range groups {
		if g.Unstable {
			return false
		}
	}
	total := s.roundCounts()
	for _, g := range groups {
		slots := map[catalog.BackendID]int{}
		for _, seq := range g.BucketSeq {
			for _, be := range seq {
				slots[be]++
			}
		}
		// Most slots first, ties broken by the most replicas overall.
		order := slices.Clone(targets)
		sort.SliceStable(order, func(i, j int) bool {
			a, b := order[i], order[j]
			if slots[a] != slots[b] {
				return slots[a] > slots[b]
			}
			return total[a] > total[b]
		})
		for hi := 0; hi < len(order); hi++ {
			for lo := len(order) - 1; lo > hi; lo-- {
				from, to := order[hi], order[lo]
				if slots[from]-slots[to] <= 1 {
					continue
				}
				for i, seq := range g.BucketSeq {
					if !slices.Contains(seq, from) || slices.Contains(seq, to) {
						continue
					}
					if err := s.c.cat.MoveBucket(g.ID, i, from, to); err != nil {
						s.c.log.Debug("colocate balance", "group", g.Name, "bucket", i, "err", err)
						return false
					}
					s.c.log.Debug("colocate balance", "group", g.Name, "bucket", i, "from", from, "to", to)
					return true
				}
			}
		}
	}
	return false
}

// movable is an ordinary tablet balance may move: every replica healthy
// at the partition's visible version, as many as replication_num.
type movable struct {
	table   catalog.TableID
	tablet  storage.TabletID
	holders []catalog.BackendID
}

// balanceReplicas moves ordinary tablets from the most loaded backends to
// the least loaded ones while their counts differ by more than the
// tolerance. Counts include the moves in flight as if done. It reports
// whether a move is wanted.
func (s *tabletSched) balanceReplicas(targets []catalog.BackendID) bool {
	counts := map[catalog.BackendID]int{}
	for be, n := range s.c.replicaCounts() {
		counts[be] = n
	}
	s.mu.Lock()
	moving := make(map[storage.TabletID]repairJob, len(s.balancing))
	for id, j := range s.balancing {
		moving[id] = j
	}
	s.mu.Unlock()
	if len(moving) >= maxBalanceMoves {
		return true
	}
	var cands []movable
	for _, t := range s.tables() {
		if t.ColocateGroup != "" {
			continue // moves with its group's buckets
		}
		for _, p := range t.Partitions {
			if p.NextVersion != p.VisibleVersion+1 {
				continue
			}
			for _, tb := range p.Tablets {
				if j, ok := moving[tb.ID]; ok {
					// Its new replica may be registered already (lagging).
					if !hasReplica(tb, j.to) {
						counts[j.to]++
					}
					if hasReplica(tb, j.from) {
						counts[j.from]--
					}
					continue
				}
				if len(tb.Replicas) != replicationOf(t, tb) || len(tb.HealthyOn()) != len(tb.Replicas) {
					continue
				}
				cands = append(cands, movable{table: t.ID, tablet: tb.ID, holders: tb.HealthyOn()})
			}
		}
	}
	for started := len(moving); started < maxBalanceMoves; started++ {
		j, ok := pickMove(targets, counts, cands, moving)
		if !ok {
			return started > 0
		}
		if !s.startBalance(j) {
			return true // a backend is at its clone limit: next round
		}
		moving[j.tablet] = j
		counts[j.from]--
		counts[j.to]++
	}
	return true
}

func hasReplica(tb *catalog.Tablet, be catalog.BackendID) bool {
	for _, r := range tb.Replicas {
		if r.BackendID == be {
			return true
		}
	}
	return false
}

// pickMove chooses a tablet to move from a loaded backend to a light one:
// the most loaded first, onto the least loaded that lacks the tablet.
func pickMove(targets []catalog.BackendID, counts map[catalog.BackendID]int, cands []movable, moving map[storage.TabletID]repairJob) (repairJob, bool) {
	order := slices.Clone(targets)
	sort.SliceStable(order, func(i, j int) bool { return counts[order[i]] > counts[order[j]] })
	for hi := 0; hi < len(order); hi++ {
		for lo := len(order) - 1; lo > hi; lo-- {
			from, to := order[hi], order[lo]
			if counts[from]-counts[to] <= balanceTolerance {
				continue
			}
			for _, m := range cands {
				if _, busy := moving[m.tablet]; busy {
					continue
				}
				if slices.Contains(m.holders, from) && !slices.Contains(m.holders, to) {
					return repairJob{table: m.table, tablet: m.tablet, from: from, to: to, drop: from}, true
				}
			}
		}
	}
	return repairJob{}, false
}

// startBalance starts move j, tracked as a balance move until it ends.
func (s *tabletSched) startBalance(j repairJob) bool {
	s.mu.Lock()
	s.balancing[j.tablet] = j
	s.mu.Unlock()
	if s.start(j) {
		return true
	}
	s.mu.Lock()
	delete(s.balancing, j.tablet)
	s.mu.Unlock()
	return false
}

// BalanceStats is the balancer's state for SHOW PROC '/cluster_balance'.
type BalanceStats struct {
	Running  int                       // balance moves in flight
	Pending  int                       // tablets that need a repair not yet started
	Replicas map[catalog.BackendID]int // replicas per backend
	Disabled bool
}

// BalanceStatus reports the balancer's state.
func (c *Coordinator) BalanceStatus() BalanceStats {
	c.sched.mu.Lock()
	st := BalanceStats{Running: len(c.sched.balancing), Pending: c.sched.pending, Disabled: c.sched.noBalance.Load()}
	c.sched.mu.Unlock()
	st.Replicas = c.replicaCounts()
	return st
}

// misplaced fills j with the move that puts a colocate member's tablet on
// its bucket's backends (after MoveBucket, or a sequence change by a
// repair): a replica off the sequence goes to a sequence backend that
// lacks one. It reports false when tb is where its group wants it or the
// backend it should go to cannot take it now.
func (s *tabletSched) misplaced(t *catalog.Table, tb *catalog.Tablet, j *repairJob) bool {
	g, ok := s.c.cat.GroupOfTable(t)
	if !ok || tb.Bucket >= len(g.BucketSeq) {
		return false
	}
	seq := g.BucketSeq[tb.Bucket]
	var off, to catalog.BackendID
	for _, r := range tb.Replicas {
		if off == 0 && r.Healthy() && !slices.Contains(seq, r.BackendID) {
			off = r.BackendID
		}
	}
	for _, be := range seq {
		if b, ok := s.c.cat.Backend(be); ok && b.Alive && !b.Decommissioned && !hasReplica(tb, be) && to == 0 {
			to = be
		}
	}
	if off == 0 || to == 0 {
		return false
	}
	j.to, j.drop = to, off
	return true
}

// PriorityTables is how many tables ADMIN REPAIR TABLE put first.
func (c *Coordinator) PriorityTables() int {
	c.sched.mu.Lock()
	defer c.sched.mu.Unlock()
	return len(c.sched.priority)
}
