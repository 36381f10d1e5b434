package parser

import (
	"testing"

	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// Doris's table-valued functions (numbers("number" = "10")) parse through
// vitess as TableFuncExpr, alone or as a join input carrying a join hint.
func TestTableFuncInFrom(t *testing.T) {
	for _, c := range []struct {
		sql, alias string
		hint       string
	}{
		{`SELECT * FROM numbers("number" = "10")`, "", ""},
		{`SELECT * FROM numbers('number' = '10') AS n`, "n", ""},
		{`SELECT t.v FROM t JOIN numbers("number" = "100") n ON t.k = n.number`, "n", ""},
		{`SELECT t.v FROM t JOIN [broadcast] numbers("number" = "100") n ON t.k = n.number`, "n", "[broadcast]"},
	} {
		st, err := ParseOne(c.sql)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		v := st.(*Vitess)
		from := v.AST.(*sqlparser.Select).From[0]
		var tf *sqlparser.TableFuncExpr
		switch x := from.(type) {
		case *sqlparser.TableFuncExpr:
			tf = x
		case *sqlparser.JoinTableExpr:
			tf, _ = x.RightExpr.(*sqlparser.TableFuncExpr)
			if h := v.Hints.Join[x]; h.Text != c.hint {
				t.Errorf("%s: hint %q, want %q", c.sql, h.Text, c.hint)
			}
		}
		if tf == nil || tf.Name != "numbers" || tf.Alias.String() != c.alias || len(tf.Exprs) != 1 {
			t.Errorf("%s: parsed FROM as %s", c.sql, sqlparser.String(from))
		}
	}
}
