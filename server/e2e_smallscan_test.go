package server_test

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"
)

var fragmentLine = regexp.MustCompile(`fragment (\d+): instances=(\d+)`)

var scanLine = regexp.MustCompile(`0:OlapScanNode  instances=(\d+)  rows=(\d+)  est=\S+  batches=(\d+)`)

// scanStats reads the scan's instances and batches off EXPLAIN ANALYZE.
func scanStats(t *testing.T, text string) (instances, rows, batches int) {
	t.Helper()
	m := scanLine.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no scan line in EXPLAIN ANALYZE:\n%s", text)
	}
	instances, _ = strconv.Atoi(m[1])
	rows, _ = strconv.Atoi(m[2])
	batches, _ = strconv.Atoi(m[3])
	return
}

// TestSmallTableScan: a table of a few one-row INSERTs (a tablet's rowset
// per row, ten tablets of three replicas over three backends) is scanned
// by one instance on one backend, its rows in one batch; the same answer
// as the fan-out to every backend that single_backend_scan_rows = 0 keeps,
// with deletes applied, and a table past the limit still fans out. A
// fragment reading only such a scan (a GROUP BY's merge) runs small too.
func TestSmallTableScan(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", false)
	db.SetMaxOpenConns(1) // the session variable stays on the one connection
	waitBackendsAlive(t, db, 3)
	mustExec(t, db, "CREATE DATABASE d")
	mustExec(t, db, "USE d")
	mustExec(t, db, "CREATE TABLE t (k INT, v INT) DISTRIBUTED BY HASH(k) BUCKETS 10 PROPERTIES (\"replication_num\" = \"3\")")
	for i := range 12 {
		mustExec(t, db, fmt.Sprintf("INSERT INTO t VALUES (%d, %d)", i, i%4))
	}
	mustExec(t, db, "DELETE FROM t WHERE v = 3")
	const q = "SELECT k FROM t WHERE v < 3 ORDER BY k"
	want := queryInts(t, db, q)
	if len(want) != 9 {
		t.Fatalf("rows %v, want the 9 with v in 0..2", want)
	}

	in, rows, batches := scanStats(t, analyzeText(t, db, q))
	if in != 1 || batches != 1 || rows != 9 {
		t.Errorf("small table: scan instances=%d batches=%d rows=%d, want one instance reading one batch of 9 rows", in, batches, rows)
	}

	// A merge aggregation reads only the small scan's fragment: one instance too.
	const agg = "SELECT v, count(*) FROM t GROUP BY v ORDER BY v"
	wantAgg := queryStrings(t, db, agg)
	if fmt.Sprint(wantAgg) != "[[0 3] [1 3] [2 3]]" {
		t.Fatalf("GROUP BY v: %v", wantAgg)
	}
	text := analyzeText(t, db, agg)
	frags := fragmentLine.FindAllStringSubmatch(text, -1)
	if len(frags) < 2 {
		t.Fatalf("GROUP BY v runs in %d backend fragments, want a scan and a merge fragment:\n%s", len(frags), text)
	}
	for _, f := range frags {
		if f[2] != "1" {
			t.Errorf("small table GROUP BY: fragment %s ran %s instances, want 1:\n%s", f[1], f[2], text)
		}
	}

	mustExec(t, db, "SET single_backend_scan_rows = 0")
	if got := queryStrings(t, db, agg); fmt.Sprint(got) != fmt.Sprint(wantAgg) {
		t.Fatalf("GROUP BY v fanned out: %v, one backend: %v", got, wantAgg)
	}
	fanned := 0
	for _, f := range fragmentLine.FindAllStringSubmatch(analyzeText(t, db, agg), -1) {
		if f[2] == "3" {
			fanned++
		}
	}
	if fanned < 2 {
		t.Errorf("single_backend_scan_rows = 0: %d fragments of GROUP BY v ran on every backend, want both", fanned)
	}
	if got := queryInts(t, db, q); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("fanned out: %v, one backend: %v", got, want)
	}
	if in, _, _ := scanStats(t, analyzeText(t, db, q)); in != 3 {
		t.Errorf("single_backend_scan_rows = 0: scan instances=%d, want one per backend (3)", in)
	}

	// 12 rows committed: a limit of 11 is exceeded (deletes do not count down).
	mustExec(t, db, "SET single_backend_scan_rows = 11")
	if in, _, _ := scanStats(t, analyzeText(t, db, q)); in != 3 {
		t.Errorf("12 committed rows over a limit of 11: scan instances=%d, want 3", in)
	}
	mustExec(t, db, "SET single_backend_scan_rows = 12")
	if got := queryInts(t, db, q); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("at the limit: %v, want %v", got, want)
	}
	if in, _, _ := scanStats(t, analyzeText(t, db, q)); in != 1 {
		t.Errorf("12 committed rows at a limit of 12: scan instances=%d, want 1", in)
	}
}
