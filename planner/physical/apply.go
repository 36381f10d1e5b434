package physical

import (
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/planner/props"
	"github.com/dorisgo/dorisgo/sql/expr"
)

// ParamDepthStride separates the parameter numbers of nested Apply levels:
// level d's outer column i is parameter d*ParamDepthStride + i.
const ParamDepthStride = 10000

// An Apply (a correlated subquery the binder could not decorrelate) runs
// its subquery once per outer row, in the instance holding the outer rows:
// it requires its outer input in one instance, and its subquery's
// operators run in the Apply's fragment (rebuilt per row with the outer
// row as parameters). Operators of the subquery that read the outer row
// (params) require their inputs in one instance too, so the parts that do
// not (scans with their own filters, joins and aggregations below) are cut
// into fragments of their own on the backends, read once and replayed:
//
//	APPLY ── outer (any fragments) ← EXCHANGE
//	   └── FILTER (reads outer.x) ← EXCHANGE ← Fragment n: scan sub
func (d *distPlanner) buildApply(x *logical.Apply) (*pnode, error) {
	outer, err := d.build(x.Outer)
	if err != nil {
		return nil, err
	}
	ids := map[logical.ColumnID]bool{}
	for _, c := range x.Outer.Columns() {
		ids[c.ID] = true
	}
	d.outer = append(d.outer, ids)
	sub, err := d.build(x.Sub)
	d.outer = d.outer[:len(d.outer)-1]
	if err != nil {
		return nil, err
	}
	n := &pnode{op: opApply, children: []*pnode{outer, sub}, cols: x.Columns(), apply: x, rows: outer.rows,
		width: outer.width + float64(x.Col.T.Width())}
	if x.Probe != nil && d.readsOuter(x.Probe) {
		n.params = true
	}
	return d.visible(n), nil
}

// readsOuter reports whether an expression reads an enclosing Apply's
// outer row.
func (d *distPlanner) readsOuter(es ...expr.Expr) bool {
	if len(d.outer) == 0 {
		return false
	}
	found := false
	for _, e := range es {
		if e == nil {
			continue
		}
		expr.Walk(e, func(x expr.Expr) bool {
			if r, ok := x.(*expr.ColRef); ok {
				for _, m := range d.outer {
					found = found || m[logical.ColumnID(r.Index)]
				}
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

// nodeExprs are the expressions a logical operator evaluates itself.
func nodeExprs(x logical.Node) []expr.Expr {
	var out []expr.Expr
	keys := func(ks []logical.SortKey) {
		for _, k := range ks {
			out = append(out, k.Expr)
		}
	}
	switch x := x.(type) {
	case *logical.Filter:
		out = x.Conds
	case *logical.Project:
		out = x.Exprs
	case *logical.Join:
		for _, e := range x.Equi {
			out = append(out, e.L, e.R)
		}
		out = append(out, x.Other...)
	case *logical.Aggregate:
		out = append(out, x.Groups...)
		for _, a := range x.Aggs {
			out = append(out, a.Args...)
		}
	case *logical.Sort:
		keys(x.Keys)
	case *logical.Window:
		for _, c := range x.Calls {
			out = append(out, c.Args...)
			out = append(out, c.PartitionBy...)
			keys(c.OrderBy)
		}
	case *logical.Values:
		for _, r := range x.Rows {
			out = append(out, r...)
		}
	}
	return out
}

// markParams flags n (built from x) when x reads an enclosing Apply's
// outer row; a hidden projection passes the flag to the node it shows.
func (d *distPlanner) markParams(n *pnode, x logical.Node) {
	if len(d.outer) == 0 || !d.readsOuter(nodeExprs(x)...) {
		return
	}
	for m := n; m != nil; {
		m.params = true
		if !m.hidden || len(m.children) == 0 {
			break
		}
		m = m.children[0]
	}
}

// splitParams separates conditions reading an outer row from the rest.
func (d *distPlanner) splitParams(conds []expr.Expr) (own, outer []expr.Expr) {
	for _, c := range conds {
		if d.readsOuter(c) {
			outer = append(outer, c)
		} else {
			own = append(own, c)
		}
	}
	return own, outer
}

// enforceSingle: an operator reading an outer row (or an Apply) runs in
// the one instance holding that row, so each of its inputs is gathered.
func (d *distPlanner) enforceSingle(n *pnode) {
	for i := range n.children {
		n.children[i] = d.requireChild(n, i, sideReq{req: props.Required{Kind: props.ReqSingle}})
	}
	n.del = props.Delivered{Kind: props.DelSingle}
	if n.op == opJoin {
		n.join.dist = fragment.DistNone
	}
}

// emitApply emits the outer input, then the subquery with the outer row's
// columns as parameters (ParamDepthStride * depth + position).
func (d *distPlanner) emitApply(p *planner, n *pnode) (*fragment.Node, error) {
	outer, err := d.emitNode(p, n.children[0])
	if err != nil {
		return nil, err
	}
	oc := n.children[0].cols
	depth := len(p.params)
	m := make(map[int]paramRef, len(oc))
	for i, c := range oc {
		m[int(c.ID)] = paramRef{pos: depth*ParamDepthStride + i, t: c.T}
	}
	p.params = append(p.params, m)
	sub, err := d.emitNode(p, n.children[1])
	p.params = p.params[:len(p.params)-1]
	if err != nil {
		return nil, err
	}
	a := n.apply
	spec := &fragment.ApplySpec{Kind: a.Kind, Sub: sub}
	if a.Probe != nil {
		probe, err := p.remap(a.Probe, oc)
		if err != nil {
			return nil, err
		}
		spec.Probe = fragment.Ex{Expr: probe}
	}
	return d.withID(p.node(fragment.KindApply, logical.TypedColumns(n.cols), []*fragment.Node{outer}, func(f *fragment.Node) { f.Apply = spec }), n), nil
}
