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

// startClusterProcs runs an FE process and n BE processes joined with
// ALTER SYSTEM ADD BACKEND; the FE's first BE has an HTTP port.
func startClusterProcs(t *testing.T, n int) (*proc, []*proc, *sql.DB) {
	t.Helper()
	root := t.TempDir()
	bes := make([]*proc, n)
	for i := range bes {
		bes[i] = startBE(t, filepath.Join(root, fmt.Sprintf("be%d", i)), false)
	}
	fe := startFE(t, filepath.Join(root, "fe"))
	db := openDB(t, fe.mysqlAddr, "", true)
	for _, b := range bes {
		mustExec(t, db, fmt.Sprintf(`ALTER SYSTEM ADD BACKEND "%s"`, b.mysqlAddr))
	}
	waitBackendsAlive(t, db, n)
	return fe, bes, db
}

// backendIDOf is the BackendId SHOW BACKENDS gives the process's port.
func backendIDOf(t *testing.T, db *sql.DB, be *proc) string {
	t.Helper()
	port := strings.Split(be.mysqlAddr, ":")[1]
	for _, r := range queryStrings(t, db, "SHOW BACKENDS") {
		if r[3] == port {
			return r[0]
		}
	}
	t.Fatalf("backend %s not in SHOW BACKENDS", be.mysqlAddr)
	return ""
}

// unhealthy lists ADMIN SHOW REPLICA STATUS rows of t not OK, or whose
// Version is not the partition's (CommittedVersion column: visible).
func unhealthy(t *testing.T, db *sql.DB, table string) [][]string {
	t.Helper()
	var out [][]string
	for _, r := range queryStrings(t, db, "ADMIN SHOW REPLICA STATUS FROM "+table) {
		if r[12] != "OK" || r[3] != r[6] || r[4] != "-1" {
			out = append(out, r)
		}
	}
	return out
}

// replicasPerTablet counts t's replicas per tablet and lists their backends.
func replicasPerTablet(t *testing.T, db *sql.DB, table string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, r := range queryStrings(t, db, "ADMIN SHOW REPLICA STATUS FROM "+table) {
		out[r[0]] = append(out[r[0]], r[2])
	}
	return out
}

