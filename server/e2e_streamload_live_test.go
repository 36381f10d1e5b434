package server_test

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestE2EStreamLoadLiveProgress: while a stream load's body is still being
// sent, SHOW STREAM LOAD (and so the web UI's Loads page) lists it with
// Status RUNNING and the rows and bytes received so far, growing as more
// of the body arrives; when the body ends the row becomes the finished
// record, Success with the exact counts. A load sent without a label gets
// a generated one (a UUID, as Doris's backend makes), shown while it runs.
func TestE2EStreamLoadLiveProgress(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE sll")
	mustExec(t, db, `CREATE TABLE sll.t (k BIGINT, v VARCHAR(20)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2
		PROPERTIES ("replication_num" = "1")`)

	pr, pw := io.Pipe()
	type result struct {
		rep loadReply
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := streamLoad(t.Context(), s.HTTPAddr(), "sll", "t", "root", "", map[string]string{"column_separator": ","}, pr)
		done <- result{rep, err}
	}()
	next := 0
	send := func(n int) int64 {
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "%d,row-%d\n", next, next)
			next++
		}
		if _, err := io.WriteString(pw, b.String()); err != nil {
			t.Fatalf("sending the body: %v", err)
		}
		return int64(b.Len())
	}
	// Label, Status, TotalRows, LoadedRows, LoadBytes of the running load.
	running := func() (label string, total, loaded, bytes int64, ok bool) {
		for _, r := range queryStrings(t, db, `SHOW STREAM LOAD FROM sll WHERE STATUS = "RUNNING"`) {
			total, _ = strconv.ParseInt(r[7], 10, 64)
			loaded, _ = strconv.ParseInt(r[8], 10, 64)
			bytes, _ = strconv.ParseInt(r[11], 10, 64)
			if r[4] != "RUNNING" || r[13] != "NULL" || r[2] != "t" {
				t.Fatalf("running stream load row: %q", r)
			}
			return r[0], total, loaded, bytes, true
		}
		return "", 0, 0, 0, false
	}
	// Two parse batches (8192 rows each) are counted once parsed.
	var sent int64
	sent += send(16384)
	var label string
	var total1, bytes1 int64
	waitFor(t, 20*time.Second, "the first rows counted", func() bool {
		l, total, loaded, bytes, ok := running()
		label, total1, bytes1 = l, total, bytes
		return ok && total >= 16384 && loaded == total && bytes == sent
	})
	if len(label) != 36 || strings.Count(label, "-") != 4 {
		t.Fatalf("generated label %q, want a UUID", label)
	}
	sent += send(16384)
	waitFor(t, 20*time.Second, "more rows counted", func() bool {
		_, total, _, bytes, ok := running()
		return ok && total >= 32768 && total > total1 && bytes == sent && bytes > bytes1
	})
	// The web UI's Loads page renders SHOW STREAM LOAD: the running row.
	code, page := httpAs(t, "GET", "http://"+s.HTTPAddr()+"/loads", "root", "", nil)
	if code != 200 || !strings.Contains(page, "<td>"+label+"</td>") || !strings.Contains(page, "<td>RUNNING</td>") {
		t.Fatalf("web UI Loads page (%d) without the running load %s:\n%s", code, label, page)
	}
	send(100)
	pw.Close()
	res := <-done
	if res.err != nil || res.rep.Status != "Success" || res.rep.NumberLoadedRows != 32868 || res.rep.Label != label {
		t.Fatalf("stream load: %+v %v", res.rep, res.err)
	}
	if _, _, _, _, ok := running(); ok {
		t.Fatal("a finished stream load still shows as RUNNING")
	}
	rows := queryStrings(t, db, `SHOW STREAM LOAD FROM sll WHERE LABEL = "`+label+`"`)
	if len(rows) != 1 || rows[0][4] != "Success" || rows[0][7] != "32868" || rows[0][8] != "32868" {
		t.Fatalf("finished record: %q", rows)
	}
	wantJoined(t, queryStrings(t, db, "SELECT count(*), max(k) FROM sll.t"), "32868,32867")
}
