package server_test

import (
	"context"
	"strings"
	"testing"
)

// TestE2ESQLPrepare: PREPARE / EXECUTE … USING @v / DEALLOCATE PREPARE over
// user variables, with MySQL's errors: 1243 for an unknown name, 1210 for
// a wrong argument count, 1295 for preparing them through the protocol.
func TestE2ESQLPrepare(t *testing.T) {
	s := newServer(t)
	setup := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, setup, "CREATE DATABASE p")
	mustExec(t, setup, `CREATE TABLE p.t (k INT, v VARCHAR(10)) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, setup, "INSERT INTO p.t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
	waitBackendsAlive(t, setup, 3)
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			ctx := context.Background()
			conn, err := openDB(t, s.MySQLAddr(), "p", p.interpolate).Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			one := func(q string) string {
				t.Helper()
				var rows []string
				for _, r := range queryStrings(t, conn, q) {
					rows = append(rows, strings.Join(r, "|"))
				}
				return strings.Join(rows, ",")
			}
			mustExec(t, conn, "SET @a = 1")
			if got := one("SELECT @a, @a + 1, @nosuch"); got != "1|2|NULL" {
				t.Errorf("user variables: %s", got)
			}
			mustExec(t, conn, "PREPARE s FROM 'SELECT ?+1'")
			if got := one("EXECUTE s USING @a"); got != "2" {
				t.Errorf("EXECUTE s USING @a = %s, want 2", got)
			}
			mustExec(t, conn, "SET @a = 41")
			if got := one("EXECUTE s USING @a"); got != "42" {
				t.Errorf("EXECUTE s after SET @a = 41: %s", got)
			}
			_, err = conn.ExecContext(ctx, "EXECUTE s")
			wantCode(t, err, 1210, "EXECUTE with too few arguments")
			_, err = conn.ExecContext(ctx, "EXECUTE s USING @a, @a")
			wantCode(t, err, 1210, "EXECUTE with too many arguments")
			mustExec(t, conn, "DEALLOCATE PREPARE s")
			_, err = conn.ExecContext(ctx, "EXECUTE s USING @a")
			wantCode(t, err, 1243, "EXECUTE after DEALLOCATE")
			_, err = conn.ExecContext(ctx, "DEALLOCATE PREPARE s")
			wantCode(t, err, 1243, "DEALLOCATE twice")

			// A table query, the text from a variable, names case-insensitive,
			// a string argument.
			mustExec(t, conn, "SET @q = 'SELECT k, v FROM t WHERE k >= ? AND v <> ? ORDER BY k'")
			mustExec(t, conn, "PREPARE Q1 FROM @q")
			mustExec(t, conn, "SET @lo = 2, @skip = 'c'")
			if got := one("EXECUTE q1 USING @lo, @skip"); got != "2|b" {
				t.Errorf("EXECUTE q1: %s", got)
			}
			// A write, and re-preparing a name replaces it.
			mustExec(t, conn, "PREPARE q1 FROM 'INSERT INTO t VALUES (?, ?)'")
			mustExec(t, conn, "SET @k = 4, @v = 'd'")
			mustExec(t, conn, "EXECUTE q1 USING @k, @v")
			if got := one("SELECT v FROM t WHERE k = 4"); got != "d" {
				t.Errorf("after EXECUTE of INSERT: %q", got)
			}
			mustExec(t, conn, "DELETE FROM t WHERE k = 4")
			mustExec(t, conn, "DROP PREPARE q1")

			_, err = conn.ExecContext(ctx, "PREPARE bad FROM 'SELEC 1'")
			wantCode(t, err, 1064, "PREPARE of a syntax error")
			_, err = conn.ExecContext(ctx, "EXECUTE bad")
			wantCode(t, err, 1243, "a failed PREPARE leaves no statement")
			_, err = conn.ExecContext(ctx, "PREPARE s2 FROM 'SELECT * FROM nosuch'")
			wantCode(t, err, 1146, "PREPARE of an unknown table")
		})
	}
	// PREPARE / EXECUTE / DEALLOCATE cannot themselves go through the
	// prepared statement protocol (MySQL's 1295).
	db := openDB(t, s.MySQLAddr(), "p", false)
	for _, q := range []string{"EXECUTE s USING @a", "DEALLOCATE PREPARE s", "PREPARE s FROM 'SELECT 1'"} {
		_, err := db.Prepare(q)
		wantCode(t, err, 1295, q+" through COM_STMT_PREPARE")
	}
}
