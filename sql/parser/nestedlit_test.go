package parser

import (
	"strings"
	"testing"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// TestNestedRewrites: Doris's array/map literals, subscripts and CAST to
// nested types reach vitess as calls.
func TestNestedRewrites(t *testing.T) {
	for in, want := range map[string]string{
		"SELECT [1, 2][1]":                          "SELECT element_at(array(1, 2),1)",
		"SELECT a[1][2], t.m['k'] FROM t":           "SELECT element_at(element_at(a,1),2), element_at(t.m,'k') FROM t",
		"SELECT f(x)[1], {'a': [1]}['a']":           "SELECT element_at(f(x),1), element_at(map('a', array(1)),'a')",
		"INSERT INTO t VALUES ([NULL], {})":         "INSERT INTO t VALUES (array(NULL), map())",
		"SELECT CAST(x AS ARRAY<ARRAY<INT>>)":       "SELECT `__cast_nested`    (x , 'ARRAY<ARRAY<INT>>'                    )",
		"SELECT a FROM t ORDER BY a[1] NULLS FIRST": "SELECT a FROM t ORDER BY `__nulls_first`(element_at(a,1) )",
	} {
		got, _ := rewriteRollup(in)
		if strings.TrimRight(got, " ") != strings.TrimRight(want, " ") {
			t.Errorf("%s\n got %s\nwant %s", in, got, want)
		}
		if _, err := ParseOne(in); err != nil {
			t.Errorf("%s: %v", in, err)
		}
	}
	_, err := ParseOne("SELECT x FROM t LATERAL VIEW explode(a) v AS x")
	if e := sqlerr.As(err); e == nil || e.Code != 1235 {
		t.Errorf("LATERAL VIEW: %v", err)
	}
	// A join hint away from a JOIN is still an error.
	if _, err := ParseOne("SELECT [shuffle] FROM t"); err == nil {
		t.Error("misplaced [shuffle] accepted")
	}
}
