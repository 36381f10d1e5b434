package server_test

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
)

// Every join distribution must return the same rows: each query of a join
// corpus runs under no hint and under every hint, over colocated and
// non-colocated layouts, and the sorted results must be identical. Hints
// change only where rows meet (colocate, bucket shuffle, broadcast,
// shuffle), never which rows come out.
func TestE2EJoinHintsSameRows(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	corpus := loadJoinCorpus(t, db)
	hints := []string{"[shuffle]", "[broadcast]", "[bucket]", "[colocate]", "/*+ shuffle */"}
	for _, q := range corpus {
		base := sortedRows(queryStrings(t, db, fmt.Sprintf(q, "")))
		if len(base) == 0 {
			t.Fatalf("%s: no rows; the corpus must exercise the join", q)
		}
		for _, h := range hints {
			got := sortedRows(queryStrings(t, db, fmt.Sprintf(q, h)))
			if fmt.Sprint(got) != fmt.Sprint(base) {
				t.Errorf("%s with %s: %d rows, without hint %d rows", q, h, len(got), len(base))
			}
		}
		// The same join with colocation switched off by the session.
		got := sortedRows(queryStrings(t, db, "SELECT /*+ SET_VAR(disable_colocate_plan = true, enable_bucket_shuffle_join = false) */ "+strings.TrimPrefix(fmt.Sprintf(q, ""), "SELECT ")))
		if fmt.Sprint(got) != fmt.Sprint(base) {
			t.Errorf("%s without colocate/bucket shuffle: %d rows, want %d", q, len(got), len(base))
		}
	}
}

// loadJoinCorpus creates database j (colocated f and c, d on another key
// with 2 replicas, random-bucketed r) and returns join queries with a %s
// where a join hint goes.
func loadJoinCorpus(t *testing.T, db *sql.DB) []string {
	t.Helper()
	mustExec(t, db, "CREATE DATABASE j")
	ddl := []string{
		`CREATE TABLE j.f (k BIGINT, a INT, s VARCHAR(8)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 6 PROPERTIES ("replication_num" = "1", "colocate_with" = "g")`,
		`CREATE TABLE j.c (k BIGINT, b INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 6 PROPERTIES ("replication_num" = "1", "colocate_with" = "g")`,
		`CREATE TABLE j.d (id INT, k BIGINT, name VARCHAR(8)) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 4 PROPERTIES ("replication_num" = "2")`,
		`CREATE TABLE j.r (k BIGINT, z INT) DUPLICATE KEY(k) DISTRIBUTED BY RANDOM BUCKETS 3 PROPERTIES ("replication_num" = "1")`,
	}
	for _, q := range ddl {
		mustExec(t, db, q)
	}
	var f, c, d, r []string
	for i := 0; i < 400; i++ {
		f = append(f, fmt.Sprintf("(%d, %d, 's%d')", i%97, i, i%5))
		if i%3 == 0 {
			c = append(c, fmt.Sprintf("(%d, %d)", i%120, i))
		}
		if i < 60 {
			d = append(d, fmt.Sprintf("(%d, %d, 'n%d')", i, i%40, i%7))
			r = append(r, fmt.Sprintf("(%d, %d)", i%50, i))
		}
	}
	f = append(f, "(NULL, -1, NULL)")
	c = append(c, "(NULL, -2)")
	mustExec(t, db, "INSERT INTO j.f VALUES "+strings.Join(f, ","))
	mustExec(t, db, "INSERT INTO j.c VALUES "+strings.Join(c, ","))
	mustExec(t, db, "INSERT INTO j.d VALUES "+strings.Join(d, ","))
	mustExec(t, db, "INSERT INTO j.r VALUES "+strings.Join(r, ","))
	waitBackendsAlive(t, db, 3)

	corpus := []string{
		"SELECT f.k, f.a, c.b FROM j.f JOIN %s j.c ON f.k = c.k",
		"SELECT f.k, f.a, c.b FROM j.f LEFT JOIN %s j.c ON f.k = c.k",
		"SELECT f.k, f.a, c.b FROM j.f RIGHT JOIN %s j.c ON f.k = c.k",
		"SELECT f.k, f.a, c.b FROM j.f FULL OUTER JOIN %s j.c ON f.k = c.k",
		"SELECT f.k, f.a, d.name FROM j.f JOIN %s j.d ON f.k = d.k",
		"SELECT f.s, count(*), sum(d.id) FROM j.f JOIN %s j.d ON f.k = d.k GROUP BY f.s",
		"SELECT d.name, count(*) FROM j.d JOIN %s j.f ON d.k = f.k GROUP BY d.name",
		"SELECT f.k, r.z FROM j.f JOIN %s j.r ON f.k = r.k WHERE f.a < 200",
		"SELECT f.k, c.b, d.id FROM j.f JOIN %s j.c ON f.k = c.k JOIN j.d ON c.k = d.k",
		"SELECT f.k, f.a, c.b FROM j.f JOIN %s j.c ON f.k <=> c.k",
		"SELECT f.k, f.a FROM j.f JOIN %s j.c ON f.k = c.k AND f.a > c.b",
		"SELECT f.k, f.a FROM j.f LEFT SEMI JOIN %s j.c ON f.k = c.k",
		"SELECT f.k, f.a FROM j.f LEFT ANTI JOIN %s j.d ON f.k = d.k",
		"SELECT c.k, c.b FROM j.f RIGHT SEMI JOIN %s j.c ON f.k = c.k AND f.a > c.b",
		"SELECT d.id, d.name FROM j.f RIGHT ANTI JOIN %s j.d ON f.k = d.k AND f.a < d.id",
	}
	return corpus
}
