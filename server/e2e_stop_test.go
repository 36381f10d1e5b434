package server_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Every stage of a statement stops within a second of KILL QUERY or of
// its client leaving, and at query_timeout (issue 12): a correlated
// subquery run row by row (Apply over a 1,000,000-row cross join), the
// planning of a 1,000-table join chain with a conjunct per table (stopped
// once it is bound, before it runs), and a scan whose pushed filter is
// slow (100 nested md5 per row over 300,000 rows: seconds of work even on a
// quiet machine; 40 once finished inside the 1 s timeout). Afterwards the
// backends run nothing for the statement and the connection (if it stayed) works.
// TestE2EStatementsStop covers a table function scan, TestE2EPipelineTasksStop
// pipeline tasks.
func TestE2EStopEveryStage(t *testing.T) {
	s := newServer(t)
	admin := openDB(t, s.MySQLAddr(), "", false)
	for _, q := range []string{
		"CREATE DATABASE st",
		"CREATE TABLE st.t (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ('replication_num' = '1')",
		`INSERT INTO st.t SELECT number, number FROM numbers("number" = "100")`,
		"CREATE TABLE st.big (k BIGINT, s VARCHAR(16)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 6 PROPERTIES ('replication_num' = '1')",
		`INSERT INTO st.big SELECT number, concat('s', number % 77) FROM numbers("number" = "300000")`,
	} {
		mustExec(t, admin, q)
	}
	apply := `SELECT count(*) FROM (SELECT a.number AS x FROM numbers("number" = "1000") a, numbers("number" = "1000") b) o ` +
		`WHERE (SELECT count(*) FROM st.t WHERE t.k < o.x) > 50`
	if plan := fmt.Sprint(queryStrings(t, admin, "EXPLAIN "+apply)); !strings.Contains(plan, "APPLY") {
		t.Fatalf("the correlated subquery is not run by Apply:\n%s", plan)
	}
	statements := []struct {
		name, sql string
		planning  bool // stopped as soon as it is bound
	}{
		{"correlated subquery", apply, false},
		{"planning a 1,000-table chain", strings.ReplaceAll(hostile("chainwhere", 1000), " t t", " st.t t"), true},
		{"slow scan", "SELECT count(*) FROM st.big WHERE " + strings.Repeat("md5(", 100) + "s" + strings.Repeat(")", 100) + " = 'x'", false},
	}
	var (
		target   atomic.Pointer[string]
		bound    = make(chan struct{}, 1)
		executed atomic.Bool
		// slowPlan holds the bound statement back before planning until just
		// past its 1 s query_timeout (counted from sentAt, when the test
		// sent it), so that the timeout lands in the planning stage however
		// fast binding and planning are.
		slowPlan atomic.Bool
		sentAt   atomic.Int64
	)
	s.SetTestHook(func(stage, sql string) {
		if p := target.Load(); p == nil || *p != sql {
			return
		}
		switch stage {
		case "plan":
			select {
			case bound <- struct{}{}:
			default:
			}
			if slowPlan.Load() {
				time.Sleep(time.Until(time.Unix(0, sentAt.Load()).Add(1050 * time.Millisecond)))
			}
		case "rows":
			executed.Store(true)
		}
	})
	t.Cleanup(func() { s.SetTestHook(nil) })
	instances := func() float64 {
		return metricValue(httpGet(t, "http://"+s.HTTPAddr()+"/metrics"), "doris_be_fragment_instances_running")
	}
	ctx := context.Background()
	for _, st := range statements {
		// started waits until the statement runs (or, for planning, is bound).
		started := func(t *testing.T, id int64) {
			t.Helper()
			if !st.planning {
				waitRunning(t, admin, id)
				time.Sleep(200 * time.Millisecond) // well into its work
				return
			}
			select {
			case <-bound:
			case <-time.After(30 * time.Second):
				t.Fatal("the statement was never bound")
			}
		}
		// after checks that nothing of the statement is left running.
		after := func(t *testing.T, id int64) {
			t.Helper()
			if st.planning && executed.Load() {
				t.Errorf("the statement ran: it was stopped after planning")
			}
			waitFor(t, 5*time.Second, "the statement stopped", func() bool { return !running(t, admin, id) })
			waitFor(t, 5*time.Second, "the backends idle", func() bool { return instances() == 0 })
		}
		begin := func(t *testing.T) (*sql.Conn, int64) {
			t.Helper()
			conn, err := openDB(t, s.MySQLAddr(), "", false).Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			executed.Store(false)
			for len(bound) > 0 {
				<-bound
			}
			target.Store(&st.sql)
			return conn, connID(t, conn)
		}
		t.Run(st.name+"/kill", func(t *testing.T) {
			conn, id := begin(t)
			defer conn.Close()
			errc := make(chan error, 1)
			go func() { _, err := conn.ExecContext(ctx, st.sql); errc <- err }()
			started(t, id)
			killed := time.Now()
			mustExec(t, admin, fmt.Sprintf("KILL QUERY %d", id))
			select {
			case err := <-errc:
				wantCode(t, err, 1317, "killed statement")
				took := time.Since(killed)
				t.Logf("stopped %v after KILL", took.Round(time.Millisecond))
				if took > time.Second {
					t.Errorf("KILL QUERY took %v to stop the statement", took)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("KILL QUERY did not stop the statement")
			}
			after(t, id)
			if got := queryStrings(t, conn, "SELECT 1"); got[0][0] != "1" {
				t.Errorf("the connection after KILL QUERY: %v", got)
			}
		})
		t.Run(st.name+"/query_timeout", func(t *testing.T) {
			conn, id := begin(t)
			defer conn.Close()
			mustExec(t, conn, "SET query_timeout = 1")
			start := time.Now()
			if st.planning {
				sentAt.Store(start.UnixNano())
				slowPlan.Store(true)
				defer slowPlan.Store(false)
			}
			_, err := conn.ExecContext(ctx, st.sql)
			took := time.Since(start)
			wantCode(t, err, 3024, "statement over query_timeout")
			t.Logf("stopped %v after it started", took.Round(time.Millisecond))
			if took > 2*time.Second {
				t.Errorf("query_timeout = 1 stopped the statement after %v", took)
			}
			executed.Store(false) // past planning, the timeout may stop it anywhere
			after(t, id)
		})
		t.Run(st.name+"/client leaves", func(t *testing.T) {
			conn, id := begin(t)
			qctx, cancel := context.WithCancel(ctx)
			errc := make(chan error, 1)
			go func() { _, err := conn.ExecContext(qctx, st.sql); errc <- err }()
			started(t, id)
			cancel() // the driver closes the connection
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Logf("cancelled statement: %v", err)
			}
			conn.Close()
			gone := time.Now()
			waitFor(t, 30*time.Second, "the statement stopped", func() bool { return !running(t, admin, id) })
			took := time.Since(gone)
			t.Logf("stopped %v after its client left", took.Round(time.Millisecond))
			if took > time.Second {
				t.Errorf("the statement ran %v after its client left", took)
			}
			after(t, id)
		})
	}
}
