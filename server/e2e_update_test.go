package server_test

import (
	"reflect"
	"strings"
	"testing"
)

func wantJoined(t *testing.T, got [][]string, want string) {
	t.Helper()
	var lines []string
	for _, r := range got {
		lines = append(lines, strings.Join(r, ","))
	}
	if g := strings.Join(lines, " "); g != want {
		t.Fatalf("rows:\n got %s\nwant %s", g, want)
	}
}

// TestE2EUpdate: UPDATE on a UNIQUE KEY table as Doris runs it (the matched
// rows rewritten with their SET columns replaced, one load transaction),
// its FROM form and MySQL's join form, DEFAULT, and Doris's errors.
func TestE2EUpdate(t *testing.T) {
	s := newServer(t)
	root := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, root, "CREATE DATABASE up")
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			db := openDB(t, s.MySQLAddr(), "up", p.interpolate)
			mustExec(t, db, "DROP TABLE IF EXISTS u")
			mustExec(t, db, "DROP TABLE IF EXISTS m")
			mustExec(t, db, "DROP VIEW IF EXISTS uv")
			mustExec(t, db, `CREATE TABLE u (k INT, k2 INT, a INT, b INT, s VARCHAR(10) DEFAULT 'dft')
				UNIQUE KEY(k, k2) DISTRIBUTED BY HASH(k) BUCKETS 4 PROPERTIES ("replication_num" = "1")`)
			mustExec(t, db, `CREATE TABLE m (k INT, x INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3
				PROPERTIES ("replication_num" = "1")`)
			mustExec(t, db, "INSERT INTO u VALUES (1,1,10,-10,'a'),(2,1,20,-20,'b'),(3,1,30,-30,'c'),(4,1,40,-40,'d'),(4,2,41,-41,'e')")
			mustExec(t, db, "INSERT INTO m VALUES (1,100),(3,300),(9,900)")

			// SET sees the old row: a swap swaps.
			r := mustExec(t, db, "UPDATE u SET a = b, b = a WHERE k >= ?", 3)
			if n, _ := r.RowsAffected(); n != 3 {
				t.Fatalf("rows affected %d, want 3", n)
			}
			wantJoined(t, queryStrings(t, db, "SELECT * FROM u ORDER BY k, k2"),
				"1,1,10,-10,a 2,1,20,-20,b 3,1,-30,30,c 4,1,-40,40,d 4,2,-41,41,e")

			// Doris's FROM form, and DEFAULT.
			mustExec(t, db, "UPDATE u SET a = m.x, s = DEFAULT FROM m WHERE u.k = m.k")
			wantJoined(t, queryStrings(t, db, "SELECT k, k2, a, s FROM u ORDER BY k, k2"),
				"1,1,100,dft 2,1,20,b 3,1,300,dft 4,1,-40,d 4,2,-41,e")

			// MySQL's join form with an alias.
			mustExec(t, db, "UPDATE u AS t JOIN m ON t.k = m.k SET t.b = m.x * 2 WHERE m.x > 100")
			wantJoined(t, queryStrings(t, db, "SELECT k, b FROM u WHERE k IN (1, 3) ORDER BY k"), "1,-10 3,600")

			// EXPLAIN shows the load it runs: a table sink fed by the matching rows.
			var plan []string
			for _, r := range queryStrings(t, db, "EXPLAIN UPDATE u SET a = a + 1 WHERE k = 1") {
				plan = append(plan, r[0])
			}
			if p := strings.Join(plan, "\n"); !strings.Contains(p, "OLAP TABLE SINK") || !strings.Contains(p, "u") {
				t.Fatalf("EXPLAIN UPDATE:\n%s", p)
			}

			// No match: nothing written.
			r = mustExec(t, db, "UPDATE u SET a = 0 WHERE k > 100")
			if n, _ := r.RowsAffected(); n != 0 {
				t.Fatalf("rows affected %d, want 0", n)
			}

			// A deleted key stays deleted through a later UPDATE.
			mustExec(t, db, "DELETE FROM u WHERE k = 2")
			mustExec(t, db, "UPDATE u SET a = a + 1")
			wantJoined(t, queryStrings(t, db, "SELECT k, k2, a FROM u ORDER BY k, k2"),
				"1,1,101 3,1,301 4,1,-39 4,2,-40")

			// One bad value anywhere aborts the whole statement.
			_, err := db.Exec("UPDATE u SET a = CASE WHEN k = 4 AND k2 = 2 THEN 'x' ELSE 7 END")
			wantCode(t, err, 1366, "bad value")
			wantJoined(t, queryStrings(t, db, "SELECT a FROM u ORDER BY k, k2"), "101 301 -39 -40")

			mustExec(t, db, "CREATE VIEW uv AS SELECT * FROM u")
			for _, c := range []struct {
				stmt string
				code uint16
				msg  string
			}{
				{"UPDATE m SET x = 1", 1105, "Only unique table could be updated."},
				{"UPDATE u SET k = 1", 1105, "Only value columns of unique table could be updated"},
				{"UPDATE u SET zz = 1", 1105, "unknown column in assignment list: zz"},
				{"UPDATE u SET m.x = 1 FROM m", 1105, "column in assignment list is invalid, m.x"},
				{"UPDATE u SET a = 1, a = 2", 1110, "Column 'a' specified twice"},
				{"UPDATE u SET a = 1 ORDER BY k LIMIT 1", 1235, "UPDATE with ORDER BY or LIMIT"},
				{"UPDATE nosuch SET a = 1", 1146, "nosuch"},
				{"UPDATE uv SET a = 1", 1105, "target table in update command should be an olapTable"},
				{"UPDATE u SET a = nosuch", 1054, "nosuch"},
			} {
				_, err := db.Exec(c.stmt)
				wantCode(t, err, c.code, c.stmt)
				if !strings.Contains(err.Error(), c.msg) {
					t.Errorf("%s: %v, want it to say %q", c.stmt, err, c.msg)
				}
			}
			wantJoined(t, queryStrings(t, db, "SELECT a FROM u ORDER BY k, k2"), "101 301 -39 -40")
		})
	}
}

