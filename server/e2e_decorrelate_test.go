package server_test

import (
	"fmt"
	"strings"
	"testing"
)

// Correlated scalar aggregate subqueries with equality correlation run as
// left joins against the subquery grouped by its keys (TPC-H Q2, Q17, Q20
// shapes). Results are compared with answers computed by hand, including
// outer rows whose group is empty (no inner row, or a NULL key): the
// aggregate is NULL there, COUNT is 0.
func TestE2EDecorrelateScalar(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE d")
	for _, ddl := range []string{
		`CREATE TABLE d.o (id INT, k INT, k2 INT, v INT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 3 PROPERTIES ("replication_num" = "1")`,
		`CREATE TABLE d.i (k INT, k2 INT, q INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(q) BUCKETS 4 PROPERTIES ("replication_num" = "1")`,
		`CREATE TABLE d.n (k INT, name VARCHAR(4)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "1")`,
	} {
		mustExec(t, db, ddl)
	}
	// Key 3 has no inner rows; outer id 5 and inner (NULL, 1, 100) have NULL keys.
	mustExec(t, db, `INSERT INTO d.o VALUES (1, 1, 1, 3), (2, 1, 2, 30), (3, 2, 1, 5), (4, 3, 1, 7), (5, NULL, 1, 9), (6, 2, NULL, 4)`)
	mustExec(t, db, `INSERT INTO d.i VALUES (1, 1, 10), (1, 1, 20), (1, 2, 6), (2, 1, 5), (2, 1, NULL), (NULL, 1, 100), (4, 1, 50)`)
	mustExec(t, db, `INSERT INTO d.n VALUES (1, 'a'), (2, 'b'), (4, 'a'), (NULL, 'a')`)
	waitBackendsAlive(t, db, 3)

	for _, tc := range []struct {
		q    string
		want []string // sorted comparison
	}{
		// COUNT over an empty group is 0, in the select list and in WHERE.
		{"SELECT id, (SELECT count(*) FROM d.i WHERE i.k = o.k) FROM d.o", []string{"1|3", "2|3", "3|2", "4|0", "5|0", "6|2"}},
		{"SELECT id, (SELECT count(q) FROM d.i WHERE i.k = o.k) FROM d.o", []string{"1|3", "2|3", "3|1", "4|0", "5|0", "6|1"}},
		{"SELECT id FROM d.o WHERE v > (SELECT count(*) FROM d.i WHERE i.k = o.k)", []string{"2", "3", "4", "5", "6"}},
		{"SELECT id, (SELECT count(*) + 1 FROM d.i WHERE i.k = o.k), (SELECT coalesce(max(q), -1) FROM d.i WHERE i.k = o.k) FROM d.o",
			[]string{"1|4|20", "2|4|20", "3|3|5", "4|1|-1", "5|1|-1", "6|3|5"}},
		// Other aggregates are NULL over an empty group.
		{"SELECT id, (SELECT sum(q) FROM d.i WHERE o.k = i.k), (SELECT min(q) FROM d.i WHERE i.k = o.k) FROM d.o",
			[]string{"1|36|6", "2|36|6", "3|5|5", "4|NULL|NULL", "5|NULL|NULL", "6|5|5"}},
		// Under GROUP BY a correlated subquery sees the group keys (join and
		// per-row Apply alike).
		{"SELECT k, (SELECT count(*) FROM d.i WHERE i.k = o.k) FROM d.o GROUP BY k", []string{"1|3", "2|2", "3|0", "NULL|0"}},
		{"SELECT k, sum(v), (SELECT count(*) FROM d.i WHERE i.k < o.k) FROM d.o GROUP BY k",
			[]string{"1|33|0", "2|9|3", "3|7|5", "NULL|9|0"}},
		// Q17: an expression over the aggregate, compared with <.
		{"SELECT id FROM d.o WHERE v < (SELECT 0.2 * sum(q) FROM d.i WHERE i.k = o.k)", []string{"1"}},
		{"SELECT id FROM d.o WHERE v >= (SELECT 0.2 * sum(q) FROM d.i WHERE i.k = o.k)", []string{"2", "3", "6"}},
		// Q2: the correlation among the joined tables of the subquery's WHERE.
		{"SELECT id, (SELECT min(q) FROM d.i, d.n WHERE i.k = n.k AND n.name = 'a' AND i.k = o.k) FROM d.o",
			[]string{"1|6", "2|6", "3|NULL", "4|NULL", "5|NULL", "6|NULL"}},
		{"SELECT id FROM d.o WHERE v = (SELECT min(q) - 3 FROM d.i, d.n WHERE i.k = n.k AND n.name = 'a' AND i.k = o.k)", []string{"1"}},
		// The correlation in an inner join's ON.
		{"SELECT id, (SELECT max(q) FROM d.i JOIN d.n ON i.k = n.k AND i.k = o.k) FROM d.o",
			[]string{"1|20", "2|20", "3|5", "4|NULL", "5|NULL", "6|5"}},
		// Two keys (Q20); a NULL in either never matches.
		{"SELECT id, (SELECT sum(q) FROM d.i WHERE i.k = o.k AND i.k2 = o.k2), (SELECT count(*) FROM d.i WHERE i.k = o.k AND i.k2 = o.k2) FROM d.o",
			[]string{"1|30|2", "2|6|1", "3|5|2", "4|NULL|0", "5|NULL|0", "6|NULL|0"}},
		// <=> matches the NULL key's group.
		{"SELECT id, (SELECT count(*) FROM d.i WHERE i.k <=> o.k) FROM d.o", []string{"1|3", "2|3", "3|2", "4|0", "5|1", "6|2"}},
		// A condition on the outer row only is a join condition.
		{"SELECT id, (SELECT count(*) FROM d.i WHERE i.k = o.k AND o.v < 10) FROM d.o", []string{"1|3", "2|0", "3|2", "4|0", "5|0", "6|2"}},
		// Outer filters still reach the outer scan and joins below the left join.
		{"SELECT o.id, (SELECT count(*) FROM d.i WHERE i.k = o.k) FROM d.o, d.n WHERE o.k = n.k AND n.name = 'a' AND o.v < 10", []string{"1|3"}},
		// Non-equi correlation stays a per-row Apply, with the same semantics.
		{"SELECT id, (SELECT count(*) FROM d.i WHERE i.k < o.k) FROM d.o", []string{"1|0", "2|0", "3|3", "4|5", "5|0", "6|3"}},
	} {
		checkSortedRows(t, s.MySQLAddr(), tc.q, tc.want)
	}

	// The Q17 shape is a distributed join over a grouped aggregate: inner,
	// since v < NULL (no i rows for the key) is never TRUE.
	text := explainText(t, db, "SELECT id FROM d.o WHERE v < (SELECT 0.2 * sum(q) FROM d.i WHERE i.k = o.k)")
	// A subquery under GROUP BY may not read an ungrouped outer column.
	if _, err := db.Exec("SELECT k, (SELECT count(*) FROM d.i WHERE i.k < o.v) FROM d.o GROUP BY k"); err == nil ||
		!strings.Contains(err.Error(), "1055") {
		t.Errorf("ungrouped outer column in a subquery under GROUP BY: %v, want 1055", err)
	}
	for _, want := range []string{"INNER JOIN", "group by: `i`.`k`", "sum(`i`.`q`)"} {
		if !strings.Contains(text, want) {
			t.Errorf("EXPLAIN lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "APPLY") {
		t.Errorf("EXPLAIN still has a per-row APPLY:\n%s", text)
	}
}

// Uncorrelated scalar aggregate subqueries (TPC-H Q11, Q15, Q22) are a
// cross join with the one-row aggregate, broadcast, so the query stays
// distributed: in WHERE, HAVING and the select list, with an empty
// subquery input (NULL; COUNT 0), an empty outer side, and as an equality
// the join reorder turns into a hash join.
func TestE2EUncorrelatedScalar(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE d")
	for _, ddl := range []string{
		`CREATE TABLE d.o (id INT, k INT, v INT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 3 PROPERTIES ("replication_num" = "1")`,
		`CREATE TABLE d.i (k INT, q INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(q) BUCKETS 4 PROPERTIES ("replication_num" = "1")`,
		`CREATE TABLE d.e (k INT, q INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "1")`,
	} {
		mustExec(t, db, ddl)
	}
	mustExec(t, db, `INSERT INTO d.o VALUES (1, 1, 3), (2, 1, 30), (3, 2, 5), (4, 3, 7), (5, NULL, 9), (6, 2, NULL)`)
	mustExec(t, db, `INSERT INTO d.i VALUES (1, 10), (1, 20), (2, 6), (2, NULL), (NULL, 100)`)
	waitBackendsAlive(t, db, 3)

	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"SELECT id FROM d.o WHERE v > (SELECT avg(q) FROM d.i WHERE q < 50)", []string{"2"}},
		{"SELECT id, v - (SELECT min(q) FROM d.i) FROM d.o", []string{"1|-3", "2|24", "3|-1", "4|1", "5|3", "6|NULL"}},
		// Over an empty input the aggregate is NULL and COUNT is 0.
		{"SELECT id, (SELECT max(q) FROM d.e), (SELECT count(*) FROM d.e) FROM d.o WHERE id < 3", []string{"1|NULL|0", "2|NULL|0"}},
		{"SELECT id FROM d.o WHERE v > (SELECT max(q) FROM d.e)", nil},
		{"SELECT count(*) FROM d.o WHERE v >= (SELECT count(*) FROM d.e)", []string{"5"}},
		// An empty outer side stays empty.
		{"SELECT k, (SELECT sum(q) FROM d.i) FROM d.e", nil},
		// HAVING (Q11) and an equality with the aggregate (Q15).
		{"SELECT k, sum(v) FROM d.o GROUP BY k HAVING sum(v) > (SELECT sum(q) * 0.2 FROM d.i)", []string{"1|33"}},
		{"SELECT o.id FROM d.o, d.i WHERE o.k = i.k AND i.q = (SELECT max(q) FROM d.i WHERE k IS NOT NULL)", []string{"1", "2"}},
	} {
		checkSortedRows(t, s.MySQLAddr(), tc.q, tc.want)
	}
	text := explainText(t, db, "SELECT id FROM d.o WHERE v > (SELECT avg(q) FROM d.i)")
	for _, want := range []string{"CROSS JOIN", "avg(avg(`i`.`q`))", "OlapScanNode"} {
		if !strings.Contains(text, want) {
			t.Errorf("EXPLAIN lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "APPLY") {
		t.Errorf("EXPLAIN still has a per-row APPLY:\n%s", text)
	}
	// A subquery of more than one row is still an error.
	if _, err := db.Exec("SELECT id FROM d.o WHERE v > (SELECT q FROM d.i)"); err == nil || !strings.Contains(err.Error(), "1242") {
		t.Errorf("multi-row scalar subquery: %v, want 1242", err)
	}
}

// checkSortedRows runs q over each client protocol and compares its rows,
// in any order, with want ("a|b" per row).
func checkSortedRows(t *testing.T, addr, q string, want []string) {
	t.Helper()
	var w [][]string
	for _, r := range want {
		w = append(w, strings.Split(r, "|"))
	}
	w = sortedRows(w)
	for _, p := range protocols {
		got := sortedRows(queryStrings(t, openDB(t, addr, "", p.interpolate), q))
		if fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("%s (%s):\n got %v\nwant %v", q, p.name, got, w)
		}
	}
}
