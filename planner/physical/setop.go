package physical

import (
	"slices"

	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/planner/props"
)

// enforceSetOp places a set operation as Doris's legacy planner does
// (DistributedPlanner.createSetOperationNodeFragment):
//
//   - every child in one instance: run there, no exchange (UNPARTITIONED);
//   - UNION ALL: a RANDOM fragment fed by one exchange per child (each
//     child's fragment sinks RANDOM), run on every exchange-fed instance;
//   - INTERSECT / EXCEPT / UNION DISTINCT: equal rows must meet, so every
//     child is hashed on all its output columns (execution hash) and the
//     operation runs on every instance; when every child is already
//     bucketed by the same storage layout on the same column positions
//     (a colocate set operation) no exchange is needed.
func (d *distPlanner) enforceSetOp(n *pnode) {
	n.reqs = make([]props.Required, len(n.children))
	single := true
	for _, c := range n.children {
		single = single && c.del.Kind == props.DelSingle
	}
	if single {
		for i := range n.children {
			n.reqs[i] = props.Required{Kind: props.ReqSingle}
		}
		n.del = props.Delivered{Kind: props.DelSingle}
		return
	}
	if n.setop.Kind == fragment.SetUnionAll {
		for i := range n.children {
			n.children[i] = d.requireChild(n, i, sideReq{req: props.Required{Kind: props.ReqExecRandom}})
		}
		n.del = props.Delivered{Kind: props.DelExecRandom}
		return
	}
	if layout, pos, ok := d.colocateSetOp(n); ok {
		for i, c := range n.children {
			n.reqs[i] = props.Required{Kind: props.ReqBucket, Keys: c.del.Keys, Layout: layout}
		}
		keys := make([]logical.ColumnID, len(pos))
		for j, p := range pos {
			keys[j] = n.cols[p].ID
		}
		n.del = props.Delivered{Kind: props.DelStorageBucketed, Keys: keys, Layout: layout}
		return
	}
	for i, c := range n.children {
		ids := make([]logical.ColumnID, len(c.cols))
		for j, col := range c.cols {
			ids[j] = col.ID
		}
		n.children[i] = d.requireChild(n, i, sideReq{req: props.Required{Kind: props.ReqHash, Keys: ids}, keys: colRefs(c.cols)})
	}
	ids := make([]logical.ColumnID, len(n.cols))
	for j, col := range n.cols {
		ids[j] = col.ID
	}
	n.del = props.Delivered{Kind: props.DelExecHash, Keys: ids}
}

// colocateSetOp reports whether every child of n is bucketed by one storage
// layout on the same output positions, so equal rows already share an
// instance; pos are those positions.
func (d *distPlanner) colocateSetOp(n *pnode) (*props.BucketLayout, []int, bool) {
	if d.ctx.Vars.DisableColocatePlan {
		return nil, nil, false
	}
	var layout *props.BucketLayout
	var pos []int
	for i, c := range n.children {
		if c.del.Kind != props.DelStorageBucketed || len(c.del.Keys) == 0 {
			return nil, nil, false
		}
		p := make([]int, len(c.del.Keys))
		for j, k := range c.del.Keys {
			p[j] = slices.IndexFunc(c.cols, func(col logical.Column) bool { return d.eq.Equal(col.ID, k) })
			if p[j] < 0 {
				return nil, nil, false
			}
		}
		if i == 0 {
			layout, pos = c.del.Layout, p
			continue
		}
		if !layout.Same(c.del.Layout) || !slices.Equal(pos, p) {
			return nil, nil, false
		}
	}
	return layout, pos, true
}
