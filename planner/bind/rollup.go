package bind

import (
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Grouping sets (GROUP BY ... WITH ROLLUP, ROLLUP(...), CUBE(...),
// GROUPING SETS (...); sql/parser rewrites them into the calls ROLLUP,
// CUBE and GROUPING_SETS) are planned as Doris does:
//
//	Aggregate(groups: key copies ++ grouping id)
//	└─ Repeat(each row once per set; keys outside the set NULL)
//	   └─ input
//
// Aggregate arguments read the input columns Repeat passes on unchanged,
// so a super-aggregate row still sums every row. GROUPING(c) reads bits of
// the grouping id.

// maxGroupingKeys keeps grouping ids within a BIGINT bitmask.
const maxGroupingKeys = 63

// maxGroupingSets bounds CUBE and cross products of grouping items.
const maxGroupingSets = 4096

// groupingExt returns the ROLLUP/CUBE/GROUPING_SETS call of a GROUP BY item.
func groupingExt(g sqlparser.Expr) (*sqlparser.FuncExpr, string, bool) {
	f, ok := g.(*sqlparser.FuncExpr)
	if !ok || f.Over != nil || !f.Qualifier.IsEmpty() {
		return nil, "", false
	}
	switch name := f.Name.Lowered(); name {
	case "rollup", "cube", "grouping_sets":
		return f, name, true
	}
	return nil, "", false
}

// bindGroupBy binds the GROUP BY keys into ac; with a grouping extension it
// also computes ac.sets.
func (b *Binder) bindGroupBy(ac *aggCtx, group sqlparser.GroupBy, sel sqlparser.SelectExprs, s *scope) error {
	ext := false
	for _, g := range group {
		_, _, ok := groupingExt(g)
		ext = ext || ok
	}
	if !ext {
		for _, g := range group {
			x, err := b.bindGroupItem(g, sel, s)
			if err != nil {
				return err
			}
			ac.addGroup(b, x)
		}
		return nil
	}
	// Each item contributes a list of sets; the query's sets are their
	// cross product (GROUP BY a, ROLLUP(b) = sets (a, b), (a)).
	sets := [][]int{{}}
	for _, g := range group {
		item, err := b.groupingItem(ac, g, sel, s)
		if err != nil {
			return err
		}
		var next [][]int
		for _, x := range sets {
			for _, y := range item {
				next = append(next, union(x, y))
			}
		}
		if len(next) > maxGroupingSets {
			return sqlerr.Doris.New("Too many grouping sets, at most 4096 are supported")
		}
		sets = next
	}
	nkeys := len(ac.groups)
	if nkeys > maxGroupingKeys {
		return sqlerr.Doris.New("Too many grouping keys, at most 63 are supported")
	}
	// Identical sets would share a grouping id, and their rows would merge.
	seen := map[int64]bool{}
	for _, set := range sets {
		id := logical.GroupingID(nkeys, set)
		if !seen[id] {
			seen[id] = true
			ac.sets = append(ac.sets, set)
		}
	}
	for i := range ac.groupCols {
		for _, set := range ac.sets {
			if !contains(set, i) {
				ac.groupCols[i].Null = true // rolled up somewhere: NULL there
			}
		}
	}
	ac.gid = b.newCol("", "GROUPING_ID", types.BigIntT, false)
	return nil
}

// groupingItem returns the sets of one GROUP BY item as key indexes.
func (b *Binder) groupingItem(ac *aggCtx, g sqlparser.Expr, sel sqlparser.SelectExprs, s *scope) ([][]int, error) {
	key := func(e sqlparser.Expr) (int, error) {
		if _, _, ok := groupingExt(e); ok {
			return 0, sqlerr.NotSupportedYet.New("nested ROLLUP, CUBE or GROUPING SETS")
		}
		x, err := b.bindGroupItem(e, sel, s)
		if err != nil {
			return 0, err
		}
		return ac.addGroup(b, x), nil
	}
	keys := func(es []sqlparser.Expr) ([]int, error) {
		var out []int
		for _, e := range es {
			if isNullLit(e) {
				continue // grouping by NULL is grouping by nothing: "()" arrives as (NULL)
			}
			k, err := key(e)
			if err != nil {
				return nil, err
			}
			out = union(out, []int{k})
		}
		return out, nil
	}
	f, name, ok := groupingExt(g)
	if !ok {
		k, err := key(g)
		return [][]int{{k}}, err
	}
	var args []sqlparser.Expr
	for _, a := range f.Exprs {
		ae, ok := a.(*sqlparser.AliasedExpr)
		if !ok {
			return nil, sqlerr.WrongArguments.New(name)
		}
		args = append(args, ae.Expr)
	}
	if len(args) == 0 {
		return nil, sqlerr.WrongParamCount.New(name)
	}
	switch name {
	case "rollup":
		ks, err := keys(args)
		if err != nil {
			return nil, err
		}
		out := make([][]int, 0, len(ks)+1)
		for n := len(ks); n >= 0; n-- {
			out = append(out, ks[:n])
		}
		return out, nil
	case "cube":
		ks, err := keys(args)
		if err != nil {
			return nil, err
		}
		if len(ks) > 12 {
			return nil, sqlerr.Doris.New("Too many grouping sets, at most 4096 are supported")
		}
		// Every subset, the full set first and the empty set last.
		full := 1<<len(ks) - 1
		out := make([][]int, 0, full+1)
		for m := full; m >= 0; m-- {
			var set []int
			for i, k := range ks {
				if m&(1<<(len(ks)-1-i)) != 0 {
					set = append(set, k)
				}
			}
			out = append(out, set)
		}
		return out, nil
	}
	// GROUPING SETS: each argument is (a, b), (a), a, or (NULL) for ().
	var out [][]int
	for _, a := range args {
		for {
			p, ok := a.(*sqlparser.ParenExpr)
			if !ok {
				break
			}
			a = p.Expr
		}
		es := []sqlparser.Expr{a}
		if t, ok := a.(sqlparser.ValTuple); ok {
			es = t
		}
		ks, err := keys(es)
		if err != nil {
			return nil, err
		}
		out = append(out, ks)
	}
	return out, nil
}

func isNullLit(e sqlparser.Expr) bool {
	for {
		p, ok := e.(*sqlparser.ParenExpr)
		if !ok {
			break
		}
		e = p.Expr
	}
	_, ok := e.(*sqlparser.NullVal)
	return ok
}

// union returns x ∪ y keeping x's order (a new slice).
func union(x, y []int) []int {
	out := append([]int{}, x...)
	for _, k := range y {
		if !contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

func contains(s []int, k int) bool {
	for _, v := range s {
		if v == k {
			return true
		}
	}
	return false
}

// bindGroupingFunc binds GROUPING(c, ...) (GROUPING_ID is Doris's name for
// the same): bit j of the result (from the right, for argument n-1-j) is 1
// when that argument is rolled up in the row's grouping set. Like MySQL,
// it needs ROLLUP (1111 elsewhere, WHERE included) and GROUP BY keys as
// arguments (3580).
func (b *Binder) bindGroupingFunc(n *sqlparser.FuncExpr, name string) (expr.Expr, error) {
	ac := b.agg
	if ac == nil || ac.sets == nil {
		return nil, sqlerr.InvalidGroupFunc.New()
	}
	if len(n.Exprs) == 0 || len(n.Exprs) > 64 {
		return nil, sqlerr.WrongParamCount.New(name)
	}
	b.agg, b.win = nil, nil
	defer func() { b.agg = ac }()
	nkeys := len(ac.groups)
	var out expr.Expr
	for j, a := range n.Exprs {
		ae, ok := a.(*sqlparser.AliasedExpr)
		if !ok {
			return nil, sqlerr.WrongArguments.New(name)
		}
		x, err := b.bindExpr(ae.Expr, ac.pre)
		if err != nil {
			return nil, err
		}
		i, ok := ac.groupKey[x.String()]
		if !ok {
			return nil, sqlerr.FieldInGroupingNotGroupBy.New(j + 1)
		}
		// (gid >> (nkeys-1-i)) & 1, shifted in after the earlier arguments.
		bit, err := expr.NewCall("shift_right", ac.gid.Ref(), lit(int64(nkeys-1-i)))
		if err == nil {
			bit, err = expr.NewCall("bitand", bit, lit(1))
		}
		if err == nil && out != nil {
			if out, err = expr.NewCall("shift_left", out, lit(1)); err == nil {
				bit, err = expr.NewCall("bitor", out, bit)
			}
		}
		if err != nil {
			return nil, err
		}
		out = bit
	}
	return out, nil
}

func lit(v int64) expr.Expr { return expr.Lit(types.IntDatum(v)) }

// aggregate builds the Aggregate over in, under it a Repeat for grouping sets.
func (b *Binder) aggregate(in logical.Node, ac *aggCtx) logical.Node {
	if ac.sets == nil {
		return &logical.Aggregate{Input: in, Groups: ac.groups, GroupCols: ac.groupCols, Aggs: ac.calls}
	}
	// Repeat copies input columns: computed keys are projected first.
	inCols := in.Columns()
	has := map[int]bool{}
	for _, c := range inCols {
		has[int(c.ID)] = true
	}
	keys := make([]*expr.ColRef, len(ac.groups))
	var exprs []expr.Expr
	var cols []logical.Column
	for i, g := range ac.groups {
		if r, ok := g.(*expr.ColRef); ok && has[r.Index] {
			keys[i] = r
			continue
		}
		c := b.newCol("", g.String(), g.Type(), g.Nullable())
		exprs, cols = append(exprs, g), append(cols, c)
		keys[i] = c.Ref()
	}
	if len(exprs) > 0 {
		pass := make([]expr.Expr, len(inCols))
		for i, c := range inCols {
			pass[i] = c.Ref()
		}
		in = &logical.Project{Input: in, Exprs: append(pass, exprs...), Cols: append(append([]logical.Column{}, inCols...), cols...)}
	}
	rep := &logical.Repeat{Input: in, Keys: keys, Sets: ac.sets, GroupingID: b.newCol("", "GROUPING_ID", types.BigIntT, false)}
	groups := make([]expr.Expr, 0, len(keys)+1)
	for i, k := range keys {
		c := b.newCol(k.Table, k.Name, k.T, ac.groupCols[i].Null)
		rep.KeyCols = append(rep.KeyCols, c)
		groups = append(groups, c.Ref())
	}
	for _, s := range ac.sets {
		rep.IDs = append(rep.IDs, logical.GroupingID(len(keys), s))
	}
	groups = append(groups, rep.GroupingID.Ref())
	groupCols := append(append([]logical.Column{}, ac.groupCols...), ac.gid)
	return &logical.Aggregate{Input: rep, Groups: groups, GroupCols: groupCols, Aggs: ac.calls}
}
