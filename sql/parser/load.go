package parser

import (
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// LoadColumn is one item of a stream load's `columns` header: a column of
// the file (Expr nil), named by its position in each row, or a mapping
// `name = expression` computed from the file's columns.
type LoadColumn struct {
	Name string
	Expr *Expr
}

// ParseLoadColumns parses a stream load's `columns` header, as Doris does:
// the text of a select list (`k, tmp, v = tmp * 2`), each item a column
// name or `name = expression`.
func ParseLoadColumns(text string) ([]LoadColumn, error) {
	items, err := parseLoadExprs(text)
	if err != nil {
		return nil, err
	}
	out := make([]LoadColumn, 0, len(items))
	for _, e := range items {
		switch n := e.(type) {
		case *sqlparser.ColName:
			if !n.Qualifier.IsEmpty() {
				return nil, sqlerr.Doris.New("columns: a column of the file is a plain name, not " + sqlparser.String(n))
			}
			out = append(out, LoadColumn{Name: n.Name.String()})
		case *sqlparser.ComparisonExpr:
			col, ok := n.Left.(*sqlparser.ColName)
			if n.Operator != sqlparser.EqualStr || !ok || !col.Qualifier.IsEmpty() {
				return nil, sqlerr.Doris.New("columns: expected a column name or name = expression, got " + sqlparser.String(n))
			}
			out = append(out, LoadColumn{Name: col.Name.String(), Expr: &Expr{AST: n.Right}})
		default:
			return nil, sqlerr.Doris.New("columns: expected a column name or name = expression, got " + sqlparser.String(e))
		}
	}
	return out, nil
}

// ParseLoadWhere parses a stream load's `where` header: one expression.
func ParseLoadWhere(text string) (*Expr, error) {
	items, err := parseLoadExprs(text)
	if err != nil {
		return nil, err
	}
	if len(items) != 1 {
		return nil, sqlerr.Doris.New("where: expected one condition, got " + strings.TrimSpace(text))
	}
	return &Expr{AST: items[0]}, nil
}

// parseLoadExprs parses text as the select list of `SELECT <text>`, and
// refuses anything past the list (FROM, WHERE, a second statement), so the
// header holds expressions only.
func parseLoadExprs(text string) ([]sqlparser.Expr, error) {
	if strings.TrimSpace(text) == "" {
		return nil, sqlerr.Doris.New("empty expression")
	}
	st, err := ParseOne("SELECT " + text)
	if err != nil {
		return nil, err
	}
	v, ok := st.(*Vitess)
	var sel *sqlparser.Select
	if ok {
		sel, ok = v.AST.(*sqlparser.Select)
	}
	if !ok || !onlySelectList(sel) {
		return nil, sqlerr.Doris.New("expected expressions only, got " + strings.TrimSpace(text))
	}
	out := make([]sqlparser.Expr, 0, len(sel.SelectExprs))
	for _, se := range sel.SelectExprs {
		ae, ok := se.(*sqlparser.AliasedExpr)
		if !ok || !ae.As.IsEmpty() {
			return nil, sqlerr.Doris.New("expected expressions only, got " + sqlparser.String(se))
		}
		out = append(out, ae.Expr)
	}
	return out, nil
}

// onlySelectList: sel is `SELECT list` and nothing more (vitess gives a
// FROM-less select the table dual).
func onlySelectList(sel *sqlparser.Select) bool {
	if sel.Where != nil || sel.Having != nil || len(sel.GroupBy) > 0 || len(sel.OrderBy) > 0 ||
		sel.Limit != nil || sel.QueryOpts != (sqlparser.QueryOpts{}) || sel.With != nil || sel.Into != nil ||
		len(sel.Window) > 0 || sel.Lock != "" {
		return false
	}
	switch len(sel.From) {
	case 0:
		return true
	case 1:
		ate, ok := sel.From[0].(*sqlparser.AliasedTableExpr)
		if !ok {
			return false
		}
		tn, ok := ate.Expr.(sqlparser.TableName)
		return ok && tn.Name.String() == "dual" && tn.DbQualifier.IsEmpty()
	}
	return false
}
