package bind

import (
	"fmt"
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/sql/eval"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// aggCtx collects what an aggregation computes while the expressions above
// it are bound.
type aggCtx struct {
	pre       *scope // the scope aggregate arguments and GROUP BY keys see
	grouped   bool   // GROUP BY present (1055) or not (1140)
	groups    []expr.Expr
	groupCols []logical.Column
	groupKey  map[string]int
	calls     []logical.AggCall
	keys      map[string]int
	// sets are the grouping sets (indexes into groups) of ROLLUP, CUBE and
	// GROUPING SETS; nil for a plain GROUP BY. gid is then the aggregate's
	// grouping id output, which GROUPING() reads.
	sets [][]int
	gid  logical.Column
}

// addGroup adds a GROUP BY key (once) and returns its index.
func (ac *aggCtx) addGroup(b *Binder, x expr.Expr) int {
	if ac.groupKey == nil {
		ac.groupKey = map[string]int{}
	}
	k := x.String()
	if i, ok := ac.groupKey[k]; ok {
		return i
	}
	ac.groupKey[k] = len(ac.groups)
	ac.groups = append(ac.groups, x)
	name, table := k, ""
	if r, ok := x.(*expr.ColRef); ok {
		name, table = r.Name, r.Table
	}
	ac.groupCols = append(ac.groupCols, b.newCol(table, name, x.Type(), x.Nullable()))
	return len(ac.groups) - 1
}

// winCtx collects window functions.
type winCtx struct {
	calls []logical.WindowCall
}

func isAggName(name string) bool { return expr.AggFuncs[name] }

// bindAggCall binds an aggregate call and returns a reference to its output.
func (b *Binder) bindAggCall(name string, distinct bool, args []sqlparser.SelectExpr, sep *string, orderBy sqlparser.OrderBy) (expr.Expr, error) {
	ac := b.agg
	if ac == nil {
		return nil, sqlerr.InvalidGroupFunc.New()
	}
	// Arguments see the rows below the aggregation; nested aggregates are 1111.
	b.agg, b.win = nil, nil
	defer func() { b.agg = ac }()
	var xs []expr.Expr
	for _, a := range args {
		switch n := a.(type) {
		case *sqlparser.StarExpr:
			if name != "count" {
				return nil, sqlerr.ParseError.New(fmt.Sprintf("You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '*)' at line 1"))
			}
		case *sqlparser.AliasedExpr:
			x, err := b.bindExpr(n.Expr, ac.pre)
			if err != nil {
				return nil, err
			}
			xs = append(xs, x)
		}
	}
	if err := expr.AggArity(name, len(xs)); err != nil {
		return nil, err
	}
	for i, x := range xs {
		if expr.AggConstArg(name, i) && !expr.IsConst(x) {
			return nil, sqlerr.Doris.New(fmt.Sprintf("%s's argument %d must be a constant", name, i+1))
		}
	}
	if c := expr.AggCanonical(name); (c == "percentile" || c == "percentile_approx") && len(xs) > 1 {
		if k, ok := xs[1].(*expr.Const); ok && !k.Val.Null {
			if p := k.Val.Float(); p < 0 || p > 1 {
				return nil, sqlerr.Doris.New(fmt.Sprintf("%s's level must be in [0, 1], got %v", name, p))
			}
		}
	}
	display0 := name
	name = expr.AggCanonical(name)
	if len(orderBy) > 0 {
		return nil, sqlerr.NotSupportedYet.New("GROUP_CONCAT(... ORDER BY ...)")
	}
	if name == "group_concat" && len(xs) > 1 {
		// GROUP_CONCAT(a, b) concatenates its arguments per row.
		c, err := expr.NewCall("concat", xs...)
		if err != nil {
			return nil, err
		}
		xs = []expr.Expr{c}
	}
	if name == "count" && len(xs) > 1 && !distinct {
		return nil, sqlerr.WrongParamCount.New(name)
	}
	if distinct {
		for _, x := range xs {
			if x.Type().IsOpaque() {
				return nil, sqlerr.ObjectMisuse.New() // DISTINCT compares the values
			}
		}
	}
	argT := types.NullT
	if len(xs) > 0 {
		argT = xs[0].Type()
	}
	rt, err := expr.AggResultType(name, argT)
	if err != nil {
		return nil, err
	}
	var parts []string
	for _, x := range xs {
		parts = append(parts, x.String())
	}
	key := fmt.Sprintf("%s(%v|%s)", name, distinct, strings.Join(parts, ","))
	if sep != nil {
		key += "|" + *sep
	}
	if i, ok := ac.keys[key]; ok {
		return ac.calls[i].Col.Ref(), nil
	}
	display := display0 + "(" + strings.Join(parts, ", ") + ")"
	if len(xs) == 0 {
		display = display0 + "(*)"
	}
	if distinct {
		display = display0 + "(DISTINCT " + strings.Join(parts, ", ") + ")"
	}
	null := name != "count"
	col := b.newCol("", display, rt, null)
	ac.keys[key] = len(ac.calls)
	ac.calls = append(ac.calls, logical.AggCall{Fn: name, Args: xs, Distinct: distinct, Separator: sep, Col: col})
	return col.Ref(), nil
}

// postCheck rewrites an expression bound above an aggregation: subtrees
// equal to a GROUP BY key become references to the key's output; any
// remaining reference to a column below the aggregation is MySQL's
// only_full_group_by error.
func (b *Binder) postCheck(x expr.Expr, ac *aggCtx, pos int) (expr.Expr, error) {
	if ac == nil {
		return x, nil
	}
	x = dropDeadCoalesce(x)
	// Only a subtree of a key's size can equal the key: sizing every
	// subtree once keeps String (linear in its subtree) off the others; it
	// ran on each, which made a 3,000-deep NOT NOT … cubic (20 s).
	keySizes := map[int]bool{}
	for _, g := range ac.groups {
		keySizes[exprSizes(g, nil)] = true
	}
	sizes := map[expr.Expr]int{}
	if len(keySizes) > 0 {
		exprSizes(x, sizes)
	}
	marked := map[expr.Expr]int{}
	expr.Walk(x, func(e expr.Expr) bool {
		if !keySizes[sizes[e]] {
			return true
		}
		if i, ok := ac.groupKey[e.String()]; ok {
			if _, isConst := e.(*expr.Const); !isConst {
				marked[e] = i
				return false
			}
		}
		return true
	})
	out, err := expr.Rewrite(x, func(e expr.Expr) (expr.Expr, error) {
		if i, ok := marked[e]; ok {
			return ac.groupCols[i].Ref(), nil
		}
		return e, nil
	})
	if err != nil {
		return nil, err
	}
	pre := map[int]bool{}
	for _, c := range ac.pre.cols {
		pre[int(c.ID)] = true
	}
	var bad *expr.ColRef
	expr.Walk(out, func(e expr.Expr) bool {
		if r, ok := e.(*expr.ColRef); ok && pre[r.Index] && bad == nil {
			bad = r
		}
		return bad == nil
	})
	if bad != nil && !b.onlyFullGroupBy() {
		return b.anyValueOf(out, ac, pre) // sql_mode without ONLY_FULL_GROUP_BY
	}
	if bad != nil {
		name := bad.Name
		if bad.Table != "" {
			name = bad.Table + "." + bad.Name
		}
		if ac.grouped {
			return nil, sqlerr.WrongFieldWithGrp.New(pos, name)
		}
		return nil, sqlerr.MixOfGroupFunc.New(pos, name)
	}
	return out, nil
}

// exprSizes is e's node count; it records every subtree's in sizes
// (when not nil).
func exprSizes(e expr.Expr, sizes map[expr.Expr]int) int {
	n := 1
	for _, c := range e.Children() {
		n += exprSizes(c, sizes)
	}
	if sizes != nil {
		sizes[e] = n
	}
	return n
}

// containsAgg reports whether a select list calls an aggregate (outside
// subqueries and window functions).
func containsAgg(list sqlparser.SelectExprs) bool {
	for _, se := range list {
		if ae, ok := se.(*sqlparser.AliasedExpr); ok && containsAggExpr(ae.Expr) {
			return true
		}
	}
	return false
}

func orderHasAgg(ob sqlparser.OrderBy) bool {
	for _, o := range ob {
		if containsAggExpr(o.Expr) {
			return true
		}
	}
	return false
}

func containsAggExpr(e sqlparser.Expr) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *sqlparser.Subquery:
			return false, nil
		case *sqlparser.FuncExpr:
			if x.Over != nil {
				return false, nil
			}
			if isAggName(x.Name.Lowered()) {
				found = true
				return false, nil
			}
		case *sqlparser.GroupConcatExpr:
			found = true
			return false, nil
		}
		return true, nil
	}, e)
	return found
}

