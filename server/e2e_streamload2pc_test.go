package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dorisgo/dorisgo/execution/coord"
)

// put2PC sends a _stream_load_2pc request and decodes Doris's answer.
func put2PC(t *testing.T, httpAddr, db, user string, headers map[string]string) (code int, status, msg string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, fmt.Sprintf("http://%s/api/%s/_stream_load_2pc", httpAddr, db), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth(user, "")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct{ Status, Msg string }
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, r.Status, r.Msg
}

// TestE2EStreamLoadTwoPhase: two_phase_commit stops a load at PRECOMMITTED
// (durable, invisible, holding its label, surviving a restart) until
// _stream_load_2pc commits or aborts it; a forgotten one is aborted after
// its precommit timeout.
func TestE2EStreamLoadTwoPhase(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	defer func() { s.Close() }()
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE tp")
	mustExec(t, db, `CREATE TABLE tp.t (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3
		PROPERTIES ("replication_num" = "2")`)
	count := func() string {
		return queryStrings(t, openDB(t, s.MySQLAddr(), "tp", true), "SELECT count(*) FROM t")[0][0]
	}
	state := func(id int64) string {
		return queryStrings(t, openDB(t, s.MySQLAddr(), "tp", true), "SHOW TRANSACTION WHERE id = "+strconv.FormatInt(id, 10))[0][3]
	}
	load := func(label, body string) loadReply {
		t.Helper()
		r := mustStreamLoad(t, s.HTTPAddr(), "tp", "t", map[string]string{"label": label, "column_separator": ",", "two_phase_commit": "true"}, []byte(body))
		if r.Status != "Success" {
			t.Fatalf("precommit load: %+v", r)
		}
		return r
	}

	r1 := load("l1", "1,1\n2,2\n3,3\n")
	if count() != "0" || state(r1.TxnID) != "PRECOMMITTED" {
		t.Fatalf("after precommit: %s rows, %s", count(), state(r1.TxnID))
	}
	again, err := streamLoad(t.Context(), s.HTTPAddr(), "tp", "t", "root", "", map[string]string{"label": "l1"}, strings.NewReader("9,9\n"))
	if err != nil || again.Status != "Label Already Exists" {
		t.Fatalf("label of a precommitted load: %+v %v", again, err)
	}
	if code, st, msg := put2PC(t, s.HTTPAddr(), "tp", "root", map[string]string{"txn_id": strconv.FormatInt(r1.TxnID, 10), "txn_operation": "commit"}); code != 200 || st != "Success" ||
		msg != fmt.Sprintf("transaction [%d] commit successfully.", r1.TxnID) {
		t.Fatalf("commit: %d %s %s", code, st, msg)
	}
	if count() != "3" || state(r1.TxnID) != "VISIBLE" {
		t.Fatalf("after commit: %s rows, %s", count(), state(r1.TxnID))
	}
	if _, st, msg := put2PC(t, s.HTTPAddr(), "tp", "root", map[string]string{"txn_id": strconv.FormatInt(r1.TxnID, 10), "txn_operation": "commit"}); st != "Fail" || !strings.Contains(msg, "already visible") {
		t.Fatalf("second commit: %s %s", st, msg)
	}

	// Abort by label: never visible, the label free again.
	r2 := load("l2", "4,4\n")
	if _, st, msg := put2PC(t, s.HTTPAddr(), "tp", "root", map[string]string{"label": "l2", "txn_operation": "abort"}); st != "Success" {
		t.Fatalf("abort: %s %s", st, msg)
	}
	if count() != "3" || state(r2.TxnID) != "ABORTED" {
		t.Fatalf("after abort: %s rows, %s", count(), state(r2.TxnID))
	}
	if r := mustStreamLoad(t, s.HTTPAddr(), "tp", "t", map[string]string{"label": "l2", "column_separator": ","}, []byte("5,5\n")); r.Status != "Success" {
		t.Fatalf("label after abort: %+v", r)
	}

	// Bad requests, and a user without LOAD_PRIV.
	for _, h := range []map[string]string{
		{"txn_operation": "commit"},
		{"txn_id": "x", "txn_operation": "commit"},
		{"txn_id": "1", "txn_operation": "publish"},
		{"label": "nosuch", "txn_operation": "commit"},
	} {
		if _, st, _ := put2PC(t, s.HTTPAddr(), "tp", "root", h); st != "Fail" {
			t.Errorf("%v: %s", h, st)
		}
	}
	r3 := load("l3", "6,6\n7,7\n")
	mustExec(t, db, "CREATE USER 'rd'@'%'")
	mustExec(t, db, "GRANT SELECT_PRIV ON tp.* TO 'rd'@'%'")
	if code, st, _ := put2PC(t, s.HTTPAddr(), "tp", "rd", map[string]string{"label": "l3", "txn_operation": "commit"}); code != 403 || st != "Fail" {
		t.Fatalf("commit without LOAD_PRIV: %d %s", code, st)
	}

	// A precommitted load survives a restart, then commits.
	s.Close()
	s = startServer(t, dir)
	if count() != "4" || state(r3.TxnID) != "PRECOMMITTED" {
		t.Fatalf("after restart: %s rows, %s", count(), state(r3.TxnID))
	}
	if _, st, msg := put2PC(t, s.HTTPAddr(), "tp", "root", map[string]string{"label": "l3", "txn_operation": "commit"}); st != "Success" {
		t.Fatalf("commit after restart: %s %s", st, msg)
	}
	if count() != "6" {
		t.Fatalf("after commit after restart: %s rows", count())
	}

	// Forgotten: aborted once older than the precommit timeout.
	defer coord.SetPrecommitTimeout(coord.SetPrecommitTimeout(time.Second))
	r4 := load("l4", "8,8\n")
	waitFor(t, 30*time.Second, "stale precommitted load aborted", func() bool { return state(r4.TxnID) == "ABORTED" })
	if count() != "6" {
		t.Fatalf("after timeout abort: %s rows", count())
	}

}
