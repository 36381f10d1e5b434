package server_test

import (
	"database/sql"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/sql/types"
)

// ALTER TABLE (catalog/alter.go, storage/schema.go): light schema changes
// over data in several rowsets on 3 backends, partitions, RENAME, exact
// rows after each change, a restart and a kill -9.

func alterWant(t *testing.T, db querier, q string, want [][]string) {
	t.Helper()
	got := sortedRows(queryStrings(t, db, q))
	if !reflect.DeepEqual(got, sortedRows(want)) {
		t.Fatalf("%s:\n got %v\nwant %v", q, got, want)
	}
}

func arows(lines ...string) [][]string {
	out := [][]string{}
	for _, l := range lines {
		out = append(out, strings.Split(l, "|"))
	}
	return out
}

func wantErrContains(t *testing.T, db *sql.DB, stmt string, code uint16, part string) {
	t.Helper()
	_, err := db.Exec(stmt)
	wantCode(t, err, code, stmt)
	if !strings.Contains(err.Error(), part) {
		t.Fatalf("%s: %v, want it to say %q", stmt, err, part)
	}
}

func TestE2EAlterColumns(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	defer func() { s.Close() }()
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE al")
	mustExec(t, db, `CREATE TABLE al.dup (k INT NOT NULL, v INT, s VARCHAR(10)) DUPLICATE KEY(k)
		DISTRIBUTED BY HASH(k) BUCKETS 4 PROPERTIES ("replication_num" = "2")`)
	mustExec(t, db, `CREATE TABLE al.uniq (k INT NOT NULL, v INT, s VARCHAR(10)) UNIQUE KEY(k)
		DISTRIBUTED BY HASH(k) BUCKETS 4 PROPERTIES ("replication_num" = "3")`)
	mustExec(t, db, `CREATE TABLE al.agg (k INT NOT NULL, v INT SUM, s VARCHAR(10) REPLACE) AGGREGATE KEY(k)
		DISTRIBUTED BY HASH(k) BUCKETS 4 PROPERTIES ("replication_num" = "1")`)
	for _, tb := range []string{"dup", "uniq", "agg"} {
		mustExec(t, db, "INSERT INTO al."+tb+" VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c')")
		mustExec(t, db, "INSERT INTO al."+tb+" VALUES (4, 40, 'd'), (5, 50, 'e')")
		mustExec(t, db, "INSERT INTO al."+tb+" VALUES (1, 1, 'z')")
	}
	before := map[string][][]string{
		"dup":  arows("1|10|a", "1|1|z", "2|20|b", "3|30|c", "4|40|d", "5|50|e"),
		"uniq": arows("1|1|z", "2|20|b", "3|30|c", "4|40|d", "5|50|e"),
		"agg":  arows("1|11|z", "2|20|b", "3|30|c", "4|40|d", "5|50|e"),
	}
	for tb, want := range before {
		alterWant(t, db, "SELECT k, v, s FROM al."+tb, want)
	}

	// ADD COLUMN: old rows read the default, at once.
	mustExec(t, db, "ALTER TABLE al.dup ADD COLUMN c INT DEFAULT \"7\" COMMENT 'new' AFTER k")
	mustExec(t, db, "ALTER TABLE al.uniq ADD COLUMN c INT NOT NULL DEFAULT \"7\" AFTER k")
	mustExec(t, db, "ALTER TABLE al.agg ADD COLUMN c INT MAX DEFAULT \"7\" AFTER k")
	alterWant(t, db, "SELECT * FROM al.dup", arows("1|7|10|a", "1|7|1|z", "2|7|20|b", "3|7|30|c", "4|7|40|d", "5|7|50|e"))
	alterWant(t, db, "SELECT * FROM al.uniq", arows("1|7|1|z", "2|7|20|b", "3|7|30|c", "4|7|40|d", "5|7|50|e"))
	alterWant(t, db, "SELECT * FROM al.agg", arows("1|7|11|z", "2|7|20|b", "3|7|30|c", "4|7|40|d", "5|7|50|e"))
	alterWant(t, db, "SELECT k FROM al.dup WHERE c = 7 AND k < 3", arows("1", "1", "2"))
	for _, tb := range []string{"dup", "uniq", "agg"} {
		mustExec(t, db, "INSERT INTO al."+tb+" VALUES (6, 600, 60, 'f'), (2, 200, 2, 'y')")
	}
	alterWant(t, db, "SELECT * FROM al.uniq", arows("1|7|1|z", "2|200|2|y", "3|7|30|c", "4|7|40|d", "5|7|50|e", "6|600|60|f"))
	alterWant(t, db, "SELECT * FROM al.agg", arows("1|7|11|z", "2|200|22|y", "3|7|30|c", "4|7|40|d", "5|7|50|e", "6|600|60|f"))
	alterWant(t, db, "SELECT k, c FROM al.dup WHERE c > 100", arows("2|200", "6|600"))
	desc := queryStrings(t, db, "DESC al.dup")
	if len(desc) != 4 || desc[1][0] != "c" {
		t.Fatalf("DESC after ADD COLUMN: %v", desc)
	}
	create := queryStrings(t, db, "SHOW CREATE TABLE al.dup")[0][1]
	if !strings.Contains(create, "`c` int NULL DEFAULT \"7\" COMMENT \"new\"") {
		t.Fatalf("SHOW CREATE TABLE after ADD COLUMN:\n%s", create)
	}

	// DROP COLUMN, then ADD it again: the old values do not come back.
	for _, tb := range []string{"dup", "uniq", "agg"} {
		mustExec(t, db, "ALTER TABLE al."+tb+" DROP COLUMN s")
	}
	alterWant(t, db, "SELECT * FROM al.uniq", arows("1|7|1", "2|200|2", "3|7|30", "4|7|40", "5|7|50", "6|600|60"))
	mustExec(t, db, "ALTER TABLE al.dup ADD COLUMN s VARCHAR(10)")
	mustExec(t, db, "ALTER TABLE al.uniq ADD COLUMN s VARCHAR(10) DEFAULT 'n'")
	mustExec(t, db, "ALTER TABLE al.agg ADD COLUMN s VARCHAR(10) REPLACE_IF_NOT_NULL")
	alterWant(t, db, "SELECT k, s FROM al.dup", arows("1|NULL", "1|NULL", "2|NULL", "2|NULL", "3|NULL", "4|NULL", "5|NULL", "6|NULL"))
	alterWant(t, db, "SELECT k, s FROM al.uniq", arows("1|n", "2|n", "3|n", "4|n", "5|n", "6|n"))

	// RENAME COLUMN and MODIFY COLUMN default / comment, MODIFY COMMENT.
	mustExec(t, db, "ALTER TABLE al.dup RENAME COLUMN v vv")
	mustExec(t, db, "ALTER TABLE al.dup MODIFY COLUMN c INT DEFAULT \"8\" COMMENT 'changed'")
	mustExec(t, db, "ALTER TABLE al.dup MODIFY COMMENT 'the dup table'")
	mustExec(t, db, "INSERT INTO al.dup (k, vv) VALUES (9, 90)")
	alterWant(t, db, "SELECT k, c, vv, s FROM al.dup WHERE k IN (1, 9)", arows("1|7|10|NULL", "1|7|1|NULL", "9|8|90|NULL"))
	create = queryStrings(t, db, "SHOW CREATE TABLE al.dup")[0][1]
	for _, part := range []string{"`vv`", "DEFAULT \"8\" COMMENT \"changed\"", "COMMENT 'the dup table'"} {
		if !strings.Contains(create, part) {
			t.Fatalf("SHOW CREATE TABLE lacks %q:\n%s", part, create)
		}
	}
	_, err := db.Exec("SELECT v FROM al.dup")
	wantCode(t, err, 1054, "the old name after RENAME COLUMN")

	// Doris's errors.
	wantErrContains(t, db, "ALTER TABLE al.dup ADD COLUMN c INT", 1105, "Can not add column which already exists in base table: c")
	wantErrContains(t, db, "ALTER TABLE al.uniq DROP COLUMN k", 1105, "Can not drop partition or distribution column : k")
	wantErrContains(t, db, "ALTER TABLE al.dup DROP COLUMN nope", 1105, "Column does not exists: nope")
	// Heavy changes Doris refuses (the others run as jobs, e2e_schema_change_test.go).
	wantErrContains(t, db, "ALTER TABLE al.dup MODIFY COLUMN vv TINYINT", 1105, "Can not change INT to TINYINT")
	wantErrContains(t, db, "ALTER TABLE al.agg ADD COLUMN x DOUBLE", 1105, "Float or double can not used as a key")
	wantErrContains(t, db, "ALTER TABLE al.uniq ADD COLUMN x INT SUM", 1105, "Can not assign aggregation method")
	wantErrContains(t, db, "ALTER TABLE al.dup ADD COLUMN x INT NOT NULL", 1105, "NOT NULL and has no default value")
	wantErrContains(t, db, "ALTER TABLE al.dup ADD COLUMN x INT FIRST", 1105, "value should be after key")
	wantErrContains(t, db, "ALTER TABLE al.dup ORDER BY (k, c)", 1105, "Reorder stmt should contains all columns")
	_, err = db.Exec("ALTER TABLE al.nope ADD COLUMN x INT")
	wantCode(t, err, 1146, "ALTER of a missing table")
	// Light changes finish in their statement and the heavy ones above
	// were refused, so there is no job to show or cancel.
	if rows := queryStrings(t, db, "SHOW ALTER TABLE COLUMN FROM al WHERE TableName = 'dup' ORDER BY CreateTime DESC LIMIT 1"); len(rows) != 0 {
		t.Fatalf("SHOW ALTER TABLE COLUMN: %v", rows)
	}
	_, err = db.Exec("SHOW ALTER TABLE COLUMN FROM al WHERE nosuch = 1")
	wantCode(t, err, 1054, "SHOW ALTER TABLE COLUMN on an unknown column")
	wantErrContains(t, db, "CANCEL ALTER TABLE COLUMN FROM al.dup", 1105, "Table[dup] is not under SCHEMA_CHANGE.")
	_, err = db.Exec("CANCEL ALTER TABLE COLUMN FROM al.nope")
	wantCode(t, err, 1146, "CANCEL of a missing table")
	_, err = db.Exec("SHOW ALTER TABLE ROLLUP FROM al")
	wantCode(t, err, 1235, "SHOW ALTER TABLE ROLLUP")

	// Stream load after the change loads the new columns.
	mustStreamLoad(t, s.HTTPAddr(), "al", "uniq", map[string]string{"column_separator": ","}, []byte("7,70,700,q\n"))
	alterWant(t, db, "SELECT * FROM al.uniq WHERE k >= 6", arows("6|600|60|n", "7|70|700|q"))

	// Restart: the same rows, and compaction-prone single-row loads too.
	want := map[string][][]string{}
	for _, tb := range []string{"dup", "uniq", "agg"} {
		want[tb] = sortedRows(queryStrings(t, db, "SELECT * FROM al."+tb))
	}
	s.Close()
	s = startServer(t, dir)
	db = openDB(t, s.MySQLAddr(), "", true)
	for tb, w := range want {
		alterWant(t, db, "SELECT * FROM al."+tb, w)
	}
	for i := 0; i < 10; i++ {
		mustExec(t, db, "INSERT INTO al.agg VALUES (1, 0, 1, NULL)")
	}
	alterWant(t, db, "SELECT * FROM al.agg WHERE k = 1", arows("1|7|21|NULL"))
}

