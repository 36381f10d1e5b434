package server_test

import (
	"database/sql"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// Views end to end (issue 14): CREATE [OR REPLACE] / ALTER / DROP VIEW with
// MySQL's and Doris's errors, queries through views planned as if written
// inline (colocate joins survive), the listings, and views surviving a
// restart and kill -9.

// wantViewRows runs q on db and compares its rows, sorted unless q orders
// them, with want ("a|b" per row).
func wantViewRows(t *testing.T, db querier, q string, want ...string) {
	t.Helper()
	rows, err := queryStringsErr(db, q)
	if err != nil {
		t.Errorf("%s: %v", q, err)
		return
	}
	got := make([]string, len(rows))
	for i, r := range rows {
		got[i] = strings.Join(r, "|")
	}
	if !strings.Contains(strings.ToUpper(q), "ORDER BY") {
		got, want = sortedStrings(got), sortedStrings(want)
	}
	if len(want) == 0 {
		want = []string{}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %q\nwant %q", q, got, want)
	}
}

func sortedStrings(s []string) []string {
	out := append([]string{}, s...)
	sort.Strings(out)
	return out
}

// wantViewErr runs stmt and requires MySQL error code, with msg in its text.
func wantViewErr(t *testing.T, db *sql.DB, stmt string, code uint16, msg string) {
	t.Helper()
	_, err := db.Exec(stmt)
	if err == nil {
		t.Errorf("%s: succeeded, want error %d", stmt, code)
		return
	}
	if errCode(err) != code || !strings.Contains(err.Error(), msg) {
		t.Errorf("%s: %v, want code %d with %q", stmt, err, code, msg)
	}
}

var viewSetup = []string{
	"CREATE DATABASE vdb",
	`CREATE TABLE vdb.t (k INT NOT NULL, v INT) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "1")`,
	`CREATE TABLE vdb.u (k INT NOT NULL, w VARCHAR(10)) DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "1")`,
	"INSERT INTO vdb.t VALUES (1, 10), (2, 20), (3, 30), (4, NULL), (1, 15)",
	"INSERT INTO vdb.u VALUES (1, 'one'), (2, 'two'), (5, 'five')",
}

func TestE2EViews(t *testing.T) {
	s := newServer(t)
	root := openDB(t, s.MySQLAddr(), "", true)
	execAll(t, root, viewSetup...)
	db := openDB(t, s.MySQLAddr(), "vdb", true)

	execAll(t, db,
		"CREATE VIEW v1 AS SELECT k, v FROM t WHERE v > 10",
		"CREATE VIEW v2 (a, b COMMENT 'the value') COMMENT 'renamed' AS SELECT k, v FROM t",
		"CREATE VIEW vagg AS SELECT k, count(*) AS c, sum(v) AS s FROM t GROUP BY k",
		"CREATE VIEW vtop AS SELECT k, v FROM t ORDER BY v DESC LIMIT 2",
		"CREATE VIEW vjoin AS SELECT t.k, t.v, u.w FROM t JOIN u ON t.k = u.k",
		"CREATE VIEW vv AS SELECT a, b FROM v2 WHERE b >= 15", // a view of a view
		"CREATE VIEW vvv AS SELECT vv.a, vagg.c FROM vv JOIN vagg ON vv.a = vagg.k",
		"CREATE VIEW vexpr AS SELECT k + 1, upper(w) FROM u", // names taken from the expressions
	)
	wantViewRows(t, db, "SELECT * FROM v1", "1|15", "2|20", "3|30")
	wantViewRows(t, db, "SELECT a, b FROM v2 WHERE a = 1", "1|10", "1|15")
	wantViewRows(t, db, "SELECT * FROM vagg", "1|2|25", "2|1|20", "3|1|30", "4|1|NULL")
	wantViewRows(t, db, "SELECT * FROM vtop ORDER BY v", "2|20", "3|30")
	wantViewRows(t, db, "SELECT * FROM vjoin", "1|10|one", "1|15|one", "2|20|two")
	wantViewRows(t, db, "SELECT * FROM vv", "1|15", "2|20", "3|30")
	wantViewRows(t, db, "SELECT * FROM vvv", "1|2", "2|1", "3|1")
	wantViewRows(t, db, "SELECT `k + 1`, `upper(w)` FROM vexpr", "2|ONE", "3|TWO", "6|FIVE")
	// Aliases, self joins, qualified names, views in subqueries and CTEs.
	wantViewRows(t, db, "SELECT x.k, y.v FROM v1 x JOIN v1 y ON x.k = y.k WHERE x.v = 15", "1|15")
	wantViewRows(t, db, "SELECT vdb.v1.k FROM vdb.v1 WHERE vdb.v1.v = 30", "3")
	wantViewRows(t, db, "SELECT k FROM u WHERE k IN (SELECT k FROM v1)", "1", "2")
	wantViewRows(t, db, "SELECT k FROM u WHERE NOT EXISTS (SELECT 1 FROM vagg WHERE vagg.k = u.k)", "5")
	wantViewRows(t, db, "SELECT (SELECT max(s) FROM vagg) AS m", "30")
	wantViewRows(t, db, "SELECT c, count(*) FROM vagg GROUP BY c", "1|3", "2|1")
	wantViewRows(t, db, "WITH v1 AS (SELECT 7 AS k) SELECT k FROM v1", "7") // a CTE hides the view
	wantViewRows(t, db, "WITH c AS (SELECT k FROM v1) SELECT count(*) FROM c", "3")
	wantViewRows(t, db, "SELECT count(*) FROM vv", "3") // COUNT(*) through a view of a view
	wantViewRows(t, db, "SELECT * FROM v1 UNION ALL SELECT a, b FROM v2 WHERE a = 4", "1|15", "2|20", "3|30", "4|NULL")
	// The view's query resolves its names in the database it was defined
	// in, whatever the session's current one.
	wantViewRows(t, root, "SELECT count(*) FROM vdb.v1", "3")

	// Errors at CREATE: the query is bound, so a bad view is refused.
	wantViewErr(t, db, "CREATE VIEW v1 AS SELECT 1", 1050, "Table 'v1' already exists")
	wantViewErr(t, db, "CREATE VIEW t AS SELECT 1", 1050, "Table 't' already exists")
	wantViewErr(t, db, "CREATE OR REPLACE VIEW t AS SELECT 1", 1347, "'vdb.t' is not VIEW")
	wantViewErr(t, db, "CREATE TABLE v1 (x INT)", 1050, "Table 'v1' already exists")
	wantViewErr(t, db, "CREATE VIEW bad AS SELECT nosuch FROM t", 1054, "Unknown column 'nosuch'")
	wantViewErr(t, db, "CREATE VIEW bad AS SELECT * FROM nosuch", 1146, "Table 'vdb.nosuch' doesn't exist")
	wantViewErr(t, db, "CREATE VIEW bad AS SELECT k, k FROM t", 1060, "Duplicate column name 'k'")
	wantViewErr(t, db, "CREATE VIEW bad (a, a) AS SELECT k, v FROM t", 1060, "Duplicate column name 'a'")
	wantViewErr(t, db, "CREATE VIEW bad (a) AS SELECT k, v FROM t", 1353, "View's SELECT and view's field list have different column counts")
	wantViewErr(t, db, "CREATE VIEW bad (a, b, c) AS SELECT k, v FROM t", 1353, "")
	wantViewErr(t, db, "CREATE VIEW nodb.bad AS SELECT 1", 1049, "Unknown database 'nodb'")
	wantViewErr(t, root, "CREATE VIEW bad AS SELECT 1", 1046, "No database selected")
	wantViewErr(t, db, "CREATE VIEW bad AS SELECT k FROM t WHERE v > @x", 1351, "View's SELECT contains a variable or parameter")
	mustExec(t, db, "CREATE VIEW vsys AS SELECT @@query_timeout AS qt")
	wantViewRows(t, db, "SELECT qt FROM vsys", "900")
	mustExec(t, db, "DROP VIEW vsys")
	mustExec(t, db, "CREATE VIEW IF NOT EXISTS v1 AS SELECT 1 AS other") // kept as it was
	mustExec(t, db, "CREATE TABLE IF NOT EXISTS v1 (x INT)")             // the name is taken
	wantViewRows(t, db, "SELECT count(*) FROM v1", "3")
	// A view may not reach itself: no stack overflow, MySQL's 1462.
	wantViewErr(t, db, "CREATE OR REPLACE VIEW v1 AS SELECT * FROM v1", 1462, "`vdb`.`v1` contains view recursion")
	wantViewErr(t, db, "CREATE OR REPLACE VIEW v2 AS SELECT a, b FROM vv", 1462, "`vdb`.`v2` contains view recursion")
	wantViewErr(t, db, "ALTER VIEW v2 AS SELECT * FROM vvv", 1462, "contains view recursion")
	wantViewRows(t, db, "SELECT count(*) FROM vv", "3") // unchanged by the refusals

	// OR REPLACE and ALTER redefine; the columns follow the new query.
	mustExec(t, db, "CREATE OR REPLACE VIEW vtop AS SELECT k FROM t WHERE v IS NULL")
	wantViewRows(t, db, "SELECT * FROM vtop", "4")
	mustExec(t, db, "ALTER VIEW vtop (kk, vv) AS SELECT k, v FROM t WHERE k = 3")
	wantViewRows(t, db, "SELECT kk, vv FROM vtop", "3|30")
	wantViewErr(t, db, "ALTER VIEW t AS SELECT 1", 1347, "'vdb.t' is not VIEW")
	wantViewErr(t, db, "ALTER VIEW nosuch AS SELECT 1", 1146, "Table 'vdb.nosuch' doesn't exist")
	wantViewErr(t, db, "ALTER VIEW vtop (a) AS SELECT 1, 2", 1353, "")

	// INSERT into a view is refused, as Doris does.
	wantViewErr(t, db, "INSERT INTO v1 VALUES (9, 90)", 1471, "The target table v1 of the VIEW is not insertable-into")
	wantViewErr(t, db, "INSERT INTO v1 SELECT * FROM t", 1471, "")

	// The listings.
	wantViewRows(t, db, "SHOW FULL TABLES",
		"t|BASE TABLE", "u|BASE TABLE", "v1|VIEW", "v2|VIEW", "vagg|VIEW", "vexpr|VIEW", "vjoin|VIEW", "vtop|VIEW", "vv|VIEW", "vvv|VIEW")
	wantViewRows(t, db, "SHOW TABLES LIKE 'v_'", "v1", "v2", "vv")
	wantViewRows(t, db, "SHOW CREATE VIEW v2",
		"v2|CREATE VIEW `v2` (`a`, `b` COMMENT 'the value') COMMENT 'renamed' AS SELECT k, v FROM t|utf8mb4|utf8mb4_0900_bin")
	wantViewRows(t, db, "SHOW CREATE TABLE v1",
		"v1|CREATE VIEW `v1` (`k`, `v`) AS SELECT k, v FROM t WHERE v > 10|utf8mb4|utf8mb4_0900_bin")
	wantViewErr(t, db, "SHOW CREATE VIEW t", 1347, "'vdb.t' is not VIEW")
	wantViewErr(t, db, "SHOW CREATE VIEW nosuch", 1146, "")
	wantViewRows(t, db, "DESC v2", "a|INT|NO|false|NULL|", "b|INT|YES|false|NULL|")
	wantViewRows(t, db, "DESC vexpr", "k + 1|BIGINT|NO|false|NULL|", "upper(w)|STRING|YES|false|NULL|")
	wantViewRows(t, db, "SELECT table_name, view_definition, check_option, is_updatable, definer FROM information_schema.views WHERE table_schema = 'vdb' AND table_name IN ('v1', 'vv')",
		"v1|SELECT k, v FROM t WHERE v > 10|NONE|NO|root@%", "vv|SELECT a, b FROM v2 WHERE b >= 15|NONE|NO|root@%")
	wantViewRows(t, db, "SELECT table_name, table_comment FROM information_schema.tables WHERE table_schema = 'vdb' AND table_type = 'VIEW' AND table_name LIKE 'v_'",
		"v1|VIEW", "v2|VIEW", "vv|VIEW")
	wantViewRows(t, db, "SELECT column_name, ordinal_position, data_type, column_comment FROM information_schema.columns WHERE table_schema = 'vdb' AND table_name = 'v2'",
		"a|1|int|", "b|2|int|the value")
	if rows := queryStrings(t, db, "SHOW TABLE STATUS LIKE 'v1'"); len(rows) != 1 || rows[0][0] != "v1" || rows[0][len(rows[0])-1] != "VIEW" {
		t.Errorf("SHOW TABLE STATUS LIKE 'v1': %q", rows)
	}

	// DROP: MySQL's and Doris's errors.
	wantViewErr(t, db, "DROP VIEW t", 1347, "'vdb.t' is not VIEW. Use 'DROP TABLE vdb.t'.")
	wantViewErr(t, db, "DROP VIEW IF EXISTS t", 1347, "is not VIEW")
	wantViewErr(t, db, "DROP VIEW nosuch", 1051, "Unknown table 'vdb.nosuch'")
	mustExec(t, db, "DROP VIEW IF EXISTS nosuch")
	wantViewErr(t, db, "DROP TABLE v1", 1347, "'vdb.v1' is not TABLE. Use 'DROP VIEW vdb.v1'.")
	wantViewErr(t, db, "DROP TABLE IF EXISTS v1", 1347, "is not TABLE")
	wantViewErr(t, db, "TRUNCATE TABLE v1", 1146, "")
	wantViewErr(t, db, "DROP VIEW vexpr, nosuch1, vtop, nosuch2", 1051, "Unknown table 'vdb.nosuch1,vdb.nosuch2'")
	wantViewRows(t, db, "SELECT count(*) FROM vtop", "1") // all or none: still there
	mustExec(t, db, "DROP VIEW vexpr, vtop")
	wantViewErr(t, db, "SELECT * FROM vtop", 1146, "Table 'vdb.vtop' doesn't exist")
	// A view over a dropped table fails when queried (1146), and works
	// again once a table of that name is back.
	mustExec(t, db, "DROP TABLE u")
	wantViewErr(t, db, "SELECT * FROM vjoin", 1146, "Table 'vdb.u' doesn't exist")
	mustExec(t, db, `CREATE TABLE u (k INT NOT NULL, w VARCHAR(10)) DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, "INSERT INTO u VALUES (3, 'three')")
	wantViewRows(t, db, "SELECT * FROM vjoin", "3|30|three")
	// A changed shape under the view is MySQL's 1356.
	mustExec(t, db, "DROP TABLE u")
	mustExec(t, db, `CREATE TABLE u (k INT NOT NULL) DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "1")`)
	wantViewErr(t, db, "SELECT * FROM vjoin", 1054, "Unknown column")
	mustExec(t, db, "CREATE VIEW vstar AS SELECT * FROM u")
	mustExec(t, db, "DROP TABLE u")
	mustExec(t, db, `CREATE TABLE u (k INT NOT NULL, w VARCHAR(10)) DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "1")`)
	wantViewErr(t, db, "SELECT * FROM vstar", 1356, "View 'vdb.vstar' references invalid table(s) or column(s)")

	// DROP DATABASE takes its views along.
	execAll(t, root, "CREATE DATABASE vdb2", "CREATE VIEW vdb2.x AS SELECT 1 AS one")
	wantViewRows(t, root, "SELECT * FROM vdb2.x", "1")
	execAll(t, root, "DROP DATABASE vdb2", "CREATE DATABASE vdb2")
	wantViewErr(t, root, "SELECT * FROM vdb2.x", 1146, "")
	wantViewRows(t, root, "SELECT count(*) FROM information_schema.views WHERE table_schema = 'vdb2'", "0")
}

// Views are catalog objects: after a clean restart and after kill -9 they
// answer as before, definition and rows.
func TestE2EViewsRestart(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	root := openDB(t, s.MySQLAddr(), "", true)
	execAll(t, root, viewSetup...)
	execAll(t, root,
		"CREATE VIEW vdb.v AS SELECT t.k, sum(t.v) AS s FROM vdb.t JOIN vdb.u ON t.k = u.k GROUP BY t.k",
		"CREATE VIEW vdb.vv (kk) COMMENT 'c' AS SELECT k FROM vdb.v WHERE s > 15",
		"CREATE VIEW vdb.gone AS SELECT 1 AS one",
		"DROP VIEW vdb.gone",
	)
	check := func(phase, addr string, more ...string) {
		db := openDB(t, addr, "vdb", true)
		wantViewRows(t, db, "SELECT * FROM v", "1|25", "2|20")
		wantViewRows(t, db, "SELECT * FROM vv", "1", "2")
		wantViewRows(t, db, "SHOW CREATE VIEW vv", "vv|CREATE VIEW `vv` (`kk`) COMMENT 'c' AS SELECT k FROM vdb.v WHERE s > 15|utf8mb4|utf8mb4_0900_bin")
		wantViewRows(t, db, "SHOW FULL TABLES", append([]string{"t|BASE TABLE", "u|BASE TABLE", "v|VIEW", "vv|VIEW"}, more...)...)
		wantViewErr(t, db, "SELECT * FROM gone", 1146, "")
		if t.Failed() {
			t.Fatalf("%s: views differ", phase)
		}
	}
	check("fresh", s.MySQLAddr())
	s.Close()
	s = startServer(t, dir)
	check("restart", s.MySQLAddr())
	// Ids keep coming from the shared sequence: a table created now does
	// not collide with the views.
	db := openDB(t, s.MySQLAddr(), "vdb", true)
	mustExec(t, db, `CREATE TABLE w (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, "DROP TABLE w")
	s.Close()

	p := startProc(t, dir)
	pdb := openDB(t, p.mysqlAddr, "vdb", true)
	mustExec(t, pdb, "CREATE OR REPLACE VIEW vv (kk) COMMENT 'c' AS SELECT k FROM vdb.v WHERE s > 15")
	mustExec(t, pdb, "CREATE VIEW late AS SELECT count(*) AS n FROM t")
	p.kill() // right after the OKs: nothing may be lost
	p = startProc(t, dir)
	check("kill -9", p.mysqlAddr, "late|VIEW")
	wantViewRows(t, openDB(t, p.mysqlAddr, "vdb", true), "SELECT * FROM late", "5")
}