// A cluster that heals, over real processes (an FE and four BEs):
//   - with one backend killed, INSERT, INSERT … SELECT, DELETE and UPDATE
//     on a 3-replica table commit on the majority; queries give the right
//     rows; ADMIN SHOW REPLICA STATUS shows the missed replicas (DEAD,
//     LastFailedVersion set); a 1-replica table's tablet on the dead
//     backend fails loads and reads with an error naming the tablet;
//   - restarted, the backend's lagging replicas are caught up by clone:
//     every replica OK at the visible version, with the same answers;
//   - killed for good, with tablet_repair_delay_factor_second = 1, its
//     replicas are re-created on the backend that lacked them: 3 healthy
//     replicas per tablet, none on the dead one; DROP BACKEND is refused
//     while it holds a 1-replica tablet's last copy, DROPP forces it;
//   - DECOMMISSION of a live backend under a read loop moves its replicas
//     to a newly added backend and drops it, answers unchanged throughout;
//     SHOW PROC '/cluster_health/tablet_health' counts all tablets healthy.
func TestE2EClusterHeals(t *testing.T) {
	fe, bes, db := startClusterProcs(t, 4)
	// Repairs only: balance would move t1's tablets, and which ones the
	// force-dropped backend holds (e2e_balance_test.go covers balance).
	mustExec(t, db, `ADMIN SET FRONTEND CONFIG ("disable_balance" = "true")`)
	mustExec(t, db, "CREATE DATABASE h")
	mustExec(t, db, `CREATE TABLE h.t3 (k INT, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 4 PROPERTIES ("replication_num" = "3")`)
	mustExec(t, db, `CREATE TABLE h.t1 (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 4 PROPERTIES ("replication_num" = "1")`)
	ins := func(table string, lo, hi int) error {
		var vals []string
		for i := lo; i < hi; i++ {
			vals = append(vals, fmt.Sprintf("(%d, %d)", i, i*10))
		}
		_, err := db.Exec("INSERT INTO " + table + " VALUES " + strings.Join(vals, ","))
		return err
	}
	if err := ins("h.t3", 0, 200); err != nil {
		t.Fatal(err)
	}
	if err := ins("h.t1", 0, 40); err != nil {
		t.Fatal(err)
	}
	// A colocate group of two 3-replica tables.
	for _, n := range []string{"c1", "c2"} {
		mustExec(t, db, `CREATE TABLE h.`+n+` (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2
			PROPERTIES ("replication_num" = "3", "colocate_with" = "g")`)
		if err := ins("h."+n, 0, 100); err != nil {
			t.Fatal(err)
		}
	}
	const joinQ = "SELECT count(*), sum(c1.v + c2.v) FROM h.c1 JOIN h.c2 ON c1.k = c2.k"
	const joinWant = "[[100 99000]]"
	const sumQ = "SELECT count(*), sum(v) FROM h.t3"
	check := func(what, want string) {
		t.Helper()
		if got := fmt.Sprint(queryStrings(t, db, sumQ)); got != want {
			t.Fatalf("%s: %s = %s, want %s", what, sumQ, got, want)
		}
	}
	check("loaded", "[[200 199000]]")

	// 1. Majority writes with one backend down.
	victim := bes[0]
	victimID := backendIDOf(t, db, victim)
	victim.kill()
	waitFor(t, 10*time.Second, "the killed backend marked dead", func() bool {
		for _, r := range queryStrings(t, db, "SHOW BACKENDS") {
			if r[0] == victimID {
				return r[9] == "false"
			}
		}
		return false
	})
	if err := ins("h.t3", 200, 300); err != nil {
		t.Fatalf("INSERT with one of three replicas down: %v", err)
	}
	mustExec(t, db, "INSERT INTO h.t3 SELECT k + 1000, v FROM h.t3 WHERE k < 50") // table sink path
	mustExec(t, db, "DELETE FROM h.t3 WHERE k = 7")
	mustExec(t, db, "UPDATE h.t3 SET v = v + 1 WHERE k = 8")
	// 299 + 50 rows; sum: 0..299 *10 = 448500, -70 (k=7), +1 (k=8), + 0..49*10 = 12250.
	want := "[[349 460681]]"
	check("after majority loads", want)
	// Stream load commits on the majority too.
	if r := mustStreamLoad(t, fe.httpAddr, "h", "c1", map[string]string{"column_separator": ","}, []byte("500,0\n501,0\n")); r.NumberLoadedRows != 2 {
		t.Fatalf("stream load with a backend down: %+v", r)
	}
	mustExec(t, db, "DELETE FROM h.c1 WHERE k >= 500")
	bad := unhealthy(t, db, "h.t3")
	if len(bad) == 0 {
		t.Fatal("no replica reported missing a version while a backend is down")
	}
	for _, r := range bad {
		if r[2] != victimID {
			t.Errorf("replica on backend %s reported unhealthy: %v", r[2], r)
		}
	}
	// A 1-replica tablet on the dead backend: loads and reads name it.
	err := ins("h.t1", 100, 140)
	if err == nil || !strings.Contains(err.Error(), "tablet") || !strings.Contains(err.Error(), "majority") {
		t.Errorf("INSERT into a 1-replica table with its backend dead: %v, want a majority error naming the tablet", err)
	}
	if _, err := queryStringsErr(db, "SELECT count(*) FROM h.t1"); err == nil || !strings.Contains(err.Error(), "tablet") {
		t.Errorf("read of a 1-replica table with its backend dead: %v, want an error naming the tablet", err)
	}

	// 2. Catch-up: the backend returns and its lagging replicas are cloned.
	bes[0] = restartBE(t, victim)
	waitBackendsAliveWithin(t, db, 4, 10*time.Second)
	waitFor(t, 20*time.Second, "every replica of h.t3 at the visible version", func() bool {
		return len(unhealthy(t, db, "h.t3")) == 0
	})
	check("after catch-up", want)
	for tab, bs := range replicasPerTablet(t, db, "h.t3") {
		if len(bs) != 3 {
			t.Errorf("tablet %s has replicas on %v, want 3", tab, bs)
		}
	}
	mustExec(t, db, "ADMIN SET FRONTEND CONFIG (\"tablet_repair_delay_factor_second\" = \"1\")")

	// 3. Repair: a backend dead past the repair delay is replaced.
	gone := bes[3]
	goneID := backendIDOf(t, db, gone)
	gone.kill()
	if err := ins("h.t3", 2000, 2100); err != nil {
		t.Fatalf("INSERT after a second backend died: %v", err)
	}
	var n, s int64
	if err := db.QueryRow(sumQ).Scan(&n, &s); err != nil {
		t.Fatal(err)
	}
	if n != 449 || s != 460681+2049500 {
		t.Fatalf("after the second backend died: %d rows, sum %d; want 449, %d", n, s, 460681+2049500)
	}
	want = fmt.Sprintf("[[449 %d]]", 460681+2049500)
	waitFor(t, 30*time.Second, "h.t3 re-replicated off the dead backend", func() bool {
		if len(unhealthy(t, db, "h.t3")) != 0 {
			return false
		}
		for _, bs := range replicasPerTablet(t, db, "h.t3") {
			if len(bs) != 3 {
				return false
			}
			for _, b := range bs {
				if b == goneID {
					return false
				}
			}
		}
		return true
	})
	check("after repair", want)
	// The colocate group's buckets moved off the dead backend as wholes:
	// the group is stable again, its sequence without the dead backend.
	waitFor(t, 30*time.Second, "colocate group g stable without the dead backend", func() bool {
		for _, r := range queryStrings(t, db, "SHOW PROC '/colocation_group'") {
			if strings.HasSuffix(r[1], "_g") {
				if r[6] != "true" {
					return false
				}
				for _, b := range queryStrings(t, db, "SHOW PROC '/colocation_group/"+r[0]+"'") {
					if strings.Contains(b[1], goneID) {
						return false
					}
				}
				return true
			}
		}
		return false
	})
	if got := fmt.Sprint(queryStrings(t, db, joinQ)); got != joinWant {
		t.Errorf("colocate join after the repair: %s, want %s", got, joinWant)
	}
	mustExec(t, db, "ADMIN REPAIR TABLE h.t3")
	if _, err := db.Exec("ADMIN REPAIR TABLE h.nosuch"); err == nil {
		t.Error("ADMIN REPAIR TABLE of a missing table succeeded")
	}
	hp := gone.mysqlAddr
	if _, err := db.Exec(fmt.Sprintf(`ALTER SYSTEM DROP BACKEND "%s"`, hp)); err == nil || !strings.Contains(err.Error(), "last healthy replica") {
		t.Errorf("DROP BACKEND holding a tablet's last replica: %v, want a refusal", err)
	}
	mustExec(t, db, fmt.Sprintf(`ALTER SYSTEM DROPP BACKEND "%s"`, hp))

	// 4. Decommission under a read loop, onto a newly added backend. With
	// three backends left, a 3-replica table has nowhere to go: refused.
	if _, err := db.Exec(fmt.Sprintf(`ALTER SYSTEM DECOMMISSION BACKEND "%s"`, bes[1].mysqlAddr)); err == nil || !strings.Contains(err.Error(), "needs 3 replicas") {
		t.Errorf("DECOMMISSION with no room for its replicas: %v, want a refusal", err)
	}
	fresh := startBE(t, filepath.Join(t.TempDir(), "be-new"), false)
	mustExec(t, db, fmt.Sprintf(`ALTER SYSTEM ADD BACKEND "%s"`, fresh.mysqlAddr))
	waitBackendsAlive(t, db, 4)
	var stop atomic.Bool
	var wg sync.WaitGroup
	var reads, readErrs atomic.Int64
	var firstBad atomic.Value
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			got, err := queryStringsErr(db, sumQ)
			reads.Add(1)
			if err != nil || fmt.Sprint(got) != want {
				readErrs.Add(1)
				firstBad.CompareAndSwap(nil, fmt.Sprint(got, err))
			}
		}
	}()
	leaving := bes[1]
	leavingID := backendIDOf(t, db, leaving)
	mustExec(t, db, fmt.Sprintf(`ALTER SYSTEM DECOMMISSION BACKEND "%s"`, leaving.mysqlAddr))
	mustExec(t, db, fmt.Sprintf(`CANCEL DECOMMISSION BACKEND "%s"`, leaving.mysqlAddr))
	for _, r := range queryStrings(t, db, "SHOW BACKENDS") {
		if r[0] == leavingID && r[10] != "false" {
			t.Errorf("SystemDecommissioned after CANCEL DECOMMISSION: %s", r[10])
		}
	}
	mustExec(t, db, fmt.Sprintf(`ALTER SYSTEM DECOMMISSION BACKEND "%s"`, leaving.mysqlAddr))
	sawLeaving := false
	for _, r := range queryStrings(t, db, "SHOW BACKENDS") {
		sawLeaving = sawLeaving || (r[0] == leavingID && r[10] == "true")
	}
	if !sawLeaving {
		t.Error("SHOW BACKENDS does not show the backend SystemDecommissioned")
	}
	waitFor(t, 40*time.Second, "the decommissioned backend dropped", func() bool {
		for _, r := range queryStrings(t, db, "SHOW BACKENDS") {
			if r[0] == leavingID {
				return false
			}
		}
		return true
	})
	stop.Store(true)
	wg.Wait()
	if readErrs.Load() > 0 {
		t.Errorf("%d of %d reads during the decommission went wrong, first: %v", readErrs.Load(), reads.Load(), firstBad.Load())
	}
	check("after decommission", want)
	if got := fmt.Sprint(queryStrings(t, db, joinQ)); got != joinWant {
		t.Errorf("colocate join after the decommission: %s, want %s", got, joinWant)
	}
	total := 0
	for _, r := range queryStrings(t, db, "ADMIN SHOW REPLICA DISTRIBUTION FROM h.t3") {
		var n int
		fmt.Sscan(r[1], &n)
		total += n
		if r[0] == leavingID && n != 0 {
			t.Errorf("REPLICA DISTRIBUTION: %d replicas on the decommissioned backend", n)
		}
	}
	if total != 12 {
		t.Errorf("REPLICA DISTRIBUTION counts %d replicas of h.t3, want 12", total)
	}
	for tab, bs := range replicasPerTablet(t, db, "h.t3") {
		if len(bs) != 3 {
			t.Errorf("tablet %s has replicas on %v after the decommission, want 3", tab, bs)
		}
		for _, b := range bs {
			if b == leavingID {
				t.Errorf("tablet %s still has a replica on the decommissioned backend", tab)
			}
		}
	}
	// h holds 12 tablets: t3's 4, c1's and c2's 2 each, t1's 3 healthy and
	// the one whose only replica was on the force-dropped backend.
	health := queryStrings(t, db, "SHOW PROC '/cluster_health/tablet_health'")
	found := false
	for _, r := range health {
		if r[1] == "h" {
			found = true
			if r[2] != "12" || r[3] != "11" || r[14] != "1" {
				t.Errorf("tablet_health of h: TabletNum %s HealthyNum %s UnrecoverableNum %s, want 12, 11, 1", r[2], r[3], r[14])
			}
		}
	}
	if !found || health[len(health)-1][0] != "Total" {
		t.Errorf("tablet_health: %v", health)
	}
	t.Logf("%d reads during the decommission", reads.Load())

	// 5. A backend restarted at once is noticed by its start time, and the
	// next queries and loads route correctly.
	quick := bes[2]
	quickID := backendIDOf(t, db, quick)
	lastStart := func() string {
		for _, r := range queryStrings(t, db, "SHOW BACKENDS") {
			if r[0] == quickID && r[9] == "true" {
				return r[7]
			}
		}
		return ""
	}
	before := lastStart()
	time.Sleep(time.Second) // LastStartTime has a resolution of seconds
	quick.kill()
	bes[2] = restartBE(t, quick)
	waitFor(t, 10*time.Second, "the restart noticed", func() bool {
		now := lastStart()
		return now != "" && now != before
	})
	check("after a quick restart", want)
	if err := ins("h.t3", 5000, 5010); err != nil {
		t.Fatalf("INSERT after a quick restart: %v", err)
	}
	waitFor(t, 20*time.Second, "h.t3 healthy after the quick restart", func() bool {
		return len(unhealthy(t, db, "h.t3")) == 0
	})
}