func TestE2EAlterPartitions(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE ap")
	mustExec(t, db, `CREATE TABLE ap.r (k INT NOT NULL, d DATE NOT NULL, v INT) DUPLICATE KEY(k)
		PARTITION BY RANGE(d) (PARTITION p1 VALUES LESS THAN ("2024-01-01"), PARTITION p2 VALUES LESS THAN ("2025-01-01"))
		DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "1", "colocate_with" = "apg")`)
	mustExec(t, db, "INSERT INTO ap.r VALUES (1, '2023-05-01', 1), (2, '2024-05-01', 2)")
	_, err := db.Exec("INSERT INTO ap.r VALUES (3, '2025-05-01', 3)")
	if err == nil {
		t.Fatal("a row beyond the partitions was accepted")
	}
	wantErrContains(t, db, `ALTER TABLE ap.r ADD PARTITION p3 VALUES LESS THAN ("2024-06-01")`, 1105, "is intersected with range")
	wantErrContains(t, db, `ALTER TABLE ap.r ADD PARTITION p2 VALUES LESS THAN ("2027-01-01")`, 1517, "Duplicate partition name p2")
	wantErrContains(t, db, `ALTER TABLE ap.r ADD PARTITION p3 VALUES LESS THAN ("2026-01-01") DISTRIBUTED BY HASH(k) BUCKETS 5`, 1105, "Colocate tables must have same bucket num")
	mustExec(t, db, `ALTER TABLE ap.r ADD PARTITION p3 VALUES LESS THAN ("2026-01-01")`)
	mustExec(t, db, `ALTER TABLE ap.r ADD PARTITION IF NOT EXISTS p3 VALUES LESS THAN ("2026-01-01")`)
	mustExec(t, db, `ALTER TABLE ap.r ADD PARTITION p5 VALUES [("2027-01-01"), ("2028-01-01")) DISTRIBUTED BY HASH(k) BUCKETS 3`)
	mustExec(t, db, "INSERT INTO ap.r VALUES (3, '2025-05-01', 3), (4, '2027-02-01', 4)")
	alterWant(t, db, "SELECT * FROM ap.r", arows("1|2023-05-01|1", "2|2024-05-01|2", "3|2025-05-01|3", "4|2027-02-01|4"))
	parts := queryStrings(t, db, "SHOW PARTITIONS FROM ap.r")
	var names []string
	for _, p := range parts {
		names = append(names, p[1])
	}
	if !reflect.DeepEqual(names, []string{"p1", "p2", "p3", "p5"}) {
		t.Fatalf("SHOW PARTITIONS: %v", parts)
	}
	// The new partition keeps the colocate group stable (same buckets, same backends).
	grp := queryStrings(t, db, "SHOW PROC '/colocation_group'")
	for _, g := range grp {
		if strings.HasSuffix(g[1], "apg") && g[6] != "true" {
			t.Fatalf("colocate group after ADD PARTITION: %v", g)
		}
	}
	alterWant(t, db, "SELECT count(*) FROM ap.r a JOIN ap.r b ON a.k = b.k", arows("4"))

	mustExec(t, db, "ALTER TABLE ap.r DROP PARTITION p2")
	mustExec(t, db, "ALTER TABLE ap.r DROP PARTITION IF EXISTS p2")
	wantErrContains(t, db, "ALTER TABLE ap.r DROP PARTITION p2", 1507, "Error in list of partitions to p2")
	alterWant(t, db, "SELECT * FROM ap.r", arows("1|2023-05-01|1", "3|2025-05-01|3", "4|2027-02-01|4"))
	wantErrContains(t, db, "ALTER TABLE ap.r DROP COLUMN d", 1105, "Can not drop partition or distribution column : d")

	mustExec(t, db, `CREATE TABLE ap.l (k INT NOT NULL, c VARCHAR(4) NOT NULL) DUPLICATE KEY(k)
		PARTITION BY LIST(c) (PARTITION pa VALUES IN ("a", "b")) DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "1")`)
	wantErrContains(t, db, `ALTER TABLE ap.l ADD PARTITION pb VALUES IN ("b", "c")`, 1105, "is conflict with partition")
	mustExec(t, db, `ALTER TABLE ap.l ADD PARTITION pc VALUES IN ("c")`)
	mustExec(t, db, "INSERT INTO ap.l VALUES (1, 'a'), (2, 'c')")
	alterWant(t, db, "SELECT * FROM ap.l", arows("1|a", "2|c"))

	// Properties: default.replication_num for new partitions; what would
	// move replicas is refused.
	wantErrContains(t, db, `ALTER TABLE ap.l SET ("replication_num" = "2")`, 1105, "default.replication_num")
	mustExec(t, db, `ALTER TABLE ap.l SET ("default.replication_num" = "2")`)
	mustExec(t, db, `ALTER TABLE ap.l ADD PARTITION pd VALUES IN ("d")`)
	mustExec(t, db, "INSERT INTO ap.l VALUES (3, 'd')")
	alterWant(t, db, "SELECT * FROM ap.l", arows("1|a", "2|c", "3|d"))
	wantErrContains(t, db, `ALTER TABLE ap.r SET ("default.replication_num" = "2")`, 1105, "colocate")
	_, err = db.Exec(`ALTER TABLE ap.r MODIFY PARTITION p1 SET ("replication_num" = "3")`)
	wantCode(t, err, 1235, "MODIFY PARTITION replication_num")
	mustExec(t, db, `ALTER TABLE ap.r MODIFY PARTITION p1 SET ("replication_num" = "1")`)
}

