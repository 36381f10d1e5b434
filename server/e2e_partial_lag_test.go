package server_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// partialWriter runs one kind of partial column update of every key in
// rounds 1, 2, …, one at a time, and remembers which rounds were
// acknowledged and which failed (a failed one may still have committed).
type partialWriter struct {
	stop      atomic.Bool
	done      chan struct{}
	mu        sync.Mutex
	acked     int64
	failedAft []int64 // rounds that failed after the last acknowledged one
	failures  []string
}

func (w *partialWriter) run(round func(i int64) error) {
	w.done = make(chan struct{})
	go func() {
		defer close(w.done)
		for i := int64(1); !w.stop.Load(); i++ {
			err := round(i)
			w.mu.Lock()
			if err != nil {
				w.failedAft = append(w.failedAft, i)
				w.failures = append(w.failures, err.Error())
			} else {
				w.acked, w.failedAft = i, nil
			}
			w.mu.Unlock()
		}
	}()
}

// ackedNow is the last acknowledged round so far.
func (w *partialWriter) ackedNow() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.acked
}

func (w *partialWriter) finish() {
	w.stop.Store(true)
	<-w.done
}

// allows reports whether v is what the column may hold: the last
// acknowledged round, or a later one that failed (it may have committed).
func (w *partialWriter) allows(v int64) bool {
	if v == w.acked {
		return true
	}
	for _, f := range w.failedAft {
		if v == f {
			return true
		}
	}
	return false
}

