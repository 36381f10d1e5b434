package catalog

import (
	"fmt"
	"sort"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// placer chooses the backends of new tablets (doc.go "Placement"): each
// bucket's replicas go to the least loaded placement backends — fewest
// replicas, then least data (Doris's BE load score), then lowest id — and
// every replica placed counts at once, so a table's buckets and the
// partitions after it spread over the backends the earlier tables left
// light. The replica counts per backend then never differ by more than
// one when they did not before, which the coordinator's balancer
// tolerates: a cluster grown only by CREATE and ADD PARTITION never
// clones. A colocate group's sequence is chosen once (groupSeq: its
// buckets even over the backends first) and fixed: every partition of
// every member follows it.
type placer struct {
	bes   []BackendID
	count map[BackendID]int
	bytes map[BackendID]int64
	// buckets and replicas of the table placed.
	buckets, replicas int
	fixed             [][]BackendID // a colocate group's BucketSeq
}

// fixedPlacer places every partition on seq (a colocate group's).
func fixedPlacer(seq [][]BackendID) *placer { return &placer{fixed: seq} }

// newPlacer places buckets × replicas tablets per partition on the
// placement backends by their load now, not counting the partitions in
// replaced (those a TRUNCATE or INSERT OVERWRITE is about to replace). It
// fails with Doris's error when fewer backends than replicas can take one.
func (c *Catalog) newPlacer(buckets, replicas int, replaced map[PartitionID]bool) (*placer, error) {
	bes := c.placementBackends()
	if replicas > len(bes) {
		return nil, sqlerr.Doris.New(fmt.Sprintf(
			"Failed to find enough backend, please check the replication num,replication tag and storage medium "+
				"and avail capacity of backends or maybe all be on this host. Create failed replications: "+
				"replication num: %d, available backends: %d", replicas, len(bes)))
	}
	pl := &placer{bes: bes, count: map[BackendID]int{}, bytes: map[BackendID]int64{}, buckets: buckets, replicas: replicas}
	for _, t := range c.tables {
		for _, p := range t.Partitions {
			if replaced[p.ID] {
				continue
			}
			for _, tb := range p.Tablets {
				size := p.TabletBytes(tb)
				for _, r := range tb.Replicas {
					pl.count[r.BackendID]++
					pl.bytes[r.BackendID] += size
				}
			}
		}
	}
	return pl, nil
}

// next is one partition's bucket → backends; the placed replicas count
// toward the next call's loads. Least loaded first, not spread per
// partition: spreading each partition over every backend leaves the
// totals uneven after a colocate group's extra buckets (4 over 3
// backends), and the balancer then moves a tablet the moment its table is
// created, while the first loads are being written to it.
func (pl *placer) next() [][]BackendID {
	if pl.fixed != nil {
		return pl.fixed
	}
	return pl.place(nil)
}

// groupSeq is a new colocate group's bucket sequence: its buckets spread
// evenly over the backends first (the colocate balancer evens a group's
// buckets per backend, so an uneven sequence would move at once), the
// extra ones on the least loaded.
func (pl *placer) groupSeq() [][]BackendID {
	return pl.place(map[BackendID]int{})
}

// place chooses each bucket's backends, least loaded first; with own set,
// those holding fewest of these buckets come before any load.
func (pl *placer) place(own map[BackendID]int) [][]BackendID {
	seq := make([][]BackendID, pl.buckets)
	order := append([]BackendID(nil), pl.bes...)
	for i := range seq {
		sort.SliceStable(order, func(a, b int) bool {
			x, y := order[a], order[b]
			if own != nil && own[x] != own[y] {
				return own[x] < own[y]
			}
			return pl.less(x, y)
		})
		seq[i] = append([]BackendID(nil), order[:pl.replicas]...)
		for _, be := range seq[i] {
			pl.count[be]++
			if own != nil {
				own[be]++
			}
		}
	}
	return seq
}

// less orders backends least loaded first.
func (pl *placer) less(a, b BackendID) bool {
	if pl.count[a] != pl.count[b] {
		return pl.count[a] < pl.count[b]
	}
	if pl.bytes[a] != pl.bytes[b] {
		return pl.bytes[a] < pl.bytes[b]
	}
	return a < b
}

// TabletBytes estimates tb's data size from its partition's committed
// bytes, shared by row count (the catalog's statistics, so placement and
// balance need no call to a backend).
func (p *Partition) TabletBytes(tb *Tablet) int64 {
	switch {
	case p.RowCount > 0:
		return p.DataSize * tb.RowCount / p.RowCount
	case len(p.Tablets) > 0:
		return p.DataSize / int64(len(p.Tablets))
	}
	return 0
}

// partitionSet is the ids of parts.
func partitionSet(parts []*Partition) map[PartitionID]bool {
	out := make(map[PartitionID]bool, len(parts))
	for _, p := range parts {
		out[p.ID] = true
	}
	return out
}