func TestE2EAlterRenameAndColocate(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE rn")
	mustExec(t, db, `CREATE TABLE rn.a (k INT NOT NULL, v INT) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, `CREATE TABLE rn.b (k INT NOT NULL, v INT) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, "INSERT INTO rn.a VALUES (1, 1), (2, 2)")
	mustExec(t, db, "ALTER TABLE rn.a RENAME a2")
	_, err := db.Exec("SELECT * FROM rn.a")
	wantCode(t, err, 1146, "old name after RENAME")
	alterWant(t, db, "SELECT * FROM rn.a2", arows("1|1", "2|2"))
	mustExec(t, db, "ALTER TABLE rn.a2 RENAME TO a3")
	alterWant(t, db, "SELECT * FROM rn.a3", arows("1|1", "2|2"))
	_, err = db.Exec("ALTER TABLE rn.a3 RENAME b")
	wantCode(t, err, 1050, "RENAME onto an existing table")

	// colocate_with: a table placed like the group joins stable; one
	// placed elsewhere joins too, the group unstable until its replicas
	// moved onto the group's sequence (the tablet scheduler).
	mustExec(t, db, `CREATE TABLE rn.g1 (k INT NOT NULL, v INT) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "3", "colocate_with" = "grp")`)
	mustExec(t, db, `CREATE TABLE rn.c3 (k INT NOT NULL, v INT) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "3")`)
	mustExec(t, db, `ALTER TABLE rn.c3 SET ("colocate_with" = "grp")`)
	wantErrContains(t, db, `ALTER TABLE rn.b SET ("colocate_with" = "grp")`, 5063, "same replication num")
	mustExec(t, db, `CREATE TABLE rn.g2 (k INT NOT NULL, v INT) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "1", "colocate_with" = "grp1")`)
	mustExec(t, db, `CREATE TABLE rn.one (k INT NOT NULL, v INT) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, `CREATE TABLE rn.c1 (k INT NOT NULL, v INT) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	// rn.c1's buckets start on other backends than grp1's (least loaded,
	// after rn.one).
	mustExec(t, db, "INSERT INTO rn.c1 VALUES (1, 1), (2, 2), (3, 3)")
	mustExec(t, db, `ALTER TABLE rn.c1 SET ("colocate_with" = "grp1")`)
	grp1 := func() []string {
		for _, r := range queryStrings(t, db, "SHOW PROC '/colocation_group'") {
			if strings.HasSuffix(r[1], "grp1") {
				return r
			}
		}
		t.Fatal("no group grp1")
		return nil
	}
	if g := grp1(); g[6] != "false" || !strings.Contains(g[7], "of table c1 is not on the backends of bucket") {
		t.Errorf("grp1 right after rn.c1 joined: IsStable %s, ErrorMsg %q; want unstable, naming c1", g[6], g[7])
	}
	waitFor(t, 20*time.Second, "grp1 stable with rn.c1 moved onto its sequence", func() bool {
		g := grp1()
		return g[6] == "true" && strings.Contains(g[2], ",") // two member tables
	})
	alterWant(t, db, "SELECT * FROM rn.c1", arows("1|1", "2|2", "3|3"))
}

// TestE2EAlterKill9: an acknowledged ALTER survives a kill -9 right after
// it, and the backends get the schema when the FE comes back.
func TestE2EAlterKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the binary")
	}
	dir := t.TempDir()
	p := startProc(t, dir)
	db := openDB(t, p.mysqlAddr, "", true)
	mustExec(t, db, "CREATE DATABASE kk")
	mustExec(t, db, `CREATE TABLE kk.t (k INT NOT NULL, v INT) DISTRIBUTED BY HASH(k) BUCKETS 4 PROPERTIES ("replication_num" = "3")`)
	mustExec(t, db, "INSERT INTO kk.t VALUES (1, 1), (2, 2)")
	mustExec(t, db, "ALTER TABLE kk.t ADD COLUMN c INT DEFAULT \"5\"")
	mustExec(t, db, "ALTER TABLE kk.t DROP COLUMN v")
	p.kill()
	db.Close()
	p = startProc(t, dir)
	db = openDB(t, p.mysqlAddr, "", true)
	alterWant(t, db, "SELECT * FROM kk.t", arows("1|5", "2|5"))
	mustExec(t, db, "INSERT INTO kk.t VALUES (3, 30)")
	alterWant(t, db, "SELECT * FROM kk.t", arows("1|5", "2|5", "3|30"))
}

