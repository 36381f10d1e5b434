// Package physical turns an optimised logical plan into the distributed
// physical plan (planner/fragment): it places operators, inserts exchanges
// and cuts fragments. This first version handles scan/filter/project/limit
// trees: the scan side runs on the backends holding the tablets and a
// gather exchange brings its rows to the root fragment on the FE.
package physical

import (
	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// Plan builds the fragments for root; out names the result columns.
func Plan(root logical.Node, out []types.Column) (*fragment.Plan, error) {
	p := &planner{}
	plan := &fragment.Plan{Output: out}
	// Peel a top LIMIT: it runs at the root; the backends get a pushed-down
	// LIMIT offset+count so each instance stops early.
	var lim *logical.Limit
	body := root
	if l, ok := root.(*logical.Limit); ok {
		lim, body = l, l.Input
	}
	if !hasScan(body) {
		n, err := p.lower(root)
		if err != nil {
			return nil, err
		}
		plan.Fragments = []*fragment.Fragment{{ID: 0, Root: n, Partition: fragment.Unpartitioned, Sink: fragment.Sink{Kind: fragment.ResultSink}}}
		return plan, nil
	}
	child, err := p.lower(body)
	if err != nil {
		return nil, err
	}
	if lim != nil && lim.Count >= 0 {
		child = p.node(fragment.KindLimit, child.Output, child, func(n *fragment.Node) {
			n.Limit = &fragment.LimitSpec{Count: lim.Offset + lim.Count}
		})
	}
	ex := p.node(fragment.KindExchange, child.Output, nil, func(n *fragment.Node) {
		n.Exchange = &fragment.ExchangeSpec{From: 1}
	})
	top := ex
	if lim != nil {
		top = p.node(fragment.KindLimit, ex.Output, ex, func(n *fragment.Node) {
			n.Limit = &fragment.LimitSpec{Offset: lim.Offset, Count: lim.Count}
		})
	}
	plan.Fragments = []*fragment.Fragment{
		{ID: 0, Root: top, Partition: fragment.Unpartitioned, Sink: fragment.Sink{Kind: fragment.ResultSink}},
		{ID: 1, Root: child, Partition: fragment.RandomPartitioned, Sink: fragment.Sink{Kind: fragment.StreamGather, ExchangeID: ex.ID}},
	}
	return plan, nil
}

type planner struct {
	nextID fragment.NodeID
}

func (p *planner) node(k fragment.NodeKind, out []types.Column, child *fragment.Node, fill func(*fragment.Node)) *fragment.Node {
	n := &fragment.Node{ID: p.nextID, Kind: k, Output: out}
	p.nextID++
	if child != nil {
		n.Children = []*fragment.Node{child}
	}
	fill(n)
	return n
}

func hasScan(n logical.Node) bool {
	if _, ok := n.(*logical.Scan); ok {
		return true
	}
	for _, c := range n.Inputs() {
		if hasScan(c) {
			return true
		}
	}
	return false
}

// lower converts a logical subtree, remapping column ids to input positions.
func (p *planner) lower(n logical.Node) (*fragment.Node, error) {
	switch n := n.(type) {
	case *logical.Scan:
		return p.lowerScan(n, nil)
	case *logical.Filter:
		if sc, ok := n.Input.(*logical.Scan); ok {
			return p.lowerScan(sc, n.Conds)
		}
		child, err := p.lower(n.Input)
		if err != nil {
			return nil, err
		}
		conds, err := remapAll(n.Conds, n.Input.Columns())
		if err != nil {
			return nil, err
		}
		return p.node(fragment.KindFilter, child.Output, child, func(f *fragment.Node) {
			f.Filter = &fragment.FilterSpec{Conjuncts: fragment.Exs(conds)}
		}), nil
	case *logical.Project:
		child, err := p.lower(n.Input)
		if err != nil {
			return nil, err
		}
		exprs, err := remapAll(n.Exprs, n.Input.Columns())
		if err != nil {
			return nil, err
		}
		return p.node(fragment.KindProject, logical.TypedColumns(n.Cols), child, func(f *fragment.Node) {
			f.Project = &fragment.ProjectSpec{Exprs: fragment.Exs(exprs)}
		}), nil
	case *logical.Limit:
		child, err := p.lower(n.Input)
		if err != nil {
			return nil, err
		}
		return p.node(fragment.KindLimit, child.Output, child, func(f *fragment.Node) {
			f.Limit = &fragment.LimitSpec{Offset: n.Offset, Count: n.Count}
		}), nil
	case *logical.Values:
		rows := make([][]fragment.Ex, len(n.Rows))
		for i, r := range n.Rows {
			rows[i] = fragment.Exs(r)
		}
		return p.node(fragment.KindValues, logical.TypedColumns(n.Cols), nil, func(f *fragment.Node) {
			f.Values = &fragment.ValuesSpec{Rows: rows}
		}), nil
	}
	return nil, sqlerr.Assertf("cannot lower %T", n)
}

func (p *planner) lowerScan(s *logical.Scan, conds []expr.Expr) (*fragment.Node, error) {
	conds = append(append([]expr.Expr{}, s.Filters...), conds...)
	remapped, err := remapAll(conds, s.Cols)
	if err != nil {
		return nil, err
	}
	spec := &fragment.ScanSpec{DB: s.DB, Table: s.Table.Name, TableID: int64(s.Table.ID), Columns: s.Ords,
		Conjuncts: fragment.Exs(remapped), TotalParts: len(s.Table.Partitions)}
	for _, part := range s.Table.Partitions {
		spec.TotalTablets += len(part.Tablets)
		// A partition never loaded has nothing to read (Doris shows partitions=0/n).
		if part.VisibleVersion <= 1 {
			continue
		}
		spec.Partitions++
		for _, t := range part.Tablets {
			spec.Tablets = append(spec.Tablets, tabletRef(t, part.VisibleVersion))
		}
	}
	return p.node(fragment.KindScan, logical.TypedColumns(s.Cols), nil, func(f *fragment.Node) { f.Scan = spec }), nil
}

func tabletRef(t *catalog.Tablet, v storage.Version) fragment.TabletRef {
	r := fragment.TabletRef{Tablet: t.ID, Version: v, Bucket: t.Bucket}
	for _, rep := range t.Replicas {
		r.Replicas = append(r.Replicas, fragment.BackendID(rep.BackendID))
	}
	return r
}

// remapAll rewrites column references from ids to positions in cols.
func remapAll(es []expr.Expr, cols []logical.Column) ([]expr.Expr, error) {
	pos := make(map[int]int, len(cols))
	for i, c := range cols {
		pos[int(c.ID)] = i
	}
	out := make([]expr.Expr, len(es))
	for i, e := range es {
		r, err := expr.Rewrite(e, func(x expr.Expr) (expr.Expr, error) {
			ref, ok := x.(*expr.ColRef)
			if !ok {
				return x, nil
			}
			p, ok := pos[ref.Index]
			if !ok {
				return nil, sqlerr.Assertf("column %s (#%d) not in input", ref.Name, ref.Index)
			}
			cp := *ref
			cp.Index = p
			return &cp, nil
		})
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}
