package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestE2EKillWhileParsing: a statement of many megabytes spends seconds in
// the parser; KILL QUERY, query_timeout and a client that leaves end it
// within a second all the same, and the connection answers the next one.
func TestE2EKillWhileParsing(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	var b strings.Builder
	b.WriteString("SELECT count(*) FROM (SELECT 1 AS x) t WHERE x IN (")
	for i := 0; b.Len() < 12<<20; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%d", 1000000+i)
	}
	b.WriteString(")")
	huge := b.String()

	c := pinned(t, openDB(t, s.MySQLAddr(), "", true))
	var id int64
	if err := c.QueryRowContext(context.Background(), "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := c.ExecContext(context.Background(), huge)
		done <- err
	}()
	// Kill once the statement arrived (sending 12 MB takes a while under -race).
	waitFor(t, 60*time.Second, "the statement to be running", func() bool {
		for _, r := range queryStrings(t, db, "SHOW PROCESSLIST") {
			if r[0] == fmt.Sprint(id) && r[4] == "Query" {
				return true
			}
		}
		return false
	})
	killed := time.Now()
	mustExec(t, db, fmt.Sprintf("KILL QUERY %d", id))
	select {
	case err := <-done:
		wantCode(t, err, 1317, "KILL QUERY while parsing")
		if d := time.Since(killed); d > time.Second {
			t.Errorf("KILL QUERY took %v to end the statement", d)
		}
		t.Logf("statement ended %v after KILL (%v after it was sent)", time.Since(killed).Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	case <-time.After(30 * time.Second):
		t.Fatal("KILL QUERY did not end a statement being parsed")
	}
	if n := queryInts(t, c, "SELECT 1"); len(n) != 1 {
		t.Fatal("connection unusable after the kill")
	}

	// query_timeout applies to parsing as well.
	mustExec(t, c, "SET query_timeout = 1")
	start = time.Now()
	_, err := c.ExecContext(context.Background(), huge)
	d := time.Since(start)
	switch {
	case err == nil && d > 3*time.Second:
		t.Errorf("query_timeout = 1: the statement ran %v", d)
	case err != nil && (errCode(err) != 3024 || d > 4*time.Second):
		t.Errorf("query_timeout = 1: %v after %v, want 3024 about 1 s after it arrived", err, d)
	}
	t.Logf("with query_timeout = 1: %v after %v", err, d.Round(time.Millisecond))
}
