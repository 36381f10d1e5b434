package bind

import (
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// bindCastNested binds CAST(x AS ARRAY<…>/MAP<…>/STRUCT<…>), which the
// parser rewrote into `__cast_nested`(x, 'type text').
func (b *Binder) bindCastNested(n *sqlparser.FuncExpr, s *scope) (expr.Expr, error) {
	xa, ok1 := n.Exprs[0].(*sqlparser.AliasedExpr)
	ta, ok2 := n.Exprs[1].(*sqlparser.AliasedExpr)
	lit, ok3 := ta.Expr.(*sqlparser.SQLVal)
	if !ok1 || !ok2 || !ok3 {
		return nil, sqlerr.ParseError.New("bad CAST to a nested type")
	}
	t, err := types.ParseType(string(lit.Val))
	if err != nil {
		return nil, sqlerr.NotSupportedYet.New("CAST to " + string(lit.Val))
	}
	x, err := b.bindExpr(xa.Expr, s)
	if err != nil {
		return nil, err
	}
	return expr.NewExplicitCast(x, t), nil
}
