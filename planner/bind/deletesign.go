package bind

import (
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/storage"
)

// IsUsingDelete reports whether v is DELETE FROM t … USING … (Doris's
// join form; vitess puts the target in Targets and the USING items in
// TableExprs). MySQL's DELETE t FROM t JOIN … parses the same way but
// names the target among the tables; Doris has no such form.
func IsUsingDelete(v *parser.Vitess) bool {
	n, ok := v.AST.(*sqlparser.Delete)
	return ok && isUsingDelete(n)
}

func isUsingDelete(n *sqlparser.Delete) bool {
	if len(n.Targets) != 1 {
		return len(n.Targets) > 0
	}
	return !namesTable(n.TableExprs, n.Targets[0])
}

// namesTable reports whether the table expressions name table tn
// (unaliased, or aliased as its name).
func namesTable(exprs sqlparser.TableExprs, tn sqlparser.TableName) bool {
	for _, te := range exprs {
		switch x := te.(type) {
		case *sqlparser.AliasedTableExpr:
			if n, ok := x.Expr.(sqlparser.TableName); ok && strings.EqualFold(n.Name.String(), tn.Name.String()) {
				return true
			}
			if strings.EqualFold(x.As.String(), tn.Name.String()) {
				return true
			}
		case *sqlparser.JoinTableExpr:
			if namesTable(sqlparser.TableExprs{x.LeftExpr, x.RightExpr}, tn) {
				return true
			}
		case *sqlparser.ParenTableExpr:
			if namesTable(x.Exprs, tn) {
				return true
			}
		}
	}
	return false
}

// BindDeleteSign binds DELETE on a UNIQUE KEY table as Doris's
// DeleteFromUsingCommand does: a load of the matched rows with the delete
// sign set, INSERT INTO t SELECT <keys>, …, 1 FROM t [USING …] WHERE …, so
// each matched key's newest row is a deleting one. Value columns keep the
// row's values on a merge-on-write table (Doris's partial update fills
// them from the old row) and take their defaults on a merge-on-read one,
// except NOT NULL columns without a default, which are read back.
func (b *Binder) BindDeleteSign(v *parser.Vitess) (*Insert, error) {
	n, err := stmtAs[*sqlparser.Delete](v, "a DELETE")
	if err != nil {
		return nil, err
	}
	switch {
	case n.With != nil:
		return nil, sqlerr.NotSupportedYet.New("DELETE with a WITH clause")
	case len(n.OrderBy) > 0 || n.Limit != nil:
		return nil, sqlerr.NotSupportedYet.New("DELETE with ORDER BY or LIMIT")
	case len(n.Returning) > 0:
		return nil, sqlerr.NotSupportedYet.New("DELETE ... RETURNING")
	case len(n.Targets) > 1:
		return nil, sqlerr.NotSupportedYet.New("DELETE of several tables")
	}
	from := n.TableExprs
	var ate *sqlparser.AliasedTableExpr
	if len(n.Targets) == 1 && !isUsingDelete(n) {
		// MySQL's DELETE a FROM t AS a, … (the parser's spelling of
		// Doris's DELETE FROM t a USING …): the target is among the tables.
		if ate = targetExpr(n.TableExprs, n.Targets[0]); ate == nil {
			return nil, sqlerr.NotSupportedYet.New("DELETE of a table the FROM clause names inside a derived table")
		}
	} else if isUsingDelete(n) {
		// DELETE FROM t [a] USING <items>: t joined with the items.
		ate = &sqlparser.AliasedTableExpr{Expr: n.Targets[0]}
		from = append(sqlparser.TableExprs{ate}, n.TableExprs...)
	} else {
		var ok bool
		if ate, ok = n.TableExprs[0].(*sqlparser.AliasedTableExpr); !ok || len(n.TableExprs) != 1 {
			return nil, sqlerr.NotSupportedYet.New("DELETE with a join outside USING")
		}
	}
	tn, ok := ate.Expr.(sqlparser.TableName)
	if !ok {
		return nil, sqlerr.NotSupportedYet.New("DELETE from a derived table")
	}
	db, t, err := b.resolveWriteTarget(tn, "delete command could be only used on olap table")
	if err != nil {
		return nil, err
	}
	if t.Keys != storage.UniqueKeys {
		return nil, sqlerr.Doris.New("delete command on with using clause only supports unique key model")
	}
	if len(n.Partitions) > 0 {
		// DELETE FROM t PARTITION (p, …): the matched rows are read from
		// the named partitions only (partsel.go), as Doris's
		// DeleteFromUsingCommand reads its relation with them.
		if len(ate.Partitions) > 0 {
			return nil, sqlerr.NotSupportedYet.New("DELETE naming partitions twice")
		}
		named := *ate
		named.Partitions = n.Partitions
		var ok bool
		if from, ok = replaceTableExpr(from, ate, &named); !ok {
			return nil, sqlerr.NotSupportedYet.New("DELETE ... PARTITION of a table named inside a join")
		}
		ate = &named
	}
	if n.Where == nil || n.Where.Expr == nil {
		return nil, sqlerr.Doris.New("Where clause is not set")
	}
	ds := t.DeleteSign()
	if ds < 0 {
		return nil, sqlerr.Doris.New("Table " + t.Name + " has no delete sign column (created before batch delete); its DELETE conditions must be delete predicates on key columns")
	}
	qual := sqlparser.TableName{Name: tn.Name, DbQualifier: tn.DbQualifier}
	if !ate.As.IsEmpty() {
		qual = sqlparser.TableName{Name: ate.As}
	}
	mow := t.MergeOnWrite()
	sel := &sqlparser.Select{From: from, Where: n.Where}
	target := make([]int, len(t.Columns))
	defaults := make([]expr.Expr, len(t.Columns))
	for ci, c := range t.Columns {
		var e sqlparser.Expr
		switch {
		case ci == ds:
			e = sqlparser.NewIntVal([]byte("1"))
		case c.Hidden:
			e = sqlparser.NewIntVal([]byte("0"))
		case c.IsKey || mow || (!c.Nullable && c.Default == nil):
			e = &sqlparser.ColName{Name: sqlparser.NewColIdent(c.Name), Qualifier: qual}
		default:
			d, err := defaultValue(c)
			if err != nil {
				return nil, err
			}
			defaults[ci], target[ci] = d, -1
			e = &sqlparser.NullVal{}
		}
		if target[ci] >= 0 {
			target[ci] = len(sel.SelectExprs)
		}
		sel.SelectExprs = append(sel.SelectExprs, &sqlparser.AliasedExpr{Expr: e})
	}
	q, err := b.BindSelect(sel)
	if err != nil {
		return nil, err
	}
	return &Insert{DB: db, Table: t, Source: b.projectToTable(t, q.Plan, target, defaults)}, nil
}

