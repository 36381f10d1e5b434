package physical

import (
	"slices"
	"strings"

	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/planner/props"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/hint"
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
	return j.Type == fragment.JoinInner || j.Type == fragment.JoinCross
}

// flattenRun collects the relations (leaves of the run, written order) and
// all conjuncts of an INNER/CROSS join run.
func flattenRun(n logical.Node, rels *[]logical.Node, conds *[]expr.Expr, hinted *bool) {
	j, ok := n.(*logical.Join)
	if !ok || !innerLike(j) {
		*rels = append(*rels, n)
		return
	}
	if j.Hint.Kind != hint.None {
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
// written one. Each conjunct is indexed by the relations it reads once, so
// a run of n relations costs about n times its conjuncts per relation, not
// a pass over every placed column per candidate (a 1,000-table chain).
func (d *distPlanner) reorderRun(rels []logical.Node, conds []expr.Expr) (logical.Node, bool) {
	rows := make([]int64, len(rels))
	for i, r := range rels {
		rows[i] = d.estimateRows(r)
	}
	infos, byRel := runConds(rels, conds)
	placed := make([]bool, len(rels))
	nPlaced := 0
	order := joinOrder(rows, func(order []int, cand int) bool {
		for ; nPlaced < len(order); nPlaced++ {
			placed[order[nPlaced]] = true
		}
		for _, ci := range byRel[cand] {
			if infos[ci].equiSide(placed, cand) != 0 {
				return true
			}
		}
		return false
	})
	if o, tree, ok := d.statsOrder(rows, infos, byRel); ok {
		if tree != nil {
			return buildBushy(tree, rels, conds, infos), true
		}
		order = o
	}
	changed := false
	for i, o := range order {
		changed = changed || o != i
	}
	if !changed {
		return nil, false
	}
	// A conjunct goes to the first join that has every relation it reads:
	// join i (1-based) adds order[i]. One reading a column outside the run
	// goes to the run's top join.
	pos := make([]int, len(rels))
	for i, o := range order {
		pos[o] = i
	}
	at := make([][]int, len(rels))
	for ci, in := range infos {
		p := 1
		if in.foreign {
			p = len(rels) - 1
		}
		for _, r := range in.rels {
			p = max(p, pos[r])
		}
		at[p] = append(at[p], ci)
	}
	clear(placed)
	placed[order[0]] = true
	var cur logical.Node = rels[order[0]]
	for i, o := range order[1:] {
		var eq []logical.EquiCond
		var other []expr.Expr
		for _, ci := range at[i+1] {
			in := &infos[ci]
			switch in.equiSide(placed, o) {
			case 1:
				eq = append(eq, logical.EquiCond{L: in.call.Args[0], R: in.call.Args[1], NullSafe: in.nullSafe})
			case 2:
				eq = append(eq, logical.EquiCond{L: in.call.Args[1], R: in.call.Args[0], NullSafe: in.nullSafe})
			default:
				other = append(other, conds[ci])
			}
		}
		typ := fragment.JoinInner
		if len(at[i+1]) == 0 {
			typ = fragment.JoinCross
		}
		cur = &logical.Join{Type: typ, Left: cur, Right: rels[o], Equi: eq, Other: other}
		placed[o] = true
	}
	return cur, true
}

// condInfo is what reordering needs of one conjunct of a run: the
// relations it reads and, for l = r (or <=>) with columns on both sides,
// the relations of each side.
type condInfo struct {
	rels     []int
	foreign  bool       // reads a column of no relation of the run
	call     *expr.Call // set for an equality between column-reading sides
	nullSafe bool
	sides    [2][]int
}

// equiSide is 1 when the conjunct is an equi condition between placed
// relations (its left argument) and cand (its right), 2 when the other way
// round, 0 otherwise: the test logical.SplitConds makes, on relations.
func (c *condInfo) equiSide(placed []bool, cand int) int {
	if c.call == nil {
		return 0
	}
	in := func(side []int, want func(int) bool) bool {
		for _, r := range side {
			if !want(r) {
				return false
			}
		}
		return true
	}
	isPlaced := func(r int) bool { return placed[r] && r != cand }
	isCand := func(r int) bool { return r == cand }
	switch {
	case in(c.sides[0], isPlaced) && in(c.sides[1], isCand):
		return 1
	case in(c.sides[0], isCand) && in(c.sides[1], isPlaced):
		return 2
	}
	return 0
}

// runConds indexes a run's conjuncts by relation: byRel[i] lists the
// equality conjuncts with relation i on one side.
func runConds(rels []logical.Node, conds []expr.Expr) ([]condInfo, [][]int) {
	relOf := map[int]int{}
	for i, r := range rels {
		for _, c := range r.Columns() {
			relOf[int(c.ID)] = i
		}
	}
	// readRels returns the sorted relations e reads, whether it reads one
	// outside the run, and whether it reads a column at all.
	readRels := func(e expr.Expr) (out []int, foreign, any bool) {
		expr.Walk(e, func(x expr.Expr) bool {
			if r, ok := x.(*expr.ColRef); ok {
				any = true
				if i, ok := relOf[r.Index]; ok {
					if !slices.Contains(out, i) {
						out = append(out, i)
					}
				} else {
					foreign = true
				}
			}
			return true
		})
		slices.Sort(out)
		return out, foreign, any
	}
	infos := make([]condInfo, len(conds))
	byRel := make([][]int, len(rels))
	for ci, c := range conds {
		in := &infos[ci]
		in.rels, in.foreign, _ = readRels(c)
		call, ok := c.(*expr.Call)
		if in.foreign || !ok || (call.Fn != "eq" && call.Fn != "null_safe_eq") || len(call.Args) != 2 {
			continue
		}
		a, _, aRefs := readRels(call.Args[0])
		z, _, zRefs := readRels(call.Args[1])
		if !aRefs || !zRefs {
			continue
		}
		in.call, in.nullSafe, in.sides = call, call.Fn == "null_safe_eq", [2][]int{a, z}
		for _, r := range in.rels {
			byRel[r] = append(byRel[r], ci)
		}
	}
	return infos, byRel
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
	for id, s := range tmp.cstats {
		d.setColStat(id, s) // the same the real build registers (join order reads them)
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
