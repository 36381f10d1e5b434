package server_test

import (
	"database/sql"
	"fmt"
	"strconv"
	"testing"
	"time"
)

// rowInts is the one row stmt answers, as integers.
func rowInts(t *testing.T, db *sql.DB, stmt string) []int64 {
	t.Helper()
	rows := queryStrings(t, db, stmt)
	if len(rows) != 1 {
		t.Fatalf("%s: %d rows, want 1", stmt, len(rows))
	}
	out := make([]int64, len(rows[0]))
	for i, v := range rows[0] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("%s: column %d = %q", stmt, i, v)
		}
		out[i] = n
	}
	return out
}

// TestE2ECrashMergeOnWriteLoad kills the server in the middle of a load
// replacing every key of a merge-on-write UNIQUE KEY table: after restart
// each key is there once, and either every row has the new value or none
// (the delete bitmaps were published with the rowsets, or neither).
func TestE2ECrashMergeOnWriteLoad(t *testing.T) {
	t.Parallel()
	const n = 200_000
	dir := t.TempDir()
	p := startProc(t, dir)
	db := openDB(t, p.mysqlAddr, "", true)
	mustExec(t, db, "CREATE DATABASE c")
	mustExec(t, db, `CREATE TABLE c.src (id BIGINT NOT NULL, s VARCHAR(40), x INT) DUPLICATE KEY(id)
	  DISTRIBUTED BY HASH(id) BUCKETS 4 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, `CREATE TABLE c.u (id BIGINT NOT NULL, s VARCHAR(40), x INT) UNIQUE KEY(id)
	  DISTRIBUTED BY HASH(id) BUCKETS 8 PROPERTIES ("replication_num" = "3")`)
	mustStreamLoad(t, p.httpAddr, "c", "src", map[string]string{"column_separator": ","}, csvRows(1, n))
	mustExec(t, db, "INSERT INTO c.u SELECT id, s, 0 FROM c.src")

	// check: n distinct keys, all with x = gen (mustNew) or all with x in
	// {gen-1, gen}, one value for all; it returns the value found.
	check := func(gen int, acked bool, what string) int {
		t.Helper()
		r := rowInts(t, db, "SELECT count(*), count(DISTINCT id), min(x), max(x) FROM c.u")
		if r[0] != n || r[1] != n {
			t.Fatalf("%s: %d rows, %d keys; want %d of each", what, r[0], r[1], n)
		}
		if r[2] != r[3] {
			t.Fatalf("%s: x ranges over %d..%d: part of a load is visible", what, r[2], r[3])
		}
		if acked && r[2] != int64(gen) {
			t.Fatalf("%s: acknowledged load, but x = %d, want %d", what, r[2], gen)
		}
		if r[2] != int64(gen) && r[2] != int64(gen-1) {
			t.Fatalf("%s: x = %d, want %d or %d", what, r[2], gen-1, gen)
		}
		return int(r[2])
	}
	start := time.Now()
	mustExec(t, db, "INSERT INTO c.u SELECT id, s, 1 FROM c.src")
	dur := time.Since(start)
	check(1, true, "uninterrupted load")
	t.Logf("replacing %d keys took %v", n, dur)

	gen := 1
	for i, frac := range []float64{0.2, 0.6, 0.95} {
		gen++
		done := make(chan error, 1)
		conn := openDB(t, p.mysqlAddr, "", i%2 == 0)
		go func() {
			_, err := conn.Exec(fmt.Sprintf("INSERT INTO c.u SELECT id, s, %d FROM c.src", gen))
			done <- err
		}()
		time.Sleep(time.Duration(float64(dur) * frac))
		p.kill()
		err := <-done
		conn.Close()
		db.Close()
		p = startProc(t, dir)
		db = openDB(t, p.mysqlAddr, "", true)
		got := check(gen, err == nil, fmt.Sprintf("kill at %.0f%%", frac*100))
		t.Logf("kill at %.0f%%: err=%v, x=%d after restart", frac*100, err, got)
		if got != gen {
			// Bring the table to gen so the next round starts even.
			mustExec(t, db, fmt.Sprintf("INSERT INTO c.u SELECT id, s, %d FROM c.src", gen))
		}
	}
	// The table still takes writes: an UPDATE of every other key.
	mustExec(t, db, "UPDATE c.u SET x = -1 WHERE id % 2 = 0")
	r := rowInts(t, db, "SELECT count(*), sum(CASE WHEN x = -1 THEN 1 ELSE 0 END) FROM c.u")
	if r[0] != n || r[1] != n/2 {
		t.Fatalf("after UPDATE: %v, want %d rows of which %d updated", r, n, n/2)
	}
}
