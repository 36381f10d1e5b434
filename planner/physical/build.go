package physical

import (
	"math"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/planner/props"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// distPlanner holds one statement's distributed planning state.
type distPlanner struct {
	ctx *Context
	eq  *props.EquivClasses
	// nextVisible numbers single-node operators post-order; nextEnforced
	// continues with exchanges and merge aggregations in creation order.
	nextVisible  fragment.NodeID
	enforced     []*pnode
	nextCol      logical.ColumnID
	subst        map[logical.ColumnID]expr.Expr // display expression of a column
	aliveBackend int
	// rfBuild and rfTarget are the runtime filters of the emitted plan's
	// joins and scans, by node id, for EXPLAIN.
	rfBuild  map[fragment.NodeID][]fragment.RFBuild
	rfTarget map[fragment.NodeID][]fragment.RFTarget
	// exprKeys are the ids of expression keys (keyIDs), by fingerprint.
	exprKeys map[string]logical.ColumnID
	// outer are the outer columns of the Apply subqueries being built
	// (innermost last).
	outer []map[logical.ColumnID]bool
	// cstats are the ANALYZE statistics of columns (stats.go); anyStats:
	// a scanned table has statistics.
	cstats   map[logical.ColumnID]*colStat
	anyStats bool
}

// noteRuntimeFilters records plan's runtime filters for EXPLAIN.
func (d *distPlanner) noteRuntimeFilters(plan *fragment.Plan) {
	d.rfBuild, d.rfTarget = map[fragment.NodeID][]fragment.RFBuild{}, map[fragment.NodeID][]fragment.RFTarget{}
	var walk func(n *fragment.Node)
	walk = func(n *fragment.Node) {
		if len(n.RFBuild) > 0 {
			d.rfBuild[n.ID] = n.RFBuild
		}
		if len(n.RFTarget) > 0 {
			d.rfTarget[n.ID] = n.RFTarget
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	for _, f := range plan.Fragments {
		walk(f.Root)
	}
}

func (d *distPlanner) visible(n *pnode) *pnode {
	n.pl = d
	if !n.hidden {
		n.id = d.nextVisible
		d.nextVisible++
	}
	return n
}

func (d *distPlanner) newCol(name string, t types.T, null bool) logical.Column {
	c := logical.Column{ID: d.nextCol, Name: name, T: t, Null: null}
	d.nextCol++
	return c
}

// build turns a logical subtree into physical operators with statistics.
func (d *distPlanner) build(n logical.Node) (*pnode, error) {
	if err := d.ctx.cancelled(); err != nil {
		return nil, err
	}
	pn, err := d.buildOp(n)
	if err != nil {
		return nil, err
	}
	if _, scanFilter := n.(*logical.Filter); !scanFilter || pn.op != opScan {
		d.markParams(pn, n)
	}
	return pn, nil
}

func (d *distPlanner) buildOp(n logical.Node) (*pnode, error) {
	switch x := n.(type) {
	case *logical.Scan:
		return d.buildScan(x, nil)
	case *logical.Filter:
		if s, ok := x.Input.(*logical.Scan); ok {
			return d.buildScan(s, x.Conds)
		}
		if a, ok := x.Input.(*logical.Aggregate); ok {
			pn, err := d.buildAgg(a)
			if err != nil {
				return nil, err
			}
			pn.agg.having, pn.agg.havingGuess = x.Conds, true
			pn.rows = filtered(pn.rows, len(x.Conds))
			return pn, nil
		}
		c, err := d.build(x.Input)
		if err != nil {
			return nil, err
		}
		rows, est := d.filterRows(c.rows, x.Conds)
		return d.visible(&pnode{op: opFilter, children: []*pnode{c}, cols: c.cols, conds: x.Conds,
			rows: rows, est: est, width: c.width}), nil
	case *logical.Project:
		c, err := d.build(x.Input)
		if err != nil {
			return nil, err
		}
		w := 0.0
		for i, col := range x.Cols {
			w += float64(col.T.Width())
			d.subst[col.ID] = d.display(x.Exprs[i])
			d.passStats(col.ID, x.Exprs[i])
			if r, ok := stripCasts(x.Exprs[i]).(*expr.ColRef); ok && r == x.Exprs[i] {
				d.eq.Union(col.ID, logical.ColumnID(r.Index))
			}
		}
		return d.visible(&pnode{op: opProject, hidden: true, children: []*pnode{c}, cols: x.Cols, exprs: x.Exprs, rows: c.rows, width: w}), nil
	case *logical.Limit:
		if s, ok := x.Input.(*logical.Sort); ok && x.Count >= 0 {
			c, err := d.build(s.Input)
			if err != nil {
				return nil, err
			}
			return d.visible(&pnode{op: opTopN, children: []*pnode{c}, cols: c.cols, keys: s.Keys, offset: x.Offset, count: x.Count,
				rows: min(c.rows, x.Count), width: c.width}), nil
		}
		c, err := d.build(x.Input)
		if err != nil {
			return nil, err
		}
		rows := c.rows
		if x.Count >= 0 && (rows < 0 || rows > x.Count) {
			rows = x.Count
		}
		return d.visible(&pnode{op: opLimit, hidden: true, children: []*pnode{c}, cols: c.cols, offset: x.Offset, count: x.Count, rows: rows, width: c.width}), nil
	case *logical.Sort:
		c, err := d.build(x.Input)
		if err != nil {
			return nil, err
		}
		return d.visible(&pnode{op: opSort, children: []*pnode{c}, cols: c.cols, keys: x.Keys, rows: c.rows, width: c.width}), nil
	case *logical.Values:
		w := 0.0
		for _, c := range x.Cols {
			w += float64(c.T.Width())
		}
		rows := int64(len(x.Rows))
		if x.System {
			rows = -1 // DORIS-PLANNING.md: a non-OLAP scan's cardinality is unknown
		}
		return d.visible(&pnode{op: opValues, cols: x.Cols, values: x, rows: rows, width: w,
			del: props.Delivered{Kind: props.DelSingle}}), nil
	case *logical.Join:
		return d.buildJoin(x)
	case *logical.Aggregate:
		return d.buildAgg(x)
	case *logical.SetOp:
		var cs []*pnode
		var rows int64
		for _, in := range x.Ins {
			c, err := d.build(in)
			if err != nil {
				return nil, err
			}
			cs = append(cs, c)
			rows = addRows(rows, c.rows)
		}
		w := 0.0
		for _, c := range x.Cols {
			w += float64(c.T.Width())
		}
		return d.visible(&pnode{op: opSetOp, children: cs, cols: x.Cols, setop: x, rows: rows, width: w}), nil
	case *logical.Window:
		c, err := d.build(x.Input)
		if err != nil {
			return nil, err
		}
		w := c.width
		for _, call := range x.Calls {
			w += float64(call.Col.T.Width())
			d.subst[call.Col.ID] = &expr.Call{Fn: call.Fn, Args: d.displayAll(call.Args), T: call.Col.T}
		}
		return d.visible(&pnode{op: opWindow, children: []*pnode{c}, cols: x.Columns(), window: x, rows: c.rows, width: w}), nil
	case *logical.Repeat:
		return d.buildRepeat(x)
	case *logical.Apply:
		return d.buildApply(x)
	case *logical.TableFunc:
		// Generated in one instance (Doris's default backend_num=1); a
		// non-OLAP scan has no row estimate (DORIS-PLANNING.md §2 Stats).
		return d.visible(&pnode{op: opTableFunc, cols: x.Cols, tfunc: x, rows: -1, width: 8,
			del: props.Delivered{Kind: props.DelSingle}}), nil
	}
	return nil, sqlerr.Assertf("physical: cannot plan %T", n)
}

func filtered(rows int64, preds int) int64 {
	if rows < 0 || preds == 0 {
		return rows
	}
	r := float64(rows) * math.Pow(0.1, float64(preds))
	return max(1, int64(math.Round(r)))
}

func addRows(a, b int64) int64 {
	if a < 0 || b < 0 {
		return -1
	}
	return a + b
}

func (d *distPlanner) buildScan(s *logical.Scan, conds []expr.Expr) (*pnode, error) {
	all := append(append([]expr.Expr{}, s.Filters...), conds...)
	own, outer := d.splitParams(all)
	if len(outer) > 0 {
		// Conditions on an Apply's outer row filter above the scan, in
		// the row's instance; the scan keeps its own.
		sc, err := d.buildScanOnly(s, own)
		if err != nil {
			return nil, err
		}
		rows, est := d.filterRows(sc.rows, outer)
		return d.visible(&pnode{op: opFilter, children: []*pnode{sc}, cols: sc.cols, conds: outer, params: true,
			rows: rows, est: est, width: sc.width}), nil
	}
	return d.buildScanOnly(s, own)
}

func (d *distPlanner) buildScanOnly(s *logical.Scan, conds []expr.Expr) (*pnode, error) {
	t := s.Table
	d.scanStats(s)
	so := &scanOp{ls: s, conds: conds}
	var rows int64
	bes := map[fragment.BackendID]bool{}
	buckets := selectedBuckets(t, s, so.conds)
	for _, part := range t.Partitions {
		// A partition never loaded has nothing to read (Doris shows
		// partitions=0/n); nor has one the predicates exclude.
		if part.VisibleVersion <= 1 || !partitionSelected(t, part, s, so.conds) {
			continue
		}
		so.parts++
		so.partIDs = append(so.partIDs, part.ID)
		for _, tb := range part.Tablets {
			if buckets != nil && !buckets[tb.Bucket] {
				continue
			}
			ref := tabletRef(tb, part.VisibleVersion)
			so.tablets = append(so.tablets, ref)
			if len(ref.Replicas) > 0 {
				bes[ref.Replicas[0]] = true
			}
			rows += tb.RowCount
		}
	}
	so.backends = len(bes)
	so.total = rows
	if g, ok := d.ctx.Cat.GroupOfTable(t); ok {
		so.group = g
	}
	for _, dc := range t.Dist.Columns {
		id := props.UnknownKey
		for i, o := range s.Ords {
			if o == dc {
				id = s.Cols[i].ID
			}
		}
		so.distIDs = append(so.distIDs, id)
	}
	w := 0.0
	for _, c := range s.Cols {
		w += float64(c.T.Width())
	}
	frows, est := d.filterRows(rows, so.conds)
	if est == "" {
		est = "tablet row counts"
		if len(so.conds) > 0 {
			est += ", a tenth per predicate"
		}
	}
	n := &pnode{op: opScan, cols: s.Cols, scan: so, rows: frows, est: est, width: w}
	n.del = d.scanDelivered(so)
	return d.visible(n), nil
}

// hashPartitioned: the scan fragment is HASH_PARTITIONED on the storage
// distribution (DORIS-PLANNING.md §3).
func (so *scanOp) hashPartitioned() bool {
	t := so.ls.Table
	if t.Dist.Kind != catalog.DistHash {
		return false
	}
	return t.PartKind == catalog.PartNone || len(t.Partitions) == 1 || so.stableGroup()
}

// bucketAligned: the scan's instances can be placed by bucket, which is
// also so when pruning left one partition of several (a bucket shuffle
// join into it, rule B6), though EXPLAIN prints such a fragment RANDOM.
func (so *scanOp) bucketAligned() bool {
	return so.hashPartitioned() || so.ls.Table.Dist.Kind == catalog.DistHash && so.parts <= 1
}

func (so *scanOp) stableGroup() bool { return so.group != nil && !so.group.Unstable }

func (so *scanOp) layout() *props.BucketLayout {
	l := &props.BucketLayout{Table: int64(so.ls.Table.ID), Buckets: so.ls.Table.Dist.Buckets}
	if so.stableGroup() {
		l.Group = int64(so.group.ID)
	}
	return l
}

func (d *distPlanner) scanDelivered(so *scanOp) props.Delivered {
	if !so.hashPartitioned() {
		return props.Delivered{Kind: props.DelRandom}
	}
	return props.Delivered{Kind: props.DelStorageBucketed, Keys: so.distIDs, Layout: so.layout()}
}

func (d *distPlanner) buildAgg(a *logical.Aggregate) (*pnode, error) {
	c, err := d.build(a.Input)
	if err != nil {
		return nil, err
	}
	w := 0.0
	for i, g := range a.GroupCols {
		w += float64(g.T.Width())
		d.subst[g.ID] = d.display(a.Groups[i])
		d.passStats(g.ID, a.Groups[i])
		if r, ok := a.Groups[i].(*expr.ColRef); ok {
			d.eq.Union(g.ID, logical.ColumnID(r.Index))
		}
	}
	for _, call := range a.Aggs {
		cw := call.Col.T.Width()
		if (call.Fn == "count" || call.Fn == "sum") && call.Col.T.IsInteger() {
			cw = 8
		}
		w += float64(cw)
		d.subst[call.Col.ID] = aggDisplay(call.Fn, d.displayAll(call.Args), call.Distinct, call.Col.T)
	}
	rows, est := d.groupRows(c.rows, a.Groups)
	if len(a.Groups) == 0 {
		rows, est = 1, "one row (no GROUP BY)"
	}
	return d.visible(&pnode{op: opAgg, children: []*pnode{c}, cols: a.Columns(), agg: &aggOp{l: a}, rows: rows, est: est, width: w}), nil
}

// aggDisplay is the EXPLAIN text of an aggregate call.
func aggDisplay(fn string, args []expr.Expr, distinct bool, t types.T) expr.Expr {
	if len(args) == 0 {
		args = []expr.Expr{&expr.ColRef{Name: "*", T: t}}
	}
	if distinct {
		fn += " DISTINCT"
	}
	return &expr.Call{Fn: fn, Args: args, T: t}
}

func stripCasts(e expr.Expr) expr.Expr {
	for {
		c, ok := e.(*expr.Cast)
		if !ok {
			return e
		}
		e = c.Arg
	}
}

// display substitutes each column by the expression that computes it.
func (d *distPlanner) display(e expr.Expr) expr.Expr {
	out, err := expr.Rewrite(e, func(x expr.Expr) (expr.Expr, error) {
		if r, ok := x.(*expr.ColRef); ok {
			if s, ok := d.subst[logical.ColumnID(r.Index)]; ok {
				return s, nil
			}
		}
		return x, nil
	})
	if err != nil {
		return e
	}
	return out
}

func (d *distPlanner) displayAll(es []expr.Expr) []expr.Expr {
	out := make([]expr.Expr, len(es))
	for i, e := range es {
		out[i] = d.display(e)
	}
	return out
}
