package physical

import (
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/planner/props"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// emit writes the fragments as plan data (planner/fragment). Expressions
// turn from column ids into input positions; operators EXPLAIN hides
// (projections, limits, HAVING filters) get ids after every shown one.
func (d *distPlanner) emit(frags []*pfrag, out []types.Column) (*fragment.Plan, error) {
	p := &planner{plan: &fragment.Plan{Output: out}, nextID: d.nextVisible + fragment.NodeID(len(d.enforced))}
	for _, f := range frags {
		root, err := d.emitNode(p, f.root)
		if err != nil {
			return nil, err
		}
		ff := &fragment.Fragment{ID: f.id, Root: root, Sink: fragment.Sink{Kind: fragment.ResultSink}, Tasks: f.tasks}
		if f.sinkLocal != nil {
			le, err := p.localExchange(*f.sinkLocal, f.root.cols)
			if err != nil {
				return nil, err
			}
			ff.SinkLocal = &le
		}
		ff.Partition, ff.PartKeys = d.partition(p, f)
		if f.table != nil {
			ff.Sink = fragment.Sink{Kind: fragment.TableSinkKind, Table: f.table.spec}
		}
		if x := f.sink; x != nil {
			ff.Sink.ExchangeID = x.id
			switch x.exch.req.Kind {
			case props.ReqSingle:
				ff.Sink.Kind = fragment.StreamGather
			case props.ReqReplicated:
				ff.Sink.Kind = fragment.StreamBroadcast
			case props.ReqExecRandom:
				ff.Sink.Kind = fragment.StreamRandom
			case props.ReqHash, props.ReqBucket:
				ff.Sink.Kind = fragment.StreamHash
				if x.exch.req.Kind == props.ReqBucket {
					ff.Sink.Kind, ff.Sink.Buckets = fragment.StreamBucketHash, x.exch.buckets
				}
				keys, err := p.remapAll(x.exch.keys, f.root.cols)
				if err != nil {
					return nil, err
				}
				ff.Sink.Keys = fragment.Exs(keys)
			}
		}
		p.plan.Fragments = append(p.plan.Fragments, ff)
	}
	return p.plan, nil
}

// partition derives a fragment's partition from its left-most leaf.
func (d *distPlanner) partition(p *planner, f *pfrag) (fragment.PartitionKind, []fragment.Ex) {
	l := leftmost(f.root)
	switch l.op {
	case opScan:
		if !l.scan.bucketAligned() {
			return fragment.RandomPartitioned, nil
		}
		keys, err := p.remapAll(refs(l.cols, l.scan.distIDs), l.cols)
		if err != nil {
			return fragment.HashPartitioned, nil
		}
		return fragment.HashPartitioned, fragment.Exs(keys)
	case opExchange:
		switch l.exch.req.Kind {
		case props.ReqSingle:
			return fragment.Unpartitioned, nil
		case props.ReqExecRandom:
			return fragment.RandomPartitioned, nil
		case props.ReqHash, props.ReqBucket:
			keys, err := p.remapAll(l.exch.keys, l.cols)
			if err != nil {
				return fragment.HashPartitioned, nil
			}
			return fragment.HashPartitioned, fragment.Exs(keys)
		}
		return fragment.HashPartitioned, nil
	}
	return fragment.Unpartitioned, nil
}

func (d *distPlanner) withID(n *fragment.Node, pn *pnode) *fragment.Node {
	if !pn.hidden {
		n.ID = pn.id
	}
	if pn.local != nil {
		n.LocalExchanges = make([]fragment.LocalExchange, len(pn.local))
		for i, dec := range pn.local {
			le, err := (&planner{}).localExchange(dec, pn.children[i].cols)
			if err != nil {
				le = fragment.LocalExchange{Kind: dec.kind}
			}
			n.LocalExchanges[i] = le
		}
	}
	return n
}

// localExchange is a decision as plan data, keys over the child's columns.
func (p *planner) localExchange(dec localDecision, cols []logical.Column) (fragment.LocalExchange, error) {
	le := fragment.LocalExchange{Kind: dec.kind}
	if len(dec.keys) == 0 {
		return le, nil
	}
	keys, err := p.remapAll(dec.keys, cols)
	if err != nil {
		return le, err
	}
	le.Keys = fragment.Exs(keys)
	return le, nil
}

func (d *distPlanner) emitNode(p *planner, n *pnode) (*fragment.Node, error) {
	if err := d.ctx.cancelled(); err != nil {
		return nil, err
	}
	if n.op == opExchange {
		x := p.node(fragment.KindExchange, logical.TypedColumns(n.cols), nil, func(f *fragment.Node) {
			f.Exchange = &fragment.ExchangeSpec{From: n.child().frag.id, Merge: n.exch.merge}
		})
		if n.exch.merge {
			keys, err := p.sortKeys(n.exch.sort, n.cols)
			if err != nil {
				return nil, err
			}
			x.Exchange.SortKeys, x.Exchange.Offset, x.Exchange.Limit = keys, n.exch.offset, n.exch.limit
		}
		return d.withID(x, n), nil
	}
	if n.op == opApply {
		return d.emitApply(p, n)
	}
	var kids []*fragment.Node
	for _, c := range n.children {
		k, err := d.emitNode(p, c)
		if err != nil {
			return nil, err
		}
		kids = append(kids, k)
	}
	in := func(i int) []logical.Column { return n.children[i].cols }
	out := logical.TypedColumns(n.cols)
	switch n.op {
	case opScan:
		so := n.scan
		conds, err := p.remapAll(so.conds, n.cols)
		if err != nil {
			return nil, err
		}
		t := so.ls.Table
		spec := &fragment.ScanSpec{DB: so.ls.DB, Table: t.Name, TableID: int64(t.ID), Columns: so.ls.Ords, SchemaVersion: t.SchemaVersion,
			Conjuncts: fragment.Exs(conds), Tablets: so.tablets, Partitions: so.parts, TotalParts: len(t.Partitions)}
		for _, part := range t.Partitions {
			spec.TotalTablets += len(part.Tablets)
		}
		return d.withID(p.node(fragment.KindScan, out, nil, func(f *fragment.Node) { f.Scan = spec }), n), nil
	case opFilter:
		conds, err := p.remapAll(n.conds, in(0))
		if err != nil {
			return nil, err
		}
		return d.withID(p.node(fragment.KindFilter, out, kids, func(f *fragment.Node) {
			f.Filter = &fragment.FilterSpec{Conjuncts: fragment.Exs(conds)}
		}), n), nil
	case opProject:
		exprs, err := p.remapAll(n.exprs, in(0))
		if err != nil {
			return nil, err
		}
		return p.node(fragment.KindProject, out, kids, func(f *fragment.Node) {
			f.Project = &fragment.ProjectSpec{Exprs: fragment.Exs(exprs)}
		}), nil
	case opLimit:
		return p.node(fragment.KindLimit, out, kids, func(f *fragment.Node) {
			f.Limit = &fragment.LimitSpec{Offset: n.offset, Count: n.count}
		}), nil
	case opValues:
		rows := make([][]fragment.Ex, len(n.values.Rows))
		for i, r := range n.values.Rows {
			rr, err := p.remapAll(r, nil)
			if err != nil {
				return nil, err
			}
			rows[i] = fragment.Exs(rr)
		}
		return d.withID(p.node(fragment.KindValues, out, nil, func(f *fragment.Node) {
			f.Values = &fragment.ValuesSpec{Rows: rows}
		}), n), nil
	case opSort, opTopN:
		keys, err := p.sortKeys(n.keys, in(0))
		if err != nil {
			return nil, err
		}
		kind := fragment.KindSort
		spec := &fragment.SortSpec{Keys: keys}
		if n.op == opTopN {
			kind, spec.Offset, spec.Limit = fragment.KindTopN, n.offset, n.count
		}
		return d.withID(p.node(kind, out, kids, func(f *fragment.Node) { f.Sort = spec }), n), nil
	case opTableFunc:
		return d.withID(p.node(fragment.KindTableFunc, out, nil, func(f *fragment.Node) {
			f.TableFunc = &fragment.TableFuncSpec{Fn: n.tfunc.Name, Count: n.tfunc.Count}
		}), n), nil
	case opSetOp:
		return d.withID(p.node(fragment.KindSetOp, out, kids, func(f *fragment.Node) {
			f.SetOp = &fragment.SetOpSpec{Kind: n.setop.Kind}
		}), n), nil
	case opWindow:
		w, err := p.lowerWindowOver(n.window, kids[0])
		if err != nil {
			return nil, err
		}
		return d.withID(w, n), nil
	case opRepeat:
		return d.emitRepeat(p, n, kids)
	case opJoin:
		return d.emitJoin(p, n, kids)
	case opAgg:
		return d.emitAgg(p, n, kids)
	}
	return nil, sqlerr.Assertf("physical: cannot emit op %d", n.op)
}

func (d *distPlanner) emitJoin(p *planner, n *pnode, kids []*fragment.Node) (*fragment.Node, error) {
	j := n.join
	l, r := n.children[0].cols, n.children[1].cols
	other, err := p.remapAll(j.other, append(append([]logical.Column{}, l...), r...))
	if err != nil {
		return nil, err
	}
	spec := &fragment.JoinSpec{Type: j.typ, Other: fragment.Exs(other), Dist: j.dist, Adaptive: j.adaptive}
	kind := fragment.KindNestedLoopJoin
	if !j.nested() {
		kind = fragment.KindHashJoin
		if j.sortMerge {
			spec.Algorithm = fragment.AlgoSortMerge
		}
		for _, e := range j.equi {
			lk, err := p.remap(e.L, l)
			if err != nil {
				return nil, err
			}
			rk, err := p.remap(e.R, r)
			if err != nil {
				return nil, err
			}
			spec.LeftKeys = append(spec.LeftKeys, fragment.Ex{Expr: lk})
			spec.RightKeys = append(spec.RightKeys, fragment.Ex{Expr: rk})
			spec.NullSafe = append(spec.NullSafe, e.NullSafe)
		}
	}
	return d.withID(p.node(kind, logical.TypedColumns(n.cols), kids, func(f *fragment.Node) { f.Join = spec }), n), nil
}

func colRefs(cols []logical.Column) []expr.Expr {
	out := make([]expr.Expr, len(cols))
	for i, c := range cols {
		out[i] = c.Ref()
	}
	return out
}

func (d *distPlanner) emitAgg(p *planner, n *pnode, kids []*fragment.Node) (*fragment.Node, error) {
	a := n.agg
	in := n.child().cols
	spec := &fragment.AggSpec{Phase: a.phase}
	if a.merge != nil {
		// Merge: groups and partial states are the exchange's columns.
		spec.Groups = fragment.Exs(mustRemap(p, colRefs(a.l.GroupCols), in))
		for i, c := range a.l.Aggs {
			args, err := p.remapAll(colRefs(a.merge.partial[i]), in)
			if err != nil {
				return nil, err
			}
			spec.Aggs = append(spec.Aggs, fragment.AggCall{Fn: c.Fn, Args: fragment.Exs(args), ArgType: argType(c),
				Distinct: c.Distinct, Separator: c.Separator})
		}
	} else {
		groups, err := p.remapAll(a.l.Groups, in)
		if err != nil {
			return nil, err
		}
		spec.Groups = fragment.Exs(groups)
		for _, c := range a.l.Aggs {
			args, err := p.remapAll(c.Args, in)
			if err != nil {
				return nil, err
			}
			spec.Aggs = append(spec.Aggs, fragment.AggCall{Fn: c.Fn, Args: fragment.Exs(args), ArgType: argType(c), Distinct: c.Distinct, Separator: c.Separator})
		}
	}
	an := d.withID(p.node(fragment.KindAgg, logical.TypedColumns(n.cols), kids, func(f *fragment.Node) { f.Agg = spec }), n)
	if len(a.having) == 0 {
		return an, nil
	}
	conds, err := p.remapAll(a.having, n.cols)
	if err != nil {
		return nil, err
	}
	return p.node(fragment.KindFilter, an.Output, []*fragment.Node{an}, func(f *fragment.Node) {
		f.Filter = &fragment.FilterSpec{Conjuncts: fragment.Exs(conds)}
	}), nil
}

func argType(c logical.AggCall) types.T {
	if len(c.Args) > 0 {
		return c.Args[0].Type()
	}
	return types.NullT
}

func mustRemap(p *planner, es []expr.Expr, cols []logical.Column) []expr.Expr {
	out, err := p.remapAll(es, cols)
	if err != nil {
		return es
	}
	return out
}
