package server_test

import (
	"database/sql"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// restartSchema builds databases, tables of every kind, colocate groups and
// rows whose survival TestE2ERestartKeepsEverything checks.
var restartSchema = []string{
	"CREATE DATABASE r1",
	"CREATE DATABASE r2",
	`CREATE TABLE r1.fact (k INT NOT NULL, d DATE NOT NULL, v DECIMAL(12,2), s VARCHAR(32))
	  DUPLICATE KEY(k)
	  PARTITION BY RANGE(d) (PARTITION p2023 VALUES LESS THAN ("2024-01-01"), PARTITION p2024 VALUES LESS THAN ("2025-01-01"))
	  DISTRIBUTED BY HASH(k) BUCKETS 4 PROPERTIES ("replication_num" = "3", "colocate_with" = "g1")`,
	`CREATE TABLE r1.dim (k INT NOT NULL, name STRING) UNIQUE KEY(k)
	  DISTRIBUTED BY HASH(k) BUCKETS 4 PROPERTIES ("replication_num" = "3", "colocate_with" = "g1")`,
	`CREATE TABLE r1.agg (k BIGINT NOT NULL, total BIGINT SUM) AGGREGATE KEY(k)
	  DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "2")`,
	`CREATE TABLE r2.single (id INT NOT NULL, tag CHAR(4)) DUPLICATE KEY(id)
	  DISTRIBUTED BY HASH(id) BUCKETS 5 PROPERTIES ("replication_num" = "1", "colocate_with" = "__global__gg")`,
	`CREATE TABLE r2.rnd (id INT, note VARCHAR(10)) DUPLICATE KEY(id)
	  DISTRIBUTED BY RANDOM BUCKETS 2 PROPERTIES ("replication_num" = "1")`,
	"CREATE TABLE r2.plain (id INT PRIMARY KEY, name VARCHAR(20))",
	"CREATE TABLE r2.emptyt (id INT) DISTRIBUTED BY HASH(id) BUCKETS 2 PROPERTIES (\"replication_num\" = \"1\")",
}

var restartData = []string{
	"INSERT INTO r1.fact VALUES (1, '2023-05-01', 10.50, 'a'), (2, '2024-02-29', -3.25, NULL), (3, '2023-12-31', NULL, 'ü')",
	"INSERT INTO r1.fact VALUES (4, '2024-12-31', 0.01, 'd')",
	"INSERT INTO r1.dim VALUES (1, 'one'), (2, 'two'), (3, 'three')",
	"INSERT INTO r1.dim VALUES (2, 'TWO')", // a UNIQUE KEY table keeps the newest
	"INSERT INTO r1.agg VALUES (1, 5), (2, 7), (1, 10)",
	"INSERT INTO r1.agg VALUES (1, 100)",
	"INSERT INTO r2.single VALUES (7, 'x'), (8, NULL), (9, 'zz')",
	"INSERT INTO r2.rnd VALUES (NULL, 'n'), (1, 'one')",
	"INSERT INTO r2.plain VALUES (1, 'p1'), (2, 'p2')",
	"INSERT INTO r2.single SELECT id + 100, tag FROM r2.single",
}

// snapshot is everything a user can see of the catalog and data.
type snapshot map[string][][]string

func takeSnapshot(t *testing.T, db *sql.DB) snapshot {
	t.Helper()
	snap := snapshot{}
	snap["databases"] = queryStrings(t, db, "SHOW DATABASES")
	snap["backends"] = column(queryStrings(t, db, "SHOW BACKENDS"), 0)
	for _, dbName := range []string{"r1", "r2"} {
		tables := queryStrings(t, db, "SHOW TABLES FROM "+dbName)
		snap["tables "+dbName] = tables
		for _, tr := range tables {
			name := dbName + "." + tr[0]
			snap["create "+name] = queryStrings(t, db, "SHOW CREATE TABLE "+name)
			snap["tablets "+name] = queryStrings(t, db, "SHOW TABLETS FROM "+name)
			snap["partitions "+name] = queryStrings(t, db, "SHOW PARTITIONS FROM "+name)
			snap["desc "+name] = queryStrings(t, db, "DESC "+name)
			snap["rows "+name] = sortedRows(queryStrings(t, db, "SELECT * FROM "+name))
		}
	}
	groups := queryStrings(t, db, "SHOW PROC '/colocation_group'")
	for _, g := range groups {
		snap["group "+g[1]] = queryStrings(t, db, fmt.Sprintf("SHOW PROC '/colocation_group/%s'", g[0]))
	}
	snap["groups"] = groups
	return snap
}

func column(rows [][]string, i int) [][]string {
	out := make([][]string, len(rows))
	for j, r := range rows {
		out[j] = []string{r[i]}
	}
	return out
}

// TestE2ERestartKeepsEverything closes the server and starts it again on the
// same data dir twice: every database, table, tablet placement, replica,
// colocate group and row is as it was, and the server goes on working.
func TestE2ERestartKeepsEverything(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	db := openDB(t, s.MySQLAddr(), "", true)
	for _, q := range append(append([]string{}, restartSchema...), restartData...) {
		mustExec(t, db, q)
	}
	waitBackendsAlive(t, db, 3)
	before := takeSnapshot(t, db)
	checkRestartData(t, before)
	db.Close()
	s.Close()

	for round := 1; round <= 2; round++ {
		s = startServer(t, dir)
		db = openDB(t, s.MySQLAddr(), "", round == 2)
		waitBackendsAlive(t, db, 3)
		after := takeSnapshot(t, db)
		for k, v := range before {
			if !reflect.DeepEqual(after[k], v) {
				t.Errorf("round %d: %s changed across restart:\nbefore %q\nafter  %q", round, k, v, after[k])
			}
		}
		for k := range after {
			if _, ok := before[k]; !ok {
				t.Errorf("round %d: new after restart: %s = %q", round, k, after[k])
			}
		}
		for _, g := range after["groups"] {
			if g[6] != "true" {
				t.Errorf("round %d: group %s not stable with every backend alive: %q", round, g[1], g)
			}
		}
		if t.Failed() {
			s.Close()
			t.FailNow()
		}
		db.Close()
		s.Close()
	}

	// Still writable, and new objects never reuse ids of old ones.
	s = startServer(t, dir)
	defer s.Close()
	db = openDB(t, s.MySQLAddr(), "", false)
	waitBackendsAlive(t, db, 3)
	mustExec(t, db, "INSERT INTO r1.fact VALUES (5, '2024-06-01', 1.00, 'new')")
	if got := len(queryStrings(t, db, "SELECT k FROM r1.fact WHERE k > ?", 0)); got != 5 {
		t.Fatalf("r1.fact has %d rows after insert, want 5", got)
	}
	mustExec(t, db, `CREATE TABLE r2.later (id INT NOT NULL) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 5
	  PROPERTIES ("replication_num" = "1", "colocate_with" = "__global__gg")`)
	_, err := db.Exec(`CREATE TABLE r2.badgroup (id INT NOT NULL) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 4
	  PROPERTIES ("replication_num" = "1", "colocate_with" = "__global__gg")`)
	if err == nil {
		t.Error("colocate group lost its bucket count rule across restart: CREATE with 4 buckets in a 5-bucket group succeeded")
	}
	old := map[string]bool{}
	for k, rows := range before {
		if strings.HasPrefix(k, "tablets ") {
			for _, r := range rows {
				old[r[0]] = true
				old[r[1]] = true
			}
		}
	}
	for _, r := range queryStrings(t, db, "SHOW TABLETS FROM r2.later") {
		if old[r[0]] || old[r[1]] {
			t.Errorf("new table reuses tablet/replica id of an old one: %q", r)
		}
	}
}

// checkRestartData checks the data as written before any restart, so that a
// snapshot that is wrong from the start cannot pass the comparison.
func checkRestartData(t *testing.T, snap snapshot) {
	t.Helper()
	want := map[string][][]string{
		"rows r1.dim":    {{"1", "one"}, {"2", "TWO"}, {"3", "three"}},
		"rows r1.agg":    {{"1", "115"}, {"2", "7"}},
		"rows r2.plain":  {{"1", "p1"}, {"2", "p2"}},
		"rows r2.rnd":    {{"1", "one"}, {"NULL", "n"}},
		"rows r2.emptyt": nil,
		"rows r1.fact": {{"1", "2023-05-01", "10.50", "a"}, {"2", "2024-02-29", "-3.25", "NULL"},
			{"3", "2023-12-31", "NULL", "ü"}, {"4", "2024-12-31", "0.01", "d"}},
		"rows r2.single": {{"107", "x"}, {"108", "NULL"}, {"109", "zz"}, {"7", "x"}, {"8", "NULL"}, {"9", "zz"}},
	}
	for k, w := range want {
		if !reflect.DeepEqual(snap[k], w) {
			t.Errorf("%s = %q, want %q", k, snap[k], w)
		}
	}
	if n := len(snap["groups"]); n != 2 {
		t.Errorf("want 2 colocate groups, got %q", snap["groups"])
	}
	// replication_num copies on distinct backends, and colocated buckets aligned.
	for k, rows := range snap {
		if !strings.HasPrefix(k, "tablets ") {
			continue
		}
		per := map[string]map[string]bool{}
		for _, r := range rows {
			if per[r[0]] == nil {
				per[r[0]] = map[string]bool{}
			}
			if per[r[0]][r[2]] {
				t.Errorf("%s: tablet %s has two replicas on backend %s", k, r[0], r[2])
			}
			per[r[0]][r[2]] = true
		}
		wantRepl := map[string]int{"tablets r1.fact": 3, "tablets r1.dim": 3, "tablets r1.agg": 2, "tablets r2.plain": 3}[k]
		if wantRepl == 0 {
			wantRepl = 1
		}
		for tb, bes := range per {
			if len(bes) != wantRepl {
				t.Errorf("%s: tablet %s has %d replicas, want %d", k, tb, len(bes), wantRepl)
			}
		}
	}
	// fact (2 partitions × 4 buckets) and dim (4 buckets) share group g1:
	// bucket i of each lives on the same backends.
	// SHOW TABLETS lists partitions in order and, within one, tablets by bucket.
	bucketBEs := func(rows [][]string) []string {
		var tablets []string
		bes := map[string][]string{}
		for _, r := range rows {
			if len(bes[r[0]]) == 0 {
				tablets = append(tablets, r[0])
			}
			bes[r[0]] = append(bes[r[0]], r[2])
		}
		var out []string
		for _, tb := range tablets {
			s := bes[tb]
			sort.Strings(s)
			out = append(out, strings.Join(s, ","))
		}
		return out
	}
	fact := bucketBEs(snap["tablets r1.fact"])
	dim := bucketBEs(snap["tablets r1.dim"])
	if len(fact) != 8 || len(dim) != 4 {
		t.Fatalf("tablet counts: fact %d (want 8), dim %d (want 4)", len(fact), len(dim))
	}
	for i := 0; i < 8; i++ {
		if fact[i] != dim[i%4] {
			t.Errorf("colocate group g1: bucket %d of fact on %s, of dim on %s", i%4, fact[i], dim[i%4])
		}
	}
}
