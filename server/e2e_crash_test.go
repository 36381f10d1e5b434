package server_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The crash tests run the dorisgo binary and SIGKILL it: nothing gets a
// chance to flush, so only what was synced before the kill survives.

// csvRows renders ids from..to (inclusive) as "id,text,x" lines.
func csvRows(from, to int) []byte {
	var b bytes.Buffer
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%d,row-%d-padding-padding,%d\n", i, i, i%997)
	}
	return b.Bytes()
}

// checkAllOrNone asserts that table holds either nothing or exactly ids 1..n once each.
func checkAllOrNone(t *testing.T, db *sql.DB, table string, n int, mustBeAll bool, what string) int {
	t.Helper()
	ids := sortInts(queryInts(t, db, "SELECT id FROM "+table))
	switch {
	case len(ids) == 0 && !mustBeAll:
		return 0
	case len(ids) == n:
		for i, id := range ids {
			if id != int64(i+1) {
				t.Fatalf("%s: %s has %d rows but id #%d is %d (duplicates or foreign rows)", what, table, n, i, id)
			}
		}
		return n
	}
	if mustBeAll {
		t.Fatalf("%s: acknowledged statement, but %s has %d of %d rows after restart", what, table, len(ids), n)
	}
	t.Fatalf("%s: %s has %d of %d rows after restart: a partial load became visible", what, table, len(ids), n)
	return -1
}

