package physical

import (
	"math"
	"strings"

	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/props"
	"github.com/dorisgo/dorisgo/sql/expr"
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

// adaptJoin marks j adaptive when switching its distribution at run time
// is allowed: a PARTITIONED join may run as BROADCAST, and a BROADCAST one
// planned from a guessed build side (mayShuffle) is first reshaped into
// the adaptive shuffle's form (adaptBroadcast), preferring BROADCAST.
func (d *distPlanner) adaptJoin(n *pnode) {
	j := n.join
	v := d.ctx.Vars
	l, r := n.children[0], n.children[1]
	switch {
	case !v.EnableAdaptiveJoin, j.nested(), j.sortMerge:
		return
	case j.hint != hintNone, j.noBroadcast, !canBroadcast(j.typ), j.typ == fragment.JoinNullAwareLeftAnti:
		return // hints win over adaptation
	case min(v.AutoBroadcastJoinThreshold, 1) <= 0, systemTable(l), systemTable(r), d.aliveBackend < 2:
		return
	}
	planned := fragment.AdaptPartitioned
	if j.dist == fragment.DistBroadcast && j.mayShuffle && d.adaptBroadcast(n) {
		planned = fragment.AdaptBroadcast
		l, r = n.children[0], n.children[1]
	}
	switch {
	case j.dist != fragment.DistPartitioned:
		return
	case l.op != opExchange || r.op != opExchange || l.exch.req.Kind != props.ReqHash || r.exch.req.Kind != props.ReqHash:
		return
	}
	nodes := float64(d.aliveBackend)
	maxBytes := float64(adaptiveBufferCap)
	// The hash table of a broadcast build side must fit the memory limit
	// (hashTableBytes is about 1.5× the rows' bytes).
	maxBytes = min(maxBytes, float64(v.ExecMemLimit)*min(v.AutoBroadcastJoinThreshold, 1)/1.5)
	// The cost rule B × nodes ≤ A + B, with the probe side as estimated;
	// a planned broadcast takes the probe side at its bound: its estimate
	// may be as much a guess as the build side's, and only a build side
	// that is large against any probe side it may meet is worth the
	// shuffle the plan did not choose.
	probe := l.rows
	if planned == fragment.AdaptBroadcast {
		probe = max(probe, rowBound(l))
	}
	if probe >= 0 {
		maxBytes = min(maxBytes, float64(probe)*l.width/(nodes-1))
	}
	maxRows := min(v.BroadcastRowCountLimit, math.MaxInt64/2)
	j.adaptive = &fragment.AdaptiveJoin{Build: r.id, Probe: l.id, MaxRows: int64(maxRows), MaxBytes: int64(max(maxBytes, 0)),
		SkewShare: min(max(v.AdaptiveJoinSkewShare, 0), 1), Planned: planned}
}

// adaptBroadcast reshapes a BROADCAST join whose build side estimate is a
// guess into the adaptive shuffle's form: the build side's broadcast
// exchange becomes a hash exchange on the build keys and the probe side
// gets a hash exchange of its own, so the join runs in an exchange-fed
// fragment. At run time the build side is measured before the probe side
// sends a row: small (the estimate held) it runs BROADCAST as planned,
// the probe side handed in memory to the join instance on its own backend,
// so it still crosses no network; large it runs PARTITIONED, A + B
// on the wire instead of B × nodes, and no instance builds a hash table of
// the whole large side.
//
// The price is the extra fragment (and a probe side runtime filter, which
// only a join in the probe scan's own fragment gets), which is why only
// guessed estimates are reshaped (guessedBroadcast): a build side of plain
// scans or of statistics keeps its plan byte for byte. The caller has
// checked that nothing above relies on where the join's rows lie (the
// probe side's placement a BROADCAST join passes on is lost here).
func (d *distPlanner) adaptBroadcast(n *pnode) bool {
	j := n.join
	l, r := n.children[0], n.children[1]
	if r.op != opExchange || r.exch.req.Kind != props.ReqReplicated || r.exch.merge || l.del.Kind == props.DelSingle {
		return false
	}
	lk, rk := make([]expr.Expr, len(j.equi)), make([]expr.Expr, len(j.equi))
	for i, e := range j.equi {
		lk[i], rk[i] = e.L, e.R
	}
	lreq := props.Required{Kind: props.ReqHash, Keys: d.keyIDs(lk)}
	rreq := props.Required{Kind: props.ReqHash, Keys: d.keyIDs(rk)}
	r.exch.req, r.exch.keys, r.del = rreq, rk, props.Enforced(rreq)
	n.children[0] = d.require(l, sideReq{req: lreq, keys: lk, exchange: true})
	n.reqs = []props.Required{lreq, rreq}
	j.planned, j.dist = fragment.DistBroadcast, fragment.DistPartitioned
	n.del = props.Delivered{Kind: props.DelRandom}
	return true
}

// guessedBroadcast: BROADCAST was chosen for a build side r whose estimate
// rests on a guess (a default selectivity, a HAVING, a join without
// statistics) and at its bound (rowBound) would not have been: the row
// limit, the memory limit or the cost rule B × nodes ≤ A + B would have
// shuffled it, with the probe side A at its own bound (the plan's best
// case: SSB's filtered dates against a lineorder estimated at 1% fits
// that rule at any size and keeps its plain broadcast and runtime filter).
// Only such joins are worth an adaptive plan.
func (d *distPlanner) guessedBroadcast(l, r *pnode) bool {
	b := rowBound(r)
	if b >= 0 && b <= r.rows {
		return false // the estimate is the bound: nothing to learn at run time
	}
	if b < 0 {
		return true
	}
	v := d.ctx.Vars
	at := *r
	at.rows = b
	if float64(b) > v.BroadcastRowCountLimit || hashTableBytes(&at) > float64(v.ExecMemLimit)*min(v.AutoBroadcastJoinThreshold, 1) {
		return true
	}
	a := max(l.rows, rowBound(l))
	if a < 0 {
		return false // no cost rule without a probe side estimate
	}
	bc := float64(b) * r.width * float64(d.instances(l))
	pc := float64(a)*l.width + float64(b)*r.width
	if d.ctx.Vars.PreferJoinMethod != "shuffle" {
		return bc > pc
	}
	return bc >= pc
}

// rowBound bounds n's rows from what the planner knows rather than
// guesses: row counts, limits and statistics are trusted, a default
// selectivity is taken as keeping every row, an aggregation as many groups
// as input rows, an equi join without statistics as its larger side (a
// key join; it may multiply, which no bound short of |L|·|R| covers).
// -1: no bound (a system table, a table function).
func rowBound(n *pnode) int64 {
	stats := strings.HasPrefix(n.est, "statistics")
	switch n.op {
	case opScan:
		if len(n.scan.conds) == 0 || stats {
			return n.rows
		}
		return n.scan.total
	case opValues:
		return n.rows
	case opFilter:
		c := rowBound(n.child())
		if stats {
			return scaleBound(c, n.rows, n.child().rows)
		}
		return c
	case opProject, opSort, opWindow:
		return rowBound(n.child())
	case opRepeat:
		return scaleBound(rowBound(n.child()), n.rows, n.child().rows)
	case opExchange:
		c := rowBound(n.child())
		if n.exch.merge && n.exch.limit >= 0 && (c < 0 || n.exch.limit < c) {
			return n.exch.limit
		}
		return c
	case opLimit, opTopN:
		c := rowBound(n.child())
		if n.count >= 0 && (c < 0 || n.count < c) {
			return n.count
		}
		return c
	case opAgg:
		if len(n.agg.l.Groups) == 0 {
			return 1
		}
		guess := n.agg.havingGuess || n.agg.merge != nil && n.agg.merge.havingGuess
		c := rowBound(n.child())
		if stats && !guess && (c < 0 || n.rows < c) {
			return n.rows
		}
		return c
	case opJoin:
		l, r := rowBound(n.children[0]), rowBound(n.children[1])
		if l < 0 || r < 0 {
			return -1
		}
		if stats && l == n.children[0].rows && r == n.children[1].rows {
			return n.rows
		}
		switch n.join.typ {
		case fragment.JoinLeftSemi, fragment.JoinLeftAnti, fragment.JoinNullAwareLeftAnti:
			return l
		case fragment.JoinRightSemi, fragment.JoinRightAnti:
			return r
		case fragment.JoinFullOuter:
			return l + r
		}
		if n.join.nested() {
			if l > 0 && r > math.MaxInt64/4/l {
				return -1
			}
			return l * r
		}
		return max(l, r)
	case opSetOp:
		var sum int64
		for _, c := range n.children {
			b := rowBound(c)
			if b < 0 {
				return -1
			}
			sum += b
		}
		return sum
	}
	return -1
}

// scaleBound applies the ratio an estimate from statistics kept (rows of
// in) to a bound of the input.
func scaleBound(b, rows, in int64) int64 {
	if b < 0 || rows < 0 || in <= 0 {
		return b
	}
	return int64(math.Ceil(float64(b) * float64(rows) / float64(in)))
}
