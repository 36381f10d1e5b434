package server_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// slowRows is the stream load's body: n CSV rows keyed from base.
func slowRows(base, n int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%d,stream-load-row-%d\n", base+i, i)
	}
	return b.Bytes()
}

// txnStates are SHOW TRANSACTION's statuses of label's transactions in
// db, by id ("" if none).
func txnStates(db *sql.DB, dbName, label string) string {
	rows, err := queryStringsErr(db, fmt.Sprintf("SHOW TRANSACTION FROM %s WHERE label = '%s'", dbName, label))
	if err != nil {
		return ""
	}
	sort.Slice(rows, func(i, j int) bool {
		a, _ := strconv.Atoi(rows[i][0])
		b, _ := strconv.Atoi(rows[j][0])
		return a < b
	})
	st := make([]string, len(rows))
	for i, r := range rows {
		st[i] = r[3]
	}
	return strings.Join(st, ",")
}

// Loads in flight when the master is killed -9 fail cleanly and can be
// retried with the same label: a labelled stream load streaming slowly
// into the master and a labelled INSERT … SELECT forwarded by a follower
// both answer an error; the new master's take-over aborts the
// transactions the old one left unfinished, so the same labels load
// again, once; a label that did commit answers "Label Already Exists".
// An explicit transaction open through a follower when its master dies
// cannot be committed on the new one (its writes are gone with the old
// master's session), instead of a COMMIT that silently commits nothing.
func TestE2EFrontendsLoadsInFlightAtFailover(t *testing.T) {
	c := startHACluster(t)
	m := c.dbs[0]
	mustExec(t, m, "CREATE DATABASE hl")
	mustExec(t, m, `CREATE TABLE hl.t (k BIGINT, v VARCHAR(64)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "3")`)
	// The INSERT's source: a cross join, seconds of writing.
	na, nb := 2000, 1000
	mustExec(t, m, `CREATE TABLE hl.a (i BIGINT) DUPLICATE KEY(i) DISTRIBUTED BY HASH(i) BUCKETS 3 PROPERTIES ("replication_num" = "3")`)
	mustExec(t, m, `CREATE TABLE hl.b (j BIGINT) DUPLICATE KEY(j) DISTRIBUTED BY HASH(j) BUCKETS 3 PROPERTIES ("replication_num" = "3")`)
	mustExec(t, m, fmt.Sprintf(`INSERT INTO hl.a SELECT number FROM numbers("number" = "%d")`, na))
	mustExec(t, m, fmt.Sprintf(`INSERT INTO hl.b SELECT number FROM numbers("number" = "%d")`, nb))
	insertSQL := fmt.Sprintf(`INSERT INTO hl.t WITH LABEL ins_fly SELECT i * %d + j, concat('insert-', i, '-', j) FROM hl.a, hl.b`, nb)
	const slBase, slRows = 100_000_000, 150_000
	body := slowRows(slBase, slRows)

	// A label that commits before the kill.
	mustStreamLoad(t, c.fes[0].httpAddr, "hl", "t", map[string]string{"label": "sl_done", "column_separator": ","}, slowRows(200_000_000, 10))

	// An explicit transaction through a follower, left open.
	tx, err := c.dbs[2].Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	mustExec(t, tx, "BEGIN WITH LABEL txn_fly")
	mustExec(t, tx, "INSERT INTO hl.t VALUES (300000000, 'txn')")

	// The stream load: the body trickles in, 16 KiB every 20 ms (6 s in
	// all); the client's transport ends the pipe when the master dies.
	pr, pw := io.Pipe()
	var sent atomic.Int64
	go func() {
		for off := 0; off < len(body); off += 16 << 10 {
			end := min(off+16<<10, len(body))
			n, err := pw.Write(body[off:end])
			sent.Add(int64(n))
			if err != nil {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		pw.Close()
	}()
	type slResult struct {
		rep loadReply
		err error
	}
	slDone := make(chan slResult, 1)
	go func() {
		rep, err := streamLoad(context.Background(), c.fes[0].httpAddr, "hl", "t", "root", "",
			map[string]string{"label": "sl_fly", "column_separator": ","}, pr)
		slDone <- slResult{rep, err}
	}()
	// The INSERT starts once the stream load has sent a MiB: it may take
	// less than the stream load's 6 s, and both must be in flight at the kill.
	waitFor(t, 30*time.Second, "the stream load streaming", func() bool { return sent.Load() > 1<<20 })
	insDone := make(chan error, 1)
	go func() {
		_, err := c.dbs[1].Exec(insertSQL)
		insDone <- err
	}()
	waitFor(t, 30*time.Second, "the INSERT loading and the stream load streaming", func() bool {
		rows, err := queryStringsErr(m, `SHOW LOAD FROM hl WHERE LABEL = "ins_fly"`)
		return err == nil && len(rows) == 1 && rows[0][2] == "LOADING" && sent.Load() < int64(len(body))
	})
	killed := time.Now()
	sentAtKill := sent.Load()
	c.fes[0].kill()

	sl := <-slDone
	if sl.err == nil && sl.rep.Status == "Success" {
		t.Fatalf("the stream load in flight when its master died succeeded: %+v", sl.rep)
	}
	ierr := <-insDone
	if ierr == nil {
		t.Fatal("the INSERT in flight when the master died succeeded")
	}
	t.Logf("in flight at the kill (stream load had sent %d of %d bytes): stream load %v %+v; INSERT %v", sentAtKill, len(body), sl.err, sl.rep.Message, ierr)

	var newMaster int
	waitFor(t, 15*time.Second, "a new master", func() bool {
		n := c.master(1)
		for i := 1; i < 3; i++ {
			if n == c.name(i) {
				newMaster = i
				return true
			}
		}
		return false
	})
	elected := time.Since(killed)
	follower := 3 - newMaster // the surviving follower
	// The new master's take-over aborted what the old one left unfinished.
	for _, label := range []string{"sl_fly", "ins_fly", "txn_fly"} {
		waitFor(t, 15*time.Second, label+" aborted on every surviving frontend", func() bool {
			return txnStates(c.dbs[1], "hl", label) == "ABORTED" && txnStates(c.dbs[2], "hl", label) == "ABORTED"
		})
	}
	aborted := time.Since(killed)

	// The open transaction's COMMIT cannot commit what the old master
	// held: it fails and nothing of it is visible.
	if _, err := tx.ExecContext(t.Context(), "COMMIT"); err == nil {
		t.Fatal("COMMIT of a transaction opened on the killed master was acknowledged")
	} else {
		t.Logf("COMMIT after the failover: %v", err)
	}
	if got := queryStrings(t, c.dbs[follower], "SELECT count(*) FROM hl.t WHERE k = 300000000"); got[0][0] != "0" {
		t.Fatalf("the lost transaction's row is visible: %v", got)
	}
	// The session works afterwards, outside a transaction.
	mustExec(t, tx, "INSERT INTO hl.t VALUES (300000001, 'after')")

	// Retries with the same labels: the stream load through the follower
	// (307 to the new master), the INSERT through the follower too.
	retry := time.Now()
	rep := mustStreamLoad(t, c.fes[follower].httpAddr, "hl", "t", map[string]string{"label": "sl_fly", "column_separator": ","}, body)
	if rep.NumberLoadedRows != slRows {
		t.Fatalf("the retried stream load loaded %d rows, want %d", rep.NumberLoadedRows, slRows)
	}
	slTook := time.Since(retry)
	retry = time.Now()
	mustExec(t, c.dbs[follower], insertSQL)
	insTook := time.Since(retry)
	// The explicit transaction's label too.
	mustExec(t, tx, "BEGIN WITH LABEL txn_fly")
	mustExec(t, tx, "INSERT INTO hl.t VALUES (300000000, 'txn')")
	mustExec(t, tx, "COMMIT")

	// Labels that committed answer Doris's "Label Already Exists".
	for _, label := range []string{"sl_done", "sl_fly"} {
		for _, fe := range []int{newMaster, follower} {
			r, err := streamLoad(context.Background(), c.fes[fe].httpAddr, "hl", "t", "root", "",
				map[string]string{"label": label, "column_separator": ","}, bytes.NewReader(slowRows(400_000_000, 3)))
			if err != nil || r.Status != "Label Already Exists" || r.ExistingJobStatus != "FINISHED" {
				t.Fatalf("stream load with the committed label %s through frontend %d: %+v %v", label, fe, r, err)
			}
		}
	}
	if _, err := c.dbs[follower].Exec(insertSQL); err == nil || !strings.Contains(err.Error(), "has already been used") {
		t.Fatalf("INSERT with the committed label ins_fly again: %v", err)
	}
	if _, err := c.dbs[newMaster].Exec("INSERT INTO hl.t WITH LABEL sl_done VALUES (1, 'x')"); err == nil || !strings.Contains(err.Error(), "has already been used") {
		t.Fatalf("INSERT with the stream load's committed label: %v", err)
	}

	// Every row counted once, on both survivors and on the old master
	// once it has restarted as a follower.
	want := fmt.Sprintf("%d %d %d %d", na*nb, slRows, 10, 2)
	q := `SELECT sum(if(k < 100000000, 1, 0)), sum(if(k >= 100000000 AND k < 200000000, 1, 0)),
		sum(if(k >= 200000000 AND k < 300000000, 1, 0)), sum(if(k >= 300000000, 1, 0)) FROM hl.t`
	c.restart(t, 0)
	for i, db := range c.dbs {
		waitFor(t, 30*time.Second, fmt.Sprintf("frontend %d counts every load once", i), func() bool {
			r, err := queryStringsErr(db, q)
			return err == nil && strings.Join(r[0], " ") == want
		})
		for label, st := range map[string]string{"sl_done": "VISIBLE", "sl_fly": "ABORTED,VISIBLE", "ins_fly": "ABORTED,VISIBLE", "txn_fly": "ABORTED,VISIBLE"} {
			if got := txnStates(db, "hl", label); got != st {
				t.Fatalf("frontend %d: label %s is %q, want %s", i, label, got, st)
			}
		}
	}
	t.Logf("new master elected %v after the kill; the in-flight labels aborted %v after it; retried stream load (%d rows) %v, INSERT (%d rows) %v",
		elected.Round(time.Millisecond), aborted.Round(time.Millisecond), slRows, slTook.Round(time.Millisecond), na*nb, insTook.Round(time.Millisecond))
}
