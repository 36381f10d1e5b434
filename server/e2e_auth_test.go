package server_test

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// login opens a fresh connection as user and runs a query on it.
func login(t *testing.T, addr, user, pass, db string) error {
	t.Helper()
	d, err := sql.Open("mysql", dsn(addr, user, pass, db, true))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var one int
	return d.QueryRow("SELECT 1").Scan(&one)
}

func wantLogin(t *testing.T, addr, user, pass, db string) {
	t.Helper()
	if err := login(t, addr, user, pass, db); err != nil {
		t.Fatalf("login %s/%q: %v", user, pass, err)
	}
}

func wantDenied(t *testing.T, addr, user, pass, db string) string {
	t.Helper()
	err := login(t, addr, user, pass, db)
	wantCode(t, err, 1045, "login "+user+"/"+pass+" db "+db)
	return err.Error()
}

// TestE2EAuth walks a user's life: root on a new data dir, CREATE USER,
// SET PASSWORD, DROP USER, and the 1045 every bad login gets.
func TestE2EAuth(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	defer func() { s.Close() }() // s is replaced by the restarted server below
	addr := s.MySQLAddr()
	wantLogin(t, addr, "root", "", "")
	root := openDB(t, addr, "", true)
	mustExec(t, root, "CREATE DATABASE adb")

	wrongPw := wantDenied(t, addr, "root", "nope", "")
	unknown := wantDenied(t, addr, "ghost", "nope", "")
	// The two refusals differ only by the user name: nothing tells whether the user exists.
	if strings.ReplaceAll(unknown, "ghost", "root") != wrongPw {
		t.Errorf("unknown user and wrong password get different errors:\n%s\n%s", unknown, wrongPw)
	}
	for _, word := range []string{"exist", "unknown", "no such", "not found"} {
		if strings.Contains(strings.ToLower(unknown), word) {
			t.Errorf("unknown user error reveals %q: %s", word, unknown)
		}
	}
	wantDenied(t, addr, "ghost", "", "")

	const secret = "Secr3t-Pa55word-e2e"
	mustExec(t, root, "CREATE USER 'u'@'%' IDENTIFIED BY '"+secret+"'")
	// Logging in with a database takes a privilege on it (privileges_test.go).
	mustExec(t, root, "GRANT SELECT_PRIV ON *.* TO 'u'@'%'")
	wantLogin(t, addr, "u", secret, "")
	wantLogin(t, addr, "u", secret, "adb")
	wantDenied(t, addr, "u", "", "")
	wantDenied(t, addr, "u", secret+"x", "")
	_, err := root.Exec("CREATE USER 'u'@'%' IDENTIFIED BY 'again'")
	if err == nil {
		t.Error("CREATE USER of an existing user succeeded")
	}
	mustExec(t, root, "CREATE USER IF NOT EXISTS 'u'@'%' IDENTIFIED BY 'again'")
	wantLogin(t, addr, "u", secret, "") // IF NOT EXISTS left the password alone

	// A wrong password with a database that does not exist is still 1045, not 1049.
	wantDenied(t, addr, "u", "bad", "no_such_db")
	wantDenied(t, addr, "ghost", "bad", "no_such_db")
	err = login(t, addr, "u", secret, "no_such_db")
	wantCode(t, err, 1049, "good password, unknown database")

	mustExec(t, root, "SET PASSWORD FOR 'u'@'%' = 'p2'")
	wantDenied(t, addr, "u", secret, "")
	wantLogin(t, addr, "u", "p2", "")
	mustExec(t, root, "SET PASSWORD FOR 'u'@'%' = PASSWORD('p3')")
	wantDenied(t, addr, "u", "p2", "")
	wantLogin(t, addr, "u", "p3", "")

	// A user changes its own password.
	self := openDBAs(t, addr, "u", "p3", "", true)
	conn, err := self.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, conn, "SET PASSWORD = 'p4'")
	conn.Close()
	wantDenied(t, addr, "u", "p3", "")
	wantLogin(t, addr, "u", "p4", "")

	mustExec(t, root, "DROP USER 'u'@'%'")
	wantDenied(t, addr, "u", "p4", "")
	wantDenied(t, addr, "u", "", "")

	// Users and passwords survive a restart; the password is stored hashed.
	mustExec(t, root, "CREATE USER 'v'@'%' IDENTIFIED BY '"+secret+"'")
	root.Close()
	s.Close()
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err == nil && bytes.Contains(b, []byte(secret)) {
			t.Errorf("password stored in plain text in %s", path)
		}
		return nil
	})
	s = startServer(t, dir)
	wantLogin(t, s.MySQLAddr(), "v", secret, "")
	wantDenied(t, s.MySQLAddr(), "v", "", "")
	wantDenied(t, s.MySQLAddr(), "u", "p4", "")
	wantLogin(t, s.MySQLAddr(), "root", "", "adb")
}

