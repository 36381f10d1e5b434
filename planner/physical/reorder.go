package physical

import (
	"strings"

	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/planner/props"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// reorder is join reordering (DORIS-PLANNING.md §2.6). Each maximal run of
// INNER/CROSS joins is flattened into its relations (written order) and its
// conjuncts, then rebuilt left-deep: the relation with the most estimated
// rows first, then, repeatedly, the first relation in written order with an
// equi conjunct to those placed; when none has one, the first remaining.
// Each conjunct goes to the first join where all its columns are available.
// A run holding a hinted join, or a table a Spark hint names, keeps its
// written order, so the hint stays on the join it was written for. A run whose order does not change is returned
// as written (conjunct order included), so EXPLAIN of such queries is the
// same with and without disable_join_reorder.
func (d *distPlanner) reorder(n logical.Node) logical.Node {
	if j, ok := n.(*logical.Join); ok && innerLike(j) {
		var rels []logical.Node
		var conds []expr.Expr
		hinted := false
		flattenRun(j, &rels, &conds, &hinted)
		for i, r := range rels {
			rels[i] = d.reorder(r)
		}
		if !hinted && !d.sparkNamed(rels) {
			if out, changed := d.reorderRun(rels, conds); changed {
				return keepColumns(out, j.Columns())
			}
		}
		return rebuildWritten(j, rels)
	}
	ins := n.Inputs()
	if len(ins) == 0 {
		return n
	}
	nin := make([]logical.Node, len(ins))
	for i, in := range ins {
		nin[i] = d.reorder(in)
	}
	return logical.WithInputs(n, nin)
}

// sparkNamed reports whether a Spark hint names a relation of the run.
func (d *distPlanner) sparkNamed(rels []logical.Node) bool {
	for _, r := range rels {
		for {
			switch x := r.(type) {
			case *logical.Filter:
				r = x.Input
				continue
			case *logical.Project:
				r = x.Input
				continue
			case *logical.Scan:
				for _, h := range d.ctx.Spark {
					for _, t := range h.Tables {
						if strings.EqualFold(t, x.Alias) {
							return true
						}
					}
				}
			}
			break
		}
	}
	return false
}

func innerLike(j *logical.Join) bool {
	return j.Type == logical.InnerJoin || j.Type == logical.CrossJoin
}

// flattenRun collects the relations (leaves of the run, written order) and
// all conjuncts of an INNER/CROSS join run.
func flattenRun(n logical.Node, rels *[]logical.Node, conds *[]expr.Expr, hinted *bool) {
	j, ok := n.(*logical.Join)
	if !ok || !innerLike(j) {
		*rels = append(*rels, n)
		return
	}
	if j.Hint.Kind != logical.HintNone {
		*hinted = true
	}
	flattenRun(j.Left, rels, conds, hinted)
	flattenRun(j.Right, rels, conds, hinted)
	for _, e := range j.Equi {
		fn := "eq"
		if e.NullSafe {
			fn = "null_safe_eq"
		}
		*conds = append(*conds, &expr.Call{Fn: fn, Args: []expr.Expr{e.L, e.R}, T: types.BoolT, Null: !e.NullSafe && (e.L.Nullable() || e.R.Nullable())})
	}
	*conds = append(*conds, j.Other...)
}

// rebuildWritten puts reordered leaves back into the written join shape.
func rebuildWritten(n logical.Node, rels []logical.Node) logical.Node {
	i := 0
	var walk func(n logical.Node) logical.Node
	walk = func(n logical.Node) logical.Node {
		j, ok := n.(*logical.Join)
		if !ok || !innerLike(j) {
			r := rels[i]
			i++
			return r
		}
		c := *j
		c.Left = walk(j.Left)
		c.Right = walk(j.Right)
		return &c
	}
	return walk(n)
}

// reorderRun computes the §2.6 order; changed is false when it is the
// written one.
func (d *distPlanner) reorderRun(rels []logical.Node, conds []expr.Expr) (logical.Node, bool) {
	rows := make([]int64, len(rels))
	for i, r := range rels {
		rows[i] = d.estimateRows(r)
	}
	order := joinOrder(rows, func(placed []int, cand int) bool {
		var pc []logical.Column
		for _, p := range placed {
			pc = append(pc, rels[p].Columns()...)
		}
		for _, c := range conds {
			if eq, _ := logical.SplitConds([]expr.Expr{c}, pc, rels[cand].Columns()); len(eq) > 0 {
				return true
			}
		}
		return false
	})
	changed := false
	for i, o := range order {
		changed = changed || o != i
	}
	if !changed {
		return nil, false
	}
	used := make([]bool, len(conds))
	var cur logical.Node = rels[order[0]]
	for _, o := range order[1:] {
		r := rels[o]
		all := append(append([]logical.Column{}, cur.Columns()...), r.Columns()...)
		var here []expr.Expr
		for i, c := range conds {
			if !used[i] && logical.RefsIn(c, all) {
				used[i] = true
				here = append(here, c)
			}
		}
		eq, other := logical.SplitConds(here, cur.Columns(), r.Columns())
		typ := logical.InnerJoin
		if len(here) == 0 {
			typ = logical.CrossJoin
		}
		cur = &logical.Join{Type: typ, Left: cur, Right: r, Equi: eq, Other: other}
	}
	return cur, true
}

// joinOrder is §2.6 over row estimates: the most rows first (the earliest
// on ties), then the first relation in written order connected by an equi
// conjunct to the placed ones, else the first remaining one.
func joinOrder(rows []int64, connected func(placed []int, cand int) bool) []int {
	first := 0
	for i, r := range rows {
		if r > rows[first] {
			first = i
		}
	}
	order := []int{first}
	done := make([]bool, len(rows))
	done[first] = true
	for len(order) < len(rows) {
		next := -1
		for i := range rows {
			if !done[i] && connected(order, i) {
				next = i
				break
			}
		}
		if next < 0 {
			for i := range rows {
				if !done[i] {
					next = i
					break
				}
			}
		}
		done[next] = true
		order = append(order, next)
	}
	return order
}

// estimateRows is the cardinality the distributed planner would estimate
// for n (-1 unknown), from a throwaway planner so ids stay untouched.
func (d *distPlanner) estimateRows(n logical.Node) int64 {
	tmp := &distPlanner{ctx: d.ctx, eq: props.NewEquivClasses(), subst: map[logical.ColumnID]expr.Expr{}, nextCol: d.nextCol}
	p, err := tmp.build(n)
	if err != nil {
		return -1
	}
	return p.rows
}

// keepColumns restores the written column order above a reordered run
// (parents refer to columns by id, but the query result is positional).
func keepColumns(n logical.Node, want []logical.Column) logical.Node {
	got := n.Columns()
	same := len(got) == len(want)
	for i := 0; same && i < len(got); i++ {
		same = got[i].ID == want[i].ID
	}
	if same {
		return n
	}
	exprs := make([]expr.Expr, len(want))
	for i, c := range want {
		exprs[i] = c.Ref()
	}
	return &logical.Project{Input: n, Exprs: exprs, Cols: want}
}
