package bind

import (
	"slices"
	"strings"

	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/hint"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// aggWindowRule names the rewrite below as Doris's disable_nereids_rules
// does (AggScalarSubQueryToWindowFunction, after the WinMagic paper).
const aggWindowRule = "AGG_SCALAR_SUBQUERY_TO_WINDOW_FUNCTION"

// aggToWindow rewrites a correlated scalar aggregate subquery in WHERE
// whose tables are the outer query's but one, filtered the same way, into a
// window aggregate over the outer rows (TPC-H Q2, Q17): the shared tables
// are read once and only the outer query's rows are aggregated.
//
//	FROM lineitem, part WHERE p_partkey = l_partkey AND p_brand = 'B'
//	  AND l_quantity < (SELECT 0.2*avg(l_quantity) FROM lineitem WHERE l_partkey = p_partkey)
//	⇒ FROM (SELECT *, avg(l_quantity) OVER (PARTITION BY p_partkey) w
//	        FROM lineitem, part WHERE p_partkey = l_partkey AND p_brand = 'B') t
//	  WHERE l_quantity < 0.2*w
//
// Why it is exact: let R be the outer table the subquery does not read, v
// the values of the R columns the subquery reads (the window's partition
// key) and S(v) the rows the subquery aggregates. Below the window stay the
// outer conjuncts equal to the subquery's (its columns renamed to the outer
// copies of the same table columns) and those over R alone; every other
// one (the comparison with the subquery, conditions on the shared tables
// the subquery lacks) filters above it. Partition v then holds S(v) times
// the R rows with values v that pass R's conjuncts: every row of S(v) the
// same m ≥ 1 times, the current row's R row being one. AVG, MIN and MAX do
// not change when each row is repeated m times; SUM and COUNT need m = 1,
// so R's correlated columns must cover a unique key of R. S(v) is never
// empty for a row reaching the window, so the subquery over no rows (NULL,
// COUNT 0) has no counterpart to miss.
//
// It returns the node replacing the Apply (the outer columns and the
// Apply's column) and the conjuncts to filter over it; nil when the shape
// is any other, which then decorrelates as before.
func (b *Binder) aggToWindow(plan logical.Node, a *logical.Apply, where []expr.Expr) (logical.Node, []expr.Expr) {
	if a.Kind != fragment.ApplyScalar || b.ruleDisabled(aggWindowRule) {
		return nil, nil
	}
	proj, ok := a.Sub.(*logical.Project)
	if !ok || len(proj.Exprs) != 1 {
		return nil, nil
	}
	agg, ok := proj.Input.(*logical.Aggregate)
	if !ok || len(agg.Groups) != 0 || len(agg.Aggs) == 0 {
		return nil, nil
	}
	var outer, inner relation
	if !outer.add(plan) || !inner.add(agg.Input) {
		return nil, nil
	}
	outer.conds = append(outer.conds, where...)
	r, ren, ok := matchScans(outer.scans, inner.scans)
	if !ok {
		return nil, nil
	}
	innerCols := map[int]bool{}
	for id := range ren {
		innerCols[id] = true
	}
	rCols := colSet(r.Cols)
	corr := map[int]bool{}
	var renamed []expr.Expr
	for _, c := range inner.conds {
		// Only the subquery's own columns and R's; a reference to a
		// shared table's outer copy would be confused with the inner one.
		if expr.Volatile(c) || !refsOnly(c, innerCols, rCols, corr) {
			return nil, nil
		}
		renamed = append(renamed, renameCols(c, ren))
	}
	if len(corr) == 0 {
		return nil, nil
	}
	if !b.aggsFit(agg, r, corr, innerCols) {
		return nil, nil
	}
	below, above, ok := splitOuter(outer.conds, renamed, rCols, a.Col.ID)
	if !ok {
		return nil, nil
	}
	win, swap, ok := b.windowCalls(agg, ren, r, corr)
	if !ok {
		return nil, nil
	}
	// The subquery's expression over its aggregates reads the window's
	// values, or outer columns it was correlated with.
	outCols := colSet(plan.Columns())
	for _, c := range agg.Aggs {
		outCols[int(c.Col.ID)] = true
	}
	if !refsOnly(proj.Exprs[0], outCols, nil, nil) {
		return nil, nil
	}
	val, err := expr.Rewrite(proj.Exprs[0], func(e expr.Expr) (expr.Expr, error) {
		if ref, ok := e.(*expr.ColRef); ok && swap[ref.Index] != nil {
			return swap[ref.Index], nil
		}
		return e, nil
	})
	if err != nil {
		return nil, nil
	}
	win.Input = &logical.Filter{Input: stripConds(plan), Conds: below}
	a.Outer = plan
	return applyResult(a, win, val), above
}

// ruleDisabled reports whether disable_nereids_rules lists rule.
func (b *Binder) ruleDisabled(rule string) bool {
	if b.ctx == nil || b.ctx.Vars == nil {
		return false
	}
	d, err := b.ctx.Vars.System("disable_nereids_rules", false)
	if err != nil || d.Null {
		return false
	}
	for _, r := range strings.Split(d.S, ",") {
		if strings.EqualFold(strings.TrimSpace(r), rule) {
			return true
		}
	}
	return false
}

// relation is a query block's tables and conjuncts as the rewrite reads
// them: scans under inner and cross joins, and the conditions over them.
type relation struct {
	scans []*logical.Scan
	conds []expr.Expr
}

// add collects n's scans and conjuncts; false for any node but a scan, a
// filter, or an inner or cross join without a hint.
func (r *relation) add(n logical.Node) bool {
	switch x := n.(type) {
	case *logical.Scan:
		if len(x.Filters) > 0 {
			return false
		}
		r.scans = append(r.scans, x)
		return true
	case *logical.Filter:
		r.conds = append(r.conds, x.Conds...)
		return r.add(x.Input)
	case *logical.Join:
		if x.Type != fragment.JoinInner && x.Type != fragment.JoinCross || x.Hint != (hint.Join{}) {
			return false
		}
		for _, e := range x.Equi {
			fn := "eq"
			if e.NullSafe {
				fn = "null_safe_eq"
			}
			c, err := expr.NewCall(fn, e.L, e.R)
			if err != nil {
				return false
			}
			r.conds = append(r.conds, c)
		}
		r.conds = append(r.conds, x.Other...)
		return r.add(x.Left) && r.add(x.Right)
	}
	return false
}

// stripConds is n's scans under cross joins, its conjuncts left out.
func stripConds(n logical.Node) logical.Node {
	switch x := n.(type) {
	case *logical.Filter:
		return stripConds(x.Input)
	case *logical.Join:
		return &logical.Join{Type: fragment.JoinCross, Left: stripConds(x.Left), Right: stripConds(x.Right)}
	}
	return n
}

// matchScans pairs each inner scan with the outer scan of the same table,
// read the same way (through the same view, so no privilege check is lost),
// and returns the one outer scan left over and the renaming of inner
// columns to their outer copies. Each table may appear once on each side.
func matchScans(outer, inner []*logical.Scan) (*logical.Scan, map[int]logical.Column, bool) {
	if len(outer) != len(inner)+1 {
		return nil, nil, false
	}
	same := func(x, y *logical.Scan) bool {
		return x.DB == y.DB && x.Table.ID == y.Table.ID && x.Table.SchemaVersion == y.Table.SchemaVersion &&
			x.ViewDB == y.ViewDB && x.View == y.View
	}
	for _, side := range [][]*logical.Scan{outer, inner} {
		for i := range side {
			for j := range i {
				if side[i].DB == side[j].DB && side[i].Table.ID == side[j].Table.ID {
					return nil, nil, false
				}
			}
		}
	}
	ren := map[int]logical.Column{}
	used := make([]bool, len(outer))
	for _, in := range inner {
		k := slices.IndexFunc(outer, func(o *logical.Scan) bool { return same(o, in) })
		if k < 0 {
			return nil, nil, false
		}
		used[k] = true
		for i, c := range in.Cols {
			j := slices.Index(outer[k].Ords, in.Ords[i])
			if j < 0 {
				return nil, nil, false
			}
			ren[int(c.ID)] = outer[k].Cols[j]
		}
	}
	return outer[slices.Index(used, false)], ren, true
}

// aggsFit reports whether every aggregate is one a window computes alike
// over the partition: AVG, MIN, MAX, or SUM and COUNT when R's correlated
// columns are a unique key of R; without DISTINCT, over the subquery's own
// columns.
func (b *Binder) aggsFit(agg *logical.Aggregate, r *logical.Scan, corr, innerCols map[int]bool) bool {
	for _, c := range agg.Aggs {
		if c.Distinct || c.Separator != nil {
			return false
		}
		for _, x := range c.Args {
			if expr.Volatile(x) || !refsOnly(x, innerCols, nil, nil) {
				return false
			}
		}
		switch c.Fn {
		case "avg", "min", "max":
		case "sum", "count":
			if !uniqueKey(r, corr) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// uniqueKey reports whether the columns corr of scan r cover the key of a
// UNIQUE or AGGREGATE KEY table, NOT NULL: at most one row has each value.
func uniqueKey(r *logical.Scan, corr map[int]bool) bool {
	t := r.Table
	if t.Keys != storage.UniqueKeys && t.Keys != storage.AggKeys || t.NumKeys == 0 {
		return false
	}
	keys := 0
	for ord, col := range t.Columns {
		if !col.IsKey {
			continue
		}
		keys++
		i := slices.Index(r.Ords, ord)
		if i < 0 || !corr[int(r.Cols[i].ID)] || r.Cols[i].Null {
			return false
		}
	}
	return keys == t.NumKeys
}

// splitOuter matches each subquery conjunct (renamed to outer columns) with
// an equal outer one and splits the outer conjuncts: below the window the
// matched ones and those over R alone, the rest above. ok is false if a
// subquery conjunct has no match.
func splitOuter(outer, inner []expr.Expr, rCols map[int]bool, apply logical.ColumnID) (below, above []expr.Expr, ok bool) {
	keys := make([]string, len(outer))
	for i, c := range outer {
		if !expr.Volatile(c) && !refsCol(c, int(apply)) {
			keys[i] = condKey(c)
		}
	}
	matched := make([]bool, len(outer))
	for _, c := range inner {
		k := condKey(c)
		i := slices.IndexFunc(keys, func(o string) bool { return o != "" && o == k })
		if i < 0 {
			return nil, nil, false
		}
		matched[i], keys[i] = true, ""
	}
	for i, c := range outer {
		onR := keys[i] != "" && hasColRef(c) && refsOnly(c, rCols, nil, nil)
		if matched[i] || onR {
			below = append(below, c)
		} else {
			above = append(above, c)
		}
	}
	return below, above, true
}

// windowCalls makes the window computing agg's aggregates over the
// partitions of R's correlated columns, and the map from each aggregate's
// column to the window's.
func (b *Binder) windowCalls(agg *logical.Aggregate, ren map[int]logical.Column, r *logical.Scan, corr map[int]bool) (*logical.Window, map[int]expr.Expr, bool) {
	var part []expr.Expr
	for _, c := range r.Cols {
		if corr[int(c.ID)] {
			// Partitions group equal values; a float's -0 and 0, or NaN,
			// need not compare as the subquery's conditions compare.
			if k := c.T.Kind; k == types.Float || k == types.Double || c.T.IsOpaque() {
				return nil, nil, false
			}
			part = append(part, c.Ref())
		}
	}
	win := &logical.Window{}
	swap := map[int]expr.Expr{}
	for _, c := range agg.Aggs {
		var args []expr.Expr
		for _, x := range c.Args {
			args = append(args, renameCols(x, ren))
		}
		t, null, err := windowType(c.Fn, args)
		if err != nil || t != c.Col.T {
			return nil, nil, false
		}
		col := b.newCol("", c.Col.Name, t, null)
		win.Calls = append(win.Calls, logical.WindowCall{Fn: c.Fn, Args: args, PartitionBy: part, Col: col})
		swap[int(c.Col.ID)] = col.Ref()
	}
	return win, swap, true
}

// renameCols replaces references to the inner columns of ren by their
// outer copies.
func renameCols(e expr.Expr, ren map[int]logical.Column) expr.Expr {
	out, _ := expr.Rewrite(e, func(x expr.Expr) (expr.Expr, error) {
		if r, ok := x.(*expr.ColRef); ok {
			if c, ok := ren[r.Index]; ok {
				return c.Ref(), nil
			}
		}
		return x, nil
	})
	return out
}

// refsOnly reports whether e reads only columns in a or b; it adds the
// columns of b it reads to seen (if not nil).
func refsOnly(e expr.Expr, a, b map[int]bool, seen map[int]bool) bool {
	ok := true
	expr.Walk(e, func(x expr.Expr) bool {
		if r, isRef := x.(*expr.ColRef); isRef {
			switch {
			case a[r.Index]:
			case b[r.Index]:
				if seen != nil {
					seen[r.Index] = true
				}
			default:
				ok = false
			}
		}
		if _, isParam := x.(*expr.Param); isParam {
			ok = false
		}
		return ok
	})
	return ok
}

func refsCol(e expr.Expr, id int) bool {
	found := false
	expr.Walk(e, func(x expr.Expr) bool {
		if r, ok := x.(*expr.ColRef); ok && r.Index == id {
			found = true
		}
		return !found
	})
	return found
}

func hasColRef(e expr.Expr) bool {
	found := false
	expr.Walk(e, func(x expr.Expr) bool {
		if _, ok := x.(*expr.ColRef); ok {
			found = true
		}
		return !found
	})
	return found
}

// condKey is a conjunct's identity for matching: its structure and column
// ids, without the names it prints with, both sides of an equality in a
// fixed order. "" if it cannot be encoded.
func condKey(e expr.Expr) string {
	key := func(x expr.Expr) string {
		b, err := expr.AppendBinary(nil, x)
		if err != nil {
			return ""
		}
		return string(b)
	}
	canon, err := expr.Rewrite(e, func(x expr.Expr) (expr.Expr, error) {
		switch n := x.(type) {
		case *expr.ColRef:
			return &expr.ColRef{Index: n.Index, T: n.T, Null: n.Null}, nil
		case *expr.Call:
			if (n.Fn == "eq" || n.Fn == "null_safe_eq") && len(n.Args) == 2 && key(n.Args[0]) > key(n.Args[1]) {
				c := *n
				c.Args = []expr.Expr{n.Args[1], n.Args[0]}
				return &c, nil
			}
		}
		return x, nil
	})
	if err != nil {
		return ""
	}
	return key(canon)
}

func colSet(cols []logical.Column) map[int]bool {
	out := make(map[int]bool, len(cols))
	for _, c := range cols {
		out[int(c.ID)] = true
	}
	return out
}
