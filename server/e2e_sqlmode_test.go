package server_test

import (
	"context"
	"strings"
	"testing"
)

// TestE2ESQLMode: sql_mode without ONLY_FULL_GROUP_BY lets a select list
// name an ungrouped column (any value of its group, as MySQL); setting it
// back restores 1055/1140. Mode names are checked (1231), shown upper case
// with combination modes expanded, and modes dorisgo would ignore while
// they change semantics are refused (1235).
func TestE2ESQLMode(t *testing.T) {
	s := newServer(t)
	setup := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, setup, "CREATE DATABASE m")
	mustExec(t, setup, `CREATE TABLE m.t (g INT, v INT, w INT) DISTRIBUTED BY HASH(g) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, setup, "INSERT INTO m.t VALUES (1, 10, 5), (1, 10, 6), (2, 20, 7), (3, 30, 8)")
	waitBackendsAlive(t, setup, 3)
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			ctx := context.Background()
			conn, err := openDB(t, s.MySQLAddr(), "", p.interpolate).Conn(ctx)
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
			if got := one("SELECT @@sql_mode"); got != "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES" {
				t.Errorf("default sql_mode %q", got)
			}
			_, err = conn.ExecContext(ctx, "SELECT g, v FROM m.t GROUP BY g")
			wantCode(t, err, 1055, "ungrouped column under ONLY_FULL_GROUP_BY")
			// A COALESCE whose first argument is a non-NULL constant never
			// reads the ungrouped column (MySQL accepts it).
			if got := one("SELECT g, COALESCE(CAST(70 AS DECIMAL), v) FROM m.t GROUP BY g ORDER BY g"); got != "1|70,2|70,3|70" {
				t.Errorf("dead COALESCE: %s", got)
			}
			mustExec(t, conn, "SET sql_mode = ''")
			if got := one("SELECT @@sql_mode"); got != "" {
				t.Errorf("sql_mode after SET '': %q", got)
			}
			// v is functionally dependent on g here, so any value is the value.
			if got := one("SELECT g, v, count(*) FROM m.t GROUP BY g ORDER BY g"); got != "1|10|2,2|20|1,3|30|1" {
				t.Errorf("GROUP BY g with ungrouped v: %s", got)
			}
			if got := one("SELECT g, v + 1 FROM m.t WHERE g = 1 GROUP BY g HAVING v > 5 ORDER BY v"); got != "1|11" {
				t.Errorf("ungrouped v in expressions, HAVING and ORDER BY: %s", got)
			}
			// Without GROUP BY: one group, any row's value.
			got := one("SELECT w, count(*) FROM m.t")
			if !strings.HasSuffix(got, "|4") || !strings.Contains("5678", strings.TrimSuffix(got, "|4")) {
				t.Errorf("SELECT w, count(*) without GROUP BY: %s", got)
			}
			mustExec(t, conn, "SET SESSION sql_mode = 'only_full_group_by'")
			if got := one("SELECT @@sql_mode"); got != "ONLY_FULL_GROUP_BY" {
				t.Errorf("sql_mode shown %q", got)
			}
			_, err = conn.ExecContext(ctx, "SELECT g, v FROM m.t GROUP BY g")
			wantCode(t, err, 1055, "ONLY_FULL_GROUP_BY restored")
			_, err = conn.ExecContext(ctx, "SELECT w, count(*) FROM m.t")
			wantCode(t, err, 1140, "mixed aggregate without GROUP BY")

			// The idioms clients use to drop one mode.
			mustExec(t, conn, "SET sql_mode = 'ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES'")
			mustExec(t, conn, "SET sql_mode = (SELECT REPLACE(@@sql_mode, 'ONLY_FULL_GROUP_BY', ''))")
			if got := one("SELECT @@sql_mode"); got != "STRICT_TRANS_TABLES" {
				t.Errorf("after SET sql_mode = (SELECT REPLACE(...)): %q", got)
			}
			mustExec(t, conn, "SET @@session.sql_mode = CONCAT(@@sql_mode, ',ONLY_FULL_GROUP_BY')")
			if got := one("SELECT @@session.sql_mode, @@global.sql_mode"); got != "STRICT_TRANS_TABLES,ONLY_FULL_GROUP_BY|ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES" {
				t.Errorf("session and global sql_mode: %q", got)
			}

			mustExec(t, conn, "SET sql_mode = 'TRADITIONAL'")
			if got := one("SELECT @@sql_mode"); got != "STRICT_TRANS_TABLES,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION" {
				t.Errorf("TRADITIONAL expands to %q", got)
			}
			// MySQL 5.7's default list, which clients send on connect.
			mustExec(t, conn, "SET sql_mode = 'ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION'")
			_, err = conn.ExecContext(ctx, "SET sql_mode = 'no_such_mode'")
			wantCode(t, err, 1231, "unknown mode")
			if err != nil && !strings.Contains(err.Error(), "'no_such_mode'") {
				t.Errorf("1231 does not name the value as given: %v", err)
			}
			for _, m := range []string{"PIPES_AS_CONCAT", "ANSI_QUOTES", "ANSI", "NO_BACKSLASH_ESCAPES"} {
				_, err = conn.ExecContext(ctx, "SET sql_mode = '"+m+"'")
				wantCode(t, err, 1235, m)
				if err != nil && !strings.Contains(err.Error(), "sql_mode") {
					t.Errorf("%s: %v does not name the mode", m, err)
				}
			}
			// A refused SET leaves the mode as it was.
			_, err = conn.ExecContext(ctx, "SELECT g, v FROM m.t GROUP BY g")
			wantCode(t, err, 1055, "mode kept after a refused SET")
		})
	}
}