// Under a steady stream of loads into a 3-replica table, one backend is
// killed and restarted: every load is acknowledged (the majority
// commits), every acknowledged row is there, the lagging replicas catch up
// while loads go on (the clone's new replica receives the loads begun
// after it was registered), ADMIN CHECK TABLET finds every tablet's
// replicas with equal checksums, and the restarted backend alone (the
// other two killed) answers the same rows.
func TestE2EClusterHealsUnderLoad(t *testing.T) {
	_, bes, db := startClusterProcs(t, 3)
	mustExec(t, db, "CREATE DATABASE hl")
	mustExec(t, db, `CREATE TABLE hl.t (k BIGINT, v BIGINT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "3")`)
	var stop atomic.Bool
	var acked, ackedSum atomic.Int64
	var failures []string
	var mu sync.Mutex
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; !stop.Load(); i++ {
			var vals []string
			var sum int64
			for j := 0; j < 20; j++ {
				k := int64(i*20 + j)
				vals = append(vals, fmt.Sprintf("(%d, %d)", k, k*3))
				sum += k * 3
			}
			if _, err := db.Exec("INSERT INTO hl.t VALUES " + strings.Join(vals, ",")); err != nil {
				mu.Lock()
				failures = append(failures, err.Error())
				mu.Unlock()
				continue
			}
			acked.Add(20)
			ackedSum.Add(sum)
		}
	}()
	time.Sleep(time.Second)
	bes[1].kill()
	time.Sleep(1500 * time.Millisecond)
	mid := acked.Load()
	bes[1] = restartBE(t, bes[1])
	waitBackendsAliveWithin(t, db, 3, 10*time.Second)
	// The lagging replicas catch up while the loads go on.
	waitFor(t, 30*time.Second, "every replica healthy under load", func() bool {
		return len(unhealthy(t, db, "hl.t")) == 0
	})
	stop.Store(true)
	<-done
	if len(failures) > 0 {
		t.Errorf("%d loads failed with a backend down, first: %s", len(failures), failures[0])
	}
	if acked.Load() <= mid {
		t.Errorf("no load acknowledged after the restart (%d rows before, %d after)", mid, acked.Load())
	}
	waitFor(t, 30*time.Second, "every replica healthy after the loads", func() bool {
		return len(unhealthy(t, db, "hl.t")) == 0
	})
	want := fmt.Sprintf("[[%d %d]]", acked.Load(), ackedSum.Load())
	if got := fmt.Sprint(queryStrings(t, db, "SELECT count(*), sum(v) FROM hl.t")); got != want {
		t.Fatalf("rows after the loads: %s, want the acknowledged %s", got, want)
	}
	var ids []string
	for tab, bs := range replicasPerTablet(t, db, "hl.t") {
		ids = append(ids, tab)
		if len(bs) != 3 {
			t.Errorf("tablet %s on %v, want 3 replicas", tab, bs)
		}
	}
	mustExec(t, db, fmt.Sprintf(`ADMIN CHECK TABLET (%s) PROPERTIES("type" = "consistency")`, strings.Join(ids, ", ")))
	for _, r := range queryStrings(t, db, "SHOW PROC '/cluster_health/tablet_health'") {
		if r[1] == "hl" && (r[2] != "3" || r[3] != "3" || r[16] != "0") {
			t.Errorf("tablet_health of hl: TabletNum %s HealthyNum %s InconsistentNum %s, want 3, 3, 0", r[2], r[3], r[16])
		}
	}
	// The caught-up backend alone holds every row.
	bes[0].kill()
	bes[2].kill()
	waitFor(t, 10*time.Second, "two backends marked dead", func() bool {
		dead := 0
		for _, r := range queryStrings(t, db, "SHOW BACKENDS") {
			if r[9] == "false" {
				dead++
			}
		}
		return dead == 2
	})
	if got := fmt.Sprint(queryStrings(t, db, "SELECT count(*), sum(v) FROM hl.t")); got != want {
		t.Fatalf("rows read from the caught-up backend alone: %s, want %s", got, want)
	}
}

