package server_test

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestE2EOptimizerHints: MySQL's optimizer hints in /*+ … */:
// MAX_EXECUTION_TIME(ms) is the statement's timeout, SET_VAR sets a
// variable for the one statement, and the hints dorisgo does not apply
// (MySQL's NO_INDEX_MERGE, JOIN_ORDER, BKA, QB_NAME, Doris's LEADING) run
// the query and warn, naming each; Doris's join hints keep working.
func TestE2EOptimizerHints(t *testing.T) {
	s := newServer(t)
	setup := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, setup, "CREATE DATABASE h")
	mustExec(t, setup, `CREATE TABLE h.a (k INT, v INT) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, setup, `CREATE TABLE h.b (k INT, w INT) DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, setup, "INSERT INTO h.a VALUES (1, 10), (1, 10), (2, 20)")
	mustExec(t, setup, "INSERT INTO h.b VALUES (1, 100), (3, 300)")
	waitBackendsAlive(t, setup, 3)
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			ctx := context.Background()
			conn, err := openDB(t, s.MySQLAddr(), "h", p.interpolate).Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			rows := func(q string) string {
				t.Helper()
				var out []string
				for _, r := range queryStrings(t, conn, q) {
					out = append(out, strings.Join(r, "|"))
				}
				return strings.Join(out, ",")
			}
			warnings := func() string {
				t.Helper()
				return rows("SHOW WARNINGS")
			}
			q := "SELECT /*+ NO_INDEX_MERGE(a i1, i2) JOIN_ORDER(b, a) BKA QB_NAME(qb1) LEADING(b a) */ a.k, w FROM a JOIN b ON a.k = b.k ORDER BY a.k"
			if got := rows(q); got != "1|100,1|100" {
				t.Errorf("hinted join: %s", got)
			}
			want := "Warning|1235|Optimizer hint NO_INDEX_MERGE(a i1, i2) is not supported and was ignored," +
				"Warning|1235|Optimizer hint JOIN_ORDER(b, a) is not supported and was ignored," +
				"Warning|1235|Optimizer hint BKA is not supported and was ignored," +
				"Warning|1235|Optimizer hint QB_NAME(qb1) is not supported and was ignored," +
				"Warning|1235|Optimizer hint LEADING(b a) is not supported and was ignored"
			if got := warnings(); got != want {
				t.Errorf("SHOW WARNINGS:\n got %s\nwant %s", got, want)
			}
			if got := rows("SELECT @@warning_count"); got != "5" {
				t.Errorf("@@warning_count %s", got)
			}
			// Doris's join hints, bracket and Spark forms, without warnings.
			if got := rows("SELECT /*+ BROADCAST(b) */ count(*) FROM a JOIN [shuffle] b ON a.k = b.k"); got != "2" {
				t.Errorf("join hints: %s", got)
			}
			if got := warnings(); got != "" {
				t.Errorf("join hints warned: %s", got)
			}

			// SET_VAR holds for its statement only.
			if got := rows("SELECT /*+ SET_VAR(query_timeout = 7, sql_mode = '') */ @@query_timeout, k, v FROM a GROUP BY k ORDER BY k"); got != "7|1|10,7|2|20" {
				t.Errorf("SET_VAR statement: %s", got)
			}
			if got := rows("SELECT @@query_timeout, @@sql_mode"); got != "900|ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES" {
				t.Errorf("after SET_VAR: %s", got)
			}
			_, err = conn.ExecContext(ctx, "SELECT k, v FROM a GROUP BY k")
			wantCode(t, err, 1055, "sql_mode back after SET_VAR")
			_, err = conn.ExecContext(ctx, "SELECT /*+ SET_VAR(no_such_var = 1) */ 1")
			wantCode(t, err, 1193, "SET_VAR of an unknown variable")
			_, err = conn.ExecContext(ctx, "SELECT /*+ SET_VAR(sql_mode = 'PIPES_AS_CONCAT') */ 1")
			wantCode(t, err, 1235, "SET_VAR of a refused sql_mode")

			// MAX_EXECUTION_TIME stops a long query.
			start := time.Now()
			_, err = conn.ExecContext(ctx, `SELECT /*+ MAX_EXECUTION_TIME(300) */ count(*) FROM numbers("number" = "100000") x, numbers("number" = "100000") y WHERE x.number + y.number < 0`)
			wantCode(t, err, 3024, "MAX_EXECUTION_TIME(300)")
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("MAX_EXECUTION_TIME(300) took %v", d)
			}
			if got := rows("SELECT /*+ MAX_EXECUTION_TIME(60000) */ count(*) FROM a"); got != "3" {
				t.Errorf("MAX_EXECUTION_TIME with time to spare: %s", got)
			}
		})
	}
}
