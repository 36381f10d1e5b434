package bind

import (
	"strconv"
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// Output describes one result column for the client.
type Output struct {
	Col      logical.Column
	Name     string // as the client sees it
	Schema   string // origin database, if a plain column
	Table    string // alias
	OrgTable string
	OrgName  string
}

// Query is a bound query.
type Query struct {
	Plan    logical.Node
	Outputs []Output
}

// BindSelect binds a SELECT (or UNION/INTERSECT/EXCEPT) statement.
func (b *Binder) BindSelect(stmt sqlparser.SelectStatement) (*Query, error) {
	return b.bindQuery(stmt, nil)
}

func (b *Binder) bindQuery(stmt sqlparser.SelectStatement, outer *scope) (*Query, error) {
	if err := b.cancelled(); err != nil {
		return nil, err
	}
	switch n := stmt.(type) {
	case *sqlparser.Select:
		if n.With != nil {
			pop, err := b.pushWith(n.With)
			if err != nil {
				return nil, err
			}
			defer pop()
		}
		return b.bindSelect(n, outer)
	case *sqlparser.ParenSelect:
		return b.bindQuery(n.Select, outer)
	case *sqlparser.SetOp:
		if n.With != nil {
			pop, err := b.pushWith(n.With)
			if err != nil {
				return nil, err
			}
			defer pop()
		}
		return b.bindSetOp(n, outer)
	}
	return nil, sqlerr.NotSupportedYet.New(strings.TrimSpace(sqlparser.String(stmt)))
}

// selectItem is one bound select-list entry.
type selectItem struct {
	expr  expr.Expr
	out   Output
	alias string // explicit AS name
	ast   sqlparser.Expr
}

func (b *Binder) bindSelect(sel *sqlparser.Select, outer *scope) (*Query, error) {
	from, err := b.bindFrom(sel.From, outer)
	if err != nil {
		return nil, err
	}
	plan := from.node
	fromScope := &scope{cols: from.node.Columns(), clause: "where clause", outer: outer, shown: shownIDs(from)}
	if sel.Where != nil {
		p, err := b.bindWhere(plan, sel.Where.Expr, fromScope)
		if err != nil {
			return nil, err
		}
		plan = p
	}

	hasAgg := len(sel.GroupBy) > 0 || sel.Having != nil || containsAgg(sel.SelectExprs) || orderHasAgg(sel.OrderBy)
	var ac *aggCtx
	if hasAgg {
		ac = &aggCtx{pre: fromScope, keys: map[string]int{}, grouped: len(sel.GroupBy) > 0}
		fromScope.clause = "group statement"
		if err := b.bindGroupBy(ac, sel.GroupBy, sel.SelectExprs, fromScope); err != nil {
			return nil, err
		}
		for _, g := range ac.groups {
			if g.Type().IsOpaque() {
				return nil, sqlerr.ObjectMisuse.New()
			}
		}
	}
	wc := &winCtx{}
	var postApplies []*logical.Apply
	b.applies = &postApplies
	defer func() { b.applies = nil }()
	if ac != nil {
		fromScope.post = ac
		defer func() { fromScope.post = nil }()
	}

	// The select list.
	fromScope.clause = "field list"
	items, err := b.bindSelectList(sel.SelectExprs, from, fromScope, ac, wc)
	if err != nil {
		return nil, err
	}
	// HAVING.
	var having []expr.Expr
	if sel.Having != nil {
		fromScope.clause = "having clause"
		prev := b.having // a subquery's HAVING nests inside ours
		b.having = newHavingNames(fromScope, ac, items)
		x, err := b.bindPost(sel.Having.Expr, fromScope, ac, wc, items)
		b.having = prev
		if err != nil {
			return nil, err
		}
		having = splitAnd(condition(x))
	}
	// ORDER BY keys: ordinals and aliases name select items; other
	// expressions are computed as hidden columns.
	fromScope.clause = "order clause"
	type orderKey struct {
		item       int // select item, or -1
		hidden     expr.Expr
		desc       bool
		nullsFirst bool
	}
	var okeys []orderKey
	for _, o := range sel.OrderBy {
		oe, desc, nf := orderItem(o)
		if i, ok, err := selectRef(oe, items); err != nil {
			return nil, err
		} else if ok {
			okeys = append(okeys, orderKey{item: i, desc: desc, nullsFirst: nf})
			continue
		}
		x, err := b.bindPost(oe, fromScope, ac, wc, items)
		if err != nil {
			return nil, err
		}
		// An ORDER BY expression equal to a select item sorts by that item.
		found := -1
		for i, it := range items {
			if it.expr.String() == x.String() {
				found = i
				break
			}
		}
		if found >= 0 {
			okeys = append(okeys, orderKey{item: found, desc: desc, nullsFirst: nf})
		} else {
			okeys = append(okeys, orderKey{item: -1, hidden: x, desc: desc, nullsFirst: nf})
		}
	}

	if ac != nil {
		plan = b.aggregate(plan, ac)
	}
	plan = b.wrapApplies(plan, postApplies)
	if len(having) > 0 {
		plan = &logical.Filter{Input: plan, Conds: having}
	}
	if len(wc.calls) > 0 {
		plan = &logical.Window{Input: plan, Calls: wc.calls}
	}

	// Project the select items, plus hidden ORDER BY expressions.
	var exprs []expr.Expr
	var cols []logical.Column
	outs := make([]Output, len(items))
	for i, it := range items {
		c := b.newCol("", it.out.Name, it.expr.Type(), it.expr.Nullable())
		exprs = append(exprs, it.expr)
		cols = append(cols, c)
		outs[i] = it.out
		outs[i].Col = c
	}
	visible := len(cols)
	var sortKeys []logical.SortKey
	for _, k := range okeys {
		var ref expr.Expr
		if k.item >= 0 {
			ref = cols[k.item].Ref()
		} else {
			if sel.QueryOpts.Distinct {
				return nil, sqlerr.Doris.New("Expression #1 of ORDER BY clause is not in SELECT list, references column which is not in SELECT list; this is incompatible with DISTINCT")
			}
			c := b.newCol("", k.hidden.String(), k.hidden.Type(), k.hidden.Nullable())
			exprs = append(exprs, k.hidden)
			cols = append(cols, c)
			ref = c.Ref()
		}
		if ref.Type().IsOpaque() {
			return nil, sqlerr.ObjectMisuse.New()
		}
		sortKeys = append(sortKeys, logical.SortKey{Expr: ref, Desc: k.desc, NullsFirst: k.nullsFirst})
	}
	plan = &logical.Project{Input: plan, Exprs: exprs, Cols: cols}
	if sel.QueryOpts.Distinct {
		for _, c := range cols[:visible] {
			if c.T.IsOpaque() {
				return nil, sqlerr.ObjectMisuse.New() // DISTINCT groups by every column
			}
		}
		plan = distinctOf(b, plan, cols[:visible])
	}
	if len(sortKeys) > 0 {
		plan = &logical.Sort{Input: plan, Keys: sortKeys}
	}
	if sel.Limit != nil {
		off, cnt, err := b.bindLimit(sel.Limit)
		if err != nil {
			return nil, err
		}
		plan = &logical.Limit{Input: plan, Offset: off, Count: cnt}
	}
	if len(cols) > visible {
		var vis []expr.Expr
		for _, c := range cols[:visible] {
			vis = append(vis, c.Ref())
		}
		plan = &logical.Project{Input: plan, Exprs: vis, Cols: cols[:visible]}
	}
	return &Query{Plan: plan, Outputs: outs}, nil
}

// distinctOf groups by every column (SELECT DISTINCT).
func distinctOf(b *Binder, in logical.Node, cols []logical.Column) logical.Node {
	agg := &logical.Aggregate{Input: in}
	for _, c := range cols {
		agg.Groups = append(agg.Groups, c.Ref())
		agg.GroupCols = append(agg.GroupCols, b.newCol(c.Table, c.Name, c.T, c.Null))
	}
	// Keep the original column ids visible above the DISTINCT.
	var exprs []expr.Expr
	for _, c := range agg.GroupCols {
		exprs = append(exprs, c.Ref())
	}
	return &logical.Project{Input: agg, Exprs: exprs, Cols: cols}
}

// selectRef resolves an ORDER BY / GROUP BY item that names a select item:
// an integer ordinal, or an unqualified name equal to an alias.
func selectRef(e sqlparser.Expr, items []selectItem) (int, bool, error) {
	if v, ok := e.(*sqlparser.SQLVal); ok && v.Type == sqlparser.IntVal {
		n, err := strconv.Atoi(string(v.Val))
		if err != nil || n < 1 || n > len(items) {
			return 0, false, sqlerr.BadField.New(string(v.Val), "order clause")
		}
		return n - 1, true, nil
	}
	if c, ok := e.(*sqlparser.ColName); ok && c.Qualifier.Name.IsEmpty() {
		for i, it := range items {
			if it.alias != "" && strings.EqualFold(it.alias, c.Name.String()) {
				return i, true, nil
			}
		}
	}
	return 0, false, nil
}

func (b *Binder) bindGroupItem(g sqlparser.Expr, sel sqlparser.SelectExprs, s *scope) (expr.Expr, error) {
	if v, ok := g.(*sqlparser.SQLVal); ok && v.Type == sqlparser.IntVal {
		n, err := strconv.Atoi(string(v.Val))
		if err != nil || n < 1 || n > len(sel) {
			return nil, sqlerr.BadField.New(string(v.Val), "group statement")
		}
		ae, ok := sel[n-1].(*sqlparser.AliasedExpr)
		if !ok {
			return nil, sqlerr.BadField.New(string(v.Val), "group statement")
		}
		if containsAggExpr(ae.Expr) {
			return nil, sqlerr.Doris.New("Can't group on '" + exprName(ae) + "'")
		}
		return b.bindExpr(ae.Expr, s)
	}
	x, err := b.bindExpr(g, s)
	if err == nil {
		return x, nil
	}
	// MySQL also accepts a select alias in GROUP BY.
	if c, ok := g.(*sqlparser.ColName); ok && c.Qualifier.Name.IsEmpty() {
		for _, se := range sel {
			if ae, ok := se.(*sqlparser.AliasedExpr); ok && strings.EqualFold(ae.As.String(), c.Name.String()) {
				if containsAggExpr(ae.Expr) {
					return nil, sqlerr.Doris.New("Can't group on '" + ae.As.String() + "'")
				}
				return b.bindExpr(ae.Expr, s)
			}
		}
	}
	return nil, err
}

func (b *Binder) bindSelectList(list sqlparser.SelectExprs, from *fromResult, s *scope, ac *aggCtx, wc *winCtx) ([]selectItem, error) {
	var items []selectItem
	for _, se := range list {
		switch n := se.(type) {
		case *sqlparser.StarExpr:
			qual := n.TableName.Name.String()
			matched := false
			for _, c := range from.visible {
				if qual != "" && !strings.EqualFold(qual, c.Table) {
					continue
				}
				matched = true
				x, err := b.postCheck(c.Ref(), ac, len(items)+1)
				if err != nil {
					return nil, err
				}
				items = append(items, selectItem{expr: x, out: b.origin(c, c.Name)})
			}
			if !matched {
				if qual != "" {
					return nil, sqlerr.UnknownTableIn.New(qual, "field list")
				}
				return nil, sqlerr.ParseError.New("No tables used")
			}
		case *sqlparser.AliasedExpr:
			b.agg, b.win = ac, wc
			x, err := b.bindExpr(n.Expr, s)
			b.agg, b.win = nil, nil
			if err != nil {
				return nil, err
			}
			if x, err = b.postCheck(x, ac, len(items)+1); err != nil {
				return nil, err
			}
			name := n.As.String()
			if name == "" {
				name = exprName(n)
			}
			it := selectItem{expr: x, alias: n.As.String(), ast: n.Expr, out: Output{Name: name}}
			if ref, ok := n.Expr.(*sqlparser.ColName); ok && !strings.HasPrefix(ref.Name.String(), "@") {
				if c, err := s.lookup(ref.Qualifier.Name.String(), ref.Name.String()); err == nil {
					it.out = b.origin(c, name)
				}
			}
			items = append(items, it)
		default:
			return nil, sqlerr.NotSupportedYet.New(sqlparser.String(se))
		}
	}
	return items, nil
}

// bindPost binds an expression evaluated after aggregation (HAVING, ORDER
// BY): aggregates become references to the aggregation's outputs, and a
// name not found among the columns may be a select alias.
func (b *Binder) bindPost(e sqlparser.Expr, s *scope, ac *aggCtx, wc *winCtx, items []selectItem) (expr.Expr, error) {
	b.agg, b.win = ac, wc
	x, err := b.bindExpr(e, s)
	b.agg, b.win = nil, nil
	if err != nil {
		// HAVING/ORDER BY may name a select alias.
		if c, ok := e.(*sqlparser.ColName); ok && c.Qualifier.Name.IsEmpty() {
			for _, it := range items {
				if strings.EqualFold(it.out.Name, c.Name.String()) {
					return it.expr, nil
				}
			}
		}
		return nil, err
	}
	return b.postCheck(x, ac, 1)
}

func (b *Binder) bindLimit(l *sqlparser.Limit) (off, cnt int64, err error) {
	num := func(e sqlparser.Expr) (int64, error) {
		x, err := b.bindExpr(e, nil)
		if err != nil {
			return 0, err
		}
		c, ok := x.(*expr.Const)
		if !ok || c.Val.Null || !c.Val.T.IsInteger() || c.Val.I < 0 {
			return 0, sqlerr.WrongArguments.New("LIMIT")
		}
		return c.Val.I, nil
	}
	cnt = -1
	if l.Rowcount != nil {
		if cnt, err = num(l.Rowcount); err != nil {
			return 0, 0, err
		}
	}
	if l.Offset != nil {
		if off, err = num(l.Offset); err != nil {
			return 0, 0, err
		}
	}
	return off, cnt, nil
}

// exprName is MySQL's name for an unaliased select item: its text as written.
func exprName(n *sqlparser.AliasedExpr) string {
	if c, ok := n.Expr.(*sqlparser.ColName); ok {
		return c.Name.String()
	}
	if n.InputExpression != "" {
		return parser.RestoreCasts(n.InputExpression)
	}
	return sqlparser.String(n.Expr)
}

// splitAnd flattens a conjunction into its conjuncts.
func splitAnd(e expr.Expr) []expr.Expr {
	if c, ok := e.(*expr.Call); ok && c.Fn == "and" {
		return append(splitAnd(c.Args[0]), splitAnd(c.Args[1])...)
	}
	return []expr.Expr{e}
}

// ConstInt binds a constant integer expression (KILL id).
func (b *Binder) ConstInt(e *parser.Expr) (int64, error) {
	x, err := b.bindExpr(e.AST, nil)
	if err != nil {
		return 0, err
	}
	c, ok := x.(*expr.Const)
	if !ok || c.Val.Null {
		return 0, sqlerr.WrongArguments.New("constant")
	}
	if c.Val.T.IsInteger() {
		return c.Val.I, nil
	}
	return strconv.ParseInt(c.Val.String(), 10, 64)
}

// BindConst binds a constant expression with no columns in scope (SET x = expr).
func (b *Binder) BindConst(e *parser.Expr) (expr.Expr, error) { return b.bindExpr(e.AST, nil) }

// havingNames resolves an unqualified name in HAVING, outside aggregate
// arguments, as MySQL does (and Doris, which binds HAVING against the
// GROUP BY keys, then the select list, then the FROM columns): a GROUP BY
// column of that name first, then a select alias, then the FROM columns.
// So in SELECT a AS b FROM t GROUP BY a HAVING b > 0, b is the alias, not
// the ungrouped column t.b.
type havingNames struct {
	s       *scope
	aliases map[string]expr.Expr // lower-case alias → bound select item
}

func newHavingNames(s *scope, ac *aggCtx, items []selectItem) *havingNames {
	grouped := map[string]bool{}
	if ac != nil {
		for _, g := range ac.groups {
			if r, ok := g.(*expr.ColRef); ok {
				grouped[strings.ToLower(r.Name)] = true
			}
		}
	}
	h := &havingNames{s: s, aliases: map[string]expr.Expr{}}
	for _, it := range items {
		k := strings.ToLower(it.alias)
		if k == "" || grouped[k] || it.ast == nil || containsWindow(it.ast) {
			continue
		}
		if _, dup := h.aliases[k]; !dup {
			h.aliases[k] = it.expr
		}
	}
	return h
}

// alias returns the select item an unqualified column name in the HAVING
// clause's own scope names. Inside an aggregate's arguments (b.agg is
// nil there) and in subqueries names are the FROM columns.
func (h *havingNames) alias(b *Binder, s *scope, n *sqlparser.ColName) (expr.Expr, bool) {
	if h == nil || s != h.s || b.agg == nil || !n.Qualifier.IsEmpty() {
		return nil, false
	}
	x, ok := h.aliases[strings.ToLower(n.Name.String())]
	return x, ok
}

func containsWindow(e sqlparser.Expr) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *sqlparser.Subquery:
			return false, nil
		case *sqlparser.FuncExpr:
			if x.Over != nil {
				found = true
			}
		}
		return !found, nil
	}, e)
	return found
}

// orderItem reads one ORDER BY item: its expression (unwrapped from the
// parser's NULLS FIRST/LAST marker), direction and NULL placement (MySQL's
// default: NULLs first ascending, last descending).
func orderItem(o *sqlparser.Order) (e sqlparser.Expr, desc, nullsFirst bool) {
	e, desc = o.Expr, strings.EqualFold(o.Direction, sqlparser.DescScr)
	nullsFirst = !desc
	if f, ok := e.(*sqlparser.FuncExpr); ok && len(f.Exprs) == 1 {
		if ae, ok := f.Exprs[0].(*sqlparser.AliasedExpr); ok {
			switch f.Name.Lowered() {
			case parser.NullsFirstFn:
				return ae.Expr, desc, true
			case parser.NullsLastFn:
				return ae.Expr, desc, false
			}
		}
	}
	return e, desc, nullsFirst
}
