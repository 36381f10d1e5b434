package coord

import (
	"math"
	"slices"
	"sort"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/storage"
)

// Balance, in the tablet scheduler's round once no repair waits (repairs
// come first), all the time as in Doris: its BeLoadRebalancer moves
// replicas of ordinary tablets from the most loaded backend to the least
// loaded one until the replica counts differ by at most countTolerance
// (balance_load_score_threshold of the average, at least one replica),
// choosing the tablets that even the backends' data sizes too, and then
// evens data sizes beyond diskTolerance (pickDiskMove); its
// ColocateTableCheckerAndBalancer evens each colocate group's bucket
// sequence, one bucket at a time: the bucket's backend is replaced in the
// sequence (catalog.MoveBucket), the group is unstable while plan's
// mismatch repair moves the members' tablets, and stable after. Only
// healthy replicas at the visible version move, never onto a backend
// that holds the tablet, at most maxBalanceMoves at once (and within the
// per-backend clone limit), so queries and loads keep running.
//
// New tablets go to the least loaded backends (catalog/placement.go), so
// a cluster grown by CREATE TABLE and ADD PARTITION alone stays within the
// tolerance and nothing moves; what balance evens out is a backend that
// joined or returned empty (its replicas re-created elsewhere meanwhile),
// tables created while a backend was dead or decommissioned, drops, and
// data that grew unevenly. disable_balance stops it.

const maxBalanceMoves = 2

// DefaultBalanceThreshold is Doris's balance_load_score_threshold.
const DefaultBalanceThreshold = 0.1

// SetBalanceThreshold is the balance_load_score_threshold config: how far
// (a fraction of the average) a backend's replica count may be from the
// others' before balance moves one.
func (c *Coordinator) SetBalanceThreshold(f float64) { c.sched.threshold.Store(math.Float64bits(f)) }

// BalanceThreshold reports balance_load_score_threshold.
func (c *Coordinator) BalanceThreshold() float64 {
	return math.Float64frombits(c.sched.threshold.Load())
}

// countTolerance is how far replica counts may differ before balance
// moves one: balance_load_score_threshold of the average count over
// targets, at least one replica.
func (s *tabletSched) countTolerance(targets []catalog.BackendID, counts map[catalog.BackendID]int) int {
	total := 0
	for _, be := range targets {
		total += counts[be]
	}
	f := math.Float64frombits(s.threshold.Load())
	return max(1, int(float64(total)/float64(len(targets))*f))
}

// SetBalanceDisabled is the disable_balance config.
func (c *Coordinator) SetBalanceDisabled(off bool) { c.sched.noBalance.Store(off) }

// BalanceDisabled reports disable_balance.
func (c *Coordinator) BalanceDisabled() bool { return c.sched.noBalance.Load() }

