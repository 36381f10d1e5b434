package physical

import (
	"fmt"
	"strings"

	"github.com/dorisgo/dorisgo/planner/explain"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/planner/props"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// Repeat (grouping sets) needs nothing of its input's distribution, and its
// output is hashed on nothing: the key copies are NULL in some rows, so the
// aggregation above always re-hashes on keys + grouping id (two phases).

func (d *distPlanner) buildRepeat(x *logical.Repeat) (*pnode, error) {
	c, err := d.build(x.Input)
	if err != nil {
		return nil, err
	}
	w := c.width + 8
	for i, k := range x.KeyCols {
		w += float64(k.T.Width())
		d.subst[k.ID] = d.display(x.Keys[i])
	}
	rows := c.rows
	if rows > 0 {
		rows *= int64(len(x.Sets))
	}
	return d.visible(&pnode{op: opRepeat, children: []*pnode{c}, cols: x.Columns(), repeat: x, rows: rows, width: w}), nil
}

func (d *distPlanner) enforceRepeat(n *pnode) {
	n.del = props.Delivered{Kind: props.DelRandom}
	if n.child().del.Kind == props.DelSingle {
		n.del = n.child().del
	}
}

// repeatSpec is x as plan data over the input columns in.
func repeatSpec(x *logical.Repeat, in []logical.Column) (*fragment.RepeatSpec, error) {
	spec := &fragment.RepeatSpec{Sets: x.Sets, IDs: x.IDs}
	for _, k := range x.Keys {
		i := colIndex(in, logical.ColumnID(k.Index))
		if i < 0 {
			return nil, sqlerr.Assertf("repeat key %s not in its input", k.Name)
		}
		spec.Keys = append(spec.Keys, i)
	}
	return spec, nil
}

func (d *distPlanner) emitRepeat(p *planner, n *pnode, kids []*fragment.Node) (*fragment.Node, error) {
	spec, err := repeatSpec(n.repeat, n.child().cols)
	if err != nil {
		return nil, err
	}
	return d.withID(p.node(fragment.KindRepeat, logical.TypedColumns(n.cols), kids, func(f *fragment.Node) { f.Repeat = spec }), n), nil
}

// explainRepeat prints the node as Doris does: the sets as key slot lists.
func (n *pnode) explainRepeat(w *explain.Writer) {
	x := n.repeat
	sets := make([]string, len(x.Sets))
	for i, s := range x.Sets {
		parts := make([]string, len(s))
		for j, k := range s {
			parts[j] = fmt.Sprint(k)
		}
		sets[i] = "[" + strings.Join(parts, ", ") + "]"
	}
	w.Attr("repeat: repeat %d lines [%s]", len(x.Sets)-1, strings.Join(sets, ", "))
	keys := make([]expr.Expr, len(x.Keys))
	for i, k := range x.Keys {
		keys[i] = k
	}
	w.Attr("exprs: %s", n.pl.showAll(keys))
	n.writeCard(w)
}

// repeatRefs are the columns a Repeat reads.
func repeatRefs(x *logical.Repeat) []expr.Expr {
	out := make([]expr.Expr, len(x.Keys))
	for i, k := range x.Keys {
		out[i] = k
	}
	return out
}

// groupID is Trino's header for a Repeat: GroupId[[a, b], [a], []].
func (v *trinoView) groupID(n *pnode) string {
	x := n.repeat
	sets := make([]string, len(x.Sets))
	for i, s := range x.Sets {
		parts := make([]string, len(s))
		for j, k := range s {
			parts[j] = v.symOf(x.KeyCols[k].ID)
		}
		sets[i] = "[" + strings.Join(parts, ", ") + "]"
	}
	return "GroupId[" + strings.Join(sets, ", ") + "]"
}
