package physical

import (
	"fmt"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// planner writes plan nodes while emitting (emit.go): node ids, and
// expressions turned from column ids into input positions, with an
// enclosing Apply's outer columns as parameters.
type planner struct {
	plan   *fragment.Plan
	nextID fragment.NodeID
	// params maps outer column ids to parameter positions while emitting an
	// Apply's subquery (innermost last).
	params []map[int]paramRef
}

type paramRef struct {
	pos int
	t   types.T
}

func (p *planner) node(k fragment.NodeKind, out []types.Column, children []*fragment.Node, fill func(*fragment.Node)) *fragment.Node {
	n := &fragment.Node{ID: p.nextID, Kind: k, Output: out, Children: children}
	p.nextID++
	fill(n)
	return n
}

func tabletRef(t *catalog.Tablet, v storage.Version) fragment.TabletRef {
	r := fragment.TabletRef{Tablet: t.ID, Version: v, Bucket: t.Bucket}
	for _, rep := range t.Replicas {
		r.Replicas = append(r.Replicas, fragment.BackendID(rep.BackendID))
	}
	return r
}

func (p *planner) sortKeys(keys []logical.SortKey, cols []logical.Column) ([]fragment.SortKey, error) {
	out := make([]fragment.SortKey, len(keys))
	for i, k := range keys {
		x, err := p.remap(k.Expr, cols)
		if err != nil {
			return nil, err
		}
		out[i] = fragment.SortKey{Expr: fragment.Ex{Expr: x}, Desc: k.Desc, NullsFirst: k.NullsFirst}
	}
	return out, nil
}

// remapAll rewrites column references from ids to positions in cols; ids of
// an enclosing query's row become parameters.
func (p *planner) remapAll(es []expr.Expr, cols []logical.Column) ([]expr.Expr, error) {
	out := make([]expr.Expr, len(es))
	for i, e := range es {
		x, err := p.remap(e, cols)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}

func (p *planner) remap(e expr.Expr, cols []logical.Column) (expr.Expr, error) {
	pos := make(map[int]int, len(cols))
	for i, c := range cols {
		pos[int(c.ID)] = i
	}
	return expr.Rewrite(e, func(x expr.Expr) (expr.Expr, error) {
		ref, ok := x.(*expr.ColRef)
		if !ok {
			return x, nil
		}
		if i, ok := pos[ref.Index]; ok {
			cp := *ref
			cp.Index = i
			return &cp, nil
		}
		for j := len(p.params) - 1; j >= 0; j-- {
			if pr, ok := p.params[j][ref.Index]; ok {
				return &expr.Param{Index: pr.pos, T: pr.t}, nil
			}
		}
		return nil, sqlerr.Assertf("column %s (#%d) not in input", ref.Name, ref.Index)
	})
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
			cur = p.node(fragment.KindSort, cur.Output, []*fragment.Node{cur}, func(f *fragment.Node) {
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
		cur = p.node(fragment.KindWindow, logical.TypedColumns(curCols), []*fragment.Node{cur}, func(f *fragment.Node) { f.Window = spec })
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
	return p.node(fragment.KindProject, logical.TypedColumns(n.Columns()), []*fragment.Node{cur}, func(f *fragment.Node) {
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
