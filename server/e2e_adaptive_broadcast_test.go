package server_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A join planned as BROADCAST because the estimator guesses its build side
// a thousand times too small (three predicates it has no statistics for
// keep every row; it assumes a tenth each) runs as a shuffle: each side
// crosses once (A + B), not the build side to every instance (B × 3), and
// the answer is the one the planned broadcast gives. A build side the
// guess got right still runs BROADCAST with the probe side kept on its
// backends; hints and enable_adaptive_join = false keep the broadcast.
func TestE2EAdaptiveBroadcastJoin(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	db.SetMaxOpenConns(1)
	adaptiveFixture(t, db)
	off := func(q string) string {
		return "SELECT /*+ SET_VAR(enable_adaptive_join = false) */ " + strings.TrimPrefix(q, "SELECT ")
	}

	// b keeps all 60,000 rows with a non-negative id; the planner expects 60.
	big := "SELECT count(*), sum(a.v), sum(b.id) FROM ad.f a JOIN ad.f b ON a.k = b.k WHERE b.v >= 0 AND b.id >= 0 AND b.id < 100000"
	if n := queryInts(t, db, "SELECT count(*) FROM ad.f b WHERE b.v >= 0 AND b.id >= 0 AND b.id < 100000"); n[0] != 60000 {
		t.Fatalf("the build side filter keeps %d rows, want 60000", n[0])
	}
	explain := strings.Join(flatten(queryStrings(t, db, "EXPLAIN "+big)), "\n")
	if !strings.Contains(explain, "INNER JOIN (BROADCAST)") || !strings.Contains(explain, "cardinality=60\n") ||
		!strings.Contains(explain, "adaptive: the build side estimate is a guess; runs PARTITIONED if it has more than") {
		t.Fatalf("the join is not planned as a broadcast over a 60-row guess that may adapt:\n%s", explain)
	}
	verbose := strings.Join(flatten(queryStrings(t, db, "EXPLAIN VERBOSE "+big)), "\n")
	if !strings.Contains(verbose, "adaptive: the build side estimate is a guess") || !broadcastChosen.MatchString(verbose) {
		t.Errorf("EXPLAIN VERBOSE does not show the broadcast chosen and that it may adapt:\n%s", verbose)
	}
	offPlan := strings.Join(flatten(queryStrings(t, db, "EXPLAIN "+off(big))), "\n")
	if strings.Contains(offPlan, "adaptive:") || !strings.Contains(offPlan, "INNER JOIN (BROADCAST)") {
		t.Errorf("enable_adaptive_join = false changed the plan:\n%s", offPlan)
	}

	want := queryStrings(t, db, off(big))
	if got := queryStrings(t, db, big); fmt.Sprint(got) != fmt.Sprint(want) || want[0][0] != "720000" {
		t.Fatalf("adaptive answer %v, planned broadcast's %v (want 720000 rows joined)", got, want)
	}

	text := analyzeText(t, db, big)
	m := adaptiveLine.FindStringSubmatch(text)
	if m == nil || m[2] != "BROADCAST" || m[3] != "PARTITIONED" {
		t.Fatalf("EXPLAIN ANALYZE does not show the join planned BROADCAST and run PARTITIONED:\n%s", text)
	}
	probe, build := exchangeOf(t, text, "probe"), exchangeOf(t, text, "build")
	// Measured against the planned broadcast: its build exchange carries
	// B to each of the 3 instances and its probe side nothing.
	offText := analyzeText(t, db, off(big))
	bcast := buildExchange(t, offText)
	if build.rows != 60000 || probe.rows != 60002 {
		t.Errorf("shuffled %d build rows and %d probe rows, want 60000 and 60002:\n%s", build.rows, probe.rows, text)
	}
	if bcast.rows != 3*60000 || !near(bcast.bytes, 3*build.bytes) {
		t.Errorf("the planned broadcast sent %d rows, %d bytes; want 3 × the shuffle's %d rows, %d bytes:\n%s", bcast.rows, bcast.bytes, build.rows, build.bytes, offText)
	}
	if total := build.bytes + probe.bytes; total >= bcast.bytes {
		t.Errorf("A + B = %d bytes is not under the broadcast's B × 3 = %d", total, bcast.bytes)
	}
	t.Logf("shuffled: build %d rows %d bytes, probe %d rows %d bytes (A + B = %d); planned broadcast: %d rows %d bytes (B × 3)",
		build.rows, build.bytes, probe.rows, probe.bytes, build.bytes+probe.bytes, bcast.rows, bcast.bytes)
	if !strings.Contains(text, fmt.Sprintf("shuffled: build exchange bytes=%d + probe exchange bytes=%d", build.bytes, probe.bytes)) {
		t.Errorf("EXPLAIN ANALYZE does not show the shuffled bytes:\n%s", text)
	}

	// Hints win: a [broadcast] join and a BROADCAST hint stay broadcast.
	for _, hinted := range []string{
		"SELECT count(*), sum(a.v), sum(b.id) FROM ad.f a JOIN [broadcast] ad.f b ON a.k = b.k WHERE b.v >= 0 AND b.id >= 0 AND b.id < 100000",
		"SELECT /*+ BROADCAST(b) */ count(*), sum(a.v), sum(b.id) FROM ad.f a JOIN ad.f b ON a.k = b.k WHERE b.v >= 0 AND b.id >= 0 AND b.id < 100000",
	} {
		ht := analyzeText(t, db, hinted)
		if adaptiveLine.MatchString(ht) || buildExchange(t, ht).rows != 3*60000 {
			t.Errorf("%s: the hint did not keep the broadcast:\n%s", hinted, ht)
		}
		if got := queryStrings(t, db, hinted); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: %v, want %v", hinted, got, want)
		}
	}
	if adaptiveLine.MatchString(offText) {
		t.Errorf("enable_adaptive_join = false adapted:\n%s", offText)
	}

	// The guess right (30 rows where 60 are expected): it runs BROADCAST as
	// planned and no probe row leaves its backend.
	small := "SELECT count(*), sum(a.v), sum(b.id) FROM ad.f a JOIN ad.f b ON a.k = b.k WHERE b.v >= 0 AND b.id >= 0 AND b.id < 30"
	st := analyzeText(t, db, small)
	if m := adaptiveLine.FindStringSubmatch(st); m == nil || m[2] != "BROADCAST" || m[3] != "BROADCAST" || m[4] != "30" {
		t.Errorf("a small build side did not run BROADCAST:\n%s", st)
	}
	if !strings.Contains(st, "sent to another backend=0") || exchangeOf(t, st, "build").rows != 90 {
		t.Errorf("the small broadcast moved the probe side or did not copy 30 rows 3 times:\n%s", st)
	}
	if got, want := queryStrings(t, db, small), queryStrings(t, db, off(small)); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("small: adaptive %v, planned broadcast %v", got, want)
	}

	// Join types a broadcast may have, NULL keys on both sides, one and
	// three pipeline tasks: the planned broadcast's rows.
	for _, q := range []string{
		"SELECT a.id, b.id FROM ad.f a JOIN ad.f b ON a.k = b.k WHERE a.id < 300 AND b.v >= 0 AND b.id >= -5 AND b.id < 100000",
		"SELECT a.id, b.v FROM ad.f a LEFT JOIN ad.f b ON a.k = b.k AND b.v >= 0 AND b.id >= -5 AND b.id < 100000 WHERE a.id < 300",
		"SELECT a.k FROM ad.f a WHERE a.k IN (SELECT k FROM ad.f b WHERE b.v >= 0 AND b.id >= 0 AND b.id < 100000 AND b.id % 3 = 1)",
		"SELECT a.k FROM ad.f a WHERE NOT EXISTS (SELECT 1 FROM ad.f b WHERE b.k = a.k AND b.v >= 0 AND b.id >= 0 AND b.id < 100000 AND b.id % 2 = 0)",
		"SELECT a.k % 7, count(*), sum(b.v) FROM ad.f a JOIN ad.f b ON a.k = b.k AND a.v > b.id WHERE b.v >= 0 AND b.id >= 0 AND b.id < 100000 GROUP BY a.k % 7",
	} {
		want := sortedRows(queryStrings(t, db, off(q)))
		for _, vars := range []string{"enable_adaptive_join = true", "parallel_pipeline_task_num = 3"} {
			got := sortedRows(queryStrings(t, db, "SELECT /*+ SET_VAR("+vars+") */ "+strings.TrimPrefix(q, "SELECT ")))
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s with %s: %d rows, planned broadcast %d\n got %v\nwant %v", q, vars, len(got), len(want), head(got), head(want))
			}
		}
		if text := analyzeText(t, db, q); !strings.Contains(text, "planned=BROADCAST") {
			t.Errorf("%s: not an adaptive broadcast:\n%s", q, text)
		}
	}

	// The profile kept for the statement says how the join ran.
	queryStrings(t, db, big)
	id := queryStrings(t, db, "SELECT last_query_id()")[0][0]
	prof := queryStrings(t, db, `SHOW QUERY PROFILE "/`+id+`"`)
	if len(prof) != 1 || !strings.Contains(prof[0][0], "planned=BROADCAST  ran=PARTITIONED") {
		t.Errorf("SHOW QUERY PROFILE does not show the adaptive join: %v", prof)
	}
}

