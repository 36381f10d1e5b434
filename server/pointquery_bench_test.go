package server_test

import (
	"database/sql"
	"testing"

	"github.com/dorisgo/dorisgo/server"
)

// BenchmarkPointQuery is a point SELECT end to end on the embedded server
// (3 backends over loopback gRPC) through go-sql-driver: what a tiny
// query costs besides its work (parse, plan, encoding the fragments for
// the wire, scheduling, the result). Profile it with
//
//	go test ./server/ -run '^$' -bench PointQuery -cpuprofile cpu.out
func BenchmarkPointQuery(b *testing.B) {
	s, err := server.Start(server.Config{DataDir: b.TempDir(), Host: "127.0.0.1", Backends: 3, Log: quietLog()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	db, err := sql.Open("mysql", dsn(s.MySQLAddr(), "root", "", "", true))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxIdleConns(1)
	for _, q := range []string{
		`CREATE DATABASE pq`,
		`CREATE TABLE pq.t (k INT, v VARCHAR(16), d DOUBLE) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "1")`,
		`INSERT INTO pq.t VALUES (1,'one',1.5),(2,'two',2.5),(3,'three',3.5),(4,'four',4.5),(5,'five',5.5),(6,'six',6.5),(7,'seven',7.5),(8,'eight',8.5)`,
	} {
		if _, err := db.Exec(q); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var k int
		var v string
		var d float64
		if err := db.QueryRow(`SELECT * FROM pq.t WHERE k = 5`).Scan(&k, &v, &d); err != nil {
			b.Fatal(err)
		}
		if k != 5 || v != "five" || d != 5.5 {
			b.Fatalf("got (%d, %q, %v), want (5, five, 5.5)", k, v, d)
		}
	}
}
