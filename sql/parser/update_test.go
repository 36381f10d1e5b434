package parser

import (
	"testing"

	"github.com/dolthub/vitess/go/vt/sqlparser"
)

func TestUpdateFrom(t *testing.T) {
	cases := map[string]string{
		"UPDATE t1 SET t1.c1 = t2.c1, c3 = t2.c3 * 100 FROM t2 INNER JOIN t3 ON t2.id = t3.id WHERE t1.id = t2.id": "update t1, t2 join t3 on t2.id = t3.id set t1.c1 = t2.c1, c3 = t2.c3 * 100 where t1.id = t2.id",
		"update t as a set v = (select max(x) from s) from s2 where a.k = s2.k":                                    "update t as a, s2 set v = (select max(x) from s) where a.k = s2.k",
		"update t set v = extract(year from d) from s":                                                             "update t, s set v = extract(year from d)",
		"update t set v = 1 where k = 2":                                                                           "update t set v = 1 where k = 2",
	}
	for in, want := range cases {
		st, err := Parse(in)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		v := st[0].(*Vitess)
		if got := sqlparser.String(v.AST); got != want {
			t.Errorf("%s:\n got %s\nwant %s", in, got, want)
		}
		if v.Text != in {
			t.Errorf("Text = %q, want the statement as written", v.Text)
		}
	}
}
