package server_test

import (
	"strings"
	"testing"
)

// TestE2EDeletePartitionMergeOnWrite: DELETE FROM t PARTITION (…) WHERE …
// on merge-on-write UNIQUE KEY tables (the delete-sign path) deletes the
// matching rows of the named partitions only, for RANGE and LIST
// partitions, with a condition on a value column (not a delete
// predicate); an unknown partition gets Doris's error and deletes
// nothing; SELECT … FROM t PARTITION (…) reads the named partitions only.
func TestE2EDeletePartitionMergeOnWrite(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE dp")
	db = openDB(t, s.MySQLAddr(), "dp", true)
	mustExec(t, db, `CREATE TABLE r (k INT, d DATE, v INT) UNIQUE KEY(k, d)
		PARTITION BY RANGE(d) (PARTITION p1 VALUES LESS THAN ("2024-02-01"),
			PARTITION p2 VALUES LESS THAN ("2024-03-01"), PARTITION p3 VALUES LESS THAN ("2024-04-01"))
		DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, `INSERT INTO r VALUES (1,'2024-01-05',10),(2,'2024-01-06',20),(3,'2024-02-05',10),
		(4,'2024-02-06',20),(5,'2024-03-05',10),(6,'2024-03-06',20)`)

	wantJoined(t, queryStrings(t, db, "SELECT k FROM r PARTITION (p2) ORDER BY k"), "3 4")
	wantJoined(t, queryStrings(t, db, "SELECT k FROM r PARTITION (p1, p3) ORDER BY k"), "1 2 5 6")
	wantJoined(t, queryStrings(t, db, "SELECT count(*) FROM r PARTITION (p1, p2, p3)"), "6")
	// The planner prunes to the named partitions: one, and the hull of two.
	for q, want := range map[string]string{"SELECT k FROM r PARTITION (p2)": "partitions=1/3", "SELECT k FROM r PARTITION (p1, p2)": "partitions=2/3"} {
		plan := ""
		for _, row := range queryStrings(t, db, "EXPLAIN "+q) {
			plan += row[0] + "\n"
		}
		if !strings.Contains(plan, want) {
			t.Fatalf("EXPLAIN %s: want %s in\n%s", q, want, plan)
		}
	}

	// v = 10 matches k 1, 3, 5; only k 3 is in p2.
	if n, _ := mustExec(t, db, "DELETE FROM r PARTITION (p2) WHERE v = 10").RowsAffected(); n != 1 {
		t.Fatalf("DELETE … PARTITION (p2) affected %d rows, want 1", n)
	}
	wantJoined(t, queryStrings(t, db, "SELECT k FROM r ORDER BY k"), "1 2 4 5 6")
	// Two partitions with a gap between them: p2's k 4 stays.
	mustExec(t, db, "DELETE FROM r PARTITION (p1, p3) WHERE v = 20")
	wantJoined(t, queryStrings(t, db, "SELECT k, v FROM r ORDER BY k"), "1,10 4,20 5,10")

	_, err := db.Exec("DELETE FROM r PARTITION (p9) WHERE v = 10")
	if err == nil || !strings.Contains(err.Error(), "Partition: p9 is not exists on table r") {
		t.Fatalf("unknown partition: %v", err)
	}
	wantCode(t, err, 1105, "unknown partition")
	_, err = db.Exec("DELETE FROM dp.r PARTITION (p1, nope) WHERE v = 10")
	if err == nil || !strings.Contains(err.Error(), "Partition: nope is not exists on table dp.r") {
		t.Fatalf("unknown partition with a qualified table: %v", err)
	}
	_, err = db.Exec("SELECT * FROM r PARTITION (p9)")
	if err == nil || !strings.Contains(err.Error(), "Partition: p9 is not exists on table r") {
		t.Fatalf("SELECT of an unknown partition: %v", err)
	}
	wantJoined(t, queryStrings(t, db, "SELECT k FROM r ORDER BY k"), "1 4 5")

	// LIST partitions, and DELETE … USING with a partition.
	mustExec(t, db, `CREATE TABLE l (k INT, c VARCHAR(4), v INT) UNIQUE KEY(k, c)
		PARTITION BY LIST(c) (PARTITION pa VALUES IN ("a", "b"), PARTITION pc VALUES IN ("c"))
		DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, "INSERT INTO l VALUES (1,'a',1),(2,'b',1),(3,'c',1),(4,'c',2),(5,'a',2)")
	mustExec(t, db, `CREATE TABLE ks (k INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, "INSERT INTO ks VALUES (1),(3),(5)")
	mustExec(t, db, "DELETE FROM l PARTITION (pc) WHERE v = 1")
	wantJoined(t, queryStrings(t, db, "SELECT k FROM l ORDER BY k"), "1 2 4 5")
	mustExec(t, db, "DELETE FROM l PARTITION (pa) USING ks WHERE l.k = ks.k")
	wantJoined(t, queryStrings(t, db, "SELECT k, c FROM l ORDER BY k"), "2,b 4,c")
	wantJoined(t, queryStrings(t, db, "SELECT k FROM l PARTITION (pa) ORDER BY k"), "2")
}
