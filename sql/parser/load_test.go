package parser

import (
	"strings"
	"testing"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

func TestParseLoadColumns(t *testing.T) {
	for _, tc := range []struct {
		text string
		want string // name[=expr], ...; "" for an error
		code sqlerr.Code
	}{
		{"k, tmp, v = tmp * 2", "k, tmp, v=tmp * 2", 0},
		{" `k` ,`Tmp`", "k, Tmp", 0},
		{"a, b = concat(a, ',', 'x'), c = if(a > 1, 1, 0)", "a, b=concat(a, ',', 'x'), c=if(a > 1, 1, 0)", 0},
		{"a, b = (a = 1)", "a, b=(a = 1)", 0},
		{"a, t.b", "", 1105},
		{"a, b + 1", "", 1105},
		{"a, b > 1", "", 1105},
		{"a from t", "", 1105},
		{"a where 1", "", 1105},
		{"a; drop table t", "", 1064},
		{"a, b as c", "", 1105},
		{"a,", "", 1064},
		{"  ", "", 1105},
	} {
		cols, err := ParseLoadColumns(tc.text)
		if tc.want == "" {
			if err == nil || sqlerr.As(err).Code != tc.code {
				t.Errorf("%q: %v %v, want error %d", tc.text, cols, err, tc.code)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.text, err)
			continue
		}
		var parts []string
		for _, c := range cols {
			if c.Expr == nil {
				parts = append(parts, c.Name)
			} else {
				parts = append(parts, c.Name+"="+sqlparser.String(c.Expr.AST))
			}
		}
		if got := strings.Join(parts, ", "); got != tc.want {
			t.Errorf("%q: got %s, want %s", tc.text, got, tc.want)
		}
	}
}

func TestParseLoadWhere(t *testing.T) {
	for text, ok := range map[string]bool{
		"q > 50":                     true,
		"k in (1, 2) and v is null":  true,
		"q > 50, q < 60":             false,
		"q > 50 limit 1":             false,
		"(select 1) = 1 from dual x": false,
	} {
		e, err := ParseLoadWhere(text)
		if ok != (err == nil) || ok != (e != nil) {
			t.Errorf("%q: %v %v", text, e, err)
		}
	}
}