// TestE2EUpdateTxnPrivsRestart: UPDATE inside BEGIN commits or rolls back
// with the transaction; it needs LOAD_PRIV on the target and SELECT_PRIV on
// what it reads; its rows survive a restart.
func TestE2EUpdateTxnPrivsRestart(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE up")
	mustExec(t, db, `CREATE TABLE up.u (k INT, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3
		PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, "INSERT INTO up.u VALUES (1, 1), (2, 2), (3, 3)")

	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, conn, "BEGIN")
	mustExec(t, conn, "UPDATE up.u SET v = 10 WHERE k = 1")
	mustExec(t, conn, "ROLLBACK")
	mustExec(t, conn, "BEGIN")
	mustExec(t, conn, "UPDATE up.u SET v = 20 WHERE k = 2")
	mustExec(t, conn, "INSERT INTO up.u VALUES (4, 4)")
	wantJoined(t, queryStrings(t, db, "SELECT v FROM up.u ORDER BY k"), "1 2 3") // not yet visible
	mustExec(t, conn, "COMMIT")
	conn.Close()
	wantJoined(t, queryStrings(t, db, "SELECT v FROM up.u ORDER BY k"), "1 20 3 4")

	mustExec(t, db, "CREATE USER 'ld'@'%'")
	mustExec(t, db, "GRANT LOAD_PRIV ON up.* TO 'ld'@'%'")
	mustExec(t, db, "CREATE USER 'rd'@'%'")
	mustExec(t, db, "GRANT SELECT_PRIV ON up.* TO 'rd'@'%'")
	for _, u := range []string{"ld", "rd"} {
		c := openDBAs(t, s.MySQLAddr(), u, "", "up", true)
		_, err := c.Exec("UPDATE u SET v = 0")
		wantCode(t, err, 1142, "UPDATE as "+u)
	}
	mustExec(t, db, "GRANT SELECT_PRIV ON up.* TO 'ld'@'%'")
	mustExec(t, openDBAs(t, s.MySQLAddr(), "ld", "", "up", true), "UPDATE u SET v = v * 2 WHERE k <= 2")

	s.Close()
	s = startServer(t, dir)
	defer s.Close()
	got := queryStrings(t, openDB(t, s.MySQLAddr(), "up", true), "SELECT k, v FROM u ORDER BY k")
	want := [][]string{{"1", "2"}, {"2", "40"}, {"3", "3"}, {"4", "4"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after restart: %v, want %v", got, want)
	}

}

// TestE2EInsertSelectHints: an INSERT … SELECT (and an UPDATE, which runs
// as one) is planned with its statement's hints, as EXPLAIN plans it: a
// SET_VAR(exec_mem_limit) too small for its aggregation stops it.
func TestE2EInsertSelectHints(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE ih")
	mustExec(t, db, `CREATE TABLE ih.t (k BIGINT, n BIGINT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	const agg = `SELECT number, count(*) FROM numbers("number" = "300000") GROUP BY number`
	_, err := db.Exec("INSERT INTO ih.t SELECT /*+ SET_VAR(exec_mem_limit = 1048576) */ " + agg[len("SELECT "):])
	if err == nil || !strings.Contains(err.Error(), "exec_mem_limit") {
		t.Fatalf("INSERT … SELECT over its SET_VAR(exec_mem_limit): %v, want the limit named", err)
	}
	mustExec(t, db, "INSERT INTO ih.t "+agg)
	_, err = db.Exec("UPDATE /*+ SET_VAR(exec_mem_limit = 1048576) */ ih.t SET n = n + 1 WHERE k IN (" + agg[:len("SELECT number")] + " FROM numbers(\"number\" = \"300000\") GROUP BY number)")
	if err == nil || !strings.Contains(err.Error(), "exec_mem_limit") {
		t.Fatalf("UPDATE over its SET_VAR(exec_mem_limit): %v, want the limit named", err)
	}
	wantJoined(t, queryStrings(t, db, "SELECT count(*), sum(n) FROM ih.t"), "300000,300000")
}