// ignoreNullsArgs unwraps first_value/last_value's (x, ignore_null) from the
// parser's marker call (parser.IgnoreNullsFn).
func ignoreNullsArgs(exprs sqlparser.SelectExprs) sqlparser.SelectExprs {
	if len(exprs) != 1 {
		return exprs
	}
	if ae, ok := exprs[0].(*sqlparser.AliasedExpr); ok {
		if f, ok := ae.Expr.(*sqlparser.FuncExpr); ok && f.Name.Lowered() == parser.IgnoreNullsFn {
			return f.Exprs
		}
	}
	return exprs
}

// bindWindowCall binds fn(args) OVER (...) and returns a reference to its output.
func (b *Binder) bindWindowCall(n *sqlparser.FuncExpr, s *scope) (expr.Expr, error) {
	wc := b.win
	if wc == nil {
		return nil, sqlerr.Doris.New("window functions are only allowed in the SELECT list and ORDER BY")
	}
	ac := b.agg
	b.win = nil
	defer func() { b.win = wc }()
	name := n.Name.Lowered()
	post := func(x expr.Expr) (expr.Expr, error) { return b.postCheck(x, ac, 1) }
	call := logical.WindowCall{Fn: name}
	exprs := n.Exprs
	if name == "first_value" || name == "last_value" {
		exprs = ignoreNullsArgs(exprs)
	}
	for _, a := range exprs {
		ae, ok := a.(*sqlparser.AliasedExpr)
		if !ok {
			if name == "count" {
				continue // COUNT(*) OVER
			}
			return nil, sqlerr.WrongParamCount.New(name)
		}
		x, err := b.bindExpr(ae.Expr, s)
		if err != nil {
			return nil, err
		}
		if x, err = post(x); err != nil {
			return nil, err
		}
		call.Args = append(call.Args, x)
	}
	over := n.Over
	if over.NameRef.String() != "" {
		return nil, sqlerr.NotSupportedYet.New("named windows")
	}
	for _, p := range over.PartitionBy {
		x, err := b.bindExpr(p, s)
		if err != nil {
			return nil, err
		}
		if x, err = post(x); err != nil {
			return nil, err
		}
		if x.Type().IsOpaque() {
			return nil, sqlerr.ObjectMisuse.New()
		}
		call.PartitionBy = append(call.PartitionBy, x)
	}
	for _, o := range over.OrderBy {
		oe, desc, nf := orderItem(o)
		x, err := b.bindExpr(oe, s)
		if err != nil {
			return nil, err
		}
		if x, err = post(x); err != nil {
			return nil, err
		}
		if x.Type().IsOpaque() {
			return nil, sqlerr.ObjectMisuse.New()
		}
		call.OrderBy = append(call.OrderBy, logical.SortKey{Expr: x, Desc: desc, NullsFirst: nf})
	}
	if f := over.Frame; f != nil {
		fr, err := bindFrame(f)
		if err != nil {
			return nil, err
		}
		call.Frame = fr
	}
	rt, null, err := windowType(name, call.Args)
	if err != nil {
		return nil, err
	}
	call.Col = b.newCol("", sqlparser.String(n), rt, null)
	wc.calls = append(wc.calls, call)
	return call.Col.Ref(), nil
}

