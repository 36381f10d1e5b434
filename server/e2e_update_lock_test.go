package server_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// Concurrent read-modify-write UPDATEs of one table lose nothing: each
// waits for the table's UPDATE lock (Doris: enable_concurrent_update is
// false), so 4 clients × 10 `SET b = b + 1` add 40, and DELETEs racing
// them never see a deleted row written back.
func TestE2EUpdateConcurrentIncrements(t *testing.T) {
	s := newServer(t)
	root := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, root, "CREATE DATABASE ul")
	db := openDB(t, s.MySQLAddr(), "ul", true)
	mustExec(t, db, `CREATE TABLE c (k INT, b INT, note VARCHAR(8)) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3
		PROPERTIES ("replication_num" = "1", "enable_unique_key_merge_on_write" = "true")`)
	mustExec(t, db, "INSERT INTO c VALUES (1, 0, 'x'), (2, 0, 'y'), (3, 0, 'z')")

	const clients, rounds = 4, 10
	var wg sync.WaitGroup
	errs := make(chan error, clients*rounds)
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				if _, err := db.Exec("UPDATE c SET b = b + 1 WHERE k IN (1, 2)"); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("UPDATE failed: %v", err)
	}
	wantJoined(t, queryStrings(t, db, "SELECT k, b FROM c ORDER BY k"), fmt.Sprintf("1,%d 2,%d 3,0", clients*rounds, clients*rounds))

	// An UPDATE racing a DELETE of the same key either ran first (and its
	// row is then deleted) or found nothing: the key never comes back.
	for i := 0; i < 5; i++ {
		k := 100 + i
		mustExec(t, db, fmt.Sprintf("INSERT INTO c VALUES (%d, 0, 'd')", k))
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); db.Exec(fmt.Sprintf("UPDATE c SET b = b + 1 WHERE k = %d", k)) }()
		go func() { defer wg.Done(); db.Exec(fmt.Sprintf("DELETE FROM c WHERE k = %d", k)) }()
		wg.Wait()
		if got := queryStrings(t, db, fmt.Sprintf("SELECT count(*) FROM c WHERE k = %d", k)); got[0][0] != "0" {
			t.Fatalf("key %d deleted while an UPDATE ran is there again: %v", k, got)
		}
	}
}

// A transaction's UPDATE holds the table until COMMIT or ROLLBACK: another
// session's UPDATE waits, and gives up after innodb_lock_wait_timeout with
// MySQL's 1205; KILL QUERY ends the wait; the same transaction updates
// the table again freely; enable_concurrent_update lifts the lock.
func TestE2EUpdateLockWait(t *testing.T) {
	s := newServer(t)
	root := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, root, "CREATE DATABASE uw")
	mustExec(t, root, `CREATE TABLE uw.t (k INT, b INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2
		PROPERTIES ("replication_num" = "1")`)
	mustExec(t, root, `CREATE TABLE uw.other (k INT, b INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2
		PROPERTIES ("replication_num" = "1")`)
	mustExec(t, root, "INSERT INTO uw.t VALUES (1, 1), (2, 2)")
	mustExec(t, root, "INSERT INTO uw.other VALUES (1, 1)")

	ctx := context.Background()
	a := pinned(t, root)
	b := pinned(t, root)
	for _, q := range []string{"USE uw", "BEGIN", "UPDATE t SET b = b + 10 WHERE k = 1", "UPDATE t SET b = b + 10 WHERE k = 2"} {
		if _, err := a.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := b.ExecContext(ctx, "SET innodb_lock_wait_timeout = 1"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := b.ExecContext(ctx, "UPDATE uw.t SET b = 0 WHERE k = 1")
	if errCode(err) != 1205 || !strings.Contains(err.Error(), "uw.t") {
		t.Fatalf("UPDATE of a table another transaction updates: %v, want 1205 naming uw.t", err)
	}
	if took := time.Since(start); took < 900*time.Millisecond || took > 10*time.Second {
		t.Fatalf("lock wait gave up after %v, want about 1 s", took)
	}
	// Another table is not locked, and loads never are.
	if _, err := b.ExecContext(ctx, "UPDATE uw.other SET b = 5 WHERE k = 1"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.ExecContext(ctx, "INSERT INTO uw.t VALUES (3, 3)"); err != nil {
		t.Fatal(err)
	}

	// KILL QUERY ends a wait at once.
	var bID int64
	if err := b.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&bID); err != nil {
		t.Fatal(err)
	}
	if _, err := b.ExecContext(ctx, "SET innodb_lock_wait_timeout = 50"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := b.ExecContext(ctx, "UPDATE uw.t SET b = 0 WHERE k = 1"); done <- err }()
	time.Sleep(300 * time.Millisecond)
	mustExec(t, root, fmt.Sprintf("KILL QUERY %d", bID))
	select {
	case err := <-done:
		if errCode(err) != 1317 {
			t.Fatalf("killed lock wait: %v, want 1317", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("KILL QUERY did not end the lock wait")
	}

	// Waiting, then granted once the holder commits; the waiter read the
	// committed +10, so its +1 lands on top of it.
	go func() { _, err := b.ExecContext(ctx, "UPDATE uw.t SET b = b + 1 WHERE k = 1"); done <- err }()
	time.Sleep(300 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("UPDATE did not wait for the transaction holding the table: %v", err)
	default:
	}
	if _, err := a.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("UPDATE still waiting after the holder committed")
	}
	wantJoined(t, queryStrings(t, root, "SELECT k, b FROM uw.t ORDER BY k"), "1,12 2,12 3,3")

	// A rolled-back transaction releases the table too.
	for _, q := range []string{"BEGIN", "UPDATE t SET b = 100 WHERE k = 1", "ROLLBACK"} {
		if _, err := a.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := b.ExecContext(ctx, "UPDATE uw.t SET b = b + 1 WHERE k = 1"); err != nil {
		t.Fatal(err)
	}

	// enable_concurrent_update: no lock, the second UPDATE does not wait.
	mustExec(t, root, `ADMIN SET FRONTEND CONFIG ("enable_concurrent_update" = "true")`)
	defer mustExec(t, root, `ADMIN SET FRONTEND CONFIG ("enable_concurrent_update" = "false")`)
	for _, q := range []string{"BEGIN", "UPDATE t SET b = 7 WHERE k = 2"} {
		if _, err := a.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := b.ExecContext(ctx, "SET innodb_lock_wait_timeout = 1"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.ExecContext(ctx, "UPDATE uw.t SET b = 8 WHERE k = 1"); err != nil {
		t.Fatalf("UPDATE with enable_concurrent_update = true: %v", err)
	}
	if _, err := a.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	wantJoined(t, queryStrings(t, root, "SELECT k, b FROM uw.t ORDER BY k"), "1,8 2,7 3,3")
}
