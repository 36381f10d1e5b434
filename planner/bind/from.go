package bind

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// fromResult is a bound FROM clause.
type fromResult struct {
	node logical.Node
	// visible are the columns * expands to (USING/NATURAL joins show a
	// shared column once).
	visible []logical.Column
	// cols caches node.Columns() (columns); owned says this result made
	// cols and visible itself, so the join above may append to them in
	// place. A chain of n joins then costs O(n) column copies, not O(n²).
	cols  []logical.Column
	owned bool
}

// shownIDs is the set of f's visible column ids when a USING or NATURAL
// join hid some columns (nil when every column is visible).
func shownIDs(f *fromResult) map[logical.ColumnID]bool {
	if len(f.visible) == len(f.columns()) {
		return nil
	}
	m := make(map[logical.ColumnID]bool, len(f.visible))
	for _, c := range f.visible {
		m[c.ID] = true
	}
	return m
}

// columns is f.node.Columns(), computed once.
func (f *fromResult) columns() []logical.Column {
	if f.cols == nil {
		f.cols = f.node.Columns()
	}
	return f.cols
}

// concat is a ++ b, appending to a in place when the caller owns it.
func concat(owned bool, a, b []logical.Column) []logical.Column {
	if owned {
		return append(a, b...)
	}
	return slices.Concat(a, b)
}

// origin records where a column came from, for result metadata.
type origin struct {
	db, table string
}

// originOf remembers table columns' origins (set when scans are bound).
func (b *Binder) setOrigin(c logical.Column, db, table string) {
	if b.origins == nil {
		b.origins = map[logical.ColumnID]origin{}
	}
	b.origins[c.ID] = origin{db: db, table: table}
}

func (b *Binder) origin(c logical.Column, name string) Output {
	o := b.origins[c.ID]
	return Output{Name: name, Schema: o.db, Table: c.Table, OrgTable: o.table, OrgName: c.Name}
}

// cte is one WITH definition.
type cte struct {
	stmt sqlparser.SelectStatement
	cols []string
}

func (b *Binder) pushWith(w *sqlparser.With) (func(), error) {
	if w.Recursive {
		return nil, sqlerr.NotSupportedYet.New("WITH RECURSIVE")
	}
	m := map[string]*cte{}
	b.ctes = append(b.ctes, m)
	for _, c := range w.Ctes {
		sq, ok := c.AliasedTableExpr.Expr.(*sqlparser.Subquery)
		if !ok {
			return nil, sqlerr.NotSupportedYet.New("this WITH form")
		}
		var cols []string
		for _, ci := range c.Columns {
			cols = append(cols, ci.String())
		}
		m[strings.ToLower(c.AliasedTableExpr.As.String())] = &cte{stmt: sq.Select, cols: cols}
	}
	return func() { b.ctes = b.ctes[:len(b.ctes)-1] }, nil
}

func (b *Binder) lookupCTE(name string) *cte {
	for i := len(b.ctes) - 1; i >= 0; i-- {
		if c, ok := b.ctes[i][strings.ToLower(name)]; ok {
			return c
		}
	}
	return nil
}

// bindFrom binds a FROM clause; comma-separated items are cross joins
// (WHERE conjuncts are pushed into them by the rewrite rules).
func (b *Binder) bindFrom(from sqlparser.TableExprs, outer *scope) (*fromResult, error) {
	if len(from) == 0 {
		return &fromResult{node: &logical.Values{Rows: [][]expr.Expr{{}}}}, nil
	}
	if n := countTables(from); n > maxJoinTables {
		return nil, sqlerr.TooManyTables.New(maxJoinTables)
	}
	var acc *fromResult
	for _, te := range from {
		r, err := b.bindTableExpr(te, outer)
		if err != nil {
			return nil, err
		}
		if acc == nil {
			acc = r
			continue
		}
		if err := checkUniqueAliases(acc.columns(), r.columns()); err != nil {
			return nil, err
		}
		acc = &fromResult{node: &logical.Join{Type: fragment.JoinCross, Left: acc.node, Right: r.node},
			visible: concat(acc.owned, acc.visible, r.visible), cols: concat(acc.owned, acc.cols, r.cols), owned: true}
	}
	return acc, nil
}

// maxJoinTables bounds the tables (and derived tables) one FROM clause
// joins, as MySQL's 61 does. A 1,000-table chain plans in about 0.1 s; the
// plan's encoding nests about four levels per join, and the backends'
// decoder stops at 10,000 levels (about 2,400 joins).
const maxJoinTables = 1000

// countTables counts the relations of a FROM clause.
func countTables(from sqlparser.TableExprs) int {
	n := 0
	var count func(te sqlparser.TableExpr)
	count = func(te sqlparser.TableExpr) {
		switch x := te.(type) {
		case *sqlparser.JoinTableExpr:
			count(x.LeftExpr)
			count(x.RightExpr)
		case *sqlparser.ParenTableExpr:
			for _, e := range x.Exprs {
				count(e)
			}
		default:
			n++
		}
	}
	for _, te := range from {
		count(te)
	}
	return n
}

