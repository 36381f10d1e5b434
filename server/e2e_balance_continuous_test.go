package server_test

import (
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// clusterLoad is the replicas per backend id from SHOW PROC
// '/cluster_balance/cluster_load_stat/location_default/HDD'.
func clusterLoad(t *testing.T, db *sql.DB) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, r := range queryStrings(t, db, "SHOW PROC '/cluster_balance/cluster_load_stat/location_default/HDD'") {
		n, err := strconv.Atoi(r[6])
		if err != nil {
			t.Fatalf("ReplicaNum %q: %v", r[6], err)
		}
		out[r[0]] = n
	}
	return out
}

func loadSpread(m map[string]int) int {
	lo, hi := -1, 0
	for _, n := range m {
		if lo < 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
	}
	return hi - lo
}

// balanceItem is one Number of SHOW PROC '/cluster_balance'.
func balanceItem(t *testing.T, db *sql.DB, item string) int {
	t.Helper()
	for _, r := range queryStrings(t, db, "SHOW PROC '/cluster_balance'") {
		if r[0] == item {
			n, err := strconv.Atoi(r[1])
			if err != nil {
				t.Fatalf("%s = %q", item, r[1])
			}
			return n
		}
	}
	t.Fatalf("SHOW PROC '/cluster_balance' has no %s", item)
	return 0
}

func valuesList(n, mul int) string {
	vals := make([]string, n)
	for i := range vals {
		vals[i] = fmt.Sprintf("(%d, %d)", i, i*mul)
	}
	return strings.Join(vals, ",")
}

// A fresh three-backend cluster (real processes) whose tables are created
// the ordinary ways — plain tables of several bucket and replica counts,
// a colocate group, a RANGE table with a partition added by ALTER, an
// INSERT OVERWRITE, a TRUNCATE — is even by placement alone: the replica
// counts differ by at most one and the balancer, running all the time,
// clones nothing over many scheduler rounds (history_tablets stays 0).
func TestE2EClusterFreshNoClones(t *testing.T) {
	_, _, db := startClusterProcs(t, 3)
	mustExec(t, db, "CREATE DATABASE fr")
	for _, s := range []string{
		`CREATE TABLE fr.a (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 8 PROPERTIES ("replication_num" = "1")`,
		`CREATE TABLE fr.b (k INT, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 6 PROPERTIES ("replication_num" = "2")`,
		`CREATE TABLE fr.c (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("replication_num" = "1")`,
		`CREATE TABLE fr.d (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 5 PROPERTIES ("replication_num" = "3")`,
		`CREATE TABLE fr.g1 (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 4 PROPERTIES ("replication_num" = "1", "colocate_with" = "g")`,
		`CREATE TABLE fr.g2 (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 4 PROPERTIES ("replication_num" = "1", "colocate_with" = "g")`,
		`CREATE TABLE fr.r (k INT, v INT) DUPLICATE KEY(k) PARTITION BY RANGE(k) (PARTITION p1 VALUES LESS THAN ("100"), PARTITION p2 VALUES LESS THAN ("200"))
			DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "1")`,
		`ALTER TABLE fr.r ADD PARTITION p3 VALUES LESS THAN ("300")`,
		`CREATE TABLE fr.e (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("replication_num" = "1")`,
	} {
		mustExec(t, db, s)
	}
	for _, n := range []string{"a", "b", "c", "d", "g1", "g2", "r", "e"} {
		mustExec(t, db, "INSERT INTO fr."+n+" VALUES "+valuesList(300, 7))
	}
	mustExec(t, db, "INSERT OVERWRITE TABLE fr.a SELECT k, v FROM fr.b")
	mustExec(t, db, "TRUNCATE TABLE fr.e")
	mustExec(t, db, "INSERT INTO fr.e VALUES "+valuesList(50, 1))
	m := clusterLoad(t, db)
	if len(m) != 3 || loadSpread(m) > 1 {
		t.Fatalf("replicas per backend after placement: %v, want 3 backends within 1", m)
	}
	h0 := balanceItem(t, db, "history_tablets")
	time.Sleep(3 * time.Second) // ten scheduler rounds
	h1, running := balanceItem(t, db, "history_tablets"), balanceItem(t, db, "running_tablets")
	t.Logf("replicas per backend %v; clones %d, then %d (%d running)", m, h0, h1, running)
	if h0 != 0 || h1 != 0 || running != 0 {
		t.Errorf("a cluster nobody grew cloned: history_tablets %d then %d, running %d", h0, h1, running)
	}
	if got := fmt.Sprint(queryStrings(t, db, "SELECT count(*), sum(v) FROM fr.a")); got != "[[300 313950]]" {
		t.Errorf("fr.a after INSERT OVERWRITE: %s", got)
	}
	// The tolerance is Doris's balance_load_score_threshold.
	mustExec(t, db, `ADMIN SET FRONTEND CONFIG ("balance_load_score_threshold" = "0.2")`)
	wantErrContains(t, db, `ADMIN SET FRONTEND CONFIG ("balance_load_score_threshold" = "2")`, 1105, "Invalid value for balance_load_score_threshold: 2")
}

