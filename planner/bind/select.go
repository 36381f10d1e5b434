package bind

import (
	"strconv"
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
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

// BindSelect binds a SELECT statement.
func (b *Binder) BindSelect(stmt sqlparser.SelectStatement) (*Query, error) {
	switch n := stmt.(type) {
	case *sqlparser.Select:
		return b.bindSelect(n)
	case *sqlparser.ParenSelect:
		return b.BindSelect(n.Select)
	}
	return nil, sqlerr.NotSupportedYet.New(strings.TrimSpace(sqlparser.String(stmt)))
}

func (b *Binder) bindSelect(sel *sqlparser.Select) (*Query, error) {
	if sel.With != nil {
		return nil, sqlerr.NotSupportedYet.New("WITH")
	}
	if len(sel.GroupBy) > 0 || sel.Having != nil {
		return nil, sqlerr.NotSupportedYet.New("GROUP BY")
	}
	if sel.QueryOpts.Distinct {
		return nil, sqlerr.NotSupportedYet.New("DISTINCT")
	}
	if len(sel.OrderBy) > 0 {
		return nil, sqlerr.NotSupportedYet.New("ORDER BY")
	}
	from, src, err := b.bindFrom(sel.From)
	if err != nil {
		return nil, err
	}
	sc := &scope{cols: from.Columns(), clause: "where clause"}
	plan := from
	if sel.Where != nil {
		cond, err := b.bindExpr(sel.Where.Expr, sc)
		if err != nil {
			return nil, err
		}
		plan = &logical.Filter{Input: plan, Conds: splitAnd(cond)}
	}
	sc.clause = "field list"
	var exprs []expr.Expr
	var outs []Output
	for _, se := range sel.SelectExprs {
		switch n := se.(type) {
		case *sqlparser.StarExpr:
			qual := n.TableName.Name.String()
			matched := false
			for _, c := range from.Columns() {
				if qual != "" && !strings.EqualFold(qual, c.Table) {
					continue
				}
				matched = true
				exprs = append(exprs, c.Ref())
				outs = append(outs, src.output(c, c.Name))
			}
			if !matched {
				if qual != "" {
					return nil, sqlerr.UnknownTableIn.New(qual, "field list")
				}
				return nil, sqlerr.ParseError.New("No tables used")
			}
		case *sqlparser.AliasedExpr:
			x, err := b.bindExpr(n.Expr, sc)
			if err != nil {
				return nil, err
			}
			name := n.As.String()
			if name == "" {
				name = exprName(n)
			}
			exprs = append(exprs, x)
			if ref, ok := x.(*expr.ColRef); ok {
				if c, ok := columnByID(from.Columns(), logical.ColumnID(ref.Index)); ok {
					outs = append(outs, src.output(c, name))
					continue
				}
			}
			outs = append(outs, Output{Name: name})
		default:
			return nil, sqlerr.NotSupportedYet.New(sqlparser.String(se))
		}
	}
	cols := make([]logical.Column, len(exprs))
	for i, x := range exprs {
		cols[i] = b.newCol("", outs[i].Name, x.Type(), x.Nullable())
		outs[i].Col = cols[i]
	}
	plan = &logical.Project{Input: plan, Exprs: exprs, Cols: cols}
	if sel.Limit != nil {
		off, cnt, err := b.bindLimit(sel.Limit)
		if err != nil {
			return nil, err
		}
		plan = &logical.Limit{Input: plan, Offset: off, Count: cnt}
	}
	return &Query{Plan: plan, Outputs: outs}, nil
}

// exprName is MySQL's name for an unaliased select item: its text as written.
func exprName(n *sqlparser.AliasedExpr) string {
	if c, ok := n.Expr.(*sqlparser.ColName); ok {
		return c.Name.String()
	}
	if n.InputExpression != "" {
		return n.InputExpression
	}
	return sqlparser.String(n.Expr)
}

func columnByID(cols []logical.Column, id logical.ColumnID) (logical.Column, bool) {
	for _, c := range cols {
		if c.ID == id {
			return c, true
		}
	}
	return logical.Column{}, false
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

// splitAnd flattens a conjunction into its conjuncts.
func splitAnd(e expr.Expr) []expr.Expr {
	if c, ok := e.(*expr.Call); ok && c.Fn == "and" {
		return append(splitAnd(c.Args[0]), splitAnd(c.Args[1])...)
	}
	return []expr.Expr{e}
}

// source remembers where FROM columns came from, for result metadata.
type source struct {
	db, table, alias string
}

func (s source) output(c logical.Column, name string) Output {
	return Output{Name: name, Schema: s.db, Table: s.alias, OrgTable: s.table, OrgName: c.Name}
}

// bindFrom binds a FROM clause with at most one table.
func (b *Binder) bindFrom(from sqlparser.TableExprs) (logical.Node, source, error) {
	if len(from) == 0 {
		return &logical.Values{Rows: [][]expr.Expr{{}}}, source{}, nil
	}
	if len(from) > 1 {
		return nil, source{}, sqlerr.NotSupportedYet.New("joins")
	}
	ate, ok := from[0].(*sqlparser.AliasedTableExpr)
	if !ok {
		return nil, source{}, sqlerr.NotSupportedYet.New("joins")
	}
	tn, ok := ate.Expr.(sqlparser.TableName)
	if !ok {
		return nil, source{}, sqlerr.NotSupportedYet.New("derived tables")
	}
	name := tn.Name.String()
	db := tn.DbQualifier.String()
	alias := ate.As.String()
	if alias == "" {
		alias = name
	}
	if strings.EqualFold(name, "dual") && db == "" {
		return &logical.Values{Rows: [][]expr.Expr{{}}}, source{}, nil
	}
	if db == "" {
		db = b.ctx.DB
	}
	if b.ctx.Virtual != nil {
		cols, rows, ok, err := b.ctx.Virtual.VirtualTable(db, name)
		if err != nil {
			return nil, source{}, err
		}
		if ok {
			return b.values(alias, cols, rows), source{db: db, table: name, alias: alias}, nil
		}
	}
	db, t, err := b.resolveTable(db, name)
	if err != nil {
		return nil, source{}, err
	}
	sc := &logical.Scan{DB: db, Table: t, Alias: alias}
	for i, c := range t.Columns {
		sc.Cols = append(sc.Cols, b.newCol(alias, c.Name, c.Type, c.Nullable))
		sc.Ords = append(sc.Ords, i)
	}
	return sc, source{db: db, table: t.Name, alias: alias}, nil
}

func (b *Binder) values(alias string, cols []types.Column, rows [][]types.Datum) *logical.Values {
	v := &logical.Values{}
	for _, c := range cols {
		v.Cols = append(v.Cols, b.newCol(alias, c.Name, c.Type, c.Nullable))
	}
	for _, r := range rows {
		row := make([]expr.Expr, len(r))
		for i, d := range r {
			d.T = cols[i].Type
			row[i] = expr.Lit(d)
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

// ConstInt binds a constant integer expression (SET values, LIMIT).
func (b *Binder) ConstInt(e sqlparser.Expr) (int64, error) {
	x, err := b.bindExpr(e, nil)
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
func (b *Binder) BindConst(e sqlparser.Expr) (expr.Expr, error) { return b.bindExpr(e, nil) }
