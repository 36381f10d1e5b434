package server_test

import (
	"bytes"
	"context"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestE2EStreamLoad loads CSV and JSON over HTTP as curl would, and checks
// labels (at most once), all-or-nothing when a bad row exceeds
// max_filter_ratio, and authentication.
func TestE2EStreamLoad(t *testing.T) {
	s := newServer(t)
	http := s.HTTPAddr()
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE sdb")
	mustExec(t, db, "CREATE USER 'loader'@'%' IDENTIFIED BY 'lpw'")
	mustExec(t, db, "GRANT LOAD_PRIV ON sdb.* TO 'loader'@'%'")
	for _, tbl := range []string{"csv_t", "json_t"} {
		mustExec(t, db, `CREATE TABLE sdb.`+tbl+` (id INT NOT NULL, name VARCHAR(20), amount DECIMAL(10,2), d DATE)
		  DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 4 PROPERTIES ("replication_num" = "3")`)
	}
	rowsOf := func(table string) [][]string {
		return sortedRows(queryStrings(t, db, "SELECT id, name, amount, d FROM sdb."+table))
	}
	want := [][]string{
		{"1", "alpha", "1.50", "2024-01-01"},
		{"2", "NULL", "-2.25", "2024-02-29"},
		{"3", "ünïcödé 世界", "NULL", "NULL"},
	}
	ctx := context.Background()

	// CSV with a label, \N for NULL.
	csv := "1,alpha,1.5,2024-01-01\n2,\\N,-2.25,2024-02-29\n3,ünïcödé 世界,\\N,\\N\n"
	csvHdr := map[string]string{"label": "csv-1", "column_separator": ","}
	r := mustStreamLoad(t, http, "sdb", "csv_t", csvHdr, []byte(csv))
	if r.NumberLoadedRows != 3 || r.NumberTotalRows != 3 || r.Label != "csv-1" || r.TxnID == 0 {
		t.Errorf("CSV load reply %+v", r)
	}
	if got := rowsOf("csv_t"); !reflect.DeepEqual(got, want) {
		t.Fatalf("CSV rows %q, want %q", got, want)
	}
	// The same label again: refused, nothing added.
	r2, err := streamLoad(ctx, http, "sdb", "csv_t", "root", "", csvHdr, strings.NewReader(csv))
	if err != nil {
		t.Fatal(err)
	}
	if r2.Status != "Label Already Exists" || r2.ExistingJobStatus != "FINISHED" {
		t.Errorf("second load with label csv-1: %+v", r2)
	}
	if got := rowsOf("csv_t"); !reflect.DeepEqual(got, want) {
		t.Fatalf("rows after repeated label %q, want %q", got, want)
	}
	// The label belongs to the database: another table may not reuse it either.
	r3, err := streamLoad(ctx, http, "sdb", "json_t", "root", "", csvHdr, strings.NewReader(csv))
	if err != nil {
		t.Fatal(err)
	}
	if r3.Status != "Label Already Exists" {
		t.Errorf("label csv-1 reused on another table of the database: %+v", r3)
	}

	// JSON, an outer array stripped; a load as a created user.
	jsonBody := `[{"id": 1, "name": "alpha", "amount": 1.5, "d": "2024-01-01"},
	 {"id": 2, "name": null, "amount": "-2.25", "d": "2024-02-29"},
	 {"id": 3, "name": "ünïcödé 世界"}]`
	jr, err := streamLoad(ctx, http, "sdb", "json_t", "loader", "lpw",
		map[string]string{"label": "json-1", "format": "json", "strip_outer_array": "true"}, strings.NewReader(jsonBody))
	if err != nil || jr.Status != "Success" || jr.NumberLoadedRows != 3 {
		t.Fatalf("JSON load: %+v, %v", jr, err)
	}
	if got := rowsOf("json_t"); !reflect.DeepEqual(got, want) {
		t.Fatalf("JSON rows %q, want %q", got, want)
	}

	// One bad row among 20,000 good ones (after two batches' worth), under
	// Doris's default max_filter_ratio 0: a row the load must filter fails
	// the whole load ("too many filtered rows"), and its label stays
	// usable. Which rows are filtered is Doris's call: a field count that
	// is wrong, NULL (\N, or a value that does not convert, outside
	// strict_mode) into a NOT NULL column, a string too long; a bad value
	// into a nullable column only under strict_mode (else it loads as NULL).
	var big bytes.Buffer
	for i := 100; i < 20100; i++ {
		big.WriteString(strconv.Itoa(i) + ",n,1.00,2024-03-01\n")
	}
	for _, bad := range []struct {
		name, row string
		strict    bool
	}{
		{"bad date, strict_mode", "99999,x,1.00,2024-13-01\n", true},
		{"not a number into the NOT NULL key", "abc,x,1.00,2024-01-01\n", false},
		{"too long", "99999," + strings.Repeat("x", 21) + ",1.00,2024-01-01\n", false},
		{"NULL key", "\\N,x,1.00,2024-01-01\n", false},
		{"too many fields", "99999,x,1.00,2024-01-01,extra\n", false},
		{"too few fields", "99999,x\n", false},
	} {
		body := big.String() + bad.row
		h := map[string]string{"label": "bad-1", "column_separator": ","}
		if bad.strict {
			h["strict_mode"] = "true"
		}
		br, err := streamLoad(ctx, http, "sdb", "csv_t", "root", "", h, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if br.Status != "Fail" || br.Message != "[DATA_QUALITY_ERROR]too many filtered rows" || br.NumberTotalRows != 20001 ||
			br.NumberFilteredRows != 1 || br.NumberUnselectedRows != 0 || br.ErrorURL == "" {
			t.Errorf("%s: load with a bad row: %+v", bad.name, br)
		}
		if got := rowsOf("csv_t"); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: failed load left %d rows, want the original %d", bad.name, len(got), len(want))
		}
	}
	// Without strict_mode a date that does not convert loads as NULL into
	// the nullable column (Doris), and nothing is filtered.
	mustExec(t, db, `CREATE TABLE sdb.lenient (id INT NOT NULL, name VARCHAR(20), amount DECIMAL(10,2), d DATE)
	  DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 4 PROPERTIES ("replication_num" = "3")`)
	lr := mustStreamLoad(t, http, "sdb", "lenient", map[string]string{"column_separator": ","},
		[]byte(big.String()+"99999,x,1.00,2024-13-01\n"))
	if lr.NumberLoadedRows != 20001 || lr.NumberFilteredRows != 0 || lr.ErrorURL != "" {
		t.Errorf("non-strict load of a bad date: %+v", lr)
	}
	if got := queryStrings(t, db, "SELECT d FROM sdb.lenient WHERE id = 99999"); len(got) != 1 || got[0][0] != "NULL" {
		t.Errorf("bad date without strict_mode: %q, want NULL", got)
	}
	good := mustStreamLoad(t, http, "sdb", "csv_t", map[string]string{"label": "bad-1", "column_separator": ","}, big.Bytes())
	if good.NumberLoadedRows != 20000 {
		t.Errorf("retry of failed label: %+v", good)
	}
	if n := len(queryInts(t, db, "SELECT id FROM sdb.csv_t")); n != 20003 {
		t.Errorf("after retry of failed label: %d rows, want 20003", n)
	}

	// Authentication: wrong password, unknown user, no credentials → 401, nothing loaded.
	for _, c := range []struct{ user, pass string }{{"root", "wrong"}, {"loader", "x"}, {"ghost", ""}} {
		ar, err := streamLoad(ctx, http, "sdb", "csv_t", c.user, c.pass, map[string]string{"column_separator": ","},
			strings.NewReader("50000,z,1,2024-01-01\n"))
		if err != nil {
			t.Fatal(err)
		}
		if ar.HTTPCode != 401 || ar.Status == "Success" {
			t.Errorf("stream load as %s/%q: HTTP %d %+v, want 401", c.user, c.pass, ar.HTTPCode, ar)
		}
	}
	if ids := queryInts(t, db, "SELECT id FROM sdb.csv_t WHERE id = 50000"); len(ids) != 0 {
		t.Errorf("unauthorized load stored rows")
	}
	// Unknown table: a clear failure.
	ur, err := streamLoad(ctx, http, "sdb", "nosuch", "root", "", nil, strings.NewReader("1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if ur.Status != "Fail" || !strings.Contains(ur.Message, "nosuch") {
		t.Errorf("load into unknown table: %+v", ur)
	}
}

// TestE2EStreamLoadStallDoesNotBlockInserts keeps a stream load's body open
// (a slow or stalled client) and checks that INSERTs into the same table
// still complete meanwhile, as in Doris where loads run concurrently.
func TestE2EStreamLoadStallDoesNotBlockInserts(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE stall")
	mustExec(t, db, `CREATE TABLE stall.t (id INT NOT NULL) DUPLICATE KEY(id)
	  DISTRIBUTED BY HASH(id) BUCKETS 2 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, `CREATE TABLE stall.probe (id INT NOT NULL) DUPLICATE KEY(id)
	  DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES ("replication_num" = "1")`)
	pr, pw := io.Pipe()
	done := make(chan loadReply, 1)
	go func() {
		r, err := streamLoad(context.Background(), s.HTTPAddr(), "stall", "t", "root", "", map[string]string{"label": "slow"}, pr)
		if err != nil {
			r.Message = err.Error()
		}
		done <- r
	}()
	// Enough rows that the server has surely begun the load (one batch).
	var b bytes.Buffer
	for i := 1; i <= 10000; i++ {
		b.WriteString(strconv.Itoa(i) + "\n")
	}
	if _, err := pw.Write(b.Bytes()); err != nil {
		t.Fatal(err)
	}
	// Wait until the load's transaction has begun: a probe reusing its label
	// (with a format the server refuses before doing anything) sees it taken.
	waitFor(t, 10*time.Second, "the stream load to begin", func() bool {
		r, err := streamLoad(context.Background(), s.HTTPAddr(), "stall", "probe", "root", "",
			map[string]string{"label": "slow", "format": "no-such-format"}, strings.NewReader(""))
		return err == nil && r.Status == "Label Already Exists"
	})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	_, err := db.ExecContext(ctx, "INSERT INTO stall.t VALUES (0)")
	cancel()
	pw.Close()
	r := <-done
	if err != nil {
		t.Errorf("INSERT while a stream load into the same table is open: %v", err)
	}
	if r.Status != "Success" || r.NumberLoadedRows != 10000 {
		t.Errorf("stream load: %+v", r)
	}
}
