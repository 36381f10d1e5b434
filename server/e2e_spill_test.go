package server_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A hash join whose build side is larger than exec_mem_limit fails naming
// the join while enable_spill is off (Doris's default), and with it on
// runs as a grace join: the same rows, spilled bytes in EXPLAIN ANALYZE
// and SHOW QUERY PROFILE, and no spill file left under the data dir.
// Most joins read LIMIT subqueries, so they run in fragment 0 (the FE's
// instance); a shuffle join spills on the backends, which get the
// session's settings with their fragments.
func TestE2EHashJoinSpill(t *testing.T) {
	dir := t.TempDir()
	// What a process that stopped mid-spill left is removed at start.
	stale := filepath.Join(dir, "spill", "join-1", "l0-build-p0-1.arrow")
	if err := os.MkdirAll(filepath.Dir(stale), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stale, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, dir)
	t.Cleanup(s.Close)
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("stale spill file after start: %v", err)
	}
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE sp")
	mustExec(t, db, `CREATE TABLE sp.a (k BIGINT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, `CREATE TABLE sp.b (k BIGINT, v INT, s VARCHAR(32)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, `INSERT INTO sp.a SELECT number, number % 100 FROM numbers("number" = "100000")`)
	// Every key of b twice, keys 0..49999 only, and some NULL keys.
	mustExec(t, db, `INSERT INTO sp.b SELECT if(number % 1000 = 7, NULL, number % 50000), number % 10, concat('row-', number) FROM numbers("number" = "100000")`)

	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const inner = "SELECT count(*), sum(x.v + y.v), max(y.s) FROM (SELECT k, v FROM sp.a LIMIT 1000000) x JOIN [broadcast] (SELECT k, v, s FROM sp.b LIMIT 1000000) y ON x.k = y.k"
	const outer = "SELECT count(*), count(y.k), sum(x.v) FROM (SELECT k, v FROM sp.a LIMIT 1000000) x LEFT JOIN [broadcast] (SELECT k, v, s FROM sp.b LIMIT 1000000) y ON x.k = y.k AND y.v < 5"
	const anti = "SELECT count(*) FROM (SELECT k, v FROM sp.a LIMIT 1000000) x WHERE x.k NOT IN (SELECT k FROM (SELECT k, s FROM sp.b LIMIT 1000000) y WHERE k IS NOT NULL)"
	// NOT IN over a build side holding NULLs: no row qualifies.
	const naaj = "SELECT count(*) FROM (SELECT k, v FROM sp.a LIMIT 1000000) x WHERE x.k NOT IN (SELECT k FROM (SELECT k, s FROM sp.b LIMIT 1000000) y)"
	queries := []string{inner, outer, anti, naaj}
	want := map[string][]string{}
	for _, q := range queries {
		want[q] = queryStrings(t, conn, q)[0]
	}
	// Sanity of the expected answers: 2 matches per key below 50000 but
	// for the 100 NULLed rows, which take 50 keys away entirely.
	if want[inner][0] != "99900" || want[anti][0] != "50050" || want[naaj][0] != "0" {
		t.Fatalf("in-memory answers %v", want)
	}
	// A shuffle join runs on the backends, which get the session's spill
	// settings with their fragments.
	const onBackends = "SELECT count(*), sum(x.v + y.v), max(y.s) FROM sp.a x JOIN [shuffle] sp.b y ON x.k = y.k"
	wantBE := queryStrings(t, conn, onBackends)[0]

	mustExec(t, conn, "SET exec_mem_limit = 1048576")
	for _, q := range queries {
		// These joins are in fragment 0, which the FE runs: broadcast over
		// LIMIT subqueries, also under the small limit.
		var plan []string
		for _, r := range queryStrings(t, conn, "EXPLAIN "+q) {
			plan = append(plan, strings.Join(r, " "))
		}
		f0 := strings.Join(plan, "\n")
		f0 = f0[:strings.Index(f0, "PLAN FRAGMENT 1")]
		if !strings.Contains(f0, "HASH JOIN") {
			t.Fatalf("%s: the join is not in fragment 0:\n%s", q, strings.Join(plan, "\n"))
		}
	}
	_, err = conn.ExecContext(context.Background(), inner)
	if err == nil || !strings.Contains(err.Error(), "exec_mem_limit") || !strings.Contains(err.Error(), "HashJoin node") {
		t.Fatalf("enable_spill off: %v, want the memory limit error naming the join", err)
	}

	mustExec(t, conn, "SET enable_spill = true")
	if got := queryStrings(t, conn, "SELECT @@enable_spill, @@spill_hash_join_partition_count"); got[0][0] != "1" && got[0][0] != "true" || got[0][1] != "32" {
		t.Fatalf("variables: %v", got)
	}
	spilled := regexp.MustCompile(`spilled: partitions=(\d+)  bytes=(\d+)`)
	for _, q := range queries {
		got := queryStrings(t, conn, q)[0]
		if strings.Join(got, ",") != strings.Join(want[q], ",") {
			t.Fatalf("%s\nspilled: %v, in memory: %v", q, got, want[q])
		}
		id := queryStrings(t, conn, "SELECT last_query_id()")[0][0]
		prof := queryStrings(t, conn, `SHOW QUERY PROFILE "/`+id+`"`)[0][0]
		m := spilled.FindStringSubmatch(prof)
		if m == nil {
			t.Fatalf("%s: profile has no spill counters:\n%s", q, prof)
		}
		if n, _ := strconv.Atoi(m[2]); n == 0 {
			t.Fatalf("%s: spilled 0 bytes:\n%s", q, prof)
		}
		t.Logf("%s: %s", q, m[0])
	}
	if got := queryStrings(t, conn, onBackends)[0]; strings.Join(got, ",") != strings.Join(wantBE, ",") {
		t.Fatalf("%s on the backends\nspilled: %v, in memory: %v", onBackends, got, wantBE)
	}
	id := queryStrings(t, conn, "SELECT last_query_id()")[0][0]
	if prof := queryStrings(t, conn, `SHOW QUERY PROFILE "/`+id+`"`)[0][0]; !spilled.MatchString(prof) {
		t.Fatalf("%s: the backends' profile has no spill counters:\n%s", onBackends, prof)
	}
	var lines []string
	for _, r := range queryStrings(t, conn, "EXPLAIN ANALYZE "+inner) {
		lines = append(lines, strings.Join(r, " "))
	}
	text := strings.Join(lines, "\n")
	if m := spilled.FindStringSubmatch(text); m == nil || m[2] == "0" {
		t.Fatalf("EXPLAIN ANALYZE shows no spilled bytes:\n%s", text)
	}

	// A partition count out of Doris's range is refused.
	if _, err := conn.ExecContext(context.Background(), "SET spill_hash_join_partition_count = 64"); err == nil {
		t.Fatal("spill_hash_join_partition_count = 64 accepted")
	}
	// Nothing is left behind under the data dir.
	es, err := os.ReadDir(filepath.Join(dir, "spill"))
	if err != nil {
		t.Fatalf("spill directory: %v", err)
	}
	if len(es) != 0 {
		t.Fatalf("%d entries left under %s/spill", len(es), dir)
	}
	beDirs, _ := filepath.Glob(filepath.Join(dir, "*", "*-spill"))
	more, _ := filepath.Glob(filepath.Join(dir, "*-spill"))
	for _, d := range append(beDirs, more...) {
		if es, _ := os.ReadDir(d); len(es) != 0 {
			t.Errorf("%d entries left under the backend's %s", len(es), d)
		}
	}
}
