package server_test

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Balance after ADD BACKEND, over real processes (an FE and three BEs,
// then a fourth):
//   - with disable_balance = true the new backend gets no replica;
//   - with it false, within seconds the replica counts per backend
//     (SHOW PROC '/cluster_balance/cluster_load_stat/...') differ by at
//     most 1 and the new backend holds its share;
//   - every tablet keeps replication_num healthy replicas at every
//     check, and exactly that many, all OK, at the end;
//   - the colocate group's bucket moved as a whole: the group was seen
//     unstable (EXPLAIN: "group is not stable") and is stable at the end
//     with the new backend in its sequence and the join colocated again;
//   - a read loop of sums and the colocate join gets the same answers
//     throughout.
func TestE2EClusterBalance(t *testing.T) {
	_, _, db := startClusterProcs(t, 3)
	mustExec(t, db, "CREATE DATABASE bal")
	mustExec(t, db, `CREATE TABLE bal.t1 (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 8 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, `CREATE TABLE bal.t2 (k INT, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 6 PROPERTIES ("replication_num" = "2")`)
	for _, n := range []string{"c1", "c2"} {
		mustExec(t, db, `CREATE TABLE bal.`+n+` (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 4
			PROPERTIES ("replication_num" = "1", "colocate_with" = "g")`)
	}
	var vals []string
	for i := 0; i < 120; i++ {
		vals = append(vals, fmt.Sprintf("(%d, %d)", i, i*10))
	}
	for _, n := range []string{"t1", "t2", "c1", "c2"} {
		mustExec(t, db, "INSERT INTO bal."+n+" VALUES "+strings.Join(vals, ","))
	}
	queries := map[string]string{
		"SELECT count(*), sum(v) FROM bal.t1":                                      "[[120 71400]]",
		"SELECT count(*), sum(v) FROM bal.t2":                                      "[[120 71400]]",
		"SELECT count(*), sum(c1.v + c2.v) FROM bal.c1 JOIN bal.c2 ON c1.k = c2.k": "[[120 142800]]",
	}
	for q, want := range queries {
		if got := fmt.Sprint(queryStrings(t, db, q)); got != want {
			t.Fatalf("%s = %s, want %s", q, got, want)
		}
	}
	const joinQ = "EXPLAIN SELECT * FROM bal.c1 JOIN bal.c2 ON c1.k = c2.k"
	explain := func() string {
		var lines []string
		for _, r := range queryStrings(t, db, joinQ) {
			lines = append(lines, r[0])
		}
		return strings.Join(lines, "\n")
	}
	if e := explain(); !strings.Contains(e, "colocate: true") {
		t.Fatalf("the stable group should colocate:\n%s", e)
	}
	tables := map[string]int{"t1": 1, "t2": 2, "c1": 1, "c2": 1}
	// healthyShort lists tablets with fewer healthy replicas than wanted.
	healthyShort := func() []string {
		var out []string
		for n, want := range tables {
			ok := map[string]int{}
			for _, r := range queryStrings(t, db, "ADMIN SHOW REPLICA STATUS FROM bal."+n) {
				if _, seen := ok[r[0]]; !seen {
					ok[r[0]] = 0
				}
				if r[12] == "OK" && r[4] == "-1" {
					ok[r[0]]++
				}
			}
			for tb, k := range ok {
				if k < want {
					out = append(out, fmt.Sprintf("%s tablet %s: %d healthy", n, tb, k))
				}
			}
		}
		return out
	}

	mustExec(t, db, `ADMIN SET FRONTEND CONFIG ("disable_balance" = "true")`)
	fresh := startBE(t, filepath.Join(t.TempDir(), "be-new"), false)
	mustExec(t, db, fmt.Sprintf(`ALTER SYSTEM ADD BACKEND "%s"`, fresh.mysqlAddr))
	waitBackendsAlive(t, db, 4)
	freshID := backendIDOf(t, db, fresh)
	time.Sleep(1500 * time.Millisecond) // several scheduler rounds
	if n := clusterLoad(t, db)[freshID]; n != 0 {
		t.Fatalf("with disable_balance the new backend got %d replicas", n)
	}
	if got := queryStrings(t, db, "SHOW PROC '/cluster_balance'"); len(got) < 7 || got[0][0] != "cluster_load_stat" || got[4][0] != "pending_tablets" {
		t.Errorf("SHOW PROC '/cluster_balance': %v", got)
	}

	rc := checkReads(db, queries, nil)
	var stop atomic.Bool
	var wg sync.WaitGroup
	var unstableSeen, reasonSeen atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			rows, err := queryStringsErr(db, "SHOW PROC '/colocation_group'")
			if err != nil || len(rows) != 1 || rows[0][6] != "false" {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			unstableSeen.Add(1)
			if ex, err := queryStringsErr(db, joinQ); err == nil && strings.Contains(fmt.Sprint(ex), "group is not stable") {
				reasonSeen.Add(1)
			}
		}
	}()
	start := time.Now()
	mustExec(t, db, `ADMIN SET FRONTEND CONFIG ("disable_balance" = "false")`)
	var worst []string
	waitFor(t, 30*time.Second, "replica counts even within 1", func() bool {
		if s := healthyShort(); len(s) > 0 && worst == nil {
			worst = s
		}
		m := clusterLoad(t, db)
		return len(m) == 4 && loadSpread(m) <= 1 && m[freshID] > 0 && queryStrings(t, db, "SHOW PROC '/colocation_group'")[0][6] == "true" &&
			queryStrings(t, db, "SHOW PROC '/cluster_balance'")[7][1] == "0"
	})
	took := time.Since(start)
	stop.Store(true)
	wg.Wait()
	reads := rc.finish(t, "during the balance")
	t.Logf("balanced in %v: %v; %d reads", took, clusterLoad(t, db), reads)
	if worst != nil {
		t.Errorf("tablets short of healthy replicas during the balance: %v", worst)
	}
	if unstableSeen.Load() == 0 {
		t.Error("the colocate group was never seen unstable while its bucket moved")
	}
	if reasonSeen.Load() == 0 {
		t.Error(`EXPLAIN never said "group is not stable" while the group was unstable`)
	}
	checkReplicas(t, db, "bal", tables)
	g := queryStrings(t, db, "SHOW PROC '/colocation_group'")
	seq := fmt.Sprint(queryStrings(t, db, "SHOW PROC '/colocation_group/"+g[0][0]+"'"))
	if !strings.Contains(seq, freshID) {
		t.Errorf("the group's bucket sequence has no bucket on the new backend %s: %s", freshID, seq)
	}
	if e := explain(); !strings.Contains(e, "colocate: true") {
		t.Errorf("the group stable again should colocate:\n%s", e)
	}
	for q, want := range queries {
		if got := fmt.Sprint(queryStrings(t, db, q)); got != want {
			t.Errorf("after the balance %s = %s, want %s", q, got, want)
		}
	}
}

// readChecker reruns queries, each with its known answer, until finish.
type readChecker struct {
	stop       atomic.Bool
	wg         sync.WaitGroup
	reads, bad atomic.Int64
	first      atomic.Value
}

// checkReads starts a reader of queries on db; also, if not nil, runs
// after every round of them (a probe of the cluster's state).
func checkReads(db *sql.DB, queries map[string]string, also func()) *readChecker {
	rc := &readChecker{}
	rc.wg.Add(1)
	go func() {
		defer rc.wg.Done()
		for !rc.stop.Load() {
			for q, want := range queries {
				got, err := queryStringsErr(db, q)
				rc.reads.Add(1)
				if err != nil || fmt.Sprint(got) != want {
					rc.bad.Add(1)
					rc.first.CompareAndSwap(nil, fmt.Sprint(q, " = ", got, err))
				}
			}
			if also != nil {
				also()
			}
		}
	}()
	return rc
}

// finish stops the reader, fails t if any answer was wrong, and returns
// how many reads it made.
func (rc *readChecker) finish(t *testing.T, when string) int64 {
	t.Helper()
	rc.stop.Store(true)
	rc.wg.Wait()
	if rc.bad.Load() > 0 {
		t.Errorf("%d of %d reads %s went wrong, first: %v", rc.bad.Load(), rc.reads.Load(), when, rc.first.Load())
	}
	return rc.reads.Load()
}

// checkReplicas checks that every tablet of each table of db has its
// replication_num (tables: name → replicas) healthy replicas.
func checkReplicas(t *testing.T, db *sql.DB, dbName string, tables map[string]int) {
	t.Helper()
	for n, want := range tables {
		for tb, bes := range replicasPerTablet(t, db, dbName+"."+n) {
			if len(bes) != want {
				t.Errorf("%s tablet %s on %v, want %d replicas", n, tb, bes, want)
			}
		}
		if u := unhealthy(t, db, dbName+"."+n); len(u) > 0 {
			t.Errorf("%s replicas not OK after the balance: %v", n, u)
		}
	}
}