// A query on a view is planned as if its query were written inline: two
// colocated tables joined inside a view, or a view of one joined with the
// other, still join COLOCATE; a view over the bucketed side keeps the
// bucket shuffle.
func TestE2EViewsColocate(t *testing.T) {
	s := newServer(t)
	root := openDB(t, s.MySQLAddr(), "", true)
	execAll(t, root,
		"CREATE DATABASE cdb",
		`CREATE TABLE cdb.a (k INT NOT NULL, x INT) DISTRIBUTED BY HASH(k) BUCKETS 4 PROPERTIES ("replication_num" = "1", "colocate_with" = "vg")`,
		`CREATE TABLE cdb.b (k INT NOT NULL, y INT) DISTRIBUTED BY HASH(k) BUCKETS 4 PROPERTIES ("replication_num" = "1", "colocate_with" = "vg")`,
		`CREATE TABLE cdb.c (k INT NOT NULL, z INT) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "1")`,
		"INSERT INTO cdb.a VALUES (1, 10), (2, 20), (3, 30)",
		"INSERT INTO cdb.b VALUES (1, 100), (3, 300), (4, 400)",
		"INSERT INTO cdb.c VALUES (1, 7), (2, 8)",
	)
	db := openDB(t, s.MySQLAddr(), "cdb", true)
	execAll(t, db,
		"CREATE VIEW vab AS SELECT a.k, a.x, b.y FROM a JOIN b ON a.k = b.k",
		"CREATE VIEW va AS SELECT k, x FROM a WHERE x > 5",
		"CREATE VIEW vva AS SELECT * FROM va",
		"CREATE VIEW vc AS SELECT k, z FROM c",
	)
	const colocate = "join op: INNER JOIN (COLOCATE)"
	for _, q := range []string{
		"SELECT * FROM vab",
		"SELECT va.k, b.y FROM va JOIN b ON va.k = b.k",
		"SELECT vva.k, b.y FROM vva JOIN b ON vva.k = b.k",
		"SELECT count(*) FROM vab WHERE x > 1",
	} {
		wantExplain(t, db, q, []string{colocate, "colocate: true"}, []string{"(BROADCAST)", "(PARTITIONED)", "(BUCKET_SHUFFLE)"})
	}
	wantViewRows(t, db, "SELECT * FROM vab", "1|10|100", "3|30|300")
	wantViewRows(t, db, "SELECT vva.k, b.y FROM vva JOIN b ON vva.k = b.k", "1|100", "3|300")
	// The same join written inline plans the same.
	inline := explainText(t, db, "SELECT v.k, v.x, v.y FROM (SELECT a.k, a.x, b.y FROM a JOIN b ON a.k = b.k) v")
	through := explainText(t, db, "SELECT vab.k, vab.x, vab.y FROM vab")
	if strings.ReplaceAll(inline, "v.", "") != strings.ReplaceAll(through, "vab.", "") {
		t.Errorf("a view plans unlike its inline query:\n--- inline:\n%s\n--- view:\n%s", inline, through)
	}
	wantExplain(t, db, "SELECT * FROM va JOIN [bucket] vc ON va.k = vc.k", []string{"INNER JOIN (BUCKET_SHUFFLE)"}, nil)
	wantViewRows(t, db, "SELECT va.k, vc.z FROM va JOIN vc ON va.k = vc.k", "1|7", "2|8")
}
