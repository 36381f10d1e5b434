package server_test

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// feDelta scrapes /metrics and returns each series' growth since before.
func feDelta(before, after string, series ...string) map[string]float64 {
	out := map[string]float64{}
	for _, s := range series {
		out[s] = metricValue(after, s) - metricValue(before, s)
	}
	return out
}

// conn1 is one connection of db (last_query_id() is per session).
func conn1(t *testing.T, db *sql.DB) *sql.Conn {
	t.Helper()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// The FE's statement metrics move by exactly what a known mix of good and
// failing statements did; SHOW QUERY PROFILE lists them with their states,
// serves last_query_id()'s profile, hides root's from another user, writes
// slow ones to disk and keeps the configured number.
func TestE2EFEMetricsAndProfiles(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	t.Cleanup(s.Close)
	metrics := "http://" + s.HTTPAddr() + "/metrics"
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE fm")
	mustExec(t, db, `CREATE TABLE fm.t (k BIGINT NOT NULL, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, "INSERT INTO fm.t VALUES (1, 1), (2, 2), (3, 3)")
	mustExec(t, db, "CREATE USER 'u2'@'%' IDENTIFIED BY 'pw'")
	mustExec(t, db, "GRANT SELECT_PRIV ON fm.* TO 'u2'@'%'")
	c := conn1(t, db)

	series := []string{"doris_fe_request_total", "doris_fe_query_total", "doris_fe_query_err", "doris_fe_query_latency_ms_count",
		"doris_fe_txn_begin", "doris_fe_txn_success", "doris_fe_txn_failed"}
	before := httpGet(t, metrics)
	good := []string{"SELECT k, v FROM fm.t ORDER BY k /*good1*/", "SELECT count(*) FROM fm.t /*good2*/", "SELECT 1 + 1 /*good3*/"}
	bad := map[string]uint16{"SELECT * FROM fm.nosuch /*bad1*/": 1146, "SELECT nosuch FROM fm.t /*bad2*/": 1054, "SELECT 1 + /*bad3*/": 1064}
	for _, q := range good {
		queryStrings(t, c, q)
	}
	for q, code := range bad {
		_, err := queryStringsErr(c, q)
		wantCode(t, err, code, q)
	}
	mustExec(t, c, "SET @x = 1")
	_, err := c.ExecContext(context.Background(), "SELEC 1")
	wantCode(t, err, 1064, "SELEC 1")
	mustExec(t, c, "INSERT INTO fm.t VALUES (4, 4) /*load1*/")
	after := httpGet(t, metrics)
	d := feDelta(before, after, series...)
	t.Logf("deltas after the mix: %v", d)
	want := map[string]float64{"doris_fe_request_total": 9, "doris_fe_query_total": 6, "doris_fe_query_err": 3,
		"doris_fe_query_latency_ms_count": 6, "doris_fe_txn_begin": 1, "doris_fe_txn_success": 1, "doris_fe_txn_failed": 0}
	for _, k := range series {
		if d[k] != want[k] {
			t.Errorf("%s grew by %v, want %v", k, d[k], want[k])
		}
	}
	if got, q := metricValue(after, "doris_fe_query_latency_ms_count"), metricValue(after, "doris_fe_query_total"); got != q || q <= 0 {
		t.Errorf("latency histogram count %v, query total %v: want equal", got, q)
	}
	if v := metricValue(after, `doris_fe_query_latency_ms_bucket{le="+Inf"}`); v != metricValue(after, "doris_fe_query_total") {
		t.Errorf("latency +Inf bucket %v", v)
	}
	for _, g := range []string{"doris_fe_qps", "doris_fe_rps", "doris_fe_query_err_rate", "doris_fe_connection_total"} {
		if metricValue(after, g) < 0 {
			t.Errorf("%s missing", g)
		}
	}

	// A stream load that fails on bad rows begins and aborts a transaction.
	before = httpGet(t, metrics)
	r, err := streamLoad(context.Background(), s.HTTPAddr(), "fm", "t", "root", "", map[string]string{"column_separator": ","}, bytes.NewReader([]byte("5,5\n6,6,6\n")))
	if err != nil || r.Status != "Fail" {
		t.Fatalf("bad stream load: %+v %v", r, err)
	}
	d = feDelta(before, httpGet(t, metrics), series...)
	if d["doris_fe_txn_begin"] != 1 || d["doris_fe_txn_failed"] != 1 || d["doris_fe_txn_success"] != 0 || d["doris_fe_request_total"] != 0 {
		t.Errorf("failed stream load moved %v; want one txn begun and failed, no statement", d)
	}
	// The stream load counters: that load failed (the server's first), then
	// one of two rows (8 bytes) succeeds.
	after = httpGet(t, metrics)
	if f, ok := metricValue(after, `doris_fe_stream_load_total{status="fail"}`), metricValue(after, `doris_fe_stream_load_total{status="success"}`); f != 1 || ok != -1 {
		t.Errorf("after the failed stream load: stream_load_total fail %v, success %v; want 1 and none", f, ok)
	}
	r, err = streamLoad(context.Background(), s.HTTPAddr(), "fm", "t", "root", "", map[string]string{"column_separator": ","}, bytes.NewReader([]byte("7,7\n8,8\n")))
	if err != nil || r.Status != "Success" {
		t.Fatalf("stream load: %+v %v", r, err)
	}
	loaded := httpGet(t, metrics)
	ld := feDelta(after, loaded, `doris_fe_stream_load_total{status="fail"}`, "doris_fe_load_rows", "doris_fe_load_bytes")
	if ok := metricValue(loaded, `doris_fe_stream_load_total{status="success"}`); ok != 1 ||
		ld[`doris_fe_stream_load_total{status="fail"}`] != 0 || ld["doris_fe_load_rows"] != 2 || ld["doris_fe_load_bytes"] != 8 {
		t.Errorf("successful stream load: success %v, moved %v; want 1 success, 2 rows, 8 bytes, no failure", ok, ld)
	}

	// SHOW QUERY PROFILE "/": newest first, Doris's columns; the queries
	// and the load with their states, not SET or the unparsable SELEC.
	rows := queryStrings(t, c, `SHOW QUERY PROFILE "/"`)
	states := map[string]string{}
	for _, row := range rows {
		if len(row) != 10 || row[1] != "QUERY" && row[1] != "LOAD" || row[6] != "root" {
			t.Fatalf("profile row %q", row)
		}
		states[row[9]] = row[1] + " " + row[5]
	}
	for _, q := range good {
		if states[q] != "QUERY EOF" {
			t.Errorf("%q listed as %q, want QUERY EOF", q, states[q])
		}
	}
	for q := range bad {
		if states[q] != "QUERY ERR" {
			t.Errorf("%q listed as %q, want QUERY ERR", q, states[q])
		}
	}
	if st := states["INSERT INTO fm.t VALUES (4, 4) /*load1*/"]; st != "LOAD OK" {
		t.Errorf("INSERT listed as %q, want LOAD OK", st)
	}
	if _, ok := states["SET @x = 1"]; ok {
		t.Error("SET has a profile")
	}
	if _, ok := states["SELEC 1"]; ok {
		t.Error("a statement that is no query has a profile")
	}

	// last_query_id() is the id of the statement before it, the one the
	// audit log writes; its profile is the query's text.
	queryStrings(t, c, "SELECT v FROM fm.t WHERE k = 2 /*marked*/")
	id := queryStrings(t, c, "SELECT last_query_id()")[0][0]
	if len(id) != 32 {
		t.Fatalf("last_query_id() = %q", id)
	}
	if again := queryStrings(t, c, "SELECT last_query_id()")[0][0]; again == id {
		t.Errorf("last_query_id() did not move on")
	}
	prof := queryStrings(t, c, `SHOW QUERY PROFILE "/`+id+`"`)
	if len(prof) != 1 {
		t.Fatalf("profile of %s: %d rows", id, len(prof))
	}
	text := prof[0][0]
	t.Logf("profile of last_query_id():\n%s", text)
	for _, want := range []string{"Profile ID: " + id, "Task Type: QUERY", "Task State: EOF", "User: root",
		"Sql Statement: SELECT v FROM fm.t WHERE k = 2 /*marked*/", "PROFILE"} {
		if !strings.Contains(text, want) {
			t.Errorf("profile lacks %q:\n%s", want, text)
		}
	}
	if code, body := httpDo(t, "GET", "http://"+s.HTTPAddr()+"/api/profile/"+id, "root", ""); code != 200 || body != text {
		t.Errorf("/api/profile/%s: %d, same text as SHOW: %v", id, code, body == text)
	}
	audit, err := os.ReadFile(filepath.Join(dir, "log", "fe.audit.log"))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range strings.Split(string(audit), "\n") {
		found = found || strings.Contains(l, "|QueryId="+id+"|Stmt=SELECT v FROM fm.t WHERE k = 2 /*marked*/")
	}
	if !found {
		t.Errorf("audit log has no line with QueryId=%s for the marked query", id)
	}

	// Over the binary protocol (prepare, then execute) it is still the
	// statement before: a COM_STMT_PREPARE does not count.
	bin := conn1(t, openDB(t, s.MySQLAddr(), "", false))
	queryStrings(t, bin, "SELECT 7 /*bin*/")
	binID := queryStrings(t, bin, "SELECT last_query_id(), ?", 1)[0][0]
	if p := queryStrings(t, bin, `SHOW QUERY PROFILE "/`+binID+`"`); !strings.Contains(p[0][0], "Sql Statement: SELECT 7 /*bin*/") {
		t.Errorf("binary protocol: last_query_id() %s is not the previous statement's:\n%s", binID, p[0][0])
	}

	// Another user sees only its own profiles, and not root's by id.
	u2 := conn1(t, openDBAs(t, s.MySQLAddr(), "u2", "pw", "", true))
	queryStrings(t, u2, "SELECT count(*) FROM fm.t /*u2*/")
	own := queryStrings(t, u2, `SHOW QUERY PROFILE "/"`)
	if len(own) != 1 || own[0][6] != "u2" || own[0][9] != "SELECT count(*) FROM fm.t /*u2*/" {
		t.Errorf("u2 sees %q, want its one query", own)
	}
	_, err = queryStringsErr(u2, `SHOW QUERY PROFILE "/`+id+`"`)
	wantCode(t, err, 1105, "u2 reading root's profile")
	if code, _ := httpDo(t, "GET", "http://"+s.HTTPAddr()+"/api/profile/"+id, "u2", "pw"); code != 404 {
		t.Errorf("u2 GET /api/profile/%s: %d, want 404", id, code)
	}

	// Slow statements' profiles go to disk (threshold 0: all of them), the
	// last max_spilled_profile_num kept; memory keeps max_query_profile_num.
	profDir := filepath.Join(dir, "log", "profile")
	mustExec(t, c, "SET GLOBAL max_spilled_profile_num = 3")
	mustExec(t, c, "SET GLOBAL max_query_profile_num = 4")
	mustExec(t, c, "SET auto_profile_threshold_ms = 0")
	var ids []string
	for i := range 6 {
		queryStrings(t, c, "SELECT k FROM fm.t WHERE k = "+string(rune('1'+i)))
		ids = append(ids, queryStrings(t, c, "SELECT last_query_id()")[0][0])
	}
	ents, err := os.ReadDir(profDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 3 {
		t.Errorf("%d profile files, want max_spilled_profile_num = 3", len(ents))
	}
	// The newest file is of the last SELECT last_query_id(); the one of the
	// last marked query was written just before it.
	newest := ents[len(ents)-1].Name()
	onDisk, err := os.ReadFile(filepath.Join(profDir, ents[len(ents)-2].Name()))
	if err != nil || !strings.HasSuffix(newest, ".profile") || !strings.Contains(string(onDisk), "Profile ID: "+ids[5]) {
		t.Errorf("profile files %v: second newest is not query %s's: %v\n%s", ents, ids[5], err, onDisk)
	}
	kept := queryStrings(t, c, `SHOW QUERY PROFILE "/"`)
	if len(kept) != 4 {
		t.Fatalf("SHOW QUERY PROFILE lists %d, want max_query_profile_num = 4", len(kept))
	}
	if kept[1][0] != ids[5] || kept[3][0] != ids[4] {
		t.Errorf("kept %v, want the last queries (newest first) ending with %s, %s", kept, ids[5], ids[4])
	}
	// Out of memory, a profile is still read from its file, by its owner.
	mustExec(t, c, "SET GLOBAL max_query_profile_num = 1")
	queryStrings(t, c, "SELECT 1 /*evicts*/")
	if n := len(queryStrings(t, c, `SHOW QUERY PROFILE "/"`)); n != 1 {
		t.Errorf("%d profiles kept, want 1", n)
	}
	if p := queryStrings(t, c, `SHOW QUERY PROFILE "/`+ids[5]+`"`); !strings.Contains(p[0][0], "Profile ID: "+ids[5]) {
		t.Errorf("profile %s from disk:\n%s", ids[5], p[0][0])
	}
	if code, _ := httpDo(t, "GET", "http://"+s.HTTPAddr()+"/api/profile/"+ids[5], "root", ""); code != 200 {
		t.Errorf("/api/profile/%s from disk: %d", ids[5], code)
	}
	_, err = queryStringsErr(u2, `SHOW QUERY PROFILE "/`+ids[5]+`"`)
	wantCode(t, err, 1105, "u2 reading root's profile from disk")
	_, err = queryStringsErr(c, `SHOW QUERY PROFILE "/`+ids[3]+`"`)
	wantCode(t, err, 1105, "a profile gone from memory and disk")
}

// --log-file sends the FE's structured log there instead of stderr: a
// failed statement's line carries its query id, the one the audit log has.
func TestE2EFELogFile(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "fe.log")
	p := startProc(t, dir, "--log-level", "info", "--log-file", logPath)
	c := conn1(t, openDB(t, p.mysqlAddr, "", true))
	_, err := queryStringsErr(c, "SELECT * FROM nosuchdb.t /*logged*/")
	wantCode(t, err, 1049, "unknown database")
	id := queryStrings(t, c, "SELECT last_query_id()")[0][0]
	var line string
	waitFor(t, 10*time.Second, "the failed statement in --log-file", func() bool {
		b, _ := os.ReadFile(logPath)
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, "statement failed") && strings.Contains(l, "query_id="+id) {
				line = l
			}
		}
		return line != ""
	})
	for _, want := range []string{"level=INFO", "code=1049", "/*logged*/"} {
		if !strings.Contains(line, want) {
			t.Errorf("log line %q lacks %q", line, want)
		}
	}
	if strings.Contains(p.out.String(), "statement failed") {
		t.Errorf("the log also went to stderr: %s", p.out.String())
	}
}
