package parser

import (
	"errors"
	"testing"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

var fuzzSeeds = []string{
	"SELECT * FROM a JOIN [shuffle] b ON a.x = b.x JOIN /*+ broadcast */ c ON c.x = a.x",
	"SELECT /*+ SET_VAR(a = 1, b = 'x') BROADCAST(t) */ * FROM t",
	"SELECT /*+ SET_VAR(",
	"SELECT * FROM a JOIN /*+ ",
	"SELECT * FROM a JOIN [",
	"SELECT * FROM a LEFT SEMI JOIN [shuffle] b ON a.x = b.x RIGHT ANTI JOIN c USING (x)",
	"SELECT * FROM a NATURAL RIGHT SEMI JOIN",
	"CREATE TABLE t (k1 INT NOT NULL, v DECIMAL(12,2) SUM DEFAULT '0') AGGREGATE KEY(k1) PARTITION BY RANGE(k1) (PARTITION p VALUES [(1),(2))) DISTRIBUTED BY HASH(k1) BUCKETS AUTO PROPERTIES (\"a\"=\"b\")",
	"CREATE TABLE t (a INT, PRIMARY KEY (a), KEY k (a)) ENGINE=InnoDB",
	"CREATE TABLE t (a INT) PARTITION BY LIST(a) (PARTITION p VALUES IN (",
	"EXPLAIN (TYPE DISTRIBUTED) SELECT 1",
	"EXPLAIN (TYPE",
	"SHOW PROC '/x'; SHOW BACKENDS; SHOW TABLETS FROM d.t",
	"ALTER SYSTEM ADD BACKEND \"h:1\", \"h:2\"",
	"ALTER TABLE t SET (\"colocate_with\" = \"g\")",
	"CREATE USER 'u'@'h' IDENTIFIED BY 'p'; DROP USER u; SET PASSWORD FOR u = PASSWORD('x')",
	"select a from t group by a with rollup",
	"select a from t group by (a with rollup",
	"with rollup",
	"select 'unterminated",
	"select `x",
	"/*! select 1 */; /*+ x */",
	"select 1 -- ;\n; # x",
	"\x00\xff;'\\",
}

// FuzzParse asserts that no input panics and that every failure is a
// user error (1064 syntax or 1065 empty).
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		sts, err := Parse(sql)
		if err != nil {
			var e *sqlerr.Error
			if !errors.As(err, &e) || (e.Code != 1064 && e.Code != 1065) {
				t.Fatalf("%q: unexpected error %v", sql, err)
			}
			return
		}
		if len(sts) == 0 || len(sts) > len(Split(sql)) {
			t.Fatalf("%q: %d statements for %d texts", sql, len(sts), len(Split(sql)))
		}
	})
}