// Replicas of a merge-on-write table stay identical under concurrent
// partial column updates while one replica lags (issue 14): over real
// processes (an FE, three BEs), a stream load with partial_columns sets
// column a of every key to its round number, and concurrently UPDATE sets
// b the same way (a partial update too: the backend fills a and c from
// the row). One backend is killed, an UPDATE sets c = 1 on the majority
// without it and a DELETE removes the last 10 keys (the next stream load
// re-creates them as new keys), and it comes back: it is caught up by clone while both
// writers go on, so loads write it while it lags and publish across the
// clone. Afterwards every tablet's replicas have equal checksums (ADMIN
// CHECK TABLET), each backend alone (the other two killed) answers the
// same rows, and those are the model of the acknowledged writes: every
// key with a = the last acknowledged stream load round, b = the last
// acknowledged UPDATE round, c = 1 (0 on the re-created keys). Before the publish-time refill a load
// filled on the lagging replica kept its stale c = 0 after the clone, and
// a concurrent update of the other column was lost on some replicas.
func TestE2EPartialUpdateLaggingReplica(t *testing.T) {
	fe, bes, db := startClusterProcs(t, 3)
	mustExec(t, db, `ADMIN SET FRONTEND CONFIG ("disable_balance" = "true")`)
	mustExec(t, db, "CREATE DATABASE pl")
	mustExec(t, db, `CREATE TABLE pl.t (k INT, a BIGINT DEFAULT "0", b BIGINT DEFAULT "0", c BIGINT DEFAULT "0")
		UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "3")`)
	const keys, deleted = 300, 10
	var vals []string
	for k := 0; k < keys; k++ {
		vals = append(vals, fmt.Sprintf("(%d, 0, 0, 0)", k))
	}
	mustExec(t, db, "INSERT INTO pl.t VALUES "+strings.Join(vals, ","))

	var sl, up partialWriter
	sl.run(func(i int64) error {
		var body bytes.Buffer
		for k := 0; k < keys; k++ {
			fmt.Fprintf(&body, "%d,%d\n", k, i)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		r, err := streamLoad(ctx, fe.httpAddr, "pl", "t", "root", "",
			map[string]string{"partial_columns": "true", "columns": "k, a", "column_separator": ","}, &body)
		if err != nil {
			return err
		}
		if r.Status != "Success" {
			return fmt.Errorf("stream load round %d: %s %s", i, r.Status, r.Message)
		}
		return nil
	})
	up.run(func(i int64) error {
		_, err := db.Exec(fmt.Sprintf("UPDATE pl.t SET b = %d WHERE k >= 0", i))
		return err
	})
	defer sl.finish()
	defer up.finish()

	time.Sleep(time.Second)
	bes[2].kill()
	waitFor(t, 15*time.Second, "the killed backend marked dead", func() bool { return deadBackends(t, db) == 1 })
	// Missed by the dead backend's replicas: their c stays 0 until a clone.
	mustExec(t, db, "UPDATE pl.t SET c = 1 WHERE k >= 0")
	// Deleted (delete-sign rows) while partial updates are in flight: the
	// next stream load round brings the keys back as new keys, with the
	// defaults (c = 0), never with the deleted rows' values.
	mustExec(t, db, fmt.Sprintf("DELETE FROM pl.t WHERE k >= %d", keys-deleted))
	time.Sleep(500 * time.Millisecond)
	bes[2] = restartBE(t, bes[2])
	waitBackendsAliveWithin(t, db, 3, 15*time.Second)
	// Caught up by clone while both writers go on.
	waitFor(t, 60*time.Second, "every replica healthy under partial updates", func() bool {
		return len(unhealthy(t, db, "pl.t")) == 0
	})
	time.Sleep(1500 * time.Millisecond)
	sl.finish()
	up.finish()
	waitFor(t, 30*time.Second, "every replica healthy after the updates", func() bool {
		return len(unhealthy(t, db, "pl.t")) == 0
	})
	if sl.acked == 0 || up.acked == 0 {
		t.Fatalf("no round acknowledged: stream loads %d (%v), updates %d (%v)", sl.acked, sl.failures, up.acked, up.failures)
	}
	t.Logf("stream load rounds acknowledged %d (failures %d), UPDATE rounds %d (failures %d)", sl.acked, len(sl.failures), up.acked, len(up.failures))
	for _, f := range append(sl.failures[:min(3, len(sl.failures))], up.failures[:min(3, len(up.failures))]...) {
		t.Logf("failure: %s", f)
	}

	q := fmt.Sprintf(`SELECT count(*), min(a), max(a), min(b), max(b),
		sum(CASE WHEN k < %[1]d THEN c ELSE 0 END), sum(CASE WHEN k >= %[1]d THEN c ELSE 0 END) FROM pl.t`, keys-deleted)
	checkModel := func(what string) string {
		t.Helper()
		var got []int64
		for _, v := range queryStrings(t, db, q)[0] {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatalf("%s: %s: %v", what, q, err)
			}
			got = append(got, n)
		}
		if got[0] != keys || got[1] != got[2] || got[3] != got[4] || got[5] != keys-deleted || got[6] != 0 ||
			!sl.allows(got[1]) || !up.allows(got[3]) {
			t.Errorf("%s: count, min/max of a, min/max of b, sum(c) of the kept and the deleted keys = %v; want %d keys, a = %d (stream load rounds acknowledged; failed after: %v), b = %d (UPDATE rounds; failed after: %v), c = 1 on the %d kept keys, 0 on the re-created ones",
				what, got, keys, sl.acked, sl.failedAft, up.acked, up.failedAft, keys-deleted)
		}
		return fmt.Sprint(got)
	}
	want := checkModel("all backends")

	var ids []string
	for tab := range replicasPerTablet(t, db, "pl.t") {
		ids = append(ids, tab)
	}
	mustExec(t, db, fmt.Sprintf(`ADMIN CHECK TABLET (%s) PROPERTIES("type" = "consistency")`, strings.Join(ids, ", ")))
	for _, r := range queryStrings(t, db, "SHOW PROC '/cluster_health/tablet_health'") {
		if r[1] == "pl" && (r[2] != "3" || r[3] != "3" || r[16] != "0") {
			t.Errorf("tablet_health of pl: TabletNum %s HealthyNum %s InconsistentNum %s, want 3, 3, 0 (replicas differ)", r[2], r[3], r[16])
		}
	}
	// Each backend alone: the other two killed, then restarted.
	for i := range bes {
		for j := range bes {
			if j != i {
				bes[j].kill()
			}
		}
		waitFor(t, 15*time.Second, "two backends marked dead", func() bool { return deadBackends(t, db) == 2 })
		if got := checkModel(fmt.Sprintf("backend %d alone", i)); got != want {
			t.Errorf("backend %d alone answers %s, all backends %s", i, got, want)
		}
		for j := range bes {
			if j != i {
				bes[j] = restartBE(t, bes[j])
			}
		}
		waitBackendsAliveWithin(t, db, 3, 15*time.Second)
	}
}

