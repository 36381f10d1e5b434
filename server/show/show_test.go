package show

import (
	"errors"
	"reflect"
	"testing"

	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

func TestLike(t *testing.T) {
	for _, c := range []struct {
		pat, s string
		want   bool
	}{
		{"", "anything", true},
		{"t%", "Tbl", true}, // case-insensitive, as MySQL compares names
		{"t_l", "tbl", true},
		{"t_l", "tbbl", false},
		{`t\_l`, "t_l", true},
		{`t\_l`, "tbl", false},
		{"a.b", "axb", false}, // regexp characters are literal
		{"%load%", "my_load_1", true},
	} {
		if got := Like(c.pat)(c.s); got != c.want {
			t.Errorf("Like(%q)(%q) = %v, want %v", c.pat, c.s, got, c.want)
		}
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0.000 B", 1536: "1.500 KB", 3 << 30: "3.000 GB", 1 << 50: "1.000 PB", 1 << 60: "1024.000 PB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func showLoad(t *testing.T, sql string) *parser.ShowLoad {
	t.Helper()
	st, err := parser.ParseOne(sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	sl, ok := st.(*parser.ShowLoad)
	if !ok {
		t.Fatalf("%s parsed as %T", sql, st)
	}
	return sl
}

func TestFilterRows(t *testing.T) {
	names := []string{"JobId", "Label", "State"}
	rows := [][]string{{"9", "a1", "FINISHED"}, {"10", "b1", "LOADING"}, {"100", "a2", "FINISHED"}, {"11", "a3", "CANCELLED"}}
	for _, c := range []struct {
		sql  string
		want [][]string
	}{
		// Ids order as numbers, not as text (9 < 10 < 100).
		{"SHOW LOAD ORDER BY JobId", [][]string{rows[0], rows[1], rows[3], rows[2]}},
		{"SHOW LOAD ORDER BY JobId DESC LIMIT 2", [][]string{rows[2], rows[3]}},
		{`SHOW LOAD WHERE LABEL LIKE "a%" AND STATE = "finished"`, [][]string{rows[0], rows[2]}},
		{`SHOW LOAD WHERE LABEL = "b1"`, [][]string{rows[1]}},
	} {
		got, err := FilterRows(names, rows, showLoad(t, c.sql))
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s = %v, want %v", c.sql, got, c.want)
		}
	}
	if _, err := FilterRows(names, rows, showLoad(t, "SHOW LOAD ORDER BY Nope")); !errors.Is(err, sqlerr.BadField.Match()) {
		t.Errorf("ORDER BY an unknown column: %v, want error 1054", err)
	}
}

func TestStrings(t *testing.T) {
	r := Strings([]string{"A", "B"}, [][]string{{"x", ""}})
	if len(r.Cols) != 2 || r.Cols[1].Name != "B" || r.Cols[0].Type != types.VarcharT(256) || !r.Cols[0].Nullable {
		t.Fatalf("columns %+v", r.Cols)
	}
	if len(r.Rows) != 1 || r.Rows[0][0].S != "x" || r.Rows[0][1].Null || r.Rows[0][1].S != "" {
		t.Fatalf("rows %+v", r.Rows)
	}
}