func checkUniqueAliases(l, r []logical.Column) error {
	// The right side of a join chain is usually one table: compare its few
	// names with the left's columns instead of hashing every left column
	// at every level of the chain.
	var names []string
	for _, c := range r {
		if c.Table != "" && !slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, c.Table) }) {
			names = append(names, c.Table)
		}
	}
	if len(names) > 8 {
		seen := map[string]bool{}
		for _, c := range l {
			if c.Table != "" {
				seen[strings.ToLower(c.Table)] = true
			}
		}
		for _, n := range names {
			if seen[strings.ToLower(n)] {
				return sqlerr.NonUniqTable.New(n)
			}
		}
		return nil
	}
	for _, n := range names {
		for _, c := range l {
			if strings.EqualFold(c.Table, n) {
				return sqlerr.NonUniqTable.New(n)
			}
		}
	}
	return nil
}

func (b *Binder) bindTableExpr(te sqlparser.TableExpr, outer *scope) (*fromResult, error) {
	if err := b.cancelled(); err != nil {
		return nil, err
	}
	switch n := te.(type) {
	case *sqlparser.AliasedTableExpr:
		return b.bindAliased(n, outer)
	case *sqlparser.ParenTableExpr:
		return b.bindFrom(n.Exprs, outer)
	case *sqlparser.JoinTableExpr:
		return b.bindJoin(n, outer)
	case *sqlparser.TableFuncExpr:
		return b.bindTableFunc(n)
	}
	return nil, sqlerr.NotSupportedYet.New(sqlparser.String(te))
}

func (b *Binder) bindAliased(n *sqlparser.AliasedTableExpr, outer *scope) (*fromResult, error) {
	alias := n.As.String()
	switch e := n.Expr.(type) {
	case sqlparser.TableName:
		name := e.Name.String()
		db := e.DbQualifier.String()
		if alias == "" {
			alias = name
		}
		if db == "" {
			if c := b.lookupCTE(name); c != nil {
				q, err := b.bindQuery(c.stmt, nil)
				if err != nil {
					return nil, err
				}
				return b.derived(q, alias, c.cols)
			}
			if strings.EqualFold(name, "dual") {
				return &fromResult{node: &logical.Values{Rows: [][]expr.Expr{{}}}}, nil
			}
			db = b.ctx.DB
		}
		if b.ctx.Virtual != nil {
			cols, rows, ok, err := b.ctx.Virtual.VirtualTable(db, name)
			if err != nil {
				return nil, err
			}
			if ok {
				v := b.values(alias, cols, rows)
				v.System = true
				for _, c := range v.Cols {
					b.setOrigin(c, db, name)
				}
				return &fromResult{node: v, visible: v.Cols}, nil
			}
		}
		named := db
		db, t, err := b.resolveTable(db, name)
		if err != nil {
			f, err := b.tableOrView(named, name, alias, err)
			if err == nil && len(n.Partitions) > 0 {
				return nil, sqlerr.Doris.New(fmt.Sprintf("%s is not an OLAP table: it has no partitions to select", name))
			}
			return f, err
		}
		sc := &logical.Scan{DB: db, Table: t, Alias: alias}
		sc.ViewDB, sc.View = b.viewOfScan()
		for i, c := range t.Columns {
			col := b.newCol(alias, c.Name, c.Type, c.Nullable)
			b.setOrigin(col, db, t.Name)
			sc.Cols = append(sc.Cols, col)
			sc.Ords = append(sc.Ords, i)
		}
		f, err := b.hideColumns(sc)
		if err != nil {
			return nil, err
		}
		return b.withPartitions(f, sc, e, n.Partitions)
	case *sqlparser.Subquery:
		if alias == "" {
			return nil, sqlerr.DerivedMustAlias.New()
		}
		q, err := b.bindQuery(e.Select, nil)
		if err != nil {
			return nil, err
		}
		var names []string
		for _, c := range n.Partitions {
			_ = c
		}
		return b.derived(q, alias, names)
	}
	return nil, sqlerr.NotSupportedYet.New(sqlparser.String(n))
}

// derived exposes a subquery's output as a table named alias.
func (b *Binder) derived(q *Query, alias string, names []string) (*fromResult, error) {
	in := q.Plan.Columns()
	if len(names) > 0 && len(names) != len(in) {
		return nil, sqlerr.WrongValueCount.New(1)
	}
	p := &logical.Project{Input: q.Plan}
	seen := map[string]bool{}
	for i, c := range in {
		name := q.Outputs[i].Name
		if len(names) > 0 {
			name = names[i]
		}
		if seen[strings.ToLower(name)] {
			return nil, sqlerr.DupFieldName.New(name)
		}
		seen[strings.ToLower(name)] = true
		nc := b.newCol(alias, name, c.T, c.Null)
		if o, ok := b.origins[c.ID]; ok {
			b.setOrigin(nc, o.db, o.table)
		}
		p.Exprs = append(p.Exprs, c.Ref())
		p.Cols = append(p.Cols, nc)
	}
	return &fromResult{node: p, visible: p.Cols}, nil
}

