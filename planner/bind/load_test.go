package bind

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/types"
)

// TestBindLoad checks the source layout of stream load column mappings:
// which file columns are converted to a table column's type, which stay
// raw text for expressions, and what each table column is computed from.
func TestBindLoad(t *testing.T) {
	def := "7"
	tbl := &catalog.Table{Name: "t", Columns: []catalog.Column{
		{Column: types.Column{Name: "k", Type: types.T{Kind: types.Int}}},
		{Column: types.Column{Name: "v", Type: types.T{Kind: types.Int}, Nullable: true}},
		{Column: types.Column{Name: "s", Type: types.VarcharT(5), Nullable: true}, Default: &def},
	}}
	for _, tc := range []struct {
		columns, where string
		want           string // file columns (name:column/raw) | exprs | where; or the error
	}{
		{"", "", "k:0 v:1 s:2 | - - - | -"},
		{"", "v > 1", "k:0 v:1 s:2 | - - - | `v` > 1"},
		{"s, k", "", "s:2 k:0 | - - - | -"},
		{"k, tmp, v = tmp * 2", "", "k:0 tmp:r0 | - CAST(`tmp` AS DOUBLE) * 2 - | -"},
		{"k, junk, v", "", "k:0 junk:- v:1 | - - - | -"},
		{"k, a, b, t = a + b, v = t * 10", "", "k:0 a:r0 b:r1 | - (CAST(`a` AS DOUBLE) + CAST(`b` AS DOUBLE)) * 10 - | -"},
		{"k, v, v = v + 1", "v is null", "k:0 v:r0 | - CAST(`v` AS DOUBLE) + 1 - | `v` IS NULL"},
		{"k, v = k + 1", "", "k:0 | - CAST(`k` AS BIGINT) + 1 - | -"},
		{"v", "", "Column has no default value, column=k"},
		{"k, k", "", "Duplicate column name 'k'"},
		{"k, v = x + 1", "", "Unknown column 'x' in 'columns'"},
		{"k", "tmp > 1", "Unknown column 'tmp' in 'where clause'"},
		{"k, v = (select 1)", "", "This version of MySQL doesn't yet support 'subqueries in a stream load's columns'"},
		{"k, v = sum(k)", "", "Invalid use of group function"},
	} {
		var cols []parser.LoadColumn
		if tc.columns != "" {
			var err error
			if cols, err = parser.ParseLoadColumns(tc.columns); err != nil {
				t.Fatal(err)
			}
		}
		b := New(&Context{Now: time.Unix(0, 0)})
		var l *Load
		var err error
		if tc.where != "" {
			w, perr := parser.ParseLoadWhere(tc.where)
			if perr != nil {
				t.Fatal(perr)
			}
			l, err = b.BindLoad(tbl, cols, w)
		} else {
			l, err = b.BindLoad(tbl, cols, nil)
		}
		got := ""
		if err != nil {
			got = err.Error()
			if i := strings.Index(got, "): "); i >= 0 {
				got = got[i+3:]
			}
		} else {
			got = layout(l)
		}
		if got != tc.want {
			t.Errorf("columns %q where %q:\n got %s\nwant %s", tc.columns, tc.where, got, tc.want)
		}
	}
}

func layout(l *Load) string {
	var parts []string
	for _, f := range l.File {
		switch {
		case f.Column >= 0:
			parts = append(parts, fmt.Sprintf("%s:%d", f.Name, f.Column))
		case f.Raw >= 0:
			parts = append(parts, fmt.Sprintf("%s:r%d", f.Name, f.Raw))
		default:
			parts = append(parts, f.Name+":-")
		}
	}
	parts = append(parts, "|")
	for _, x := range l.Exprs {
		if x == nil {
			parts = append(parts, "-")
		} else {
			parts = append(parts, x.String())
		}
	}
	parts = append(parts, "|")
	if l.Where == nil {
		parts = append(parts, "-")
	} else {
		parts = append(parts, l.Where.String())
	}
	return strings.Join(parts, " ")
}
