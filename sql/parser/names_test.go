package parser

import (
	"strings"
	"testing"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// Identifiers over MySQL's limits are 1059 wherever they appear: 64
// characters for databases, tables, columns and table aliases, 256 for
// column aliases; characters, not bytes.
func TestIdentifierLimits(t *testing.T) {
	long, max := strings.Repeat("a", 65), strings.Repeat("b", 64)
	wide := strings.Repeat("é", 64) // 128 bytes, 64 characters
	tooLong := []string{
		"SELECT * FROM " + long,
		"SELECT * FROM " + long + ".t",
		"SELECT " + long + " FROM t",
		"SELECT t." + long + " FROM t",
		"SELECT 1 AS " + strings.Repeat("c", 257),
		"SELECT * FROM t AS " + long,
		"SELECT * FROM (SELECT 1) " + long,
		"SELECT * FROM t JOIN u ON t.k = u." + long,
		"SELECT * FROM t WHERE " + long + " = 1 ORDER BY 1",
		"WITH " + long + " AS (SELECT 1) SELECT * FROM " + long,
		"CREATE DATABASE " + long,
		"USE " + long,
		"CREATE TABLE " + long + " (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1",
		"CREATE TABLE t (" + long + " INT) DISTRIBUTED BY HASH(" + long + ") BUCKETS 1",
		"INSERT INTO " + long + " VALUES (1)",
		"INSERT INTO t (" + long + ") VALUES (1)",
		"DROP TABLE " + long,
		"EXPLAIN SELECT * FROM " + long,
		"ALTER TABLE " + long + ` SET ("colocate_with" = "g")`,
		"SHOW CREATE TABLE " + long,
		"SELECT * FROM " + strings.Repeat("x", 1<<20),
	}
	for _, q := range tooLong {
		_, err := ParseOne(q)
		if e := sqlerr.As(err); err == nil || e.Code != 1059 {
			t.Errorf("%.70s: %v, want 1059", q, err)
		} else if len(e.Message) > 512 {
			t.Errorf("%.70s: a %d-byte message", q, len(e.Message))
		}
	}
	for _, q := range []string{
		"SELECT * FROM " + max,
		"SELECT " + max + " FROM " + max + " AS " + max,
		"SELECT 1 AS " + strings.Repeat("c", 256),
		"SELECT * FROM `" + wide + "`",
		"CREATE TABLE " + max + " (" + max + " INT) DISTRIBUTED BY HASH(" + max + ") BUCKETS 1",
	} {
		if _, err := ParseOne(q); err != nil {
			t.Errorf("%.70s: %v", q, err)
		}
	}
	if _, err := Parse("SELECT 1; SELECT * FROM " + long); sqlerr.As(err).Code != 1059 {
		t.Errorf("multi-statement: %v", err)
	}
}

// Parentheses nest 199 deep (vitess stops at 200): 199 derived tables one
// inside the other parse, 200 are 1473 naming the limit, never a syntax
// error at a valid statement.
func TestNestingLimit(t *testing.T) {
	derived := func(n int) string {
		s := "SELECT 1"
		for i := 0; i < n; i++ {
			s = "SELECT * FROM (" + s + ") t"
		}
		return s
	}
	if _, err := ParseOne(derived(maxNesting)); err != nil {
		t.Errorf("%d derived tables: %v", maxNesting, err)
	}
	for _, q := range []string{derived(maxNesting + 1), derived(1000), "SELECT " + strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300)} {
		_, err := ParseOne(q)
		if e := sqlerr.As(err); err == nil || e.Code != 1473 || !strings.Contains(e.Message, "199") {
			t.Errorf("%.40s…: %v, want 1473 naming 199", q, err)
		}
	}
}
