package physical

import (
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/planner/props"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// EnforceDistribution is the only code that creates exchanges (and the
// merge half of a two-phase aggregation). Bottom up, each operator states
// what it requires of its children; where a child's Delivered does not
// satisfy that, an exchange is put between them. Then every edge is
// re-checked.
//
//	join (bucket shuffle)             join
//	├─ scan li   (bucketed li.ok)  →  ├─ scan li
//	└─ scan rt   (random)             └─ EXCHANGE ← [BUCKET_SHFFULE_HASH_PARTITIONED rt.ok] scan rt
func (d *distPlanner) EnforceDistribution(n *pnode) *pnode {
	for i, c := range n.children {
		n.children[i] = d.EnforceDistribution(c)
	}
	if n.params || n.op == opApply {
		d.enforceSingle(n)
		if n.op == opAgg {
			n.agg.phase = fragment.AggUpdateFinalize
		}
		return n
	}
	switch n.op {
	case opScan, opValues, opTableFunc:
		// delivered set when built
	case opFilter, opProject, opWindow:
		if n.op == opWindow {
			d.enforceWindow(n)
		}
		n.del = n.child().del
	case opLimit:
		n.children[0] = d.requireChild(n, 0, sideReq{req: props.Required{Kind: props.ReqSingle}})
		if n.child().op == opExchange {
			n.child().exchLimit = n
		}
		n.del = props.Delivered{Kind: props.DelSingle}
	case opSort, opTopN:
		n.del = n.child().del
		if n.del.Kind != props.DelSingle {
			return d.mergingExchange(n)
		}
	case opSetOp:
		d.enforceSetOp(n)
	case opJoin:
		l, r := d.decideJoin(n)
		n.children[0] = d.requireChild(n, 0, l)
		n.children[1] = d.requireChild(n, 1, r)
		n.del = joinDelivered(n, l, r)
	case opRepeat:
		d.enforceRepeat(n)
	case opAgg:
		return d.enforceAgg(n)
	}
	return n
}

// joinDelivered is where a join's output rows lie. The side an outer join
// pads with NULLs loses its placement: those rows come out wherever the
// preserved side's row was, so a RIGHT join keeps the right side's
// placement and a FULL join keeps neither (a GROUP BY on either key would
// split its NULL group across instances).
func joinDelivered(n *pnode, l, r sideReq) props.Delivered {
	j := n.join
	if j.dist == fragment.DistNone && n.children[0].del.Kind != props.DelSingle {
		return props.Delivered{Kind: props.DelSingle}
	}
	side, req := 0, l.req
	switch j.typ {
	case fragment.JoinRightOuter, fragment.JoinRightSemi, fragment.JoinRightAnti:
		side, req = 1, r.req
	case fragment.JoinFullOuter:
		if n.children[0].del.Kind == props.DelSingle {
			return n.children[0].del
		}
		return props.Delivered{Kind: props.DelRandom}
	}
	if j.dist == fragment.DistPartitioned {
		return props.Enforced(req)
	}
	return n.children[side].del
}

// requireChild puts n's requirement s on child i (an exchange if needed) and
// remembers it for the edge check.
func (d *distPlanner) requireChild(n *pnode, i int, s sideReq) *pnode {
	if n.reqs == nil {
		n.reqs = make([]props.Required, len(n.children))
	}
	n.reqs[i] = s.req
	return d.require(n.children[i], s)
}

// require inserts an exchange above c unless c already delivers s.req.
func (d *distPlanner) require(c *pnode, s sideReq) *pnode {
	if c.del.Satisfies(s.req, d.eq) && !s.exchange {
		return c
	}
	x := &pnode{op: opExchange, children: []*pnode{c}, cols: c.cols, rows: c.rows, width: c.width, pl: d,
		exch: &exchOp{req: s.req, keys: s.keys}, del: props.Enforced(s.req)}
	if s.req.Layout != nil {
		x.exch.buckets = s.req.Layout.Buckets
	}
	if s.req.Kind == props.ReqHash && len(s.keys) == 0 {
		x.exch.keys = refs(c.cols, s.req.Keys)
	}
	d.enforcedNode(x)
	return x
}

func refs(cols []logical.Column, ids []logical.ColumnID) []expr.Expr {
	var out []expr.Expr
	for _, id := range ids {
		if i := colIndex(cols, id); i >= 0 {
			out = append(out, cols[i].Ref())
		}
	}
	return out
}

// enforcedNode numbers an exchange or merge aggregation after every
// single-node operator, in creation order.
func (d *distPlanner) enforcedNode(n *pnode) {
	n.id = d.nextVisible + fragment.NodeID(len(d.enforced))
	d.enforced = append(d.enforced, n)
}

// mergingExchange: sort per instance, merge sorted streams in one instance.
func (d *distPlanner) mergingExchange(n *pnode) *pnode {
	x := &pnode{op: opExchange, children: []*pnode{n}, cols: n.cols, rows: n.rows, width: n.width, pl: d,
		exch: &exchOp{req: props.Required{Kind: props.ReqSingle}, merge: true, sort: n.keys, limit: -1},
		del:  props.Delivered{Kind: props.DelSingle}}
	if n.op == opTopN {
		// Each instance keeps its first offset+count rows; the merge skips offset.
		x.exch.offset, x.exch.limit = n.offset, n.count
		n.count += n.offset
		n.offset = 0
	}
	d.enforcedNode(x)
	return x
}

// splittable: the call has a partial (serialize) and a merge phase
// (expr.AggSplittable; DISTINCT never).
func splittable(a logical.AggCall) bool {
	if a.Distinct || !expr.AggSplittable(a.Fn) {
		return false
	}
	_, err := expr.AggStateTypes(a.Fn, argType(a), false)
	return err == nil
}

// partialTypes are the columns a split call's partial state takes
// (expr.AggStateTypes: the result type, or AVG's sum and count, the
// statistics' moments, a sketch).
func partialTypes(c logical.AggCall) []types.T {
	if ts, err := expr.AggStateTypes(c.Fn, argType(c), false); err == nil {
		return ts
	}
	return []types.T{c.Col.T}
}

// enforceAgg plans one aggregation: in place (update finalize) when the
// input is in one instance or already hashed on a subset of the keys, one
// phase after a hash exchange for DISTINCT and calls without a merge, else
// update serialize + exchange hashed on the keys + merge finalize.
func (d *distPlanner) enforceAgg(n *pnode) *pnode {
	a := n.agg.l
	in := n.child()
	keys := d.keyIDs(a.Groups)
	keyReq := props.Required{Kind: props.ReqHash, Keys: keys, Subset: true}
	if len(a.Groups) == 0 {
		keyReq = props.Required{Kind: props.ReqSingle}
	}
	inPlace := in.del.Kind == props.DelSingle ||
		(len(a.Groups) > 0 && in.del.Satisfies(keyReq, d.eq) &&
			!(in.del.Kind == props.DelStorageBucketed && d.ctx.Vars.DisableColocatePlan))
	n.agg.phase = fragment.AggUpdateFinalize
	if inPlace {
		n.del = in.del
		if len(a.Groups) > 0 && in.del.Kind != props.DelSingle {
			n.del = in.del
		}
		return n
	}
	split := true
	for _, c := range a.Aggs {
		split = split && splittable(c)
	}
	if !split {
		req := props.Required{Kind: props.ReqHash, Keys: keys}
		if len(a.Groups) == 0 {
			req = props.Required{Kind: props.ReqSingle}
		}
		n.children[0] = d.requireChild(n, 0, sideReq{req: req, keys: a.Groups})
		n.del = n.child().del
		return n
	}
	// Two phases. The partial node's output lies where its input does.
	n.agg.phase = fragment.AggUpdateSerialize
	n.del = in.del
	partialCols := append([]logical.Column{}, a.GroupCols...)
	for _, c := range a.Aggs {
		var cols []logical.Column
		for _, t := range partialTypes(c) {
			pc := d.newCol(c.Col.Name, t, true)
			d.subst[pc.ID] = d.subst[c.Col.ID]
			cols = append(cols, pc)
		}
		n.agg.partial = append(n.agg.partial, cols)
		partialCols = append(partialCols, cols...)
	}
	n.cols = partialCols
	gids := make([]logical.ColumnID, len(a.GroupCols))
	for i, g := range a.GroupCols {
		gids[i] = g.ID
	}
	req := props.Required{Kind: props.ReqHash, Keys: gids}
	if len(a.Groups) == 0 {
		req = props.Required{Kind: props.ReqSingle}
	}
	var gkeys []expr.Expr
	for _, g := range a.GroupCols {
		gkeys = append(gkeys, g.Ref())
	}
	x := d.require(n, sideReq{req: req, keys: gkeys})
	m := &pnode{op: opAgg, children: []*pnode{x}, cols: a.Columns(), pl: d, rows: n.rows, est: n.est, width: n.width,
		agg: &aggOp{l: a, phase: fragment.AggMergeFinalize, merge: n.agg, having: n.agg.having}, del: x.del}
	n.agg.having = nil
	m.reqs = []props.Required{req}
	d.enforcedNode(m)
	return m
}

// enforceWindow: rows of one PARTITION BY group in one instance.
func (d *distPlanner) enforceWindow(n *pnode) {
	var part []expr.Expr
	if len(n.window.Calls) > 0 {
		part = n.window.Calls[0].PartitionBy
	}
	same := true
	for _, c := range n.window.Calls {
		same = same && len(c.PartitionBy) == len(part)
		for i := range part {
			same = same && i < len(c.PartitionBy) && c.PartitionBy[i].String() == part[i].String()
		}
	}
	req := props.Required{Kind: props.ReqSingle}
	ids := d.keyIDs(part)
	bare := len(part) > 0 && same
	for _, id := range ids {
		bare = bare && id >= 0
	}
	if bare {
		req = props.Required{Kind: props.ReqHash, Keys: ids, Subset: true}
	}
	s := sideReq{req: req}
	if req.Kind == props.ReqHash {
		s.req.Subset = false
		if n.child().del.Satisfies(req, d.eq) {
			n.reqs = []props.Required{req}
			return
		}
		s.keys = part
	}
	n.children[0] = d.requireChild(n, 0, s)
}

// checkEdges re-verifies every edge after enforcement (a broken one is a
// bug): each child delivers what its parent required of it, and each
// exchange delivers what it was built for.
func (d *distPlanner) checkEdges(n *pnode) bool {
	for i, c := range n.children {
		if !d.checkEdges(c) {
			return false
		}
		if i < len(n.reqs) && !c.del.Satisfies(n.reqs[i], d.eq) {
			return false
		}
	}
	if n.op == opExchange {
		return n.del.Satisfies(n.exch.req, d.eq)
	}
	return true
}
