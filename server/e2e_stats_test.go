package server_test

import (
	"database/sql"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dorisgo/dorisgo/server"
)

// statsSchema is a 10,000-row table whose column statistics are known:
// k 0..9999 (distinct), c7 = k % 7 except NULL on every tenth row, s one of
// 1,000 strings, d 100 dates, x a DOUBLE.
var statsSchema = []string{
	"CREATE DATABASE st",
	`CREATE TABLE st.t (k INT NOT NULL, c7 INT, s VARCHAR(20), d DATE, x DOUBLE) DUPLICATE KEY(k)
	  DISTRIBUTED BY HASH(k) BUCKETS 4 PROPERTIES ("replication_num" = "1")`,
	`INSERT INTO st.t SELECT number, IF(number % 10 = 0, NULL, number % 7), concat('s', number % 1000),
	  date_add('2024-01-01', number % 100), number / 4 FROM numbers("number" = "10000")`,
}

// colStats reads SHOW COLUMN STATS into rows by column name.
func colStats(t *testing.T, db *sql.DB, stmt string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, r := range queryStrings(t, db, stmt) {
		out[r[0]] = r
	}
	return out
}

func statF(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return f
}

// wantStats checks one column's SHOW COLUMN STATS row: count, ndv within
// rel of want, num_null, min and max.
func wantStats(t *testing.T, row []string, count, ndv float64, rel float64, nulls float64, minV, maxV string) {
	t.Helper()
	if row == nil {
		t.Fatalf("no statistics row")
	}
	// column_name index_name count ndv num_null data_size avg_size_byte min max method type trigger ...
	if got := statF(t, row[2]); got != count {
		t.Errorf("%s: count = %v, want %v", row[0], got, count)
	}
	if got := statF(t, row[3]); math.Abs(got-ndv) > rel*ndv {
		t.Errorf("%s: ndv = %v, want %v ± %.0f%%", row[0], got, ndv, rel*100)
	}
	if got := statF(t, row[4]); got != nulls {
		t.Errorf("%s: num_null = %v, want %v", row[0], got, nulls)
	}
	if row[7] != minV || row[8] != maxV {
		t.Errorf("%s: min, max = %s, %s, want %s, %s", row[0], row[7], row[8], minV, maxV)
	}
}