// TestE2EAlterCatalogAheadOfBackends: a crash after the catalog write and
// before the backends got the schema. Until they have it, their replicas
// refuse scans planned at the new version (no mix of schemas); a restart
// brings them to the catalog's schema.
func TestE2EAlterCatalogAheadOfBackends(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	defer func() { s.Close() }()
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE ca")
	mustExec(t, db, `CREATE TABLE ca.t (k INT NOT NULL, v INT) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, "INSERT INTO ca.t VALUES (1, 10), (2, 20), (3, 30)")
	nine := types.IntDatum(9)
	err := s.AlterCatalogOnly("ca", "t", func(tb *catalog.Table) error {
		if err := tb.DropColumn("v"); err != nil {
			return err
		}
		return tb.AddColumn(catalog.Column{Column: types.Column{Name: "v", Type: types.IntT, Nullable: true}}, catalog.ColumnPos{}, &nine)
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = queryStringsErr(db, "SELECT * FROM ca.t")
	if err == nil || !strings.Contains(err.Error(), "schema version") {
		t.Fatalf("scan of a backend behind the catalog: %v", err)
	}
	s.Close()
	s = startServer(t, dir)
	db = openDB(t, s.MySQLAddr(), "", true)
	alterWant(t, db, "SELECT * FROM ca.t", arows("1|9", "2|9", "3|9"))
}

// TestE2EAlterDuringLoads: INSERTs race ADD and DROP COLUMN. Each one
// either commits (under the schema it was planned with: its rows read the
// added column's default) or fails cleanly; no row is lost or mixed up.
func TestE2EAlterDuringLoads(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE cl")
	mustExec(t, db, `CREATE TABLE cl.t (k INT NOT NULL, v INT) DISTRIBUTED BY HASH(k) BUCKETS 6 PROPERTIES ("replication_num" = "2")`)
	done := make(chan struct{})
	type result struct {
		ok   []int
		errs []error
	}
	res := make(chan result)
	go func() {
		var r result
		for k := 1; ; k++ {
			select {
			case <-done:
				res <- r
				return
			default:
			}
			_, err := db.Exec(fmt.Sprintf("INSERT INTO cl.t (k, v) VALUES (%d, %d), (%d, %d)", k, k, k+100000, k))
			if err != nil {
				r.errs = append(r.errs, err)
			} else {
				r.ok = append(r.ok, k)
			}
		}
	}()
	for i := 0; i < 6; i++ {
		mustExec(t, db, fmt.Sprintf("ALTER TABLE cl.t ADD COLUMN c%d INT DEFAULT \"%d\"", i, i))
		if i%2 == 1 {
			mustExec(t, db, fmt.Sprintf("ALTER TABLE cl.t DROP COLUMN c%d", i-1))
		}
	}
	close(done)
	r := <-res
	for _, err := range r.errs {
		if !strings.Contains(err.Error(), "schema") || !strings.Contains(err.Error(), "retry") {
			t.Fatalf("a load racing ALTER failed with %v", err)
		}
	}
	var want [][]string
	for _, k := range r.ok {
		want = append(want, []string{fmt.Sprint(k), fmt.Sprint(k), "1", "3", "5"}, []string{fmt.Sprint(k + 100000), fmt.Sprint(k), "1", "3", "5"})
	}
	got := queryStrings(t, db, "SELECT k, v, c1, c3, c5 FROM cl.t")
	if len(r.ok) == 0 || !reflect.DeepEqual(sortedRows(got), sortedRows(want)) {
		t.Fatalf("%d loads committed, %d failed; rows differ: got %d rows, want %d", len(r.ok), len(r.errs), len(got), len(want))
	}
	t.Logf("%d loads committed, %d failed cleanly", len(r.ok), len(r.errs))
}

// TestE2EAlterAfterDelete: a DELETE's condition keeps applying to the rows
// it deleted after its column is renamed, dropped and added again, and
// never to rows loaded later.
func TestE2EAlterAfterDelete(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE ad")
	mustExec(t, db, `CREATE TABLE ad.t (k INT NOT NULL, v INT, w INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "3")`)
	mustExec(t, db, "INSERT INTO ad.t VALUES (1, 1, 1), (2, 2, 2), (3, 3, 3)")
	mustExec(t, db, "INSERT INTO ad.t VALUES (4, 2, 4)")
	mustExec(t, db, "DELETE FROM ad.t WHERE v = 2")
	alterWant(t, db, "SELECT k FROM ad.t", arows("1", "3"))
	mustExec(t, db, "ALTER TABLE ad.t RENAME COLUMN v vv")
	alterWant(t, db, "SELECT k, vv FROM ad.t", arows("1|1", "3|3"))
	mustExec(t, db, "ALTER TABLE ad.t DROP COLUMN vv")
	mustExec(t, db, "ALTER TABLE ad.t ADD COLUMN v INT DEFAULT \"2\"")
	mustExec(t, db, "INSERT INTO ad.t VALUES (5, 5, 2)")
	alterWant(t, db, "SELECT * FROM ad.t", arows("1|1|2", "3|3|2", "5|5|2"))
	mustExec(t, db, "DELETE FROM ad.t WHERE v = 2 AND k = 1")
	alterWant(t, db, "SELECT * FROM ad.t", arows("3|3|2", "5|5|2"))
}
