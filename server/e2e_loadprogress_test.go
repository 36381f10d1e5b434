package server_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestE2ELoadProgress: while a long INSERT … SELECT runs, SHOW LOAD from
// another connection shows its progress (rows written so far over the
// planner's estimate, below 100%) and the rows written so far in
// JobDetails, growing; once it finishes, 100.00% and the exact row count.
func TestE2ELoadProgress(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE lp")
	mustExec(t, db, `CREATE TABLE lp.t (k BIGINT, v VARCHAR(40)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3
		PROPERTIES ("replication_num" = "1")`)
	// The source is OLAP tables, whose row counts the planner knows
	// (numbers()'s it does not): a cross join of na × nb rows, a few
	// seconds of writing (fewer rows under the race detector).
	na, nb := 3000, 2000
	if raceEnabled {
		na, nb = 1000, 1000
	}
	mustExec(t, db, `CREATE TABLE lp.a (i BIGINT) DUPLICATE KEY(i) DISTRIBUTED BY HASH(i) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, `CREATE TABLE lp.b (j BIGINT) DUPLICATE KEY(j) DISTRIBUTED BY HASH(j) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, fmt.Sprintf(`INSERT INTO lp.a SELECT number FROM numbers("number" = "%d")`, na))
	mustExec(t, db, fmt.Sprintf(`INSERT INTO lp.b SELECT number FROM numbers("number" = "%d")`, nb))
	n := int64(na * nb)
	sel := fmt.Sprintf(`SELECT i * %d + j, concat('row-', i, '-', j) FROM lp.a, lp.b`, nb)
	done := make(chan error, 1)
	go func() {
		_, err := db.Exec("INSERT INTO lp.t WITH LABEL lp_long " + sel)
		done <- err
	}()

	watch := openDB(t, s.MySQLAddr(), "lp", true)
	type reading struct {
		state, progress string
		pct             float64
		loaded          int64
	}
	read := func() (reading, bool) {
		t.Helper()
		rows := queryStrings(t, watch, `SHOW LOAD WHERE LABEL = "lp_long"`)
		if len(rows) == 0 {
			return reading{}, false
		}
		r := rows[0]
		var details struct{ LoadedRows int64 }
		if err := json.Unmarshal([]byte(r[14]), &details); err != nil {
			t.Fatalf("JobDetails %q: %v", r[14], err)
		}
		pct, err := strconv.ParseFloat(strings.TrimSuffix(strings.Fields(r[3])[0], "%"), 64)
		if err != nil {
			t.Fatalf("Progress %q: %v", r[3], err)
		}
		return reading{state: r[2], progress: r[3], pct: pct, loaded: details.LoadedRows}, true
	}

	// The web UI's Loads page renders SHOW LOAD: the same progress.
	page := regexp.MustCompile(`<td>lp_long</td><td>LOADING</td><td>([0-9.]+)% \(0/1\)</td>`)
	var pagePct []float64
	var during []reading
	var err error
poll:
	for {
		select {
		case err = <-done:
			break poll
		default:
		}
		if r, ok := read(); ok && r.state == "LOADING" {
			during = append(during, r)
		}
		if code, body := httpAs(t, "GET", "http://"+s.HTTPAddr()+"/loads", "root", "", nil); code == 200 {
			if m := page.FindStringSubmatch(body); m != nil {
				v, _ := strconv.ParseFloat(m[1], 64)
				pagePct = append(pagePct, v)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("INSERT: %v", err)
	}
	// At least two readings strictly between 0% and 100%, with rows
	// written so far growing.
	var mid []reading
	for _, r := range during {
		if r.pct > 0 && r.pct < 100 && r.loaded > 0 && r.loaded < n {
			mid = append(mid, r)
		}
		if r.pct >= 100 || r.loaded > n {
			t.Errorf("while loading: %+v", r)
		}
	}
	if len(mid) < 2 || mid[len(mid)-1].loaded <= mid[0].loaded {
		t.Fatalf("SHOW LOAD while the INSERT ran (%d LOADING readings): no growing progress below 100%%: %+v", len(during), during)
	}
	// Rows written never go back, up to the commit.
	for i := 1; i < len(during); i++ {
		if during[i].loaded < during[i-1].loaded || during[i].pct < during[i-1].pct {
			t.Errorf("progress went back: %+v then %+v", during[i-1], during[i])
		}
	}
	inProgress := 0
	for _, v := range pagePct {
		if v > 0 && v < 100 {
			inProgress++
		}
	}
	if inProgress == 0 {
		t.Errorf("web UI Loads page while the INSERT ran: progress %v, none between 0%% and 100%%", pagePct)
	}
	t.Logf("%d LOADING readings, %d in progress: first %+v, last %+v; web UI: %v", len(during), len(mid), mid[0], mid[len(mid)-1], pagePct)

	r, ok := read()
	if !ok || r.state != "FINISHED" || r.progress != "100.00% (1/1)" || r.loaded != n {
		t.Fatalf("after the INSERT: %+v, want FINISHED, 100.00%% (1/1), %d rows", r, n)
	}
}
