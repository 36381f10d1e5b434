package server_test

import (
	"testing"
)

// TestE2EJoinUsing: an unqualified column named in USING (or shared by a
// NATURAL join) is the one join column MySQL shows, not an ambiguity; the
// qualified names still reach each side; FULL OUTER JOIN USING, whose
// column would need COALESCE, is refused rather than answered from one
// side.
func TestE2EJoinUsing(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE u")
	mustExec(t, db, `CREATE TABLE u.a (k INT, x INT) DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, `CREATE TABLE u.b (k INT, y INT) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, "INSERT INTO u.a VALUES (1, 10), (2, 20), (NULL, 30)")
	mustExec(t, db, "INSERT INTO u.b VALUES (1, 100), (3, 300)")
	waitBackendsAlive(t, db, 3)
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"SELECT k, x, y FROM u.a JOIN u.b USING (k)", []string{"1|10|100"}},
		{"SELECT k, x FROM u.a LEFT JOIN u.b USING (k)", []string{"NULL|30", "1|10", "2|20"}},
		{"SELECT k, y FROM u.a RIGHT JOIN u.b USING (k)", []string{"1|100", "3|300"}},
		{"SELECT a.k, b.k, k FROM u.a NATURAL JOIN u.b", []string{"1|1|1"}},
		{"SELECT k, count(*) FROM u.a JOIN u.b USING (k) WHERE k > 0 GROUP BY k HAVING k < 5 ORDER BY k", []string{"1|1"}},
		{"SELECT * FROM u.a JOIN u.b USING (k)", []string{"1|10|100"}},
	} {
		checkSortedRows(t, s.MySQLAddr(), tc.q, tc.want)
	}
	// Without USING the same name is still ambiguous.
	_, err := db.Exec("SELECT k FROM u.a JOIN u.b ON a.k = b.k")
	wantCode(t, err, 1052, "unqualified k of an ON join")
	_, err = db.Exec("SELECT k FROM u.a FULL OUTER JOIN u.b USING (k)")
	wantCode(t, err, 1235, "FULL OUTER JOIN USING")
}