// balance starts the moves that even the cluster out, if any.
func (s *tabletSched) balance(bes []*catalog.Backend) {
	if s.noBalance.Load() {
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
	s.balanceReplicas(targets)
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
	bytes   int64 // catalog.Partition.TabletBytes
}

// diskMinGap is the least data-size difference between two backends that
// balance evens out; a larger one is tolerated up to diskTolerancePct of
// the larger backend's data.
const (
	diskMinGap       = 1 << 20
	diskTolerancePct = 10
)

func diskTolerance(hi int64) int64 { return max(diskMinGap, hi*diskTolerancePct/100) }

// balanceReplicas moves ordinary tablets from the most loaded backends to
// the least loaded ones while their counts differ by more than the
// tolerance. Counts include the moves in flight as if done. It reports
// whether a move is wanted.
func (s *tabletSched) balanceReplicas(targets []catalog.BackendID) bool {
	counts := map[catalog.BackendID]int{}
	for be, n := range s.c.replicaCounts() {
		counts[be] = n
	}
	bytes := map[catalog.BackendID]int64{} // data per backend (TabletBytes)
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
			// Moves with its group's buckets; its data counts.
			for _, p := range t.Partitions {
				for _, tb := range p.Tablets {
					for _, r := range tb.Replicas {
						bytes[r.BackendID] += p.TabletBytes(tb)
					}
				}
			}
			continue
		}
		for _, p := range t.Partitions {
			if p.NextVersion != p.VisibleVersion+1 {
				continue
			}
			for _, tb := range p.Tablets {
				size := p.TabletBytes(tb)
				for _, r := range tb.Replicas {
					bytes[r.BackendID] += size
				}
				if j, ok := moving[tb.ID]; ok {
					// Its new replica may be registered already (lagging).
					if !hasReplica(tb, j.to) {
						counts[j.to]++
						bytes[j.to] += size
					}
					if hasReplica(tb, j.from) {
						counts[j.from]--
						bytes[j.from] -= size
					}
					continue
				}
				if len(tb.Replicas) != replicationOf(t, tb) || len(tb.HealthyOn()) != len(tb.Replicas) {
					continue
				}
				cands = append(cands, movable{table: t.ID, tablet: tb.ID, holders: tb.HealthyOn(), bytes: size})
			}
		}
	}
	size := map[storage.TabletID]int64{}
	for _, m := range cands {
		size[m.tablet] = m.bytes
	}
	for started := len(moving); started < maxBalanceMoves; {
		tol := s.countTolerance(targets, counts)
		js := pickMove(targets, counts, bytes, cands, moving, tol)
		if js == nil {
			js = pickDiskMove(targets, counts, bytes, cands, moving, tol)
		}
		if js == nil || started+len(js) > maxBalanceMoves && started > 0 {
			return started > 0
		}
		for _, j := range js {
			if !s.startBalance(j) {
				return true // a backend is at its clone limit: next round
			}
			started++
			moving[j.tablet] = j
			counts[j.from]--
			counts[j.to]++
			bytes[j.from] -= size[j.tablet]
			bytes[j.to] += size[j.tablet]
		}
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
// the most loaded first, onto the least loaded that lacks the tablet; of
// the tablets it could move, the one that best evens the two backends'
// data sizes.
func pickMove(targets []catalog.BackendID, counts map[catalog.BackendID]int, bytes map[catalog.BackendID]int64, cands []movable, moving map[storage.TabletID]repairJob, tol int) []repairJob {
	order := slices.Clone(targets)
	sort.SliceStable(order, func(i, j int) bool { return counts[order[i]] > counts[order[j]] })
	for hi := 0; hi < len(order); hi++ {
		for lo := len(order) - 1; lo > hi; lo-- {
			from, to := order[hi], order[lo]
			if counts[from]-counts[to] <= tol {
				continue
			}
			best, bestGap := -1, int64(0)
			for i, m := range cands {
				if _, busy := moving[m.tablet]; busy || !slices.Contains(m.holders, from) || slices.Contains(m.holders, to) {
					continue
				}
				gap := abs((bytes[from] - m.bytes) - (bytes[to] + m.bytes))
				if best < 0 || gap < bestGap {
					best, bestGap = i, gap
				}
			}
			if best >= 0 {
				m := cands[best]
				return []repairJob{{table: m.table, tablet: m.tablet, from: from, to: to, drop: from}}
			}
		}
	}
	return nil
}

// pickDiskMove evens data sizes once replica counts are even: between the
// backends with the most and the least data, if they differ beyond
// diskTolerance, a tablet moves from the one to the other when that keeps
// the counts within countTolerance, else a large tablet and a small one
// trade places. Only moves that shrink the difference by more than
// diskTolerance are taken: a tablet larger than the difference stays
// where it is, and a big tablet does not trade places with a small one
// for a small gain (a fresh cluster's one-bucket table would otherwise
// move).
func pickDiskMove(targets []catalog.BackendID, counts map[catalog.BackendID]int, bytes map[catalog.BackendID]int64, cands []movable, moving map[storage.TabletID]repairJob, tol int) []repairJob {
	order := slices.Clone(targets)
	sort.SliceStable(order, func(i, j int) bool { return bytes[order[i]] > bytes[order[j]] })
	from, to := order[0], order[len(order)-1]
	gap := bytes[from] - bytes[to]
	if gap <= diskTolerance(bytes[from]) {
		return nil
	}
	var on, off []movable // movable from → to, and to → from
	for _, m := range cands {
		if _, busy := moving[m.tablet]; busy {
			continue
		}
		a, b := slices.Contains(m.holders, from), slices.Contains(m.holders, to)
		switch {
		case a && !b:
			on = append(on, m)
		case b && !a:
			off = append(off, m)
		}
	}
	// Largest first on the loaded side, smallest first on the light one;
	// a few of each bound the pairs tried.
	sort.Slice(on, func(i, j int) bool { return on[i].bytes > on[j].bytes })
	sort.Slice(off, func(i, j int) bool { return off[i].bytes < off[j].bytes })
	on, off = on[:min(len(on), 64)], off[:min(len(off), 64)]
	job := func(m movable, from, to catalog.BackendID) repairJob {
		return repairJob{table: m.table, tablet: m.tablet, from: from, to: to, drop: from}
	}
	var best []repairJob
	bestGap := gap - diskTolerance(bytes[from])
	if counts[to]+1-(counts[from]-1) <= tol {
		for _, m := range on {
			if d := abs(gap - 2*m.bytes); m.bytes > 0 && d < bestGap {
				best, bestGap = []repairJob{job(m, from, to)}, d
			}
		}
	}
	for _, b := range on {
		for _, sm := range off {
			if delta := b.bytes - sm.bytes; delta > 0 {
				if d := abs(gap - 2*delta); d < bestGap {
					best, bestGap = []repairJob{job(b, from, to), job(sm, to, from)}, d
				}
			}
		}
	}
	return best
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
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
	// Tolerance is how far a backend's replicas may be from another's
	// before balance moves one (countTolerance over the usable backends).
	Tolerance int
	Disabled  bool
}

// BalanceStatus reports the balancer's state.
func (c *Coordinator) BalanceStatus() BalanceStats {
	c.sched.mu.Lock()
	st := BalanceStats{Running: len(c.sched.balancing), Pending: c.sched.pending, Disabled: c.sched.noBalance.Load()}
	c.sched.mu.Unlock()
	st.Replicas = c.replicaCounts()
	var usable []catalog.BackendID
	for _, b := range c.alive() {
		usable = append(usable, b.ID)
	}
	st.Tolerance = 1
	if len(usable) > 0 {
		st.Tolerance = c.sched.countTolerance(usable, st.Replicas)
	}
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