// Tables created while one of three backends was decommissioned leave it
// empty; CANCEL DECOMMISSION, with no backend added, lets the balancer
// even the replica counts to within one — a colocate bucket moving as a
// whole, the group unstable meanwhile and stable after — with a read loop
// getting the same answers throughout.
func TestE2EClusterBalanceAfterCancelledDecommission(t *testing.T) {
	_, bes, db := startClusterProcs(t, 3)
	leaving := bes[2]
	leavingID := backendIDOf(t, db, leaving)
	mustExec(t, db, fmt.Sprintf(`ALTER SYSTEM DECOMMISSION BACKEND "%s"`, leaving.mysqlAddr))
	mustExec(t, db, "CREATE DATABASE cd")
	mustExec(t, db, `CREATE TABLE cd.t1 (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 8 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, `CREATE TABLE cd.t2 (k INT, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 6 PROPERTIES ("replication_num" = "2")`)
	for _, n := range []string{"c1", "c2"} {
		mustExec(t, db, `CREATE TABLE cd.`+n+` (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 4
			PROPERTIES ("replication_num" = "1", "colocate_with" = "g")`)
	}
	for _, n := range []string{"t1", "t2", "c1", "c2"} {
		mustExec(t, db, "INSERT INTO cd."+n+" VALUES "+valuesList(120, 10))
	}
	before := clusterLoad(t, db)
	if before[leavingID] != 0 {
		t.Fatalf("the decommissioned backend got replicas: %v", before)
	}
	queries := map[string]string{
		"SELECT count(*), sum(v) FROM cd.t1":                                     "[[120 71400]]",
		"SELECT count(*), sum(v) FROM cd.t2":                                     "[[120 71400]]",
		"SELECT count(*), sum(c1.v + c2.v) FROM cd.c1 JOIN cd.c2 ON c1.k = c2.k": "[[120 142800]]",
	}
	for q, want := range queries {
		if got := fmt.Sprint(queryStrings(t, db, q)); got != want {
			t.Fatalf("%s = %s, want %s", q, got, want)
		}
	}
	h0 := balanceItem(t, db, "history_tablets")
	var unstable atomic.Int64
	rc := checkReads(db, queries, func() {
		if rows, err := queryStringsErr(db, "SHOW PROC '/colocation_group'"); err == nil && len(rows) == 1 && rows[0][6] == "false" {
			unstable.Add(1)
		}
	})
	start := time.Now()
	mustExec(t, db, fmt.Sprintf(`CANCEL DECOMMISSION BACKEND "%s"`, leaving.mysqlAddr))
	waitFor(t, 30*time.Second, "replica counts even within 1, the group stable, balance idle", func() bool {
		m := clusterLoad(t, db)
		return len(m) == 3 && loadSpread(m) <= 1 && queryStrings(t, db, "SHOW PROC '/colocation_group'")[0][6] == "true" &&
			balanceItem(t, db, "running_tablets") == 0
	})
	took := time.Since(start)
	reads := rc.finish(t, "during the balance")
	after := clusterLoad(t, db)
	clones := balanceItem(t, db, "history_tablets") - h0
	t.Logf("replicas per backend %v → %v in %v; %d clones; %d reads, the group seen unstable %d times", before, after, took, clones, reads, unstable.Load())
	if after[leavingID] < 6 {
		t.Errorf("the backend back from decommission holds %d replicas: %v", after[leavingID], after)
	}
	g := queryStrings(t, db, "SHOW PROC '/colocation_group'")
	if seq := fmt.Sprint(queryStrings(t, db, "SHOW PROC '/colocation_group/"+g[0][0]+"'")); !strings.Contains(seq, leavingID) {
		t.Errorf("no bucket of the group moved to %s: %s", leavingID, seq)
	}
	checkReplicas(t, db, "cd", map[string]int{"t1": 1, "t2": 2, "c1": 1, "c2": 1})
	for q, want := range queries {
		if got := fmt.Sprint(queryStrings(t, db, q)); got != want {
			t.Errorf("after the balance %s = %s, want %s", q, got, want)
		}
	}
	// Settled: later rounds clone nothing more.
	h1 := balanceItem(t, db, "history_tablets")
	time.Sleep(2 * time.Second)
	if h2 := balanceItem(t, db, "history_tablets"); h2 != h1 {
		t.Errorf("balance kept moving after it settled: history_tablets %d then %d", h1, h2)
	}
}
