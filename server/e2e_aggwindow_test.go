package server_test

import (
	"fmt"
	"strings"
	"testing"
)

// A correlated scalar aggregate subquery over the outer query's tables but
// one, filtered the same way, runs as a window aggregate over the outer
// rows (Doris's AggScalarSubQueryToWindowFunction; TPC-H Q2, Q17). Every
// query must give the same rows with the rewrite and with it disabled
// (disable_nereids_rules), where it runs as a left join against the
// grouped subquery; EXPLAIN shows which shapes are rewritten. The data has
// a key with two dimension rows (the window sees each fact row twice), NULL
// keys, a key whose values are all NULL and keys without fact rows.
func TestE2EAggScalarSubqueryToWindow(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	db.SetMaxOpenConns(1) // one session: SET holds for the queries after it
	mustExec(t, db, "CREATE DATABASE d")
	for _, ddl := range []string{
		`CREATE TABLE d.f (k INT, g INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(g) BUCKETS 3 PROPERTIES ("replication_num" = "1")`,
		`CREATE TABLE d.dim (k INT, tag INT, name VARCHAR(4)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(tag) BUCKETS 2 PROPERTIES ("replication_num" = "1")`,
		`CREATE TABLE d.u (k INT NOT NULL, tag INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "1")`,
	} {
		mustExec(t, db, ddl)
	}
	mustExec(t, db, `INSERT INTO d.f VALUES (1, 1, 10), (1, 2, 20), (1, 3, 30), (1, 1, NULL), (2, 1, 5), (2, 2, 6),
		(3, 1, NULL), (3, 2, NULL), (NULL, 1, 7), (NULL, 2, 1), (4, 3, 100), (4, 1, 2)`)
	mustExec(t, db, `INSERT INTO d.dim VALUES (1, 1, 'a'), (1, 2, 'b'), (2, 1, 'a'), (3, 1, 'a'), (NULL, 1, 'n'), (NULL, 2, 'm'), (5, 1, 'z'), (4, 0, 'a')`)
	mustExec(t, db, `INSERT INTO d.u VALUES (1, 1), (2, 0), (3, 1), (4, 1), (6, 1)`)
	waitBackendsAlive(t, db, 3)

	const fd = "SELECT a.k, a.g, a.v, dim.tag FROM d.f a, d.dim WHERE a.k = dim.k AND "
	const fu = "SELECT a.k, a.g, a.v, u.tag FROM d.f a, d.u WHERE a.k = u.k AND "
	for _, tc := range []struct {
		q       string
		rewrite bool
		rows    int // rows the query returns (both ways)
	}{
		// Q17: AVG over the partition, the dimension key repeated.
		{fd + "dim.tag > 0 AND a.v < (SELECT avg(b.v) FROM d.f b WHERE b.k = dim.k)", true, 3},
		{fd + "dim.tag >= 0 AND a.v >= (SELECT 0.5 * avg(b.v) FROM d.f b WHERE dim.k = b.k)", true, 9},
		// Q2: MIN; MAX with a condition on the shared table only in the
		// outer query (it filters above the window) and in both (below).
		{fd + "a.v = (SELECT min(b.v) FROM d.f b WHERE b.k = dim.k)", true, 4},
		{fd + "a.g > 1 AND a.v = (SELECT max(b.v) FROM d.f b WHERE b.k = dim.k)", true, 4},
		{fd + "a.g < 3 AND a.v = (SELECT max(b.v) FROM d.f b WHERE b.k = dim.k AND b.g < 3)", true, 4},
		// Explicit joins; the correlation on the subquery's left side.
		{"SELECT a.k, a.v FROM d.f a JOIN d.dim ON dim.k = a.k AND dim.name = 'a' WHERE (SELECT max(b.v) FROM d.f b WHERE b.k = dim.k) = a.v", true, 3},
		// <=> puts the NULL keys in one partition, as in the subquery.
		{"SELECT a.k, a.v FROM d.f a, d.dim WHERE a.k <=> dim.k AND a.v > (SELECT avg(b.v) FROM d.f b WHERE b.k <=> dim.k)", true, 6},
		// SUM and COUNT need the correlated columns to be a unique key.
		{fu + "a.v * 3 > (SELECT sum(b.v) FROM d.f b WHERE b.k = u.k)", true, 4},
		{fu + "u.tag = 1 AND (SELECT count(*) FROM d.f b WHERE b.k = u.k) > 2", true, 4},
		{fu + "a.g = (SELECT count(b.v) FROM d.f b WHERE b.k = u.k)", true, 2},
		{fd + "a.v * 3 > (SELECT sum(b.v) FROM d.f b WHERE b.k = dim.k)", false, 5},
		{fd + "(SELECT count(*) FROM d.f b WHERE b.k = dim.k) > 2", false, 8},
		// Not the same tables, filters or correlation.
		{fd + "a.v < (SELECT avg(b.v) FROM d.f b WHERE b.k = dim.k AND b.g > 1)", false, 6},
		{fd + "a.v < (SELECT avg(b.v) FROM d.f b WHERE b.k = dim.k AND b.g <> a.g)", false, 4},
		{fd + "a.v > (SELECT avg(u.tag) FROM d.u WHERE u.k = dim.k)", false, 10},
		{"SELECT a.k, a.v FROM d.f a WHERE a.v > (SELECT avg(b.v) FROM d.f b WHERE b.k = a.k)", false, 3},
		{fd + "a.v < (SELECT avg(DISTINCT b.v) FROM d.f b WHERE b.k = dim.k)", false, 4},
		{fd + "a.v < (SELECT avg(b.v) FROM d.f b WHERE b.k = dim.k LIMIT 1)", false, 4},
		{"SELECT a.k, a.v FROM d.f a LEFT JOIN d.dim ON a.k = dim.k WHERE a.v < (SELECT avg(b.v) FROM d.f b WHERE b.k = dim.k)", false, 4},
	} {
		mustExec(t, db, "SET disable_nereids_rules = ''")
		plan := explainText(t, db, tc.q)
		on := sortedRows(queryStrings(t, db, tc.q))
		mustExec(t, db, "SET disable_nereids_rules = 'AGG_SCALAR_SUBQUERY_TO_WINDOW_FUNCTION'")
		off := sortedRows(queryStrings(t, db, tc.q))
		offPlan := explainText(t, db, tc.q)
		if got := strings.Contains(plan, "ANALYTIC"); got != tc.rewrite {
			t.Errorf("%s: rewritten %v, want %v:\n%s", tc.q, got, tc.rewrite, plan)
		}
		if strings.Contains(offPlan, "ANALYTIC") {
			t.Errorf("%s: rewritten with the rule disabled:\n%s", tc.q, offPlan)
		}
		if fmt.Sprint(on) != fmt.Sprint(off) {
			t.Errorf("%s:\n with the rewrite %v\n without       %v", tc.q, on, off)
		}
		if len(on) != tc.rows {
			t.Errorf("%s: %d rows %v, want %d", tc.q, len(on), on, tc.rows)
		}
	}
}