func (b *Binder) values(alias string, cols []types.Column, rows [][]types.Datum) *logical.Values {
	v := &logical.Values{}
	for _, c := range cols {
		v.Cols = append(v.Cols, b.newCol(alias, c.Name, c.Type, c.Nullable))
	}
	for _, r := range rows {
		row := make([]expr.Expr, len(r))
		for i, d := range r {
			if !d.Null {
				d.T = cols[i].Type
			} else {
				d = types.NullDatum(cols[i].Type)
			}
			row[i] = expr.Lit(d)
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

var joinTypes = map[string]fragment.JoinType{
	"join": fragment.JoinInner, "inner join": fragment.JoinInner, "cross join": fragment.JoinInner,
	"straight_join": fragment.JoinInner, "left join": fragment.JoinLeftOuter, "left outer join": fragment.JoinLeftOuter,
	"right join": fragment.JoinRightOuter, "right outer join": fragment.JoinRightOuter,
	"full outer join": fragment.JoinFullOuter, "full join": fragment.JoinFullOuter,
	"natural join": fragment.JoinInner, "natural left join": fragment.JoinLeftOuter, "natural right join": fragment.JoinRightOuter,
	// Doris's explicit semi and anti joins (sql/parser/semijoin.go).
	parser.LeftSemiJoinStr: fragment.JoinLeftSemi, parser.LeftAntiJoinStr: fragment.JoinLeftAnti,
	parser.RightSemiJoinStr: fragment.JoinRightSemi, parser.RightAntiJoinStr: fragment.JoinRightAnti,
}

func (b *Binder) bindJoin(n *sqlparser.JoinTableExpr, outer *scope) (*fromResult, error) {
	l, err := b.bindTableExpr(n.LeftExpr, outer)
	if err != nil {
		return nil, err
	}
	r, err := b.bindTableExpr(n.RightExpr, outer)
	if err != nil {
		return nil, err
	}
	lcols, rcols := l.columns(), r.columns()
	if err := checkUniqueAliases(lcols, rcols); err != nil {
		return nil, err
	}
	kind := strings.ToLower(n.Join)
	jt, ok := joinTypes[kind]
	if !ok {
		return nil, sqlerr.NotSupportedYet.New(strings.ToUpper(n.Join))
	}
	j := &logical.Join{Type: jt, Left: l.node, Right: r.node}
	if b.ctx.Hints != nil {
		if h, ok := b.ctx.Hints.Join[n]; ok {
			j.Hint = h
		}
	}
	// The ON condition sees all of both sides. A semi or anti join outputs
	// one side only: the other side's columns are visible to its ON
	// condition and nowhere above it (j.Columns() drops them for the
	// clauses bound over the FROM clause).
	all := concat(l.owned, lcols, rcols)
	cols := all
	var visible []logical.Column
	switch {
	case jt.KeepsLeft() && jt.KeepsRight():
		visible = concat(l.owned, l.visible, r.visible)
	case jt.KeepsLeft():
		cols, visible = all[:len(lcols)], concat(l.owned, l.visible, nil)
	default:
		cols, visible = all[len(lcols):], concat(r.owned, r.visible, nil)
	}
	var conds []expr.Expr
	using := n.Condition.Using
	if strings.HasPrefix(kind, "natural") {
		for _, lc := range l.visible {
			for _, rc := range r.visible {
				if strings.EqualFold(lc.Name, rc.Name) {
					using = append(using, sqlparser.NewColIdent(lc.Name))
				}
			}
		}
	}
	if len(using) > 0 && jt == fragment.JoinFullOuter {
		// The shared column would be COALESCE(left, right); showing either
		// side's would answer NULL for the other side's unmatched rows.
		return nil, sqlerr.NotSupportedYet.New("USING or NATURAL with FULL OUTER JOIN (write the condition with ON)")
	}
	if len(using) > 0 {
		drop := map[logical.ColumnID]bool{}
		for _, u := range using {
			lc, err := (&scope{cols: l.visible, clause: "from clause"}).lookup("", u.String())
			if err != nil {
				return nil, err
			}
			rc, err := (&scope{cols: r.visible, clause: "from clause"}).lookup("", u.String())
			if err != nil {
				return nil, err
			}
			eq, err := expr.NewCall("eq", lc.Ref(), rc.Ref())
			if err != nil {
				return nil, err
			}
			conds = append(conds, eq)
			if jt == fragment.JoinRightOuter || !jt.KeepsLeft() {
				drop[lc.ID] = true
			} else {
				drop[rc.ID] = true
			}
		}
		var vis []logical.Column
		for _, c := range visible {
			if !drop[c.ID] {
				vis = append(vis, c)
			}
		}
		visible = vis
	} else if n.Condition.On != nil {
		s := &scope{cols: all, clause: "on clause", outer: outer}
		x, err := b.bindExpr(n.Condition.On, s)
		if err != nil {
			return nil, err
		}
		conds = splitAnd(condition(x))
	}
	if len(conds) == 0 && jt == fragment.JoinInner {
		j.Type = fragment.JoinCross
	}
	j.Equi, j.Other = logical.SplitConds(conds, lcols, rcols)
	return &fromResult{node: j, visible: visible, cols: cols, owned: true}, nil
}
