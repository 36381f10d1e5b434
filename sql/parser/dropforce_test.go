package parser

import "testing"

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
		if c.table == "" {
			if d, ok := st.(*DatabaseDDL); !ok || d.Op != DropDatabase {
				t.Errorf("%s: %#v, want a DROP DATABASE", c.in, st)
			}
			continue
		}
		if d, ok := st.(*DDL); !ok || d.Op != DDLDrop || len(d.Tables) != 1 || d.Tables[0].Name != c.table {
			t.Errorf("%s: parsed as %#v, want a drop of table %s", c.in, st, c.table)
		}
	}
}
