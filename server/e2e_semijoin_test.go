package server_test

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
)

// Doris's explicit LEFT/RIGHT SEMI/ANTI JOIN: a semi join returns each row
// of its kept side that has a match once, an anti join those without one
// (a NULL key never matches, as in NOT EXISTS, so an anti join keeps the
// NULL-key rows however many NULLs the other side holds), and only the
// kept side's columns are visible above the join. Every case runs without
// a hint and under [shuffle] and [broadcast], over both client protocols,
// and is compared with rows computed by hand.
func TestE2ESemiAntiJoin(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE d")
	for _, ddl := range []string{
		`CREATE TABLE d.l (id INT, k INT, v INT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 3 PROPERTIES ("replication_num" = "1")`,
		`CREATE TABLE d.r (id INT, k INT, w INT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(w) BUCKETS 4 PROPERTIES ("replication_num" = "1")`,
		`CREATE TABLE d.e (id INT, k INT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2 PROPERTIES ("replication_num" = "1")`,
	} {
		mustExec(t, db, ddl)
	}
	// Keys: l has 1 twice, 2 twice (ids 3 and 7 are equal rows), 3, 4 and
	// NULL; r has 1 twice, 2 three times (ids 6 and 7 equal), 5 and NULL.
	mustExec(t, db, `INSERT INTO d.l VALUES (1, 1, 10), (2, 1, 20), (3, 2, 5), (4, 3, 7), (5, NULL, 9), (6, 4, NULL), (7, 2, 5)`)
	mustExec(t, db, `INSERT INTO d.r VALUES (1, 1, 15), (2, 1, 200), (3, 2, 3), (4, NULL, 50), (5, 5, NULL), (6, 2, 6), (7, 2, 6)`)
	waitBackendsAlive(t, db, 3)
	dbs := map[string]*sql.DB{"text": db, "binary": openDB(t, s.MySQLAddr(), "", false)}

	lRows := map[string]string{"1": "1|1|10", "2": "2|1|20", "3": "3|2|5", "4": "4|3|7", "5": "5|NULL|9", "6": "6|4|NULL", "7": "7|2|5"}
	rRows := map[string]string{"1": "1|1|15", "2": "2|1|200", "3": "3|2|3", "4": "4|NULL|50", "5": "5|5|NULL", "6": "6|2|6", "7": "7|2|6"}
	rowsOf := func(table map[string]string, ids string) []string {
		var out []string
		for _, id := range strings.Fields(ids) {
			out = append(out, table[id])
		}
		return out
	}
	// want: the ids each join kind returns under each condition.
	for _, tc := range []struct {
		on                                       string
		leftSemi, leftAnti, rightSemi, rightAnti string
	}{
		// Equi join (hash join).
		{"l.k = r.k", "1 2 3 7", "4 5 6", "1 2 3 6 7", "4 5"},
		// Equi join with a residual condition; v and w hold NULLs too.
		{"l.k = r.k AND l.v > r.w", "2 3 7", "1 4 5 6", "1 3", "2 4 5 6 7"},
		// Non-equi only (nested loop).
		{"l.k < r.k", "1 2 3 4 6 7", "5", "3 5 6 7", "1 2 4"},
	} {
		for _, kind := range []struct {
			join string
			side map[string]string
			ids  string
		}{
			{"LEFT SEMI JOIN", lRows, tc.leftSemi},
			{"LEFT ANTI JOIN", lRows, tc.leftAnti},
			{"RIGHT SEMI JOIN", rRows, tc.rightSemi},
			{"RIGHT ANTI JOIN", rRows, tc.rightAnti},
		} {
			for _, hint := range []string{"", " [shuffle]", " [broadcast]"} {
				q := fmt.Sprintf("SELECT * FROM d.l %s%s d.r ON %s", kind.join, hint, tc.on)
				checkRowsOn(t, dbs, q, rowsOf(kind.side, kind.ids))
			}
		}
	}

	// Above the join: WHERE, aggregates, another join, USING, a derived table.
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"SELECT l.id FROM d.l LEFT SEMI JOIN d.r ON l.k = r.k WHERE l.v > 5", []string{"1", "2"}},
		{"SELECT id, v FROM d.l LEFT ANTI JOIN d.r ON l.k = r.k WHERE k IS NULL OR v > 5", []string{"4|7", "5|9"}},
		{"SELECT count(*), sum(w) FROM d.l RIGHT SEMI JOIN [shuffle] d.r ON l.k = r.k", []string{"5|230"}},
		{"SELECT k, count(*) FROM d.l LEFT SEMI JOIN d.r ON l.k = r.k GROUP BY k", []string{"1|2", "2|2"}},
		{"SELECT l.id, r2.w FROM d.l LEFT SEMI JOIN d.r ON l.k = r.k JOIN d.r r2 ON r2.id = l.id", []string{"1|15", "2|200", "3|3", "7|6"}},
		{"SELECT l.id, r.id FROM d.l LEFT SEMI JOIN d.r r2 ON l.k = r2.k JOIN d.r ON r.id = l.id + 1", []string{"1|2", "2|3", "3|4"}},
		{"SELECT * FROM d.l LEFT SEMI JOIN d.r USING (k)", rowsOf(lRows, "1 2 3 7")},
		{"SELECT * FROM d.l RIGHT ANTI JOIN d.r USING (id)", nil},
		{"SELECT * FROM d.l RIGHT SEMI JOIN d.r USING (id) WHERE id > 5", rowsOf(rRows, "6 7")},
		{"SELECT x.id FROM (SELECT * FROM d.l LEFT ANTI JOIN [broadcast] d.r ON l.k = r.k) x", []string{"4", "5", "6"}},
		// A condition on one side only is part of the match: it filters a
		// semi join's kept side but must not filter an anti join's.
		{"SELECT l.id FROM d.l LEFT SEMI JOIN d.r ON l.k = r.k AND l.v > 5", []string{"1", "2"}},
		{"SELECT l.id FROM d.l LEFT ANTI JOIN d.r ON l.k = r.k AND l.v > 5", []string{"3", "4", "5", "6", "7"}},
		{"SELECT l.id FROM d.l LEFT ANTI JOIN [broadcast] d.r ON l.k = r.k AND r.w > 100", []string{"3", "4", "5", "6", "7"}},
		{"SELECT r.id FROM d.l RIGHT SEMI JOIN d.r ON l.k = r.k AND l.v < 10", []string{"3", "6", "7"}},
		{"SELECT r.id FROM d.l RIGHT ANTI JOIN [shuffle] d.r ON l.k = r.k AND r.w > 10", []string{"3", "4", "5", "6", "7"}},
		{"SELECT l.id FROM d.l LEFT ANTI JOIN d.r ON l.v > 5", []string{"3", "6", "7"}},
		// Constant conditions.
		{"SELECT l.id FROM d.l LEFT SEMI JOIN d.r ON 1 = 1", []string{"1", "2", "3", "4", "5", "6", "7"}},
		{"SELECT l.id FROM d.l LEFT SEMI JOIN d.r ON 1 = 0", nil},
		{"SELECT l.id FROM d.l LEFT ANTI JOIN d.r ON 1 = 0", []string{"1", "2", "3", "4", "5", "6", "7"}},
		{"SELECT r.id FROM d.l RIGHT ANTI JOIN d.r ON 1 = 1", nil},
		// An empty other side: an anti join keeps every row, a semi join none.
		{"SELECT l.id FROM d.l LEFT ANTI JOIN d.e ON l.k = e.k", []string{"1", "2", "3", "4", "5", "6", "7"}},
		{"SELECT count(*) FROM d.l LEFT SEMI JOIN d.e ON l.k < e.k", []string{"0"}},
		{"SELECT r.id FROM d.e RIGHT ANTI JOIN [shuffle] d.r ON e.k = r.k", []string{"1", "2", "3", "4", "5", "6", "7"}},
		{"SELECT r.id FROM d.e RIGHT ANTI JOIN d.r ON e.k < r.k", []string{"1", "2", "3", "4", "5", "6", "7"}},
		{"SELECT r.id FROM d.e RIGHT SEMI JOIN d.r ON e.k < r.k", nil},
		// Semi joins in a row, on either side.
		{"SELECT l.id FROM d.l LEFT SEMI JOIN d.r ON l.k = r.k LEFT ANTI JOIN d.r r2 ON l.v > r2.w AND r2.k = 1", []string{"1", "3", "7"}},
		{"SELECT l2.id FROM d.l RIGHT SEMI JOIN d.r ON l.k = r.k RIGHT ANTI JOIN d.l l2 ON r.id = l2.id", []string{"4", "5"}},
	} {
		checkRowsOn(t, dbs, tc.q, tc.want)
	}

	// The hidden side is unknown above the join (Doris: Unknown column).
	for _, tc := range []struct{ q, msg string }{
		{"SELECT r.w FROM d.l LEFT SEMI JOIN d.r ON l.k = r.k", "Unknown column 'r.w' in 'field list'"},
		{"SELECT l.id FROM d.l LEFT ANTI JOIN d.r ON l.k = r.k WHERE r.w > 1", "Unknown column 'r.w' in 'where clause'"},
		{"SELECT w FROM d.l LEFT SEMI JOIN d.r ON l.k = r.k", "Unknown column 'w' in 'field list'"},
		{"SELECT l.v FROM d.l RIGHT SEMI JOIN d.r ON l.k = r.k", "Unknown column 'l.v' in 'field list'"},
		{"SELECT r.id FROM d.l RIGHT ANTI JOIN d.r ON l.k = r.k ORDER BY l.id", "Unknown column 'l.id' in 'order clause'"},
		{"SELECT r.* FROM d.l LEFT SEMI JOIN d.r ON l.k = r.k", "Unknown table 'r'"},
		{"SELECT * FROM d.l LEFT SEMI JOIN d.r", "You have an error in your SQL syntax"},
		{"SELECT * FROM d.l NATURAL LEFT ANTI JOIN d.r", "near 'ANTI JOIN d.r'"},
	} {
		_, err := db.Exec(tc.q)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %v, want %q", tc.q, err, tc.msg)
		}
	}

	// EXPLAIN names the join; a hint keeps the sides as written (without one
	// the planner may build the smaller side of a LEFT SEMI/ANTI JOIN by
	// running it as the RIGHT one).
	for _, tc := range []struct{ q, want string }{
		{"SELECT * FROM d.l LEFT SEMI JOIN [shuffle] d.r ON l.k = r.k", "join op: LEFT SEMI JOIN (PARTITIONED)"},
		{"SELECT * FROM d.l LEFT ANTI JOIN [broadcast] d.r ON l.k = r.k", "join op: LEFT ANTI JOIN (BROADCAST)"},
		{"SELECT * FROM d.l RIGHT SEMI JOIN [shuffle] d.r ON l.k = r.k", "join op: RIGHT SEMI JOIN (PARTITIONED)"},
		{"SELECT * FROM d.l RIGHT ANTI JOIN [shuffle] d.r ON l.k = r.k", "join op: RIGHT ANTI JOIN (PARTITIONED)"},
		{"SELECT * FROM d.l RIGHT ANTI JOIN [broadcast] d.r ON l.k = r.k", "hint: [broadcast] ignored, reason: join type does not support broadcast"},
		{"SELECT * FROM d.l LEFT SEMI JOIN d.r ON l.k < r.k", "NESTED LOOP JOIN"},
	} {
		if text := explainText(t, db, tc.q); !strings.Contains(text, tc.want) {
			t.Errorf("EXPLAIN %s: want %q in\n%s", tc.q, tc.want, text)
		}
	}
}

// checkRowsOn runs q on each pool (one per client protocol) and compares
// its rows, in any order, with want ("a|b" per row).
func checkRowsOn(t *testing.T, dbs map[string]*sql.DB, q string, want []string) {
	t.Helper()
	var w [][]string
	for _, r := range want {
		w = append(w, strings.Split(r, "|"))
	}
	w = sortedRows(w)
	for name, db := range dbs {
		rows, err := queryStringsErr(db, q)
		if err != nil {
			t.Errorf("%s (%s): %v", q, name, err)
			continue
		}
		if got := sortedRows(rows); fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("%s (%s):\n got %v\nwant %v", q, name, got, w)
		}
	}
}