// exchangeCount is one exchange's sending side in an EXPLAIN ANALYZE.
type exchangeCount struct{ rows, bytes int64 }

var broadcastChosen = regexp.MustCompile(`BROADCAST: network bytes=\d+, chosen`)

var adaptiveFragments = regexp.MustCompile(`from fragments build=(\d+) probe=(\d+)`)

// exchangeOf is the sending side of the adaptive join's build or probe
// exchange (the fragments its EXPLAIN ANALYZE line names).
func exchangeOf(t *testing.T, text, side string) exchangeCount {
	t.Helper()
	am := adaptiveFragments.FindStringSubmatch(text)
	if am == nil {
		t.Fatalf("no adaptive join in:\n%s", text)
	}
	want := am[1]
	if side == "probe" {
		want = am[2]
	}
	for _, m := range exchangeLine.FindAllStringSubmatch(text, -1) {
		if m[2] == want {
			rows, _ := strconv.ParseInt(m[3], 10, 64)
			bytes, _ := strconv.ParseInt(m[4], 10, 64)
			return exchangeCount{rows, bytes}
		}
	}
	t.Fatalf("no exchange from fragment %s in:\n%s", want, text)
	return exchangeCount{}
}

// buildExchange is a plain broadcast join's build exchange in these
// tests: the one sending the most rows (3 copies of the build side, more
// than the probe side's 60,002 or an aggregate's).
func buildExchange(t *testing.T, text string) exchangeCount {
	t.Helper()
	var best exchangeCount
	for _, m := range exchangeLine.FindAllStringSubmatch(text, -1) {
		rows, _ := strconv.ParseInt(m[3], 10, 64)
		bytes, _ := strconv.ParseInt(m[4], 10, 64)
		if rows > best.rows {
			best = exchangeCount{rows, bytes}
		}
	}
	return best
}

// near: a and b within 1% (a hash split counts each piece's null bitmap).
func near(a, b int64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	return d*100 <= max(a, b)
}
