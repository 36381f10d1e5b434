package physical

import (
	"fmt"

	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// ParamDepthStride separates the parameter numbers of nested Apply levels:
// level d's outer column i is parameter d*ParamDepthStride + i.
const ParamDepthStride = 10000

func (p *planner) lowerJoin(n *logical.Join) (*fragment.Node, error) {
	jt := n.Type
	l, r := n.Left, n.Right
	equi := n.Equi
	// Nested loops only build the right side of left-preserving joins:
	// mirror a RIGHT OUTER JOIN without equi keys.
	swapped := false
	if len(equi) == 0 && jt == logical.RightOuterJoin {
		jt, l, r, swapped = logical.LeftOuterJoin, r, l, true
	}
	left, err := p.lower(l)
	if err != nil {
		return nil, err
	}
	right, err := p.lower(r)
	if err != nil {
		return nil, err
	}
	both := append(append([]logical.Column{}, l.Columns()...), r.Columns()...)
	other, err := p.remapAll(n.Other, both)
	if err != nil {
		return nil, err
	}
	var out []logical.Column
	if jt.KeepsLeft() {
		out = append(out, l.Columns()...)
	}
	if jt.KeepsRight() {
		out = append(out, r.Columns()...)
	}
	spec := &fragment.JoinSpec{Type: fragment.JoinType(jt), Other: fragment.Exs(other)}
	kind := fragment.KindNestedLoopJoin
	if len(equi) > 0 {
		kind = fragment.KindHashJoin
		for _, e := range equi {
			lk, err := p.remap(e.L, l.Columns())
			if err != nil {
				return nil, err
			}
			rk, err := p.remap(e.R, r.Columns())
			if err != nil {
				return nil, err
			}
			spec.LeftKeys = append(spec.LeftKeys, fragment.Ex{Expr: lk})
			spec.RightKeys = append(spec.RightKeys, fragment.Ex{Expr: rk})
			spec.NullSafe = append(spec.NullSafe, e.NullSafe)
		}
	} else if jt == logical.FullOuterJoin || jt == logical.RightSemiJoin || jt == logical.RightAntiJoin {
		return nil, sqlerr.NotSupportedYet.New(jt.String() + " without an equality condition")
	}
	j := p.node(kind, logical.TypedColumns(out), []*fragment.Node{left, right}, func(f *fragment.Node) { f.Join = spec })
	if !swapped {
		return j, nil
	}
	// Restore the written column order (left ++ right).
	var exprs []expr.Expr
	for _, c := range n.Columns() {
		x, err := p.remap(c.Ref(), out)
		if err != nil {
			return nil, err
		}
		exprs = append(exprs, x)
	}
	return p.node(fragment.KindProject, logical.TypedColumns(n.Columns()), one(j), func(f *fragment.Node) {
		f.Project = &fragment.ProjectSpec{Exprs: fragment.Exs(exprs)}
	}), nil
}

func (p *planner) lowerAgg(n *logical.Aggregate) (*fragment.Node, error) {
	child, err := p.lower(n.Input)
	if err != nil {
		return nil, err
	}
	in := n.Input.Columns()
	groups, err := p.remapAll(n.Groups, in)
	if err != nil {
		return nil, err
	}
	spec := &fragment.AggSpec{Phase: fragment.AggUpdateFinalize, Groups: fragment.Exs(groups)}
	for _, a := range n.Aggs {
		args, err := p.remapAll(a.Args, in)
		if err != nil {
			return nil, err
		}
		at := types.NullT
		if len(a.Args) > 0 {
			at = a.Args[0].Type()
		}
		spec.Aggs = append(spec.Aggs, fragment.AggCall{Fn: a.Fn, Args: fragment.Exs(args), ArgType: at, Distinct: a.Distinct, Separator: a.Separator})
	}
	return p.node(fragment.KindAgg, logical.TypedColumns(n.Columns()), one(child), func(f *fragment.Node) { f.Agg = spec }), nil
}

// lowerWindow sorts by each distinct PARTITION BY + ORDER BY and computes
// the calls sharing it, then restores the logical column order.
func (p *planner) lowerWindow(n *logical.Window) (*fragment.Node, error) {
	cur, err := p.lower(n.Input)
	if err != nil {
		return nil, err
	}
	return p.lowerWindowOver(n, cur)
}

// lowerWindowOver computes n's calls over its already lowered input cur.
func (p *planner) lowerWindowOver(n *logical.Window, cur *fragment.Node) (*fragment.Node, error) {
	curCols := append([]logical.Column{}, n.Input.Columns()...)
	done := make([]bool, len(n.Calls))
	for i := range n.Calls {
		if done[i] {
			continue
		}
		key := windowKey(n.Calls[i])
		var group []logical.WindowCall
		for j := i; j < len(n.Calls); j++ {
			if !done[j] && windowKey(n.Calls[j]) == key {
				done[j] = true
				group = append(group, n.Calls[j])
			}
		}
		first := group[0]
		var sortKeys []logical.SortKey
		for _, e := range first.PartitionBy {
			sortKeys = append(sortKeys, logical.SortKey{Expr: e, NullsFirst: true})
		}
		sortKeys = append(sortKeys, first.OrderBy...)
		if len(sortKeys) > 0 {
			keys, err := p.sortKeys(sortKeys, curCols)
			if err != nil {
				return nil, err
			}
			cur = p.node(fragment.KindSort, cur.Output, one(cur), func(f *fragment.Node) {
				f.Sort = &fragment.SortSpec{Keys: keys}
			})
		}
		spec := &fragment.WindowSpec{}
		part, err := p.remapAll(first.PartitionBy, curCols)
		if err != nil {
			return nil, err
		}
		spec.PartitionBy = fragment.Exs(part)
		if spec.OrderBy, err = p.sortKeys(first.OrderBy, curCols); err != nil {
			return nil, err
		}
		for _, c := range group {
			args, err := p.remapAll(c.Args, curCols)
			if err != nil {
				return nil, err
			}
			at := types.NullT
			if len(c.Args) > 0 {
				at = c.Args[0].Type()
			}
			wc := fragment.WindowCall{Fn: c.Fn, Args: fragment.Exs(args), ArgType: at}
			if c.Frame != nil {
				wc.Frame = &fragment.Frame{Rows: c.Frame.Rows,
					Start: fragment.FrameBound{Kind: c.Frame.Start.Kind, Offset: c.Frame.Start.Offset},
					End:   fragment.FrameBound{Kind: c.Frame.End.Kind, Offset: c.Frame.End.Offset}}
			}
			spec.Calls = append(spec.Calls, wc)
			curCols = append(curCols, c.Col)
		}
		cur = p.node(fragment.KindWindow, logical.TypedColumns(curCols), one(cur), func(f *fragment.Node) { f.Window = spec })
	}
	// Calls were computed grouped by window; put them back in order.
	var exprs []expr.Expr
	for _, c := range n.Columns() {
		x, err := p.remap(c.Ref(), curCols)
		if err != nil {
			return nil, err
		}
		exprs = append(exprs, x)
	}
	return p.node(fragment.KindProject, logical.TypedColumns(n.Columns()), one(cur), func(f *fragment.Node) {
		f.Project = &fragment.ProjectSpec{Exprs: fragment.Exs(exprs)}
	}), nil
}

func windowKey(c logical.WindowCall) string {
	s := ""
	for _, e := range c.PartitionBy {
		s += e.String() + ","
	}
	s += "|"
	for _, k := range c.OrderBy {
		s += fmt.Sprintf("%s %v %v,", k.Expr, k.Desc, k.NullsFirst)
	}
	return s
}

// lowerApply lowers the outer side here and the subquery as a node tree the
// Apply operator instantiates per outer row; the subquery reads the outer
// row's columns as parameters (ParamDepthStride * depth + position).
func (p *planner) lowerApply(n *logical.Apply) (*fragment.Node, error) {
	outer, err := p.lower(n.Outer)
	if err != nil {
		return nil, err
	}
	oc := n.Outer.Columns()
	depth := len(p.params)
	m := make(map[int]paramRef, len(oc))
	for i, c := range oc {
		m[int(c.ID)] = paramRef{pos: depth*ParamDepthStride + i, t: c.T}
	}
	p.params = append(p.params, m)
	sub, err := p.lower(n.Sub)
	p.params = p.params[:len(p.params)-1]
	if err != nil {
		return nil, err
	}
	spec := &fragment.ApplySpec{Kind: fragment.ApplyKind(n.Kind), Sub: sub}
	if n.Probe != nil {
		probe, err := p.remap(n.Probe, oc)
		if err != nil {
			return nil, err
		}
		spec.Probe = fragment.Ex{Expr: probe}
	}
	return p.node(fragment.KindApply, logical.TypedColumns(n.Columns()), one(outer), func(f *fragment.Node) { f.Apply = spec }), nil
}
