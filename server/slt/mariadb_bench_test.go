package slt

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/dorisgo/dorisgo/server/gctune"
)

// Small statements next to MariaDB (issue 13: a sqllogictest file within
// 3× of MariaDB's wall time; point SELECT and single-row INSERT latency):
//
//	go test ./server/slt/ -run '^$' -bench VsMariaDB -benchtime 1x   # the files
//	go test ./server/slt/ -run '^$' -bench 'VsMariaDB/(point|insert)' # latencies
//
// Each benchmark has a dorisgo and a mariadb sub-benchmark, so ns/op reads
// side by side. dorisgo is the in-process server (3 embedded backends) as
// the binary runs it (startBench); MariaDB is Debian's mariadbd on a temporary data directory
// with its defaults (InnoDB, a durable commit per statement), installed
// with apt when missing and this runs as root.

var benchFiles = flag.String("slt.bench.files", "test/select1.test,test/index/delete/10/slt_good_0.test,test/index/view/10/slt_good_1.test",
	"comma-separated sqllogictest files (under testdata) that BenchmarkVsMariaDB runs on both engines")

func BenchmarkVsMariaDB(b *testing.B) {
	engines := []struct {
		name string
		db   func(b *testing.B) *sql.DB
	}{{"dorisgo", startBench}, {"mariadb", startMariaDB}}
	for _, e := range engines {
		db := e.db(b) // on the parent: its cleanup stops it after every sub-benchmark
		for _, f := range strings.Split(*benchFiles, ",") {
			b.Run("file="+f+"/"+e.name, func(b *testing.B) { benchFile(b, db, f) })
		}
		b.Run("point-select/"+e.name, func(b *testing.B) { benchPointSelect(b, db) })
		b.Run("insert-row/"+e.name, func(b *testing.B) { benchInsertRow(b, db) })
	}
}

// startBench starts the in-process dorisgo as the binary runs it: the
// binary's collector settings, no plan checker (the tests' extra work).
func startBench(b *testing.B) *sql.DB {
	gctune.Tune()
	return startPlain(b)
}

// benchFile runs a corpus file per iteration, each in a fresh database.
func benchFile(b *testing.B, db *sql.DB, file string) {
	r := &Runner{DB: db, Timeout: 30 * time.Second}
	var res *Result
	for b.Loop() {
		var err error
		if res, err = r.RunFile(context.Background(), filepath.Join("testdata", file)); err != nil {
			b.Fatal(err)
		}
	}
	// A file that fails records is not the same work on both engines.
	if n := len(res.Failures); n > 0 {
		b.Logf("%s: %d of %d records failed", file, n, res.Passed+n)
	}
	b.ReportMetric(float64(res.Passed+len(res.Failures)), "records")
	verbs := make([]string, 0, len(res.ByVerb))
	for v := range res.ByVerb {
		verbs = append(verbs, v)
	}
	sort.Strings(verbs)
	for _, v := range verbs {
		b.Logf("%s: %-14s %8.2f s", file, v, res.ByVerb[v].Seconds())
	}
}

const latencyRows = 10_000

// benchPointSelect is a key lookup on one connection: dorisgo prunes to the
// key's bucket of a hash-distributed table, MariaDB reads its primary key.
func benchPointSelect(b *testing.B, db *sql.DB) {
	conn := latencyTable(b, db, "pt", true)
	ctx := context.Background()
	for b.Loop() {
		k := rand.IntN(latencyRows)
		var v int
		if err := conn.QueryRowContext(ctx, "SELECT v FROM pt WHERE k = ?", k).Scan(&v); err != nil {
			b.Fatal(err)
		}
		if v != 2*k {
			b.Fatalf("k = %d read v = %d", k, v)
		}
	}
}

// benchInsertRow is one autocommitted single-row INSERT per iteration.
func benchInsertRow(b *testing.B, db *sql.DB) {
	conn := latencyTable(b, db, "ins", false)
	ctx := context.Background()
	i := 0
	for b.Loop() {
		i++
		if _, err := conn.ExecContext(ctx, "INSERT INTO ins VALUES (?, ?)", i, 2*i); err != nil {
			b.Fatal(err)
		}
	}
}

// latencyTable creates table name (k INT key, v INT) in database bench,
// filled with latencyRows rows when fill, and returns a connection using it.
func latencyTable(b *testing.B, db *sql.DB, name string, fill bool) *sql.Conn {
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close() })
	var version string
	if err := conn.QueryRowContext(ctx, "SELECT version()").Scan(&version); err != nil {
		b.Fatal(err)
	}
	ddl := "CREATE TABLE " + name + " (k INT NOT NULL, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 8 PROPERTIES (\"replication_num\" = \"1\")"
	if strings.Contains(strings.ToLower(version), "mariadb") {
		ddl = "CREATE TABLE " + name + " (k INT NOT NULL PRIMARY KEY, v INT) ENGINE=InnoDB"
	}
	for _, q := range []string{"CREATE DATABASE IF NOT EXISTS bench", "USE bench", "DROP TABLE IF EXISTS " + name, ddl} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
	if fill {
		var sb strings.Builder
		for i := 0; i < latencyRows; i++ {
			if i%1000 == 0 {
				if sb.Len() > 0 {
					if _, err := conn.ExecContext(ctx, sb.String()); err != nil {
						b.Fatal(err)
					}
				}
				sb.Reset()
				sb.WriteString("INSERT INTO " + name + " VALUES ")
			} else {
				sb.WriteString(",")
			}
			fmt.Fprintf(&sb, "(%d,%d)", i, 2*i)
		}
		if _, err := conn.ExecContext(ctx, sb.String()); err != nil {
			b.Fatal(err)
		}
	}
	return conn
}

// startMariaDB starts mariadbd on a new data directory and a free loopback
// port, stopped when b ends.
func startMariaDB(b *testing.B) *sql.DB {
	b.Helper()
	if _, err := exec.LookPath("mariadbd"); err != nil {
		if os.Getuid() != 0 {
			b.Skip("mariadbd not found: apt-get install mariadb-server")
		}
		cmd := exec.Command("apt-get", "install", "-y", "-qq", "mariadb-server")
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("apt-get install mariadb-server: %v\n%s", err, out)
		}
	}
	dir, err := os.MkdirTemp("", "slt-mariadb-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	data := filepath.Join(dir, "data")
	install := []string{"--no-defaults", "--datadir=" + data, "--skip-test-db", "--auth-root-authentication-method=normal"}
	if os.Getuid() == 0 {
		install = append(install, "--user=root")
	}
	if out, err := exec.Command("mariadb-install-db", install...).CombinedOutput(); err != nil {
		b.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	args := []string{"--no-defaults", "--datadir=" + data, "--socket=" + filepath.Join(dir, "sock"),
		"--port=" + fmt.Sprint(port), "--bind-address=127.0.0.1", "--skip-grant-tables", "--log-error=" + filepath.Join(dir, "err.log")}
	if os.Getuid() == 0 {
		args = append(args, "--user=root")
	}
	srv := exec.Command("mariadbd", args...)
	if err := srv.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
	db, err := sql.Open("mysql", fmt.Sprintf("root@tcp(127.0.0.1:%d)/?interpolateParams=true", port))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	for deadline := time.Now().Add(30 * time.Second); db.Ping() != nil; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "err.log"))
			b.Fatalf("mariadbd did not answer in 30 s:\n%s", log)
		}
	}
	return db
}
