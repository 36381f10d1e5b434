package server_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestE2EConcurrentConnections has 50 connections, all open at once, each
// insert its own rows in several statements and read them back; at the end
// every row is present exactly once.
func TestE2EConcurrentConnections(t *testing.T) {
	const conns, stmts, rowsPer = 50, 3, 5
	s := newServer(t)
	root := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, root, "CREATE DATABASE cdb")
	mustExec(t, root, `CREATE TABLE cdb.t (id INT NOT NULL, g INT NOT NULL, s VARCHAR(32)) DUPLICATE KEY(id)
	  DISTRIBUTED BY HASH(id) BUCKETS 8 PROPERTIES ("replication_num" = "3")`)
	pools := []*sql.DB{openDB(t, s.MySQLAddr(), "cdb", false), openDB(t, s.MySQLAddr(), "cdb", true)}

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var opened, wg sync.WaitGroup
	opened.Add(conns)
	errs := make(chan error, conns)
	for g := 0; g < conns; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			errs <- func() error {
				conn, err := pools[g%2].Conn(ctx)
				opened.Done()
				if err != nil {
					return err
				}
				defer conn.Close()
				opened.Wait() // all 50 connections are open at the same time
				want := map[string]bool{}
				for st := 0; st < stmts; st++ {
					var vals []string
					var args []any
					for r := 0; r < rowsPer; r++ {
						id := g*1000 + st*rowsPer + r
						want[fmt.Sprint(id)] = true
						if st%2 == 0 {
							vals = append(vals, fmt.Sprintf("(%d, %d, 'g%d-%d')", id, g, g, id))
						} else {
							vals = append(vals, "(?, ?, ?)")
							args = append(args, id, g, fmt.Sprintf("g%d-%d", g, id))
						}
					}
					if _, err := conn.ExecContext(ctx, "INSERT INTO t VALUES "+strings.Join(vals, ", "), args...); err != nil {
						return fmt.Errorf("conn %d insert %d: %w", g, st, err)
					}
					// Read your own writes after every statement.
					got, err := queryStringsErr(conn, "SELECT id, s FROM t WHERE g = ?", g)
					if err != nil {
						return fmt.Errorf("conn %d read: %w", g, err)
					}
					if len(got) != (st+1)*rowsPer {
						return fmt.Errorf("conn %d after %d statements sees %d of its rows: %q", g, st+1, len(got), got)
					}
					for _, r := range got {
						if !want[r[0]] || r[1] != fmt.Sprintf("g%d-%s", g, r[0]) {
							return fmt.Errorf("conn %d reads a row it did not write: %q", g, r)
						}
					}
				}
				return nil
			}()
		}(g)
	}
	// While all connections are open, the server lists them.
	opened.Wait()
	plist := queryStrings(t, root, "SHOW PROCESSLIST")
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if len(plist) < conns {
		t.Errorf("SHOW PROCESSLIST listed %d connections while %d were open", len(plist), conns)
	}
	ids := sortInts(queryInts(t, root, "SELECT id FROM cdb.t"))
	if len(ids) != conns*stmts*rowsPer {
		t.Fatalf("%d rows, want %d", len(ids), conns*stmts*rowsPer)
	}
	i := 0
	for g := 0; g < conns; g++ {
		for k := 0; k < stmts*rowsPer; k++ {
			if ids[i] != int64(g*1000+k) {
				t.Fatalf("row %d is id %d, want %d", i, ids[i], g*1000+k)
			}
			i++
		}
	}
}

// SET GLOBAL max_connections applies to the running server: one
// connection more than allowed gets 1040, and raising it admits again.
func TestE2EGlobalMaxConnections(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	ctx := context.Background()
	admin, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	mustExec(t, admin, "SET GLOBAL max_connections = 3")
	var held []*sql.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for i := 0; i < 2; i++ {
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.PingContext(ctx); err != nil {
			t.Fatalf("connection %d: %v", i+2, err)
		}
		held = append(held, c)
	}
	extra := openDB(t, s.MySQLAddr(), "", true)
	wantCode(t, extra.PingContext(ctx), 1040, "connection over max_connections")
	mustExec(t, admin, "SET GLOBAL max_connections = 100")
	if err := extra.PingContext(ctx); err != nil {
		t.Fatalf("after raising max_connections: %v", err)
	}
}
