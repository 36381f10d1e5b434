package logical

import "github.com/dorisgo/dorisgo/sql/expr"

// PruneJoinOutputs puts a projection over each join whose output holds
// columns nothing above it reads, keeping the others in order, as Doris
// gives a hash join its output slots. Without it a join outputs every
// column of both sides: in a chain of n joins the k-th carries k tables'
// columns, so the plan, its encoding and every batch grow with n² (a
// 1,000-table chain encoded to 22 MB). The physical planner runs it after
// join reordering, which needs the joins of a run adjacent.
//
// Top down, need records every column id read by the nodes visited so
// far, with the visit that first read it: a join keeps the columns read
// before it was reached (by its ancestors, or by subtrees visited before
// it, which only keeps more than necessary), not those its own conditions
// or its inputs read. It decides after rewriting its inputs, on their
// pruned columns, so a chain costs O(n) column copies, not O(n²).
func PruneJoinOutputs(root Node) Node {
	need := &needSet{at: map[ColumnID]int{}}
	for _, c := range root.Columns() {
		need.at[c.ID] = 0
	}
	return pruneJoins(root, need)
}

// needSet maps a column id to the visit that first read it.
type needSet struct {
	at    map[ColumnID]int
	visit int
}

func pruneJoins(n Node, need *needSet) Node {
	need.visit++
	me := need.visit
	used := map[ColumnID]bool{}
	pruneUses(n, used)
	for id := range used {
		if _, ok := need.at[id]; !ok {
			need.at[id] = me
		}
	}
	ins := n.Inputs()
	if len(ins) == 0 {
		return n
	}
	out := make([]Node, len(ins))
	changed := false
	for i, in := range ins {
		out[i] = pruneJoins(in, need)
		changed = changed || out[i] != in
	}
	if changed {
		n = WithInputs(n, out)
	}
	if _, ok := n.(*Join); !ok {
		return n
	}
	cols := n.Columns()
	var keep []Column
	for _, c := range cols {
		if at, ok := need.at[c.ID]; ok && at < me {
			keep = append(keep, c)
		}
	}
	if len(keep) == len(cols) {
		return n
	}
	if len(keep) == 0 {
		keep = cols[:1] // the row count stays
	}
	exprs := make([]expr.Expr, len(keep))
	for i, c := range keep {
		exprs[i] = c.Ref()
	}
	return &Project{Input: n, Exprs: exprs, Cols: keep}
}

// pruneUses adds what n itself reads to need (ownUses) and, for an
// Apply, everything its subquery reads (its correlated references name the
// outer side's columns), walking the subquery once: nested Applies each
// walking their own subqueries again doubled the work per level.
func pruneUses(n Node, need map[ColumnID]bool) {
	ownUses(n, need)
	if a, ok := n.(*Apply); ok {
		var walk func(n Node)
		walk = func(n Node) {
			ownUses(n, need)
			for _, in := range n.Inputs() {
				walk(in)
			}
		}
		walk(a.Sub)
	}
}

// ownUses is nodeUses with every projection expression (pruneScans has
// dropped the unread ones) and the expressions of constant rows.
func ownUses(n Node, need map[ColumnID]bool) {
	nodeUses(n, need, nil)
	add := func(e expr.Expr) {
		expr.Walk(e, func(x expr.Expr) bool {
			if r, ok := x.(*expr.ColRef); ok {
				need[ColumnID(r.Index)] = true
			}
			return true
		})
	}
	switch x := n.(type) {
	case *Project:
		for _, e := range x.Exprs {
			add(e)
		}
	case *Values:
		for _, row := range x.Rows {
			for _, e := range row {
				add(e)
			}
		}
	}
}