// TestE2EErrorsKeepConnection runs bad statements on one pinned connection
// per protocol: each gets its MySQL error, and the same connection then runs
// a good query.
func TestE2EErrorsKeepConnection(t *testing.T) {
	s := newServer(t)
	root := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, root, "CREATE DATABASE edb")
	mustExec(t, root, "CREATE TABLE edb.t (id INT NOT NULL, v VARCHAR(10)) DISTRIBUTED BY HASH(id) BUCKETS 2 PROPERTIES (\"replication_num\" = \"1\")")
	mustExec(t, root, "INSERT INTO edb.t VALUES (1, 'one'), (2, 'two')")

	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			ctx := context.Background()
			pool := openDB(t, s.MySQLAddr(), "", p.interpolate)
			conn, err := pool.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			var connID int64
			if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&connID); err != nil {
				t.Logf("SELECT CONNECTION_ID(): %v (connection identity not checked)", err)
				connID = -1
			}
			good := func(after string) {
				t.Helper()
				// An argument: a prepared statement in binary mode, a text query otherwise.
				var v string
				if err := conn.QueryRowContext(ctx, "SELECT v FROM edb.t WHERE id = ?", 2).Scan(&v); err != nil || v != "two" {
					t.Fatalf("after %s: good query got %q, %v", after, v, err)
				}
				if connID >= 0 {
					var id int64
					if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil || id != connID {
						t.Fatalf("after %s: connection id %d (%v), want the same connection %d", after, id, err, connID)
					}
				}
			}
			bad := []struct {
				stmt string
				args []any
				code uint16
			}{
				{"SELECT * FROM t", nil, 1046},
				{"SELECT * FROM t WHERE id = ?", []any{1}, 1046},
				{"INSERT INTO t VALUES (3, 'x')", nil, 1046},
				{"USE edb", nil, 0},
				{"SELEC 1", nil, 1064},
				{"SELECT * FROM t WHERE", nil, 1064},
				{"SELECT v FROM t WHERE id = ? AND", []any{1}, 1064},
				{"SELECT * FROM nosuch", nil, 1146},
				{"SELECT * FROM nosuch WHERE id = ?", []any{1}, 1146},
				{"INSERT INTO nosuch VALUES (1)", nil, 1146},
				{"SELECT nocol FROM t", nil, 1054},
				{"SELECT v FROM t WHERE nocol = ?", []any{1}, 1054},
				{"INSERT INTO t (id, nocol) VALUES (1, 2)", nil, 1054},
				{"USE nosuchdb", nil, 1049},
				{"SELECT * FROM nosuchdb.t", nil, 1049},
				{"CREATE DATABASE edb", nil, 1007},
				{"CREATE TABLE t (id INT)", nil, 1050},
				{"DROP TABLE nosuch", nil, 1051},
				{"DROP DATABASE nosuchdb", nil, 1008},
				{"INSERT INTO t VALUES (1)", nil, 1136},
			}
			for _, b := range bad {
				_, err := conn.ExecContext(ctx, b.stmt, b.args...)
				if b.code == 0 {
					if err != nil {
						t.Fatalf("%s: %v", b.stmt, err)
					}
					continue
				}
				if b.code == 1049 && strings.HasPrefix(b.stmt, "SELECT") && errCode(err) == 1146 {
					err = nil // MySQL itself says 1146 here; either is fine
					good(b.stmt)
					continue
				}
				wantCode(t, err, b.code, b.stmt)
				good(b.stmt)
			}
			if got := queryStrings(t, conn, "SELECT id, v FROM t"); len(got) != 2 {
				t.Fatalf("failed statements changed the table: %q", got)
			}
		})
	}
}
