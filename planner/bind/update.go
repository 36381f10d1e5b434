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

// BindUpdate binds UPDATE t [AS a] SET col = expr, … [FROM …] WHERE … as
// Doris runs it: an INSERT into the UNIQUE KEY table t of every row the
// query matches, its SET columns replaced and the others read back, so the
// new rows replace the old versions of their keys in one load transaction.
// SET expressions see the row as it was (standard SQL, as Doris). Doris's
// FROM form arrives from the parser as MySQL's multi-table form
// (UPDATE t, <from items> SET …); the target is the first table named.
func (b *Binder) BindUpdate(v *parser.Vitess) (*Insert, error) {
	n, err := stmtAs[*sqlparser.Update](v, "an UPDATE")
	if err != nil {
		return nil, err
	}
	switch {
	case n.With != nil:
		return nil, sqlerr.NotSupportedYet.New("UPDATE with a WITH clause")
	case len(n.OrderBy) > 0 || n.Limit != nil:
		return nil, sqlerr.NotSupportedYet.New("UPDATE with ORDER BY or LIMIT")
	case len(n.Returning) > 0:
		return nil, sqlerr.NotSupportedYet.New("UPDATE ... RETURNING")
	case n.Ignore != "":
		return nil, sqlerr.NotSupportedYet.New("UPDATE IGNORE")
	}
	ate := parser.UpdateTarget(n.TableExprs)
	if ate == nil {
		return nil, sqlerr.NotSupportedYet.New("UPDATE of a derived table")
	}
	tn := ate.Expr.(sqlparser.TableName)
	db, t, err := b.resolveWriteTarget(tn, "target table in update command should be an olapTable")
	if err != nil {
		return nil, err
	}
	if t.Keys != storage.UniqueKeys {
		return nil, sqlerr.Doris.New("Only unique table could be updated.")
	}
	alias := ate.As.String()
	// The target's qualifier in the generated select list.
	qual := sqlparser.TableName{Name: tn.Name, DbQualifier: tn.DbQualifier}
	if alias != "" {
		qual = sqlparser.TableName{Name: sqlparser.NewTableIdent(alias)}
	}
	set := make(map[int]sqlparser.Expr, len(n.Exprs))
	for _, a := range n.Exprs {
		if err := checkAssignmentTarget(a.Name, db, tn.Name.String(), alias); err != nil {
			return nil, err
		}
		ci := t.ColumnIndex(a.Name.Name.String())
		if ci < 0 {
			return nil, sqlerr.Doris.New("unknown column in assignment list: " + a.Name.Name.String())
		}
		if t.Columns[ci].IsKey {
			return nil, sqlerr.Doris.New("Only value columns of unique table could be updated")
		}
		if err := writesVersionCol(t, t.Columns[ci].Name); err != nil {
			return nil, err
		}
		if _, dup := set[ci]; dup {
			return nil, sqlerr.FieldSpecifiedTwice.New(t.Columns[ci].Name)
		}
		set[ci] = a.Expr
	}
	// SELECT <every column, SET ones replaced> FROM <tables> WHERE <cond>;
	// a DEFAULT assignment selects NULL and takes the column's default below.
	sel := &sqlparser.Select{From: n.TableExprs, Where: n.Where}
	target := make([]int, len(t.Columns))
	defaults := make([]expr.Expr, len(t.Columns))
	partial := partialUpdate(t, set)
	for ci, c := range t.Columns {
		target[ci] = ci
		e, ok := set[ci]
		switch {
		case !ok && c.Hidden:
			// The matched row is live: its delete sign is 0.
			e = sqlparser.NewIntVal([]byte("0"))
		case !ok && partial != nil && ci >= t.NumKeys:
			// Filled from the row by the backend; the placeholder is
			// what a key deleted meanwhile would get (Doris's new rows).
			defaults[ci], _ = defaultValue(c)
			target[ci] = -1
			e = &sqlparser.NullVal{}
		case !ok:
			e = &sqlparser.ColName{Name: sqlparser.NewColIdent(c.Name), Qualifier: qual}
		case isDefault(e):
			d, err := defaultValue(c)
			if err != nil {
				return nil, err
			}
			defaults[ci], target[ci] = d, -1
			e = &sqlparser.NullVal{}
		}
		sel.SelectExprs = append(sel.SelectExprs, &sqlparser.AliasedExpr{Expr: e})
	}
	q, err := b.BindSelect(sel)
	if err != nil {
		return nil, err
	}
	return &Insert{DB: db, Table: t, Source: b.projectToTable(t, q.Plan, target, defaults), Partial: partial}, nil
}

// partialUpdate is the partial column update an UPDATE of a
// merge-on-write table runs as (Doris does the same): it writes the keys
// and the SET columns, and the backend takes every other column from the
// row, so the statement reads only what it sets and filters on. Nil (a
// whole-row rewrite) for other tables, or when a column left to the row
// has no default for the placeholder.
func partialUpdate(t *catalog.Table, set map[int]sqlparser.Expr) *storage.PartialUpdate {
	if !t.MergeOnWrite() {
		return nil
	}
	p := &storage.PartialUpdate{Sign: t.DeleteSign()}
	for ci := t.NumKeys; ci < len(t.Columns); ci++ {
		c := t.Columns[ci]
		if _, ok := set[ci]; ok || c.Hidden {
			continue
		}
		if _, err := defaultValue(c); err != nil {
			return nil
		}
		p.Fill = append(p.Fill, ci)
	}
	if len(p.Fill) == 0 {
		return nil
	}
	return p
}

// checkAssignmentTarget refuses SET x.col where x is not the target (its
// alias, or its name when it has none), as Doris does.
func checkAssignmentTarget(c *sqlparser.ColName, db, table, alias string) error {
	q := c.Qualifier
	if q.IsEmpty() {
		return nil
	}
	bad := func() error {
		return sqlerr.Doris.New("column in assignment list is invalid, " + sqlparser.String(c))
	}
	if alias != "" {
		if !q.DbQualifier.IsEmpty() || !strings.EqualFold(q.Name.String(), alias) {
			return bad()
		}
		return nil
	}
	if !strings.EqualFold(q.Name.String(), table) ||
		(!q.DbQualifier.IsEmpty() && !strings.EqualFold(q.DbQualifier.String(), db)) {
		return bad()
	}
	return nil
}

func isDefault(e sqlparser.Expr) bool {
	_, ok := e.(*sqlparser.Default)
	return ok
}
