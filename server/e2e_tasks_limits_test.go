package server_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"
)

// Queries running as pipeline tasks stop as promptly as serial ones: over
// exec_mem_limit they fail naming the limit, query_timeout, KILL QUERY and
// a client hanging up end them within seconds, every backend lets go of their instances (no
// task goroutine left behind), and the connection stays usable.
func TestE2EPipelineTasksStop(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE tl")
	mustExec(t, db, `CREATE TABLE tl.big (k BIGINT, v INT, s VARCHAR(16)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 6 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, `INSERT INTO tl.big SELECT number, number % 1000, concat('s', number % 77) FROM numbers("number" = "300000")`)
	running := func() float64 {
		return metricValue(httpGet(t, "http://"+s.HTTPAddr()+"/metrics"), "doris_be_fragment_instances_running")
	}
	idle := func(what string) {
		t.Helper()
		waitFor(t, 5*time.Second, what+": backends idle", func() bool { return running() == 0 })
		if got := queryStrings(t, db, "SELECT 1"); len(got) != 1 {
			t.Fatalf("%s: connection unusable", what)
		}
	}
	const tasks = "SELECT /*+ SET_VAR(parallel_pipeline_task_num = 3) */ "

	// exec_mem_limit: a hash aggregation over 300k distinct keys.
	_, err := db.Exec(tasks[:len(tasks)-len(") */ ")] + ", exec_mem_limit = 1048576) */ k, count(*) FROM tl.big GROUP BY k")
	if err == nil || !strings.Contains(err.Error(), "exec_mem_limit") {
		t.Fatalf("over exec_mem_limit: %v, want the limit named", err)
	}
	idle("mem limit")

	long := tasks + "count(*) FROM tl.big a JOIN [broadcast] tl.big b ON a.v = b.v"
	// query_timeout.
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "SET query_timeout = 1"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var n int64
	err = conn.QueryRowContext(context.Background(), long).Scan(&n)
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "3024") {
		t.Fatalf("query_timeout: %v after %v, want error 3024", err, took)
	}
	if took > 4*time.Second {
		t.Errorf("query_timeout = 1 s ended the query after %v", took)
	}
	// Close returns the connection to the pool: the KILL below may get it.
	if _, err := conn.ExecContext(context.Background(), "SET query_timeout = 900"); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	idle("timeout")

	// KILL QUERY from another connection.
	conn, err = db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var id int64
	if err := conn.QueryRowContext(context.Background(), "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- conn.QueryRowContext(context.Background(), long).Scan(&n) }()
	waitFor(t, 5*time.Second, "the query running on backends", func() bool { return running() > 0 })
	killed := time.Now()
	mustExec(t, db, "KILL QUERY ?", id)
	select {
	case err := <-errc:
		if err == nil || !strings.Contains(err.Error(), "1317") {
			t.Fatalf("KILL QUERY: %v, want 1317", err)
		}
		if took := time.Since(killed); took > 2*time.Second {
			t.Errorf("KILL QUERY took %v", took)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("query still running 10 s after KILL QUERY")
	}
	idle("kill")

	// A client that gives up (its driver closes the socket on a context
	// timeout) takes its query down with it.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	gone := time.Now()
	err = db.QueryRowContext(ctx, long).Scan(&n)
	cancel()
	if err == nil {
		t.Fatal("long query finished within 300 ms")
	}
	waitFor(t, 3*time.Second, "the abandoned query cancelled on every backend", func() bool { return running() == 0 })
	t.Logf("backends idle %v after the client went away", time.Since(gone))
	if err := conn.QueryRowContext(context.Background(), "SELECT 1").Scan(&n); err != nil && err != sql.ErrNoRows {
		t.Fatalf("killed connection unusable: %v", err)
	}
}
