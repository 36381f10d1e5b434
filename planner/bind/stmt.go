package bind

import (
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// The server holds statements as sql/parser values and never names a
// vitess node: the binder's entry points take the *parser.Vitess (or
// *parser.Expr) and unwrap it here.

// stmtAs is v's vitess node as a T; what names T in the internal error a
// mismatch is (the server dispatches on v.Kind, so it never happens).
func stmtAs[T sqlparser.Statement](v *parser.Vitess, what string) (T, error) {
	n, ok := v.AST.(T)
	if !ok {
		return n, sqlerr.Assertf("not %s: %T", what, v.AST)
	}
	return n, nil
}

// BindQuery binds a SELECT or set operation (v.Kind KindSelect).
func (b *Binder) BindQuery(v *parser.Vitess) (*Query, error) {
	sel, err := stmtAs[sqlparser.SelectStatement](v, "a query")
	if err != nil {
		return nil, err
	}
	return b.BindSelect(sel)
}
