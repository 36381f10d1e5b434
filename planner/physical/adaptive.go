package physical

import (
	"math"

	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/props"
)

// adaptiveBufferCap bounds what one build instance of an adaptive join
// holds back while the join's distribution is not yet settled: a build side
// bigger than this is shuffled whatever the cost rule says.
const adaptiveBufferCap = 64 << 20

// markAdaptive marks the PARTITIONED joins that may run as BROADCAST once
// their build side is measured (fragment.AdaptiveJoin). need says an
// operator above n in its fragment relies on where n's rows lie; an
// exchange below starts a new fragment, whose placement nothing relies on.
func (d *distPlanner) markAdaptive(n *pnode, need bool) {
	if n.op == opExchange {
		for _, c := range n.children {
			d.markAdaptive(c, false)
		}
		return
	}
	if n.op == opJoin && !need {
		d.adaptJoin(n)
	}
	for i, c := range n.children {
		d.markAdaptive(c, reliesOn(n, i, need))
	}
}

// reliesOn says whether n, or what is above it in its fragment, relies on
// where child i's rows lie. Filters, projections, local sorts and partial
// aggregations do not, but pass on what is above them; a broadcast join
// passes on its probe side's placement; everything else (a final
// aggregation or window over rows hashed on its keys, a colocate, bucket
// shuffle or partitioned join, a set operation) relies on it.
func reliesOn(n *pnode, i int, need bool) bool {
	switch n.op {
	case opFilter, opProject, opSort, opTopN, opRepeat:
		return need
	case opAgg:
		if n.agg.phase == fragment.AggUpdateSerialize {
			return need
		}
	case opJoin:
		if n.join.dist == fragment.DistBroadcast && i == 0 {
			return need
		}
	}
	return true
}

// adaptJoin marks j adaptive when switching it to broadcast is allowed.
func (d *distPlanner) adaptJoin(n *pnode) {
	j := n.join
	v := d.ctx.Vars
	l, r := n.children[0], n.children[1]
	switch {
	case !v.EnableAdaptiveJoin, j.dist != fragment.DistPartitioned, j.nested(), j.sortMerge:
		return
	case j.hint != hintNone, j.noBroadcast, !canBroadcast(j.typ), j.typ == fragment.JoinNullAwareLeftAnti:
		return // hints win over adaptation
	case min(v.AutoBroadcastJoinThreshold, 1) <= 0, systemTable(l), systemTable(r), d.aliveBackend < 2:
		return
	case l.op != opExchange || r.op != opExchange || l.exch.req.Kind != props.ReqHash || r.exch.req.Kind != props.ReqHash:
		return
	}
	nodes := float64(d.aliveBackend)
	maxBytes := float64(adaptiveBufferCap)
	// The hash table of a broadcast build side must fit the memory limit
	// (hashTableBytes is about 1.5× the rows' bytes).
	maxBytes = min(maxBytes, float64(v.ExecMemLimit)*min(v.AutoBroadcastJoinThreshold, 1)/1.5)
	// The cost rule B × nodes ≤ A + B, with the probe side as estimated.
	if l.rows >= 0 {
		maxBytes = min(maxBytes, float64(l.rows)*l.width/(nodes-1))
	}
	maxRows := min(v.BroadcastRowCountLimit, math.MaxInt64/2)
	j.adaptive = &fragment.AdaptiveJoin{Build: r.id, Probe: l.id, MaxRows: int64(maxRows), MaxBytes: int64(max(maxBytes, 0)),
		SkewShare: min(max(v.AdaptiveJoinSkewShare, 0), 1)}
}
