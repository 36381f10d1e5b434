package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"
)

// halfCloseLoad sends a stream load over a raw TCP connection: the request
// head, then body[:send] (the whole body unless send is smaller), then
// CloseWrite, as a client that is done sending but waits for the reply.
func halfCloseLoad(addr, db, table, label string, body []byte, send int) (loadReply, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return loadReply{}, err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(60 * time.Second))
	auth := base64.StdEncoding.EncodeToString([]byte("root:"))
	head := fmt.Sprintf("PUT /api/%s/%s/_stream_load HTTP/1.1\r\nHost: %s\r\nAuthorization: Basic %s\r\n"+
		"label: %s\r\ncolumn_separator: ,\r\nContent-Length: %d\r\nConnection: close\r\n\r\n",
		db, table, addr, auth, label, len(body))
	if _, err := c.Write(append([]byte(head), body[:send]...)); err != nil {
		return loadReply{}, err
	}
	if err := c.(*net.TCPConn).CloseWrite(); err != nil {
		return loadReply{}, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return loadReply{}, err
	}
	return readLoadReply(resp)
}

// TestE2EStreamLoadHalfClose: a client that half-closes after its body
// either has every row loaded or hears Fail with its label still free;
// never Success for rows that are not there. A client that half-closes in
// the middle of its body always fails, and its label stays usable.
func TestE2EStreamLoadHalfClose(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE hc")
	mustExec(t, db, `CREATE TABLE hc.t (id BIGINT NOT NULL, v INT) DUPLICATE KEY(id)
	  DISTRIBUTED BY HASH(id) BUCKETS 4 PROPERTIES ("replication_num" = "1")`)
	const tries = 100
	var loaded, failed, truncated int
	for i := 0; i < tries; i++ {
		n := 500
		if i%4 == 3 {
			n = 10000 // more than one batch
		}
		var body bytes.Buffer
		for j := 0; j < n; j++ {
			fmt.Fprintf(&body, "%d,%d\n", int64(i)*1_000_000+int64(j), j)
		}
		send := body.Len()
		if i%10 == 9 {
			send /= 2 // gone in the middle of the body
		}
		label := fmt.Sprintf("hc-%d", i)
		count := func() int64 {
			return queryInts(t, db, "SELECT COUNT(*) FROM hc.t WHERE id >= ? AND id < ?", int64(i)*1_000_000, int64(i+1)*1_000_000)[0]
		}
		r, err := halfCloseLoad(s.HTTPAddr(), "hc", "t", label, body.Bytes(), send)
		if err != nil {
			t.Fatalf("try %d: %v", i, err)
		}
		switch r.Status {
		case "Success":
			if send < body.Len() {
				t.Fatalf("try %d: truncated body reported %+v", i, r)
			}
			if r.NumberLoadedRows != int64(n) {
				t.Fatalf("try %d: Success with %d of %d rows: %+v", i, r.NumberLoadedRows, n, r)
			}
			if got := count(); got != int64(n) {
				t.Fatalf("try %d: Success but %d of %d rows visible", i, got, n)
			}
			loaded++
		case "Fail":
			if got := count(); got != 0 {
				t.Fatalf("try %d: Fail but %d rows visible", i, got)
			}
			if send < body.Len() {
				truncated++
			} else {
				failed++
			}
			// The label is free: a retry under it loads everything.
			r2, err := streamLoad(context.Background(), s.HTTPAddr(), "hc", "t", "root", "",
				map[string]string{"label": label, "column_separator": ","}, bytes.NewReader(body.Bytes()))
			if err != nil {
				t.Fatalf("try %d retry: %v", i, err)
			}
			if r2.Status != "Success" || r2.NumberLoadedRows != int64(n) {
				t.Fatalf("try %d retry under label %s: %+v (first: %+v)", i, label, r2, r)
			}
			if got := count(); got != int64(n) {
				t.Fatalf("try %d retry: %d of %d rows visible", i, got, n)
			}
		default:
			t.Fatalf("try %d: reply %+v", i, r)
		}
	}
	if truncated != tries/10 {
		t.Errorf("%d of %d truncated bodies failed", truncated, tries/10)
	}
	t.Logf("%d tries: %d loaded whole, %d complete bodies failed (and retried), %d truncated bodies failed (and retried)",
		tries, loaded, failed, truncated)
}