// deadBackends counts the backends SHOW BACKENDS reports not alive.
func deadBackends(t *testing.T, db *sql.DB) int {
	t.Helper()
	n := 0
	for _, r := range queryStrings(t, db, "SHOW BACKENDS") {
		if r[9] == "false" {
			n++
		}
	}
	return n
}

// Concurrent partial column updates of different columns of the same keys
// on the in-process cluster (three backends, three replicas each): a
// stream load with partial_columns sets a, UPDATE sets b, round after
// round. Neither update is lost (no read sees a column below its writer's
// last acknowledged round, and each ends there on every key) and the
// replicas hold the same rows
// (ADMIN CHECK TABLET), whichever order each backend got the rows and the
// publishes in.
func TestE2EPartialUpdatesConcurrent(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE pc")
	mustExec(t, db, `CREATE TABLE pc.t (k INT, a BIGINT DEFAULT "0", b BIGINT DEFAULT "0")
		UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "3")`)
	const keys = 200
	var vals []string
	for k := 0; k < keys; k++ {
		vals = append(vals, fmt.Sprintf("(%d, 0, 0)", k))
	}
	mustExec(t, db, "INSERT INTO pc.t VALUES "+strings.Join(vals, ","))
	var sl, up partialWriter
	sl.run(func(i int64) error {
		var body bytes.Buffer
		for k := 0; k < keys; k++ {
			fmt.Fprintf(&body, "%d,%d\n", k, i)
		}
		r, err := streamLoad(context.Background(), s.HTTPAddr(), "pc", "t", "root", "",
			map[string]string{"partial_columns": "true", "columns": "k, a", "column_separator": ","}, &body)
		if err == nil && r.Status != "Success" {
			err = fmt.Errorf("stream load round %d: %s %s", i, r.Status, r.Message)
		}
		return err
	})
	up.run(func(i int64) error {
		_, err := db.Exec(fmt.Sprintf("UPDATE pc.t SET b = %d WHERE k >= 0", i))
		return err
	})
	// An acknowledged round stays visible: no later update of the other
	// column brings back an older value of this one.
	deadline := time.Now().Add(3 * time.Second)
	var lost []string
	for time.Now().Before(deadline) {
		wantA, wantB := sl.ackedNow(), up.ackedNow()
		r := queryStrings(t, db, "SELECT min(a), min(b) FROM pc.t")[0]
		a, _ := strconv.ParseInt(r[0], 10, 64)
		b, _ := strconv.ParseInt(r[1], 10, 64)
		if a < wantA || b < wantB {
			lost = append(lost, fmt.Sprintf("min(a) %d after round %d acknowledged, min(b) %d after round %d", a, wantA, b, wantB))
		}
	}
	sl.finish()
	up.finish()
	if len(lost) > 0 {
		t.Errorf("%d reads saw an acknowledged update undone, first: %s", len(lost), lost[0])
	}
	if len(sl.failures)+len(up.failures) > 0 {
		t.Fatalf("updates failed on a healthy cluster: %v %v", sl.failures, up.failures)
	}
	got := fmt.Sprint(queryStrings(t, db, "SELECT count(*), min(a), max(a), min(b), max(b) FROM pc.t"))
	if want := fmt.Sprintf("[[%d %d %d %d %d]]", keys, sl.acked, sl.acked, up.acked, up.acked); got != want {
		t.Fatalf("count, min/max of a, min/max of b = %s, want %s (every key at each writer's last round)", got, want)
	}
	var ids []string
	for tab := range replicasPerTablet(t, db, "pc.t") {
		ids = append(ids, tab)
	}
	mustExec(t, db, fmt.Sprintf(`ADMIN CHECK TABLET (%s) PROPERTIES("type" = "consistency")`, strings.Join(ids, ", ")))
	for _, r := range queryStrings(t, db, "SHOW PROC '/cluster_health/tablet_health'") {
		if r[1] == "pc" && r[16] != "0" {
			t.Errorf("tablet_health of pc: InconsistentNum %s, want 0 (replicas differ)", r[16])
		}
	}
}