func TestE2EAnalyzeColumnStats(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	db := openDB(t, s.MySQLAddr(), "", false)
	for _, q := range statsSchema {
		mustExec(t, db, q)
	}
	if rows := queryStrings(t, db, "SHOW COLUMN STATS st.t"); len(rows) != 0 {
		t.Fatalf("statistics before ANALYZE: %v", rows)
	}
	mustExec(t, db, "ANALYZE TABLE st.t WITH SYNC")
	check := func(db *sql.DB) {
		t.Helper()
		cs := colStats(t, db, "SHOW COLUMN STATS st.t")
		if len(cs) != 5 {
			t.Fatalf("SHOW COLUMN STATS: %d columns, want 5: %v", len(cs), cs)
		}
		wantStats(t, cs["k"], 10000, 10000, 0.02, 0, "0", "9999")
		wantStats(t, cs["c7"], 10000, 7, 0, 1000, "0", "6")
		wantStats(t, cs["s"], 10000, 1000, 0.02, 0, "'s0'", "'s999'")
		wantStats(t, cs["d"], 10000, 100, 0.02, 0, "'2024-01-01'", "'2024-04-09'")
		wantStats(t, cs["x"], 10000, 10000, 0.02, 0, "0", "2499.75")
		if r := cs["k"]; r[1] != "t" || statF(t, r[5]) != 40000 || statF(t, r[6]) != 4 || r[9] != "FULL" || r[11] != "MANUAL" {
			t.Errorf("k: index_name, data_size, avg_size_byte, method, trigger = %s %s %s %s %s", r[1], r[5], r[6], r[9], r[11])
		}
	}
	check(db)
	ts := queryStrings(t, db, "SHOW TABLE STATS st.t")
	if len(ts) != 1 || ts[0][0] != "0" || ts[0][2] != "10000" || ts[0][4] != "[t:c7, t:d, t:k, t:s, t:x]" || ts[0][5] != "MANUAL" {
		t.Errorf("SHOW TABLE STATS = %v", ts)
	}
	jobs := queryStrings(t, db, "SHOW ANALYZE st.t")
	if len(jobs) != 1 || jobs[0][9] != "FINISHED" || jobs[0][5] != "MANUAL" {
		t.Errorf("SHOW ANALYZE = %v", jobs)
	}

	// Without WITH SYNC the statement answers the job and runs it.
	job := queryStrings(t, db, "ANALYZE TABLE st.t (c7)")
	if len(job) != 1 || job[0][2] != "t" || job[0][3] != "[c7]" {
		t.Fatalf("ANALYZE = %v", job)
	}
	waitFor(t, 30*time.Second, "the ANALYZE job to finish", func() bool {
		r := queryStrings(t, db, "SHOW ANALYZE "+job[0][4])
		return len(r) == 1 && r[0][9] == "FINISHED"
	})

	// A sample scales its counts to the table.
	mustExec(t, db, "ANALYZE TABLE st.t (c7) WITH SYNC WITH SAMPLE PERCENT 50")
	c7 := colStats(t, db, "SHOW COLUMN STATS st.t (c7)")["c7"]
	if c7 == nil || c7[9] != "SAMPLE" || math.Abs(statF(t, c7[2])-10000) > 1000 || statF(t, c7[3]) != 7 ||
		math.Abs(statF(t, c7[4])-1000) > 300 {
		t.Errorf("sampled c7 = %v", c7)
	}
	mustExec(t, db, "ANALYZE TABLE st.t (c7) WITH SYNC")

	// Unknown columns are refused, naming the column.
	if _, err := db.Exec("ANALYZE TABLE st.t (nope) WITH SYNC"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("ANALYZE of an unknown column: %v", err)
	}

	// The statistics survive a restart.
	db.Close()
	s.Close()
	s = startServer(t, dir)
	defer s.Close()
	db = openDB(t, s.MySQLAddr(), "", false)
	defer db.Close()
	check(db)

	mustExec(t, db, "DROP STATS st.t (c7)")
	cs := colStats(t, db, "SHOW COLUMN STATS st.t")
	if _, ok := cs["c7"]; ok || len(cs) != 4 {
		t.Errorf("after DROP STATS (c7): %v", cs)
	}
	mustExec(t, db, "DROP STATS st.t")
	if rows := queryStrings(t, db, "SHOW COLUMN STATS st.t"); len(rows) != 0 {
		t.Errorf("after DROP STATS: %v", rows)
	}
}

