package server_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/dorisgo/dorisgo/server"
)

// TestE2EDiagnosticsAndAudit runs good and failing statements on one
// connection: SHOW WARNINGS / SHOW ERRORS and @@warning_count show the last
// failure until the next statement; failed and slow statements reach the
// FE log with their query id; the audit log has one line per statement
// with its fields.
func TestE2EDiagnosticsAndAudit(t *testing.T) {
	dir := t.TempDir()
	var logBuf syncBuffer
	auditPath := filepath.Join(dir, "audit", "fe.audit.log")
	s, err := server.Start(server.Config{DataDir: dir, Host: "127.0.0.1", Backends: 3, AuditLog: auditPath,
		Log: slog.New(slog.NewTextHandler(&logBuf, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	closeServer := func() { once.Do(s.Close) }
	t.Cleanup(closeServer)
	ctx := context.Background()
	conn, err := openDB(t, s.MySQLAddr(), "", true).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	exec := func(q string) error { _, err := conn.ExecContext(ctx, q); return err }
	for _, q := range []string{
		"CREATE DATABASE au",
		`CREATE TABLE au.t (k INT NOT NULL, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "1")`,
		"INSERT INTO au.t VALUES (1, 10), (2, 20)",
		"USE au",
	} {
		if err := exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if got := queryStrings(t, conn, "SHOW WARNINGS"); len(got) != 0 {
		t.Errorf("SHOW WARNINGS after success: %q", got)
	}
	wantCode(t, exec("SELECT * FROM au.nosuch"), 1146, "unknown table")
	got := queryStrings(t, conn, "SHOW WARNINGS")
	if len(got) != 1 || got[0][0] != "Error" || got[0][1] != "1146" || !strings.Contains(got[0][2], "nosuch") {
		t.Fatalf("SHOW WARNINGS after 1146: %q", got)
	}
	diag := got
	if got := queryStrings(t, conn, "SHOW ERRORS"); !reflect.DeepEqual(got, diag) {
		t.Errorf("SHOW ERRORS: %q, want %q", got, diag)
	}
	if got := queryStrings(t, conn, "SELECT @@warning_count, @@error_count"); !reflect.DeepEqual(got, [][]string{{"1", "1"}}) {
		t.Errorf("@@warning_count, @@error_count after an error: %q", got)
	}
	if got := queryStrings(t, conn, "SELECT k, v FROM t ORDER BY k"); len(got) != 2 {
		t.Fatalf("select: %q", got)
	}
	if got := queryStrings(t, conn, "SHOW WARNINGS"); len(got) != 0 {
		t.Errorf("SHOW WARNINGS after a good statement: %q", got)
	}
	wantCode(t, exec("SELEC 1"), 1064, "syntax error")
	if got := queryStrings(t, conn, "SHOW ERRORS"); len(got) != 1 || got[0][1] != "1064" {
		t.Errorf("SHOW ERRORS after 1064: %q", got)
	}
	// Every statement is slow at threshold 0.
	if err := exec("SET qe_slow_log_ms = 0"); err != nil {
		t.Fatal(err)
	}
	if got := queryStrings(t, conn, "SELECT COUNT(*) FROM t WHERE v > 10"); !reflect.DeepEqual(got, [][]string{{"1"}}) {
		t.Fatalf("count: %q", got)
	}
	// Scanned bytes: a SELECT over a loaded table reads its columns, SELECT 1 nothing.
	if err := exec(`INSERT INTO au.t SELECT number + 3, number FROM numbers("number" = "1000")`); err != nil {
		t.Fatal(err)
	}
	if got := queryStrings(t, conn, "SELECT sum(v) FROM t"); !reflect.DeepEqual(got, [][]string{{fmt.Sprint(30 + 999*1000/2)}}) {
		t.Fatalf("sum: %q", got)
	}
	if got := queryStrings(t, conn, "SELECT 1"); !reflect.DeepEqual(got, [][]string{{"1"}}) {
		t.Fatalf("SELECT 1: %q", got)
	}
	closeServer() // flushes and closes the audit log

	audit, err := os.ReadFile(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(audit)), "\n")
	field := regexp.MustCompile(`\|([A-Za-z()]+)=([^|]*)`)
	type rec map[string]string
	parse := func(line string) rec {
		r := rec{}
		i := strings.Index(line, "|Stmt=")
		if i < 0 {
			t.Fatalf("audit line without Stmt: %q", line)
		}
		r["Stmt"] = line[i+len("|Stmt="):]
		for _, m := range field.FindAllStringSubmatch(line[:i], -1) {
			r[m[1]] = m[2]
		}
		return r
	}
	byStmt := map[string]rec{}
	ids := map[string]bool{}
	for _, l := range lines {
		r := parse(l)
		for _, f := range []string{"Client", "User", "Db", "State", "ErrorCode", "Time(ms)", "ScanBytes", "ScanRows", "ReturnRows", "QueryId"} {
			if _, ok := r[f]; !ok {
				t.Errorf("audit line without %s: %q", f, l)
			}
		}
		if r["QueryId"] == "" || ids[r["QueryId"]] {
			t.Errorf("audit line with empty or repeated query id: %q", l)
		}
		ids[r["QueryId"]] = true
		if r["User"] != "root" || r["Client"] != "127.0.0.1" {
			t.Errorf("audit line user/client: %q", l)
		}
		byStmt[r["Stmt"]] = r
	}
	check := func(stmt string, want rec) {
		t.Helper()
		r, ok := byStmt[stmt]
		if !ok {
			t.Errorf("no audit line for %q in\n%s", stmt, audit)
			return
		}
		for k, v := range want {
			if r[k] != v {
				t.Errorf("audit %q: %s=%q, want %q", stmt, k, r[k], v)
			}
		}
	}
	check("INSERT INTO au.t VALUES (1, 10), (2, 20)", rec{"State": "OK", "ErrorCode": "0", "ReturnRows": "2", "Db": ""})
	check("SELECT * FROM au.nosuch", rec{"State": "ERR", "ErrorCode": "1146", "Db": "au"})
	check("SELECT k, v FROM t ORDER BY k", rec{"State": "EOF", "ErrorCode": "0", "ReturnRows": "2", "Db": "au"})
	check("SELEC 1", rec{"State": "ERR", "ErrorCode": "1064"})
	check("SHOW WARNINGS", rec{"State": "EOF"})
	// 1,002 rows of one INT column (4 bytes each, no NULLs): the scan reads v only.
	check("SELECT sum(v) FROM t", rec{"State": "EOF", "ReturnRows": "1", "ScanRows": "1002", "ScanBytes": "4008"})
	check("SELECT k, v FROM t ORDER BY k", rec{"ScanRows": "2", "ScanBytes": "16"})
	check("SELECT COUNT(*) FROM t WHERE v > 10", rec{"ScanRows": "2"}) // before the filter
	check("SELECT 1", rec{"State": "EOF", "ReturnRows": "1", "ScanRows": "0", "ScanBytes": "0"})
	check("INSERT INTO au.t VALUES (1, 10), (2, 20)", rec{"ScanRows": "0", "ScanBytes": "0"})
	check("SELECT * FROM au.nosuch", rec{"ReturnRows": "0", "ScanBytes": "0"})
	for stmt, r := range byStmt {
		if ms, err := strconv.Atoi(r["Time(ms)"]); err != nil || ms < 0 {
			t.Errorf("audit %q: Time(ms)=%q", stmt, r["Time(ms)"])
		}
	}
	if n := len(lines); n < 12 {
		t.Errorf("%d audit lines, want at least the 12 statements sent:\n%s", n, audit)
	}

	// The FE log: each failure and each slow statement, with its query id.
	logs := logBuf.String()
	failedID := byStmt["SELECT * FROM au.nosuch"]["QueryId"]
	if !regexp.MustCompile(`msg="statement failed" query_id=` + regexp.QuoteMeta(failedID) + `.*code=1146`).MatchString(logs) {
		t.Errorf("no failure log line for query %s in\n%s", failedID, logs)
	}
	slowID := byStmt["SELECT COUNT(*) FROM t WHERE v > 10"]["QueryId"]
	if !regexp.MustCompile(`msg="slow query" query_id=` + regexp.QuoteMeta(slowID) + `.*threshold_ms=0`).MatchString(logs) {
		t.Errorf("no slow log line for query %s in\n%s", slowID, logs)
	}
	if strings.Contains(logs, `msg="slow query" query_id=`+byStmt["SELECT k, v FROM t ORDER BY k"]["QueryId"]+" ") {
		t.Errorf("a fast statement under the default threshold was logged as slow")
	}
}
