package parser

import (
	"reflect"
	"sort"
	"testing"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// joinKinds renders every join of st as "right:kind[hint]", sorted.
func joinKinds(t *testing.T, st Statement) []string {
	t.Helper()
	v, ok := st.(*Vitess)
	if !ok {
		if e, isExplain := st.(*Explain); isExplain {
			v, ok = e.Stmt.(*Vitess)
		}
	}
	if !ok {
		t.Fatalf("%T: not a vitess statement", st)
	}
	var out []string
	for _, j := range sourceOrderJoins(v.AST) {
		out = append(out, rightName(j)+":"+j.Join+v.Hints.Join[j].Text)
	}
	sort.Strings(out)
	return out
}

func TestSemiAntiJoins(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want []string
	}{
		{"SELECT * FROM a LEFT SEMI JOIN b ON a.x = b.x", []string{"b:left semi join"}},
		{"SELECT * FROM a LEFT ANTI JOIN b ON a.x = b.x", []string{"b:left anti join"}},
		{"SELECT * FROM a RIGHT SEMI JOIN b ON a.x = b.x", []string{"b:right semi join"}},
		{"SELECT * FROM a RIGHT ANTI JOIN b ON a.x = b.x AND a.y < b.y", []string{"b:right anti join"}},
		{"select * from a left semi join b using (x)", []string{"b:left semi join"}},
		{"SELECT * FROM a Left /* c */ Anti\n JOIN b ON a.x = b.x", []string{"b:left anti join"}},
		// Hints follow the JOIN keyword in both spellings.
		{"SELECT * FROM a LEFT SEMI JOIN [shuffle] b ON a.x = b.x", []string{"b:left semi join[shuffle]"}},
		{"SELECT * FROM a RIGHT ANTI JOIN /*+ broadcast */ b ON a.x = b.x", []string{"b:right anti join[broadcast]"}},
		// Among other joins, in subqueries, under EXPLAIN.
		{"SELECT * FROM a JOIN [shuffle] b ON a.x = b.x LEFT ANTI JOIN [broadcast] c ON c.x = a.x RIGHT JOIN d ON d.x = a.x",
			[]string{"b:join[shuffle]", "c:left anti join[broadcast]", "d:right join"}},
		{"SELECT * FROM (SELECT a.* FROM a LEFT SEMI JOIN b ON a.x = b.x) s WHERE s.x IN (SELECT c.x FROM c RIGHT SEMI JOIN d ON c.x = d.x)",
			[]string{"b:left semi join", "d:right semi join"}},
		{"EXPLAIN SELECT * FROM a LEFT SEMI JOIN [broadcast] b ON a.x = b.x", []string{"b:left semi join[broadcast]"}},
		// SEMI and ANTI stay ordinary words elsewhere.
		{"SELECT semi.x, anti FROM t semi LEFT JOIN u anti ON semi.x = anti.x", []string{"anti:left join"}},
		{"SELECT 'LEFT SEMI JOIN' FROM t LEFT JOIN semi ON t.x = semi.x", []string{"semi:left join"}},
	} {
		st := mustOne(t, tc.sql)
		if got := joinKinds(t, st); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q:\n got %q\nwant %q", tc.sql, got, tc.want)
		}
		if v, ok := st.(*Vitess); ok && v.Text != tc.sql {
			t.Errorf("%q: Text = %q", tc.sql, v.Text)
		}
	}
	// The printed AST says what was parsed.
	v := mustOne(t, "SELECT * FROM a LEFT ANTI JOIN b ON a.x = b.x").(*Vitess)
	if got, want := sqlparser.String(v.AST), "select * from a left anti join b on a.x = b.x"; got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
}

func TestSemiAntiJoinErrors(t *testing.T) {
	for _, tc := range []struct{ sql, near string }{
		// ON (or USING) is required, as for LEFT JOIN.
		{"SELECT * FROM a LEFT SEMI JOIN b", ""},
		{"SELECT * FROM a LEFT SEMI JOIN b WHERE a.x = 1", "WHERE a.x = 1"},
		{"SELECT * FROM a NATURAL LEFT SEMI JOIN b", "SEMI JOIN b"},
		{"SELECT * FROM a LEFT SEMI b ON a.x = b.x", "SEMI b ON a.x = b.x"},
		{"SELECT * FROM a INNER SEMI JOIN b ON a.x = b.x", "SEMI JOIN b ON a.x = b.x"},
		{"SELECT * FROM a LEFT SEMI JOIN b ON a.x = b.x whre 1", "whre 1"},
	} {
		_, err := ParseOne(tc.sql)
		e := sqlerr.As(err)
		if err == nil || e.Code != 1064 {
			t.Errorf("%q: want 1064, got %v", tc.sql, err)
			continue
		}
		if want := syntaxMsg(tc.near, 1); e.Message != want {
			t.Errorf("%q:\n got %s\nwant %s", tc.sql, e.Message, want)
		}
	}
}