func windowType(name string, args []expr.Expr) (types.T, bool, error) {
	switch name {
	case "row_number", "rank", "dense_rank":
		return types.BigIntT, false, nil
	case "ntile":
		// NTILE(n): n a positive integer constant.
		if len(args) != 1 {
			return types.T{}, false, sqlerr.WrongParamCount.New(name)
		}
		if k, ok := args[0].(*expr.Const); !ok || k.Val.Null || !k.Val.T.IsInteger() || k.Val.I <= 0 {
			return types.T{}, false, sqlerr.Doris.New("Parameter n in ntile(n) should be positive.")
		}
		return types.BigIntT, false, nil
	case "percent_rank", "cume_dist":
		if len(args) != 0 {
			return types.T{}, false, sqlerr.WrongParamCount.New(name)
		}
		return types.DoubleT, false, nil
	case "first_value", "last_value":
		// Doris: first_value(x [, ignore_null]), ignore_null a boolean constant.
		if len(args) == 0 || len(args) > 2 {
			return types.T{}, false, sqlerr.WrongParamCount.New(name)
		}
		if len(args) == 2 {
			if k, ok := args[1].(*expr.Const); !ok || k.Val.Null || !(k.Val.T.Kind == types.Boolean || k.Val.T.IsInteger()) {
				return types.T{}, false, sqlerr.Doris.New("The second parameter of " + name + " must be a constant boolean (ignore nulls)")
			}
		}
		return args[0].Type(), true, nil
	case "lag", "lead":
		if len(args) == 0 {
			return types.T{}, false, sqlerr.WrongParamCount.New(name)
		}
		return args[0].Type(), true, nil
	case "count":
		return types.BigIntT, false, nil
	case "sum", "avg", "min", "max":
		if len(args) != 1 {
			return types.T{}, false, sqlerr.WrongParamCount.New(name)
		}
		t, err := expr.AggResultType(name, args[0].Type())
		return t, true, err
	}
	return types.T{}, false, sqlerr.SPDoesNotExist.New(name)
}

