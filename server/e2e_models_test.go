package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// UNIQUE KEY keeps the newest row per key; AGGREGATE KEY merges value
// columns by their aggregate type — across separate loads, through SQL.
func TestE2EDataModels(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE m")
	mustExec(t, db, `CREATE TABLE m.u (k INT NOT NULL, v VARCHAR(10), n INT) UNIQUE KEY(k)
		DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "2")`)
	mustExec(t, db, `CREATE TABLE m.a (k INT NOT NULL, s BIGINT SUM, mx INT MAX, mn INT MIN, r VARCHAR(10) REPLACE)
		AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, "INSERT INTO m.u VALUES (1,'a',1),(2,'b',2)")
	mustExec(t, db, "INSERT INTO m.u VALUES (1,'z',10),(3,'c',3)")
	mustExec(t, db, "INSERT INTO m.u VALUES (2,NULL,20)")
	got := queryStrings(t, db, "SELECT k, v, n FROM m.u ORDER BY k")
	want := [][]string{{"1", "z", "10"}, {"2", "NULL", "20"}, {"3", "c", "3"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("unique: got %v want %v", got, want)
	}
	mustExec(t, db, "INSERT INTO m.a VALUES (1,5,5,5,'x'),(2,1,1,1,'y')")
	mustExec(t, db, "INSERT INTO m.a VALUES (1,7,3,9,'w'),(1,NULL,NULL,NULL,'v')")
	got = queryStrings(t, db, "SELECT k, s, mx, mn, r FROM m.a ORDER BY k")
	want = [][]string{{"1", "12", "5", "5", "v"}, {"2", "1", "1", "1", "y"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("aggregate: got %v want %v", got, want)
	}
	if n := queryInts(t, db, "SELECT count(*) FROM m.a"); n[0] != 2 {
		t.Errorf("aggregate count: %v", n)
	}
}

// Colocate groups: the matching rules of INTERFACE.md, bucket i of every
// member on the same backends, and the admin endpoint that marks a group
// (un)stable, which EXPLAIN's colocate decision follows.
func TestE2EColocateGroups(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE c")
	mustExec(t, db, `CREATE TABLE c.a (k BIGINT, v INT) DISTRIBUTED BY HASH(k) BUCKETS 6
		PROPERTIES ("replication_num" = "1", "colocate_with" = "g")`)
	mustExec(t, db, `CREATE TABLE c.b (k BIGINT, w INT) DISTRIBUTED BY HASH(k) BUCKETS 6
		PROPERTIES ("replication_num" = "1", "colocate_with" = "g")`)
	for _, bad := range []struct{ ddl, msg string }{
		{`CREATE TABLE c.x (k BIGINT) DISTRIBUTED BY HASH(k) BUCKETS 4 PROPERTIES ("replication_num"="1","colocate_with"="g")`, "bucket num"},
		{`CREATE TABLE c.x (k INT) DISTRIBUTED BY HASH(k) BUCKETS 6 PROPERTIES ("replication_num"="1","colocate_with"="g")`, "data type"},
		{`CREATE TABLE c.x (k BIGINT, j BIGINT) DISTRIBUTED BY HASH(k, j) BUCKETS 6 PROPERTIES ("replication_num"="1","colocate_with"="g")`, "size"},
		{`CREATE TABLE c.x (k BIGINT) DISTRIBUTED BY HASH(k) BUCKETS 6 PROPERTIES ("replication_num"="2","colocate_with"="g")`, "replication"},
		{`CREATE TABLE c.x (k BIGINT) DISTRIBUTED BY RANDOM BUCKETS 6 PROPERTIES ("replication_num"="1","colocate_with"="g")`, "Random"},
	} {
		_, err := db.Exec(bad.ddl)
		if err == nil || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("%s: got %v, want an error mentioning %q", bad.ddl, err, bad.msg)
		}
	}
	// Bucket i of a and b sit on the same backend.
	place := func(table string) map[string]string {
		rows := queryStrings(t, db, "SHOW TABLETS FROM c."+table)
		m := map[string]string{}
		for i, r := range rows {
			m[fmt.Sprint(i)] = r[2]
		}
		return m
	}
	if pa, pb := place("a"), place("b"); fmt.Sprint(pa) != fmt.Sprint(pb) {
		t.Errorf("colocated buckets on different backends: %v vs %v", pa, pb)
	}
	mustExec(t, db, "INSERT INTO c.a VALUES (1,1),(2,2)")
	mustExec(t, db, "INSERT INTO c.b VALUES (1,10),(2,20)")
	explain := func() string {
		var lines []string
		for _, r := range queryStrings(t, db, "EXPLAIN SELECT * FROM c.a JOIN c.b ON a.k = b.k") {
			lines = append(lines, r[0])
		}
		return strings.Join(lines, "\n")
	}
	waitBackendsAlive(t, db, 3)
	if e := explain(); !strings.Contains(e, "(COLOCATE)") || !strings.Contains(e, "colocate: true") {
		t.Fatalf("stable group should colocate:\n%s", e)
	}
	admin := func(method string) {
		req, _ := http.NewRequest(method, "http://"+s.HTTPAddr()+"/api/colocate/group_stable?db=c&group=g", nil)
		req.SetBasicAuth("root", "")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s group_stable: HTTP %d", method, resp.StatusCode)
		}
	}
	admin(http.MethodPost)
	stable := queryStrings(t, db, "SHOW PROC '/colocation_group'")
	if len(stable) != 1 || stable[0][6] != "false" {
		t.Fatalf("group after POST: %v", stable)
	}
	if e := explain(); !strings.Contains(e, "group is not stable") {
		t.Errorf("unstable group should be rejected with R8:\n%s", e)
	}
	admin(http.MethodDelete)
	if e := explain(); !strings.Contains(e, "colocate: true") {
		t.Errorf("group stable again should colocate:\n%s", e)
	}
	got := queryStrings(t, db, "SELECT a.k, v, w FROM c.a JOIN c.b ON a.k = b.k ORDER BY a.k")
	if fmt.Sprint(got) != "[[1 1 10] [2 2 20]]" {
		t.Errorf("join rows: %v", got)
	}
}

// Partition and bucket pruning read fewer tablets but never lose a row:
// every point and range lookup returns what the same query without
// prunable predicates returns.
func TestE2EPruningKeepsRows(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE pr")
	mustExec(t, db, `CREATE TABLE pr.t (k INT, s VARCHAR(10), v INT) DUPLICATE KEY(k)
		PARTITION BY RANGE(v) (PARTITION p1 VALUES LESS THAN ("100"), PARTITION p2 VALUES LESS THAN ("200"), PARTITION p3 VALUES LESS THAN MAXVALUE)
		DISTRIBUTED BY HASH(k, s) BUCKETS 7 PROPERTIES ("replication_num" = "1")`)
	var vals []string
	for i := 0; i < 300; i++ {
		vals = append(vals, fmt.Sprintf("(%d, 's%d', %d)", i%50, i%3, i))
	}
	mustExec(t, db, "INSERT INTO pr.t VALUES "+strings.Join(vals, ","))
	for _, c := range []struct{ pruned, plain string }{
		{"k = 7 AND s = 's1'", "k + 0 = 7 AND concat(s, '') = 's1'"},
		{"k IN (3, 4, 5) AND s IN ('s0', 's2')", "k + 0 IN (3, 4, 5) AND concat(s, '') IN ('s0', 's2')"},
		{"v >= 150", "v + 0 >= 150"},
		{"v < 100 AND k = 9 AND s = 's0'", "v + 0 < 100 AND k + 0 = 9 AND concat(s, '') = 's0'"},
		{"250 <= v", "250 <= v + 0"},
	} {
		got := queryStrings(t, db, "SELECT k, s, v FROM pr.t WHERE "+c.pruned+" ORDER BY v")
		want := queryStrings(t, db, "SELECT k, s, v FROM pr.t WHERE "+c.plain+" ORDER BY v")
		if len(want) == 0 || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: got %d rows %v, want %d rows %v", c.pruned, len(got), got, len(want), want)
		}
	}
	if p := explainText(t, db, "SELECT * FROM pr.t WHERE k = 7 AND s = 's1' AND v < 100"); !strings.Contains(p, "partitions=1/3") || !strings.Contains(p, "tablets=1/7") {
		t.Errorf("expected one partition and one tablet read:\n%s", p)
	}
}
