package server_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
)

// A SELECT whose plan goes stale between planning and reading — here an
// ALTER TABLE lands right after it was bound, so every tablet is at a
// schema version the plan does not know (E-230) — is planned again and
// answers as if nothing happened: the client sees the rows, no error.
// A plan stale at every attempt is retried a bounded number of times and
// then fails with the E-230 error, which says to retry.
func TestE2EStaleQueryRetried(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	other := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE rt")
	mustExec(t, db, `CREATE TABLE rt.t (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 4 PROPERTIES ("replication_num" = "3")`)
	mustExec(t, db, "INSERT INTO rt.t SELECT number, number * 2 FROM numbers(\"number\" = \"1000\")")
	// Altered once, so plans carry a schema version the scans check.
	mustExec(t, db, `ALTER TABLE rt.t ADD COLUMN c0 INT DEFAULT "7"`)
	const q = "SELECT count(*), sum(v) FROM rt.t"
	var alters, cols atomic.Int64
	limit := int64(1)
	s.SetTestHook(func(stage, sql string) {
		if stage != "start" || sql != q || alters.Load() >= limit {
			return
		}
		alters.Add(1)
		if _, err := other.Exec(fmt.Sprintf(`ALTER TABLE rt.t ADD COLUMN c%d INT DEFAULT "7"`, cols.Add(1))); err != nil {
			t.Errorf("ALTER TABLE in the hook: %v", err)
		}
	})
	defer s.SetTestHook(nil)
	before := s.StaleRetries()
	if got := fmt.Sprint(queryStrings(t, db, q)); got != "[[1000 999000]]" {
		t.Fatalf("%s with an ALTER TABLE after planning: %s", q, got)
	}
	if alters.Load() != 1 {
		t.Fatalf("the hook ran %d ALTERs, want 1", alters.Load())
	}
	if n := s.StaleRetries() - before; n != 1 {
		t.Errorf("%d stale re-plans, want 1", n)
	}
	// Stale at every attempt: the first run and three retries, then the error.
	alters.Store(0)
	limit = 100
	defer func() {
		if alters.Load() != 4 {
			t.Errorf("the hook ran %d ALTERs, want 4 (a run and three retries)", alters.Load())
		}
	}()
	before = s.StaleRetries()
	_, err := queryStringsErr(db, q)
	if err == nil || !strings.Contains(err.Error(), "E-230") || !strings.Contains(err.Error(), "retry") {
		t.Fatalf("a plan stale at every attempt: %v, want the E-230 error", err)
	}
	if n := s.StaleRetries() - before; n != 3 {
		t.Errorf("%d stale re-plans, want 3", n)
	}
	s.SetTestHook(nil)
	if got := fmt.Sprint(queryStrings(t, db, "SELECT count(*), sum(v), sum(c1) FROM rt.t")); got != "[[1000 999000 7000]]" {
		t.Errorf("after the ALTERs: %s", got)
	}
}