func TestE2EAutoAnalyze(t *testing.T) {
	s, err := server.Start(server.Config{DataDir: t.TempDir(), Host: "127.0.0.1", Backends: 3, Log: quietLog(),
		AutoAnalyzeInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db := openDB(t, s.MySQLAddr(), "", false)
	defer db.Close()
	mustExec(t, db, "CREATE DATABASE aa")
	mustExec(t, db, `CREATE TABLE aa.t (k INT NOT NULL, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, `INSERT INTO aa.t SELECT number, number % 5 FROM numbers("number" = "1000")`)
	mustExec(t, db, "ANALYZE TABLE aa.t WITH SYNC")
	count := func() string {
		r := colStats(t, db, "SHOW COLUMN STATS aa.t (k)")["k"]
		if r == nil {
			return ""
		}
		return r[2]
	}
	// A load of 5% is within the health threshold (90): nothing runs.
	mustExec(t, db, `INSERT INTO aa.t SELECT number + 1000, 1 FROM numbers("number" = "50")`)
	time.Sleep(500 * time.Millisecond)
	if c := count(); c != "1000.0" {
		t.Fatalf("after a 5%% load: count = %s, want 1000.0 (no automatic analysis)", c)
	}
	// Switched off, even a big load is left alone.
	mustExec(t, db, "SET GLOBAL enable_auto_analyze = false")
	mustExec(t, db, `INSERT INTO aa.t SELECT number + 2000, 1 FROM numbers("number" = "1000")`)
	time.Sleep(500 * time.Millisecond)
	if c := count(); c != "1000.0" {
		t.Fatalf("auto analyze off: count = %s, want 1000.0", c)
	}
	if r := queryStrings(t, db, "SHOW TABLE STATS aa.t"); r[0][0] != "1050" || r[0][8] != "false" {
		t.Errorf("SHOW TABLE STATS = %v, want updated_rows 1050, enable_auto_analyze false", r)
	}
	mustExec(t, db, "SET GLOBAL enable_auto_analyze = true")
	// Columns are stored as they finish, so k's count can show before the
	// job (both columns) is FINISHED.
	var last []string
	waitFor(t, 30*time.Second, "the automatic analysis", func() bool {
		jobs := queryStrings(t, db, "SHOW ANALYZE aa.t")
		last = jobs[len(jobs)-1]
		return count() == "2050.0" && last[9] == "FINISHED"
	})
	if last[5] != "SYSTEM" || last[9] != "FINISHED" || last[4] != "[t:k,t:v]" {
		t.Errorf("automatic job = %v", last)
	}
	if r := colStats(t, db, "SHOW COLUMN STATS aa.t (k)")["k"]; r[11] != "SYSTEM" {
		t.Errorf("trigger = %s, want SYSTEM", r[11])
	}
}

// explainAttr finds the value of attr (e.g. "cardinality=") on the first
// line after the first line containing node.
func explainAttr(lines []string, node, attr string) string {
	seen := false
	for _, l := range lines {
		if strings.Contains(l, node) {
			seen = true
			continue
		}
		if i := strings.Index(l, attr); seen && i >= 0 {
			return strings.TrimSpace(l[i+len(attr):])
		}
	}
	return ""
}

func explainLines(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	var out []string
	for _, r := range queryStrings(t, db, q) {
		out = append(out, r[0])
	}
	return out
}

// TestE2EAnalyzeChangesPlan: statistics change the GROUP BY, filter and
// join estimates, and through them a join's distribution.
func TestE2EAnalyzeChangesPlan(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", false)
	defer db.Close()
	for _, q := range statsSchema {
		mustExec(t, db, q)
	}
	mustExec(t, db, `CREATE TABLE st.dim (dk INT NOT NULL, g INT NOT NULL, w INT) DUPLICATE KEY(dk)
	  DISTRIBUTED BY HASH(dk) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, `INSERT INTO st.dim SELECT number, number % 100, number FROM numbers("number" = "100000")`)

	group := "EXPLAIN SELECT c7, count(*) FROM st.t GROUP BY c7"
	filter := "EXPLAIN SELECT k FROM st.t WHERE c7 = 3"
	rangeQ := "EXPLAIN SELECT k FROM st.t WHERE k < 2500"
	join := "EXPLAIN VERBOSE SELECT count(*) FROM st.t JOIN st.dim ON t.c7 = dim.dk WHERE dim.g = 5"
	cards := func() (agg, scan, rng string, j []string) {
		agg = explainAttr(explainLines(t, db, group), "AGGREGATE (merge finalize)", "cardinality=")
		scan = explainAttr(explainLines(t, db, filter), "OlapScanNode", "cardinality=")
		rng = explainAttr(explainLines(t, db, rangeQ), "OlapScanNode", "cardinality=")
		return agg, scan, rng, explainLines(t, db, join)
	}
	agg, scan, rng, j := cards()
	// The default rules: as many groups as rows, a tenth per predicate.
	if agg != "10000" || scan != "1000" || rng != "1000" {
		t.Errorf("before ANALYZE: group by %s, filter %s, range %s; want 10000, 1000, 1000", agg, scan, rng)
	}
	if joinOp := explainAttr(j, "HASH JOIN", "join op: "); !strings.Contains(joinOp, "PARTITIONED") {
		t.Errorf("before ANALYZE the join is %q, want PARTITIONED:\n%s", joinOp, strings.Join(j, "\n"))
	}
	for _, l := range j {
		if strings.Contains(l, "cardinality from") {
			t.Errorf("EXPLAIN VERBOSE without statistics names sources: %s", l)
		}
	}

	mustExec(t, db, "ANALYZE TABLE st.t WITH SYNC")
	mustExec(t, db, "ANALYZE TABLE st.dim WITH SYNC")
	agg, scan, rng, j = cards()
	// 7 values and NULL; c7 = 3 keeps 0.9/7 of 10,000 rows; k < 2500 a
	// quarter.
	if agg != "8" || scan != "1286" {
		t.Errorf("after ANALYZE: group by %s, filter %s; want 8, 1286", agg, scan)
	}
	if r, _ := strconv.Atoi(rng); r < 2400 || r > 2600 {
		t.Errorf("after ANALYZE: k < 2500 estimated at %s rows, want about 2500", rng)
	}
	text := strings.Join(j, "\n")
	if joinOp := explainAttr(j, "HASH JOIN", "join op: "); !strings.Contains(joinOp, "BROADCAST") {
		t.Errorf("after ANALYZE the join is %q, want BROADCAST:\n%s", joinOp, text)
	}
	// dim.g = 5 keeps 1/100 of 100,000 rows; the join |L|·|R| / max(NDV).
	if !strings.Contains(text, "cardinality=1000\n") || !strings.Contains(text, "cardinality from: statistics: ndv(dim.g)=100") {
		t.Errorf("dim scan estimate not from statistics:\n%s", text)
	}
	if !regexp.MustCompile(`cardinality from: statistics: ndv\(t\.c7\)=7, ndv\(dim\.dk\)=\d+`).MatchString(text) {
		t.Errorf("join estimate not from statistics:\n%s", text)
	}

	// A join's other conjunct filters its matched pairs: t.k > dim.w (both
	// columns' ranges known) keeps part of the plain join's estimate.
	other := explainLines(t, db, "EXPLAIN VERBOSE SELECT count(*) FROM st.t JOIN st.dim ON t.c7 = dim.dk AND t.k > dim.w WHERE dim.g = 5")
	plainRows, _ := strconv.Atoi(explainAttr(j, "HASH JOIN", "cardinality="))
	otherRows, _ := strconv.Atoi(explainAttr(other, "HASH JOIN", "cardinality="))
	if otherRows <= 0 || otherRows >= plainRows || !strings.Contains(strings.Join(other, "\n"), "; other conjuncts: ") {
		t.Errorf("join with an other conjunct estimated at %d rows (plain join %d), want fewer, from its conjunct:\n%s",
			otherRows, plainRows, strings.Join(other, "\n"))
	}

	// A UNIQUE table's scans filter on its hidden delete sign, which
	// ANALYZE covers too: the filter keeps every row, not a tenth.
	mustExec(t, db, `CREATE TABLE st.u (k INT NOT NULL, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, `INSERT INTO st.u SELECT number, number % 4 FROM numbers("number" = "1000")`)
	uq := "EXPLAIN SELECT k FROM st.u WHERE v = 1"
	if c := explainAttr(explainLines(t, db, uq), "OlapScanNode", "cardinality="); c != "10" {
		t.Errorf("UNIQUE scan before ANALYZE: %s, want 10 (a tenth per predicate)", c)
	}
	mustExec(t, db, "ANALYZE TABLE st.u WITH SYNC")
	if c := explainAttr(explainLines(t, db, uq), "OlapScanNode", "cardinality="); c != "250" {
		t.Errorf("UNIQUE scan after ANALYZE: %s, want 250 (v has 4 values, the delete sign one)", c)
	}
	if r := queryStrings(t, db, "SHOW TABLE STATS st.u"); r[0][4] != "[u:k, u:v]" {
		t.Errorf("SHOW TABLE STATS st.u columns = %s, want the visible ones", r[0][4])
	}

	// EXPLAIN ANALYZE prints each operator's estimate next to its rows.
	an := strings.Join(explainLines(t, db, "EXPLAIN ANALYZE SELECT c7, count(*) FROM st.t GROUP BY c7"), "\n")
	if !regexp.MustCompile(`AGGREGATE\S*\s+instances=\d+\s+rows=8\s+est=8\b`).MatchString(an) {
		t.Errorf("EXPLAIN ANALYZE has no est=8 next to rows=8:\n%s", an)
	}
}
