package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A running query's sending side is live: the rows a still-running
// instance's exchange sink has sent show on the query's page (through
// query_status) and grow, before any instance of that fragment reported.
func TestE2ELiveSenderStats(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE ls")
	mustExec(t, db, `CREATE TABLE ls.a (k BIGINT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, "INSERT INTO ls.a VALUES (1, 1), (2, 2), (3, 3)")
	waitBackendsAlive(t, db, 3)
	base := "http://" + s.HTTPAddr()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	long := `SELECT count(*) FROM numbers("number" = "100000000000") z JOIN [shuffle] ls.a x ON z.number = x.k /*live sender*/`
	id, connID, errc := startLongQuery(t, conn, base, long, "live sender")
	// sent is what the numbers() fragment's sinks sent so far.
	sent := func() int64 {
		code, body := httpAs(t, "GET", base+"/ui/api/query/"+id, "root", "", nil)
		if code != http.StatusOK {
			t.Fatalf("/ui/api/query/%s: %d %s", id, code, body)
		}
		var page struct {
			Fragments []struct {
				Instances []struct{ Rows int64 } `json:"instances"`
				Nodes     []struct {
					Label string   `json:"label"`
					Attrs []string `json:"attrs"`
				} `json:"nodes"`
			} `json:"fragments"`
		}
		if err := json.Unmarshal([]byte(body), &page); err != nil {
			t.Fatal(err)
		}
		if testing.Verbose() {
			t.Logf("%s", body)
		}
		var n int64
		for _, f := range page.Fragments {
			numbers := false
			for _, nd := range f.Nodes {
				numbers = numbers || strings.Contains(strings.ToLower(nd.Label+strings.Join(nd.Attrs, " ")), "numbers")
			}
			for _, in := range f.Instances {
				if numbers {
					n += in.Rows
				}
			}
		}
		return n
	}
	var first int64
	waitFor(t, 40*time.Second, "the running sender's rows on the query page", func() bool {
		first = sent()
		return first > 0
	})
	waitFor(t, 40*time.Second, "the running sender's rows to grow", func() bool { return sent() > first })
	mustExec(t, db, fmt.Sprintf("KILL QUERY %d", connID))
	select {
	case err := <-errc:
		wantCode(t, err, 1317, "the killed query")
	case <-time.After(10 * time.Second):
		t.Fatal("KILL did not stop the query")
	}
}