// replaceTableExpr is exprs with old (a top-level item) replaced by new,
// false if old is not one; exprs itself is left as the statement wrote it.
func replaceTableExpr(exprs sqlparser.TableExprs, old, new *sqlparser.AliasedTableExpr) (sqlparser.TableExprs, bool) {
	out := make(sqlparser.TableExprs, len(exprs))
	found := false
	for i, te := range exprs {
		out[i] = te
		if te == sqlparser.TableExpr(old) {
			out[i], found = new, true
		}
	}
	return out, found
}

// targetExpr is the table expression of exprs that target names (by its
// alias, or its name when it has none).
func targetExpr(exprs sqlparser.TableExprs, target sqlparser.TableName) *sqlparser.AliasedTableExpr {
	for _, te := range exprs {
		switch x := te.(type) {
		case *sqlparser.AliasedTableExpr:
			tn, ok := x.Expr.(sqlparser.TableName)
			if !ok {
				continue
			}
			if x.As.IsEmpty() && strings.EqualFold(tn.Name.String(), target.Name.String()) ||
				strings.EqualFold(x.As.String(), target.Name.String()) {
				return x
			}
		case *sqlparser.JoinTableExpr:
			if a := targetExpr(sqlparser.TableExprs{x.LeftExpr, x.RightExpr}, target); a != nil {
				return a
			}
		case *sqlparser.ParenTableExpr:
			if a := targetExpr(x.Exprs, target); a != nil {
				return a
			}
		}
	}
	return nil
}

// DeleteTable resolves the table a DELETE names (its target).
func (b *Binder) DeleteTable(v *parser.Vitess) (*catalog.Table, bool) {
	n, ok := v.AST.(*sqlparser.Delete)
	if !ok {
		return nil, false
	}
	var tn sqlparser.TableName
	switch {
	case len(n.Targets) == 1 && !isUsingDelete(n):
		a := targetExpr(n.TableExprs, n.Targets[0])
		if a == nil {
			return nil, false
		}
		tn = a.Expr.(sqlparser.TableName)
	case isUsingDelete(n):
		tn = n.Targets[0]
	case len(n.TableExprs) == 1:
		ate, ok := n.TableExprs[0].(*sqlparser.AliasedTableExpr)
		if !ok {
			return nil, false
		}
		if tn, ok = ate.Expr.(sqlparser.TableName); !ok {
			return nil, false
		}
	default:
		return nil, false
	}
	_, t, err := b.resolveTable(tn.DbQualifier.String(), tn.Name.String())
	return t, err == nil
}
