package server_test

import (
	"context"
	"log/slog"
	"regexp"
	"strings"
	"testing"

	"github.com/dorisgo/dorisgo/server"
)

// A panic while a statement is planned or executed on the FE fails that
// statement only: the client gets error 1105 naming the query id, the
// connection keeps working, and the FE log has the panic with that query
// id and the stack. The panics come from the server's test hook, at
// planning (before any result packet), while rows stream (after the column
// definitions went out) and while an INSERT loads (its transaction must be
// aborted), over both client protocols.
func TestE2EPanicFailsOnlyItsStatement(t *testing.T) {
	logs := &syncBuffer{}
	s, err := server.Start(server.Config{DataDir: t.TempDir(), Host: "127.0.0.1", Backends: 3,
		Log: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	// A statement whose text names a stage panics there.
	s.SetTestHook(func(stage, sql string) {
		if strings.Contains(sql, "panic_at_"+stage) {
			panic("test hook: panic at " + stage)
		}
	})
	setup := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, setup, "CREATE DATABASE d")
	mustExec(t, setup, `CREATE TABLE d.t (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, setup, `CREATE TABLE d.t2 (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, setup, "INSERT INTO d.t VALUES (1, 10), (2, 20), (3, 30), (4, 40)")
	waitBackendsAlive(t, setup, 3)

	idRE := regexp.MustCompile(`unexpected panic in query ([0-9a-f]{32}): test hook: panic at (\w+) \(stack in the FE log\)`)
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			ctx := context.Background()
			conn, err := openDB(t, s.MySQLAddr(), "", p.interpolate).Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			connID := queryStrings(t, conn, "SELECT CONNECTION_ID()")[0][0]
			for _, tc := range []struct{ stmt, stage string }{
				{"SELECT k, v AS panic_at_plan FROM d.t WHERE k > ?", "plan"},
				{"SELECT k, v AS panic_at_rows FROM d.t WHERE k > ?", "rows"},
				{"SELECT count(*) AS panic_at_rows FROM d.t, d.t2 WHERE t.k > ?", "rows"},
				{"INSERT INTO d.t2 SELECT k, v AS panic_at_rows FROM d.t WHERE k > ?", "rows"},
			} {
				var err error
				if strings.HasPrefix(tc.stmt, "INSERT") {
					_, err = conn.ExecContext(ctx, tc.stmt, 0)
				} else {
					_, err = queryStringsErr(conn, tc.stmt, 0)
				}
				wantCode(t, err, 1105, tc.stmt)
				m := idRE.FindStringSubmatch(err.Error())
				if m == nil || m[2] != tc.stage {
					t.Fatalf("%s: error %q does not name the query id and the %s panic", tc.stmt, err, tc.stage)
				}
				// The log line of the panic: query id, statement, stack.
				line := ""
				for _, l := range strings.Split(logs.String(), "\n") {
					if strings.Contains(l, "query_id="+m[1]) {
						line = l
					}
				}
				for _, want := range []string{`msg="panic in query ` + m[1] + `"`, `panic="test hook: panic at ` + tc.stage + `"`,
					"panic_at_" + tc.stage, "server.(*Session).guard"} {
					if !strings.Contains(line, want) {
						t.Errorf("%s: log line of query %s lacks %q:\n%s", tc.stmt, m[1], want, line)
					}
				}
				// The same connection still answers.
				if got := queryStrings(t, conn, "SELECT 1"); len(got) != 1 || got[0][0] != "1" {
					t.Fatalf("after %s: SELECT 1 = %v", tc.stmt, got)
				}
				if got := queryStrings(t, conn, "SELECT CONNECTION_ID()")[0][0]; got != connID {
					t.Fatalf("after %s: connection %s, was %s: the connection was replaced", tc.stmt, got, connID)
				}
			}
			// The distributed query and the load still run, and the failed
			// load left nothing behind.
			if got := queryStrings(t, conn, "SELECT count(*), sum(v) FROM d.t WHERE k > ?", 0); got[0][0] != "4" || got[0][1] != "100" {
				t.Errorf("d.t after the panics: %v, want 4 rows summing to 100", got)
			}
			if got := queryStrings(t, conn, "SELECT count(*) FROM d.t2"); got[0][0] != "0" {
				t.Errorf("d.t2 holds %s rows of a load that panicked", got[0][0])
			}
			mustExec(t, conn, "INSERT INTO d.t2 SELECT k, v FROM d.t WHERE k > ?", 2)
			if got := queryStrings(t, conn, "SELECT count(*) FROM d.t2"); got[0][0] != "2" {
				t.Errorf("d.t2 holds %s rows after loading 2", got[0][0])
			}
			mustExec(t, conn, "TRUNCATE TABLE d.t2")
		})
	}
}
