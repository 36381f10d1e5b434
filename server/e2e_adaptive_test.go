package server_test

import (
	"database/sql"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// adaptiveFixture loads a fact table f (60,000 rows) and a dimension d
// (10,000 rows), bucketed on columns no join uses, so every join between
// them is a broadcast or a shuffle. `d.x % 1000 = 7` keeps 11 rows of d
// (one with a NULL key) where the estimator expects 1,000 (90× too many).
func adaptiveFixture(t *testing.T, db *sql.DB) {
	t.Helper()
	for _, q := range []string{
		"CREATE DATABASE ad",
		`CREATE TABLE ad.f (id INT, k INT, v INT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 6 PROPERTIES ("replication_num" = "1")`,
		`CREATE TABLE ad.d (id INT, k INT, x INT, name VARCHAR(20)) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 6 PROPERTIES ("replication_num" = "1")`,
		`INSERT INTO ad.f SELECT number, number % 5000, number FROM numbers("number" = "60000")`,
		`INSERT INTO ad.f VALUES (-1, NULL, 7), (-2, NULL, 8)`,
		`INSERT INTO ad.d SELECT number, number, number, concat('n', number) FROM numbers("number" = "10000")`,
		`INSERT INTO ad.d VALUES (-1, NULL, 7, 'null key')`,
	} {
		mustExec(t, db, q)
	}
	waitBackendsAlive(t, db, 3)
}

var adaptiveLine = regexp.MustCompile(`(\d+):HASH JOIN  planned=(\w+)  ran=(\w+)  build rows=(\d+) bytes=(\d+)`)
var exchangeLine = regexp.MustCompile(`EXCHANGE (\d+) from fragment (\d+): rows=(\d+)  bytes sent=(\d+)  wire bytes=(\d+)`)

// analyzeText runs EXPLAIN ANALYZE and returns its lines as one text.
func analyzeText(t *testing.T, db *sql.DB, q string) string {
	t.Helper()
	var b strings.Builder
	for _, r := range queryStrings(t, db, "EXPLAIN ANALYZE "+q) {
		b.WriteString(strings.Join(r, " ") + "\n")
	}
	return b.String()
}

// exchangeBytes maps each exchange id of an EXPLAIN ANALYZE to its bytes
// sent and wire bytes.
func exchangeBytes(t *testing.T, text string) map[string][2]int64 {
	t.Helper()
	out := map[string][2]int64{}
	for _, m := range exchangeLine.FindAllStringSubmatch(text, -1) {
		id := strings.TrimLeft(m[1], "0")
		sent, _ := strconv.ParseInt(m[4], 10, 64)
		wire, _ := strconv.ParseInt(m[5], 10, 64)
		out[id] = [2]int64{sent, wire}
	}
	return out
}

// A shuffle join planned over a build side estimated 100× too big runs as
// a broadcast: its build exchange sends B bytes to each of the 3 join
// instances (B × nodes, not A + B), the probe side stays on its backends
// (0 wire bytes, 0 rows sent to another backend), and the answer is the
// one the planned shuffle gives. A build side that turns out big stays
// shuffled; hints and enable_adaptive_join = false keep the plan.
func TestE2EAdaptiveJoin(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	db.SetMaxOpenConns(1) // the session variables below belong to one connection
	adaptiveFixture(t, db)
	// The estimate (1,000 rows) is over the limit, what is there (10) under it.
	mustExec(t, db, "SET broadcast_row_count_limit = 500")

	small := "SELECT count(*), sum(f.v) FROM ad.f JOIN ad.d ON f.k = d.k WHERE d.x % 1000 = 7"
	explain := strings.Join(flatten(queryStrings(t, db, "EXPLAIN "+small)), "\n")
	if !strings.Contains(explain, "INNER JOIN (PARTITIONED)") || !strings.Contains(explain, "cardinality=1000") {
		t.Fatalf("the join is not planned as a shuffle over a 1,000-row estimate:\n%s", explain)
	}
	verbose := strings.Join(flatten(queryStrings(t, db, "EXPLAIN VERBOSE "+small)), "\n")
	if !strings.Contains(verbose, "adaptive: may run as BROADCAST if the build side has at most 500 rows") {
		t.Errorf("EXPLAIN VERBOSE does not say the join may adapt:\n%s", verbose)
	}
	want := queryStrings(t, db, "SELECT /*+ SET_VAR(enable_adaptive_join = false) */ "+strings.TrimPrefix(small, "SELECT "))
	if got := queryStrings(t, db, small); fmt.Sprint(got) != fmt.Sprint(want) || want[0][0] != "60" {
		t.Fatalf("adaptive answer %v, planned shuffle's %v (want 60 rows joined)", got, want)
	}
	if n := queryInts(t, db, "SELECT count(*) FROM ad.d WHERE d.x % 1000 = 7"); n[0] != 11 {
		t.Fatalf("the filter keeps %d rows, want 11 (90× under the estimate)", n[0])
	}

	text := analyzeText(t, db, small)
	m := adaptiveLine.FindStringSubmatch(text)
	if m == nil || m[2] != "PARTITIONED" || m[3] != "BROADCAST" || m[4] != "11" {
		t.Fatalf("EXPLAIN ANALYZE does not show the join planned PARTITIONED and run BROADCAST over 11 rows:\n%s", text)
	}
	buildBytes, _ := strconv.ParseInt(m[5], 10, 64)
	// The build side's exchange carries B to each of the 3 join instances.
	xs := exchangeBytes(t, text)
	probe, build := xs["4"], xs["5"]
	if build[0] != 3*buildBytes || buildBytes == 0 {
		t.Errorf("build exchange sent %d bytes, want 3 × %d (B × nodes):\n%s", build[0], buildBytes, text)
	}
	// (Local runtime filters only: a global one would cut the shuffled
	// probe side down to the matching rows.)
	off := analyzeText(t, db, "SELECT /*+ SET_VAR(enable_adaptive_join = false, runtime_filter_mode = 'LOCAL') */ "+strings.TrimPrefix(small, "SELECT "))
	if adaptiveLine.MatchString(off) {
		t.Errorf("enable_adaptive_join = false still adapted:\n%s", off)
	}
	// No probe row left its backend: the wire carried only the stream
	// headers of the unused remote streams, against ~2/3 of 480 KB shuffled.
	offProbe := exchangeBytes(t, off)["4"]
	if !strings.Contains(text, "sent to another backend=0") || probe[1]*100 > offProbe[1] {
		t.Errorf("the probe side crossed the network (%d wire bytes, %d when shuffled):\n%s", probe[1], offProbe[1], text)
	}

	// Too big to broadcast when measured (5,000 rows over the 500 limit):
	// it stays a shuffle, with the same answer.
	big := "SELECT count(*), sum(d.id) FROM ad.f JOIN ad.d ON f.k = d.k WHERE d.x % 2 = 0"
	text = analyzeText(t, db, big)
	if m := adaptiveLine.FindStringSubmatch(text); m == nil || m[3] != "PARTITIONED" {
		t.Errorf("a build side over the limit did not stay PARTITIONED:\n%s", text)
	}
	wantBig := queryStrings(t, db, "SELECT /*+ SET_VAR(enable_adaptive_join = false) */ "+strings.TrimPrefix(big, "SELECT "))
	if got := queryStrings(t, db, big); fmt.Sprint(got) != fmt.Sprint(wantBig) {
		t.Errorf("big build: adaptive %v, planned %v", got, wantBig)
	}

	// Hints win: a [shuffle] join is not adaptive.
	hinted := "SELECT count(*) FROM ad.f JOIN [shuffle] ad.d ON f.k = d.k WHERE d.x % 1000 = 7"
	if v := strings.Join(flatten(queryStrings(t, db, "EXPLAIN VERBOSE "+hinted)), "\n"); strings.Contains(v, "adaptive:") {
		t.Errorf("a [shuffle] hint was overridden:\n%s", v)
	}
	if text := analyzeText(t, db, hinted); adaptiveLine.MatchString(text) {
		t.Errorf("a [shuffle] hint adapted:\n%s", text)
	}

	// Every join type that may adapt gives the planned shuffle's rows,
	// with NULL keys on both sides, in one task and in three.
	// A GROUP BY on the join key is computed where the shuffle put the
	// keys, with no exchange between: that join must not adapt.
	shapes := map[string]bool{
		"SELECT f.id, f.v, d.name FROM ad.f JOIN ad.d ON f.k = d.k WHERE d.x % 1000 = 7":                                        true,
		"SELECT f.id, d.name FROM ad.f LEFT JOIN ad.d ON f.k = d.k AND d.x % 1000 = 7 WHERE f.id < 700":                         true,
		"SELECT f.id FROM ad.f WHERE f.k IN (SELECT k FROM ad.d WHERE d.x % 1000 = 7)":                                          true,
		"SELECT f.id FROM ad.f WHERE f.id < 900 AND NOT EXISTS (SELECT 1 FROM ad.d WHERE d.k = f.k AND d.x % 1000 = 7)":         true,
		"SELECT f.id FROM ad.f LEFT ANTI JOIN ad.d ON f.k = d.k AND d.x % 1000 = 7 WHERE f.id < 900":                            true,
		"SELECT d.name, count(*), sum(f.v) FROM ad.f JOIN ad.d ON f.k = d.k AND f.v > d.x WHERE d.x % 1000 = 7 GROUP BY d.name": true,
		"SELECT f.k, count(*) FROM ad.f JOIN ad.d ON f.k = d.k WHERE d.x % 1000 = 7 GROUP BY f.k":                               false,
	}
	for q, adapts := range shapes {
		body := strings.TrimPrefix(q, "SELECT ")
		want := sortedRows(queryStrings(t, db, "SELECT /*+ SET_VAR(enable_adaptive_join = false) */ "+body))
		for _, vars := range []string{"enable_adaptive_join = true", "parallel_pipeline_task_num = 3"} {
			got := sortedRows(queryStrings(t, db, "SELECT /*+ SET_VAR("+vars+") */ "+body))
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s with %s: %d rows, planned shuffle %d\n got %v\nwant %v", q, vars, len(got), len(want), head(got), head(want))
			}
		}
		if text := analyzeText(t, db, q); strings.Contains(text, "ran=BROADCAST") != adapts {
			t.Errorf("%s: ran as a broadcast %v, want %v:\n%s", q, !adapts, adapts, text)
		}
	}

	// INSERT … SELECT over an adaptive join writes the same rows.
	mustExec(t, db, `CREATE TABLE ad.out (id INT, name VARCHAR(20)) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, "INSERT INTO ad.out SELECT f.id, d.name FROM ad.f JOIN ad.d ON f.k = d.k WHERE d.x % 1000 = 7")
	got := queryStrings(t, db, "SELECT count(*), count(DISTINCT name), sum(id) FROM ad.out")
	exp := queryStrings(t, db, "SELECT count(*), count(DISTINCT d.name), sum(f.id) FROM ad.f JOIN ad.d ON f.k = d.k WHERE d.x % 1000 = 7")
	if fmt.Sprint(got) != fmt.Sprint(exp) || got[0][0] != "60" {
		t.Errorf("INSERT … SELECT wrote %v, the join has %v", got, exp)
	}

	// The profile kept for the statement says how the join ran.
	queryStrings(t, db, small)
	id := queryStrings(t, db, "SELECT last_query_id()")[0][0]
	prof := queryStrings(t, db, `SHOW QUERY PROFILE "/`+id+`"`)
	if len(prof) != 1 || !strings.Contains(prof[0][0], "planned=PARTITIONED  ran=BROADCAST") {
		t.Errorf("SHOW QUERY PROFILE does not show the adaptive join: %v", prof)
	}
	// So does the web UI's query page: the join and both its exchanges.
	code, page := httpDo(t, "GET", "http://"+s.HTTPAddr()+"/query/"+id, "root", "")
	for _, want := range []string{"ran BROADCAST (adaptive: build side 11 rows", "broadcast (adaptive, planned hash)", "local (adaptive, planned hash)"} {
		if code != 200 || !strings.Contains(page, want) {
			t.Errorf("query page (%d) lacks %q", code, want)
		}
	}
}

var probeSpread = regexp.MustCompile(`skewed keys spread=(\d+) .*probe rows per join instance=\[([\d ]+)\]`)

// A shuffle join whose probe side is 90% one key spreads that key over
// every join instance (its build rows go to all of them): each instance
// gets within 2× of an even share, where the plain shuffle sends 90% to
// one; the answers are the plain shuffle's, also for LEFT and semi joins.
func TestE2EAdaptiveJoinSkew(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	db.SetMaxOpenConns(1)
	adaptiveFixture(t, db)
	mustExec(t, db, `CREATE TABLE ad.sk (id INT, k INT, v INT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 6 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, `INSERT INTO ad.sk SELECT number, CASE WHEN number % 10 < 9 THEN 42 ELSE number % 5000 END, number FROM numbers("number" = "60000")`)
	mustExec(t, db, "SET broadcast_row_count_limit = 500") // the 5,000-row build side stays shuffled
	_, err := db.Exec("SET adaptive_join_skew_share = 1.5")
	wantCode(t, err, 1231, "a skew share over 1")

	spread := func(q string) (int, []int64) {
		t.Helper()
		text := analyzeText(t, db, q)
		m := probeSpread.FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("no adaptive PARTITIONED join in:\n%s", text)
		}
		var rows []int64
		for _, f := range strings.Fields(m[2]) {
			n, _ := strconv.ParseInt(f, 10, 64)
			rows = append(rows, n)
		}
		k, _ := strconv.Atoi(m[1])
		return k, rows
	}
	q := "SELECT count(*), sum(sk.v), sum(d.id) FROM ad.sk JOIN ad.d ON sk.k = d.k WHERE d.x % 2 = 0"
	keys, rows := spread(q)
	var total, most int64
	for _, n := range rows {
		total += n
		most = max(most, n)
	}
	if keys != 1 || len(rows) != 3 || total != 60000 || most > 2*total/3 {
		t.Errorf("skewed probe side: %d keys spread, rows per instance %v (want 1 key, each within 2× of %d)", keys, rows, total/3)
	}
	// Without spreading one instance takes the hot key's 54,000 rows.
	plain := "SELECT /*+ SET_VAR(adaptive_join_skew_share = 0) */ " + strings.TrimPrefix(q, "SELECT ")
	if keys, rows := spread(plain); keys != 0 || slices.Max(rows) < 54000 {
		t.Errorf("with adaptive_join_skew_share = 0: %d keys spread, rows per instance %v", keys, rows)
	}
	off := func(q string) string {
		return "SELECT /*+ SET_VAR(enable_adaptive_join = false) */ " + strings.TrimPrefix(q, "SELECT ")
	}
	for _, q := range []string{
		q,
		"SELECT sk.k, count(*), sum(d.id) FROM ad.sk JOIN ad.d ON sk.k = d.k WHERE d.x % 2 = 0 GROUP BY sk.k % 7 = 0, sk.k",
		"SELECT count(*), sum(sk.v), count(d.id) FROM ad.sk LEFT JOIN ad.d ON sk.k = d.k AND d.x % 2 = 0",
		"SELECT count(*), sum(sk.v) FROM ad.sk WHERE sk.k IN (SELECT k FROM ad.d WHERE d.x % 2 = 0)",
		"SELECT count(*), sum(sk.v) FROM ad.sk WHERE NOT EXISTS (SELECT 1 FROM ad.d WHERE d.k = sk.k AND d.x % 2 = 0)",
		"SELECT count(*) FROM ad.sk JOIN ad.d ON sk.k = d.k AND sk.v > d.id WHERE d.x % 2 = 0",
	} {
		want := sortedRows(queryStrings(t, db, off(q)))
		for _, vars := range []string{"enable_adaptive_join = true", "parallel_pipeline_task_num = 3"} {
			got := sortedRows(queryStrings(t, db, "SELECT /*+ SET_VAR("+vars+") */ "+strings.TrimPrefix(q, "SELECT ")))
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s with %s:\n got %v\nwant %v", q, vars, head(got), head(want))
			}
		}
	}
}
