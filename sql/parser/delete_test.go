package parser

import (
	"testing"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

func TestDeletePartitions(t *testing.T) {
	for _, tc := range []struct {
		sql   string
		parts []string
		where bool
		code  sqlerr.Code // expected error code, 0 for success
	}{
		{"DELETE FROM t WHERE a = 1", nil, true, 0},
		{"DELETE FROM db.t PARTITION p1 WHERE a = 1", []string{"p1"}, true, 0},
		{"DELETE FROM t PARTITION (p1, `p 2`) WHERE a = 1", []string{"p1", "p 2"}, true, 0},
		{"delete from t partitions (p1,p2) where a in (1, 2)", []string{"p1", "p2"}, true, 0},
		{"DELETE FROM t PARTITION p1", []string{"p1"}, false, 0},
		{"DELETE FROM t", nil, false, 0},
		{"DELETE FROM t TEMPORARY PARTITION p1 WHERE a = 1", nil, false, 1105},
		{"DELETE FROM t PARTITION WHERE a = 1", nil, false, 1064},
		{"DELETE FROM t PARTITION p1 WHERE", nil, false, 1064},
	} {
		st, err := ParseOne(tc.sql)
		if tc.code != 0 {
			if err == nil || sqlerr.As(err).Code != tc.code {
				t.Errorf("%s: error %v, want code %d", tc.sql, err, tc.code)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		d, ok := st.(*Vitess).AST.(*sqlparser.Delete)
		if !ok {
			t.Errorf("%s: parsed as %T", tc.sql, st.(*Vitess).AST)
			continue
		}
		var parts []string
		for _, p := range d.Partitions {
			parts = append(parts, p.String())
		}
		if len(parts) != len(tc.parts) || (d.Where != nil) != tc.where {
			t.Errorf("%s: partitions %q where %v", tc.sql, parts, d.Where != nil)
			continue
		}
		for i := range parts {
			if parts[i] != tc.parts[i] {
				t.Errorf("%s: partitions %q, want %q", tc.sql, parts, tc.parts)
			}
		}
	}
}

// TestDeleteUsingAlias: Doris's DELETE FROM t alias USING … reads as
// MySQL's DELETE alias FROM t AS alias, … (the same rows), the text kept.
func TestDeleteUsingAlias(t *testing.T) {
	for _, tc := range []struct{ sql, want string }{
		{"DELETE FROM t t1a USING t2 JOIN t4 ON t2.id = t4.id WHERE t1a.id = t2.id",
			"delete t1a from t as t1a, t2 join t4 on t2.id = t4.id where t1a.id = t2.id"},
		{"delete from db.t as x using y where x.a = y.a", "delete x from db.t as x, y where x.a = y.a"},
		{"DELETE FROM t USING t2 WHERE t.k = t2.k", "delete t from t2 where t.k = t2.k"},
	} {
		st, err := ParseOne(tc.sql)
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		v := st.(*Vitess)
		if got := sqlparser.String(v.AST); got != tc.want || v.Text != tc.sql {
			t.Errorf("%s: parsed as %q (text %q), want %q", tc.sql, got, v.Text, tc.want)
		}
	}
}