// TestE2ECrashInsertSelect kills the server in the middle of a large
// INSERT ... SELECT: after restart the target holds all rows or none.
func TestE2ECrashInsertSelect(t *testing.T) {
	t.Parallel()
	const n = 200_000
	dir := t.TempDir()
	p := startProc(t, dir)
	db := openDB(t, p.mysqlAddr, "", true)
	mustExec(t, db, "CREATE DATABASE c")
	mustExec(t, db, `CREATE TABLE c.src (id BIGINT NOT NULL, s VARCHAR(40), x INT) DUPLICATE KEY(id)
	  DISTRIBUTED BY HASH(id) BUCKETS 4 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, `CREATE TABLE c.dst (id BIGINT NOT NULL, s VARCHAR(40), x INT) DUPLICATE KEY(id)
	  DISTRIBUTED BY HASH(id) BUCKETS 8 PROPERTIES ("replication_num" = "3")`)
	mustStreamLoad(t, p.httpAddr, "c", "src", map[string]string{"column_separator": ","}, csvRows(1, n))

	// A first, undisturbed run measures how long the statement takes.
	start := time.Now()
	mustExec(t, db, "INSERT INTO c.dst SELECT * FROM c.src")
	dur := time.Since(start)
	checkAllOrNone(t, db, "c.dst", n, true, "uninterrupted INSERT ... SELECT")
	t.Logf("INSERT ... SELECT of %d rows took %v", n, dur)

	for i, frac := range []float64{0.1, 0.4, 0.75} {
		mustExec(t, db, "TRUNCATE TABLE c.dst")
		delay := time.Duration(float64(dur) * frac)
		done := make(chan error, 1)
		conn := openDB(t, p.mysqlAddr, "", i%2 == 0)
		go func() {
			_, err := conn.Exec("INSERT INTO c.dst SELECT * FROM c.src")
			done <- err
		}()
		time.Sleep(delay) // the point of the test: a kill at this instant
		p.kill()
		err := <-done
		conn.Close()
		db.Close()

		p = startProc(t, dir)
		db = openDB(t, p.mysqlAddr, "", true)
		got := checkAllOrNone(t, db, "c.dst", n, err == nil, fmt.Sprintf("kill after %v", delay))
		t.Logf("kill after %v (%.0f%%): statement err=%v, %d rows after restart", delay, frac*100, err, got)
		checkAllOrNone(t, db, "c.src", n, true, "source table")
	}
}

// TestE2ECrashStreamLoad kills the server while a large stream load body is
// being sent, and right after it was sent: after restart the table holds all
// rows or none, and the label is free again exactly when nothing was loaded.
func TestE2ECrashStreamLoad(t *testing.T) {
	t.Parallel()
	const n = 100_000
	body := csvRows(1, n)
	dir := t.TempDir()
	p := startProc(t, dir)
	db := openDB(t, p.mysqlAddr, "", true)
	mustExec(t, db, "CREATE DATABASE c")
	for i := 0; i < 3; i++ {
		mustExec(t, db, fmt.Sprintf(`CREATE TABLE c.sl%d (id BIGINT NOT NULL, s VARCHAR(40), x INT) DUPLICATE KEY(id)
		  DISTRIBUTED BY HASH(id) BUCKETS 8 PROPERTIES ("replication_num" = "3")`, i))
	}
	// killAt is the fraction of the body sent before the kill; 1 = all of it.
	for i, killAt := range []float64{0.3, 0.8, 1} {
		table, label := fmt.Sprintf("sl%d", i), fmt.Sprintf("crash-%d", i)
		pr, pw := io.Pipe()
		type result struct {
			r   loadReply
			err error
		}
		done := make(chan result, 1)
		go func() {
			r, err := streamLoad(context.Background(), p.httpAddr, "c", table, "root", "",
				map[string]string{"label": label, "column_separator": ","}, pr)
			done <- result{r, err}
		}()
		limit := int(float64(len(body)) * killAt)
		const chunk = 32 << 10
		var werr error
		for off := 0; off < limit && werr == nil; off += chunk {
			_, werr = pw.Write(body[off:min(off+chunk, limit)])
		}
		if killAt < 1 {
			p.kill()
			pw.CloseWithError(io.ErrUnexpectedEOF)
		} else {
			pw.Close()
			// The body is complete: kill while the load commits (or just after).
			time.Sleep(20 * time.Millisecond)
			p.kill()
		}
		res := <-done
		acked := res.err == nil && res.r.Status == "Success"
		if killAt < 1 && acked {
			t.Fatalf("load of %.0f%% of the body succeeded: %+v", killAt*100, res.r)
		}

		p = startProc(t, dir)
		db = openDB(t, p.mysqlAddr, "", true)
		got := checkAllOrNone(t, db, "c."+table, n, acked, fmt.Sprintf("stream load killed at %.0f%%", killAt*100))
		if killAt < 1 && got != 0 {
			t.Fatalf("load killed at %.0f%% of its body has rows after restart", killAt*100)
		}
		t.Logf("kill at %.0f%% of body: reply %+v err %v; %d rows after restart", killAt*100, res.r, res.err, got)

		// Retrying with the same label loads exactly once.
		r, err := streamLoad(context.Background(), p.httpAddr, "c", table, "root", "",
			map[string]string{"label": label, "column_separator": ","}, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		wantStatus := "Success"
		if got == n {
			wantStatus = "Label Already Exists"
		}
		if r.Status != wantStatus {
			t.Fatalf("retry of label %s with %d rows present: status %q (%s), want %q", label, got, r.Status, r.Message, wantStatus)
		}
		checkAllOrNone(t, db, "c."+table, n, true, "after retry")
	}
}

// TestE2ECrashAcknowledgedInserts loops single-row INSERTs from 4
// goroutines, SIGKILLs the server mid-loop, and checks after restart that
// every acknowledged row is there, none twice, and nothing never sent.
func TestE2ECrashAcknowledgedInserts(t *testing.T) {
	t.Parallel()
	const workers, perWorker, killAfter = 4, 2000, 150
	dir := t.TempDir()
	p := startProc(t, dir)
	db := openDB(t, p.mysqlAddr, "", true)
	mustExec(t, db, "CREATE DATABASE c")
	mustExec(t, db, `CREATE TABLE c.ins (id BIGINT NOT NULL, w INT, s VARCHAR(20)) DUPLICATE KEY(id)
	  DISTRIBUTED BY HASH(id) BUCKETS 4 PROPERTIES ("replication_num" = "3")`)

	var acked atomic.Int64
	killed := make(chan struct{})
	var killOnce sync.Once
	kill := func() { killOnce.Do(func() { p.kill(); close(killed) }) }
	ackedIDs := make([][]int64, workers)
	lastSent := make([]int64, workers) // the one statement in flight at the kill
	var wg sync.WaitGroup
	deadline := time.Now().Add(20 * time.Second)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			// Half the workers use server-side prepared statements, half text.
			d, err := sql.Open("mysql", dsn(p.mysqlAddr, "root", "", "c", w%2 == 0))
			if err != nil {
				return
			}
			defer d.Close()
			for i := 1; i <= perWorker && time.Now().Before(deadline); i++ {
				id := int64(w*1_000_000 + i)
				lastSent[w] = id
				if _, err := d.Exec("INSERT INTO ins VALUES (?, ?, ?)", id, w, "v"+strconv.Itoa(i)); err != nil {
					return // the server is gone
				}
				ackedIDs[w] = append(ackedIDs[w], id)
				if acked.Add(1) == killAfter {
					go kill()
				}
			}
		}(w)
	}
	wg.Wait()
	kill()
	<-killed
	if acked.Load() < killAfter {
		t.Fatalf("only %d inserts acknowledged before the loop ended; output: %s", acked.Load(), p.out.String())
	}
	db.Close()

	p = startProc(t, dir)
	db = openDB(t, p.mysqlAddr, "", true)
	rows := queryStrings(t, db, "SELECT id, w, s FROM c.ins")
	present := map[int64]int{}
	for _, r := range rows {
		id, _ := strconv.ParseInt(r[0], 10, 64)
		present[id]++
		w, i := id/1_000_000, id%1_000_000
		if r[1] != strconv.FormatInt(w, 10) || r[2] != "v"+strconv.FormatInt(i, 10) {
			t.Errorf("row %q does not match what was inserted", r)
		}
	}
	for id, c := range present {
		if c > 1 {
			t.Errorf("id %d present %d times", id, c)
		}
	}
	total := 0
	for w := 0; w < workers; w++ {
		total += len(ackedIDs[w])
		for _, id := range ackedIDs[w] {
			if present[id] == 0 {
				t.Errorf("acknowledged insert of id %d lost", id)
			}
			delete(present, id)
		}
		delete(present, lastSent[w]) // may or may not have committed
	}
	for id := range present {
		t.Errorf("id %d present but never acknowledged nor in flight", id)
	}
	t.Logf("%d acknowledged inserts before the kill, %d rows after restart", total, len(rows))
}