func bindFrame(f *sqlparser.Frame) (*logical.Frame, error) {
	if f.Extent == nil {
		return nil, nil
	}
	fr := &logical.Frame{Rows: f.Unit == sqlparser.RowsUnit}
	bound := func(fb *sqlparser.FrameBound) (logical.FrameBound, error) {
		if fb == nil {
			return logical.FrameBound{Kind: 2}, nil
		}
		switch fb.Type {
		case sqlparser.UnboundedPreceding:
			return logical.FrameBound{Kind: 0}, nil
		case sqlparser.CurrentRow:
			return logical.FrameBound{Kind: 2}, nil
		case sqlparser.UnboundedFollowing:
			return logical.FrameBound{Kind: 4}, nil
		case sqlparser.ExprPreceding, sqlparser.ExprFollowing:
			v, ok := fb.Expr.(*sqlparser.SQLVal)
			if !ok || v.Type != sqlparser.IntVal {
				return logical.FrameBound{}, sqlerr.NotSupportedYet.New("non-constant frame bounds")
			}
			var n int64
			fmt.Sscan(string(v.Val), &n)
			k := uint8(1)
			if fb.Type == sqlparser.ExprFollowing {
				k = 3
			}
			return logical.FrameBound{Kind: k, Offset: n}, nil
		}
		return logical.FrameBound{}, sqlerr.NotSupportedYet.New("this frame bound")
	}
	var err error
	if fr.Start, err = bound(f.Extent.Start); err != nil {
		return nil, err
	}
	if f.Extent.End == nil {
		fr.End = logical.FrameBound{Kind: 2}
	} else if fr.End, err = bound(f.Extent.End); err != nil {
		return nil, err
	}
	return fr, nil
}

// dropDeadCoalesce replaces COALESCE/IFNULL whose first argument is a
// non-NULL constant by that constant: the other arguments are never read,
// so they do not count as ungrouped column references (MySQL accepts
// SELECT COALESCE(1, c) ... GROUP BY d).
func dropDeadCoalesce(x expr.Expr) expr.Expr {
	out, err := expr.Rewrite(x, func(e expr.Expr) (expr.Expr, error) {
		c, ok := e.(*expr.Call)
		if !ok || (c.Fn != "coalesce" && c.Fn != "ifnull") || len(c.Args) == 0 {
			return e, nil
		}
		first := c.Args[0]
		if cast, isCast := first.(*expr.Cast); isCast {
			first = cast.Arg
			if cast.Nullable() { // a cast that can fail is dead only if its value is not NULL
				if d, err := eval.EvalConst(&expr.Context{}, cast); err == nil {
					first = expr.Lit(d)
				}
			}
		}
		k, ok := first.(*expr.Const)
		if !ok || k.Val.Null {
			return e, nil
		}
		return expr.NewCast(c.Args[0], c.T), nil
	})
	if err != nil {
		return x
	}
	return out
}
