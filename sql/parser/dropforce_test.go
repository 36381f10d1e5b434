package parser

import (
	"testing"

	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// Doris's DROP TABLE / DATABASE ... FORCE parses as the plain drop; a table
// db.force is still a table.
func TestDropForce(t *testing.T) {
	for _, c := range []struct{ in, table string }{
		{"DROP TABLE IF EXISTS t FORCE", "t"},
		{"drop table db.t force", "t"},
		{"DROP DATABASE d FORCE", ""},
		{"DROP TABLE db.force", "force"},
	} {
		st, err := ParseOne(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		v, ok := st.(*Vitess)
		if !ok {
			t.Errorf("%s: %T, want *Vitess", c.in, st)
			continue
		}
		if d, isDDL := v.AST.(*sqlparser.DDL); c.table != "" && (!isDDL || len(d.FromTables) != 1 || d.FromTables[0].Name.String() != c.table) {
			t.Errorf("%s: parsed as %s, want a drop of table %s", c.in, sqlparser.String(v.AST), c.table)
		}
	}
}
