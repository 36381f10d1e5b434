package server_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestE2ELoadProgressNumbers: an INSERT … SELECT from numbers(), whose
// rows the planner does not estimate, shows a real progress in SHOW LOAD
// while it runs (rows written over the function's "number" argument,
// strictly between 0% and 100%), and one whose source cannot be estimated
// (a filter over numbers()) shows N/A rather than a misleading 0%.
func TestE2ELoadProgressNumbers(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE lpn")
	mustExec(t, db, `CREATE TABLE lpn.t (k BIGINT, v VARCHAR(40)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3
		PROPERTIES ("replication_num" = "1")`)
	n := 2000000
	if raceEnabled {
		n = 500000
	}
	watch := openDB(t, s.MySQLAddr(), "lpn", true)
	// run starts the INSERT and collects SHOW LOAD's Progress of its
	// LOADING readings until it ends.
	run := func(label, where string) []string {
		t.Helper()
		done := make(chan error, 1)
		go func() {
			_, err := db.Exec(fmt.Sprintf(`INSERT INTO lpn.t WITH LABEL %s SELECT number, concat('row-', number) FROM numbers("number" = "%d") %s`, label, n, where))
			done <- err
		}()
		var seen []string
		for {
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("INSERT %s: %v", label, err)
				}
				return seen
			default:
			}
			for _, r := range queryStrings(t, watch, `SHOW LOAD WHERE LABEL = "`+label+`"`) {
				if r[2] == "LOADING" {
					seen = append(seen, r[3])
				}
			}
		}
	}
	mid := 0
	readings := run("lpn_all", "")
	for _, p := range readings {
		pct, err := strconv.ParseFloat(strings.TrimSuffix(strings.Fields(p)[0], "%"), 64)
		if err != nil || !strings.HasSuffix(p, "% (0/1)") {
			t.Fatalf("Progress %q while loading numbers(): want a percent", p)
		}
		if pct > 0 && pct < 100 {
			mid++
		}
	}
	if mid == 0 {
		t.Fatalf("INSERT … SELECT FROM numbers(): no progress strictly between 0%% and 100%% in %d readings: %v", len(readings), readings)
	}
	if r := queryStrings(t, watch, `SHOW LOAD WHERE LABEL = "lpn_all"`); r[0][2] != "FINISHED" || r[0][3] != "100.00% (1/1)" {
		t.Fatalf("after the load: %q", r[0])
	}

	readings = run("lpn_some", "WHERE number % 2 = 0")
	if len(readings) == 0 {
		t.Fatal("the filtered INSERT was never seen LOADING")
	}
	// Between its transaction's start and its sink's first report no
	// backend knows the load: SHOW LOAD then says 0.00%, never a made-up
	// percent. Once committed, while the versions are published, it says
	// 99.99% (every row durable; loadprogress.go): a reading a loaded
	// machine may catch.
	na := 0
	for _, p := range readings {
		switch p {
		case "N/A (0/1)":
			na++
		case "0.00% (0/1)", "99.99% (0/1)":
		default:
			t.Fatalf("Progress %q of a load without an estimate, want N/A (0/1)", p)
		}
	}
	if na == 0 {
		t.Fatalf("a load without an estimate never showed N/A (0/1): %v", readings)
	}
	wantJoined(t, queryStrings(t, db, "SELECT count(*) FROM lpn.t"), strconv.Itoa(n+n/2))
}