// The replica ADMIN statements on a healthy in-process cluster: Doris's
// columns, WHERE STATUS and PARTITION filters, errors naming what is wrong.
func TestE2EAdminReplicaStatements(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE a")
	mustExec(t, db, `CREATE TABLE a.p (k INT, v INT) DUPLICATE KEY(k) PARTITION BY RANGE(k) (PARTITION p1 VALUES LESS THAN (10), PARTITION p2 VALUES LESS THAN (20))
		DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "3")`)
	mustExec(t, db, "INSERT INTO a.p VALUES (1, 1), (15, 2)")
	rows, err := db.Query("ADMIN SHOW REPLICA STATUS FROM a.p")
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := rows.Columns()
	rows.Close()
	if got := strings.Join(cols, ","); got != "TabletId,ReplicaId,BackendId,Version,LastFailedVersion,LastSuccessVersion,CommittedVersion,SchemaHash,VersionNum,IsBad,IsUserDrop,State,Status" {
		t.Errorf("columns %s", got)
	}
	all := queryStrings(t, db, "ADMIN SHOW REPLICA STATUS FROM a.p")
	if len(all) != 12 {
		t.Fatalf("%d replicas, want 2 partitions × 2 buckets × 3", len(all))
	}
	for _, r := range all {
		if r[12] != "OK" || r[4] != "-1" {
			t.Errorf("healthy replica shown %v", r)
		}
	}
	if n := len(queryStrings(t, db, `ADMIN SHOW REPLICA STATUS FROM a.p PARTITION (p2) WHERE STATUS = "OK"`)); n != 6 {
		t.Errorf("partition p2, status OK: %d rows, want 6", n)
	}
	if n := len(queryStrings(t, db, `ADMIN SHOW REPLICA STATUS FROM a.p WHERE STATUS != "OK"`)); n != 0 {
		t.Errorf("unhealthy replicas: %d rows, want 0", n)
	}
	if _, err := db.Exec("ADMIN SHOW REPLICA STATUS FROM a.p PARTITION (p9)"); err == nil || !strings.Contains(err.Error(), "p9") {
		t.Errorf("unknown partition: %v", err)
	}
	dist := queryStrings(t, db, "ADMIN SHOW REPLICA DISTRIBUTION FROM a.p")
	if len(dist) != 3 {
		t.Fatalf("distribution over %d backends, want 3: %v", len(dist), dist)
	}
	for _, r := range dist {
		if r[1] != "4" || r[4] != "33.33 %" {
			t.Errorf("distribution row %v, want 4 replicas, 33.33 %%", r)
		}
	}
	if _, err := db.Exec(`ADMIN SET FRONTEND CONFIG ("no_such_config" = "1")`); err == nil || errCode(err) != 1235 || !strings.Contains(err.Error(), "no_such_config") {
		t.Errorf("unknown config: %v", err)
	}
	mustExec(t, db, `ADMIN SET FRONTEND CONFIG ("tablet_repair_delay_factor_second" = "5")`)
	if _, err := db.Exec(`ADMIN SET FRONTEND CONFIG ("tablet_repair_delay_factor_second" = "soon")`); err == nil {
		t.Error("a non-numeric repair delay was accepted")
	}
	mustExec(t, db, "ADMIN REPAIR TABLE a.p")
	mustExec(t, db, "ADMIN CANCEL REPAIR TABLE a.p")
	if _, err := db.Exec("ADMIN CLEAN TRASH"); err == nil || errCode(err) != 1235 {
		t.Errorf("an ADMIN statement not supported: %v, want 1235", err)
	}
	health := queryStrings(t, db, "SHOW PROC '/cluster_health/tablet_health'")
	for _, r := range health {
		if r[1] == "a" && (r[2] != "4" || r[3] != "4") {
			t.Errorf("tablet_health of a: %v, want 4 tablets, 4 healthy", r)
		}
	}
	// DROP BACKEND refuses to lose a 1-replica table's only copy.
	mustExec(t, db, `CREATE TABLE a.one (k INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	b := queryStrings(t, db, "SHOW BACKENDS")[0]
	if _, err := db.Exec(fmt.Sprintf(`ALTER SYSTEM DROP BACKEND "%s:%s"`, b[1], b[3])); err == nil || !strings.Contains(err.Error(), "DROPP") {
		t.Errorf("DROP BACKEND holding the only replica: %v", err)
	}
}
