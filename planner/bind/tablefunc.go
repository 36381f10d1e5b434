package bind

import (
	"strconv"
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// bindTableFunc binds a table-valued function in FROM. Only Doris's
// numbers("number" = "n") exists: one BIGINT NOT NULL column number, rows
// 0 .. n-1. Arguments are "key" = "value" string pairs, as Doris writes them.
func (b *Binder) bindTableFunc(n *sqlparser.TableFuncExpr) (*fromResult, error) {
	name := strings.ToLower(n.Name)
	if name != "numbers" {
		return nil, sqlerr.Doris.New("Could not find table function " + n.Name)
	}
	tf := &logical.TableFunc{Name: name, Alias: n.Alias.String(), Count: -1}
	if tf.Alias == "" {
		tf.Alias = name
	}
	for _, se := range n.Exprs {
		key, val, ok := tableFuncParam(se)
		if !ok {
			return nil, sqlerr.Doris.New("table-valued function numbers takes \"key\" = \"value\" arguments, got " + sqlparser.String(se))
		}
		tf.Params = append(tf.Params, logical.TableFuncParam{Key: key, Value: val})
		switch strings.ToLower(key) {
		case "number":
			c, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
			if err != nil || c < 0 {
				return nil, sqlerr.Doris.New("can not parse `number` param to natural number: " + val)
			}
			tf.Count = c
		case "backend_num":
			// Doris runs numbers on backend_num backends; dorisgo
			// generates it in one instance, which is what 1 means.
			if strings.TrimSpace(val) != "1" {
				return nil, sqlerr.NotSupportedYet.New("numbers with backend_num other than 1")
			}
		default:
			return nil, sqlerr.Doris.New("numbers table-valued function does not support param: " + key)
		}
	}
	if tf.Count < 0 {
		return nil, sqlerr.Doris.New("number not set in numbers function")
	}
	col := b.newCol(tf.Alias, "number", types.BigIntT, false)
	tf.Cols = []logical.Column{col}
	return &fromResult{node: tf, visible: tf.Cols}, nil
}

// tableFuncParam reads one "key" = "value" argument (either side a string
// or number literal).
func tableFuncParam(se sqlparser.SelectExpr) (key, val string, ok bool) {
	ae, isAliased := se.(*sqlparser.AliasedExpr)
	if !isAliased {
		return "", "", false
	}
	cmp, isCmp := ae.Expr.(*sqlparser.ComparisonExpr)
	if !isCmp || cmp.Operator != sqlparser.EqualStr {
		return "", "", false
	}
	lit := func(e sqlparser.Expr) (string, bool) {
		v, isVal := e.(*sqlparser.SQLVal)
		if !isVal {
			return "", false
		}
		return string(v.Val), true
	}
	if key, ok = lit(cmp.Left); !ok {
		return "", "", false
	}
	val, ok = lit(cmp.Right)
	return key, val, ok
}
