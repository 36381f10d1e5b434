package server_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sinkProfile returns the last profile of a statement containing marker:
// the OLAP TABLE SINK instances' backends and rows, from /api/profile.
func sinkProfile(t *testing.T, httpAddr, marker string) map[string]int64 {
	t.Helper()
	code, body := httpDo(t, "GET", "http://"+httpAddr+"/api/profile", "root", "")
	if code != 200 {
		t.Fatalf("/api/profile: %d %s", code, body)
	}
	var ps []struct {
		ID      int64  `json:"id"`
		QueryID string `json:"query_id"`
		SQL     string `json:"sql"`
	}
	if err := json.Unmarshal([]byte(body), &ps); err != nil {
		t.Fatal(err)
	}
	var id int64
	var qid string
	for _, p := range ps {
		if strings.Contains(p.SQL, marker) {
			id, qid = p.ID, p.QueryID
		}
	}
	if id == 0 {
		t.Fatalf("no profile of %q", marker)
	}
	code, text := httpDo(t, "GET", fmt.Sprintf("http://%s/api/profile/%d", httpAddr, id), "root", "")
	if code != 200 && qid != "" {
		code, text = httpDo(t, "GET", fmt.Sprintf("http://%s/api/profile/%s", httpAddr, qid), "root", "")
	}
	if code != 200 {
		t.Fatalf("/api/profile/%d: %d %s", id, code, text)
	}
	re := regexp.MustCompile(`instance \d+: backend=(\S+)  rows=(\d+)`)
	out := map[string]int64{}
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.ParseInt(m[2], 10, 64)
		out[m[1]] += n
	}
	return out
}

func rowsOf(t *testing.T, db querier, q string) string {
	t.Helper()
	var parts []string
	for _, r := range queryStrings(t, db, q) {
		parts = append(parts, strings.Join(r, ","))
	}
	return strings.Join(parts, " ")
}

// TestE2EInsertSelectTableSink: INSERT … SELECT runs as a distributed
// OLAP TABLE SINK: its instances run on several backends and together
// write every row (none pass through the FE), and EXPLAIN shows the sink.
func TestE2EInsertSelectTableSink(t *testing.T) {
	srv := newServer(t)
	db := openDB(t, srv.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE ts")
	mustExec(t, db, `CREATE TABLE ts.src (id BIGINT NOT NULL, s VARCHAR(20), x INT) DUPLICATE KEY(id)
	  DISTRIBUTED BY HASH(id) BUCKETS 6 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, `CREATE TABLE ts.dst (k INT, id BIGINT NOT NULL, s VARCHAR(20)) DUPLICATE KEY(k)
	  DISTRIBUTED BY HASH(k) BUCKETS 9 PROPERTIES ("replication_num" = "2")`)
	var vals []string
	for i := 1; i <= 300; i++ {
		vals = append(vals, fmt.Sprintf("(%d, 's%d', %d)", i, i, i%7))
	}
	mustExec(t, db, "INSERT INTO ts.src VALUES "+strings.Join(vals, ","))
	res := mustExec(t, db, "INSERT INTO ts.dst SELECT x, id, s FROM ts.src WHERE id <= 200 /* sink-marker */")
	if n, _ := res.RowsAffected(); n != 200 {
		t.Fatalf("rows affected %d, want 200", n)
	}
	if got := rowsOf(t, db, "SELECT count(*), sum(id), count(DISTINCT k), min(s), max(k) FROM ts.dst"); got != "200,20100,7,s1,6" {
		t.Fatalf("dst: %s", got)
	}
	if got := rowsOf(t, db, "SELECT k, count(*) FROM ts.dst GROUP BY k ORDER BY k"); got != "0,28 1,29 2,29 3,29 4,29 5,28 6,28" {
		t.Fatalf("dst groups: %s", got)
	}
	per := sinkProfile(t, srv.HTTPAddr(), "sink-marker")
	var total int64
	for _, n := range per {
		total += n
	}
	if total != 200 || len(per) < 2 {
		t.Fatalf("sink instances wrote %v: want 200 rows over at least 2 backends", per)
	}
	plan := rowsOf(t, db, "EXPLAIN INSERT INTO ts.dst SELECT x, id, s FROM ts.src")
	for _, want := range []string{"OLAP TABLE SINK", "TABLE: dst", "TABLET_SINK_SHUFFLE_PARTITIONED", "STREAM DATA SINK"} {
		if !strings.Contains(plan, want) {
			t.Fatalf("EXPLAIN INSERT lacks %q:\n%s", want, plan)
		}
	}
	// A bad value fails the statement and writes nothing.
	mustExec(t, db, "CREATE TABLE ts.small (k TINYINT, s VARCHAR(20)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES (\"replication_num\" = \"1\")")
	_, err := db.Exec("INSERT INTO ts.small SELECT id, s FROM ts.src")
	wantCode(t, err, 1264, "out of range INSERT … SELECT")
	if got := rowsOf(t, db, "SELECT count(*) FROM ts.small"); got != "0" {
		t.Fatalf("failed INSERT left %s rows", got)
	}
	// Inside BEGIN an INSERT … SELECT is a sub-transaction.
	mustExec(t, db, "CREATE TABLE ts.tx (id BIGINT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 4 PROPERTIES (\"replication_num\" = \"1\")")
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mustExec(t, conn, "BEGIN")
	mustExec(t, conn, "INSERT INTO ts.tx SELECT id FROM ts.src WHERE id <= 10")
	mustExec(t, conn, "INSERT INTO ts.tx SELECT id FROM ts.src WHERE id > 290")
	if got := rowsOf(t, db, "SELECT count(*) FROM ts.tx"); got != "0" {
		t.Fatalf("uncommitted rows visible: %s", got)
	}
	mustExec(t, conn, "COMMIT")
	if got := rowsOf(t, db, "SELECT count(*), sum(id) FROM ts.tx"); got != "20,3010" {
		t.Fatalf("committed transaction: %s", got)
	}
	mustExec(t, conn, "BEGIN")
	mustExec(t, conn, "INSERT INTO ts.tx SELECT id FROM ts.src")
	mustExec(t, conn, "ROLLBACK")
	if got := rowsOf(t, db, "SELECT count(*) FROM ts.tx"); got != "20" {
		t.Fatalf("rolled back transaction: %s", got)
	}
}

// TestE2EInsertOverwrite replaces a whole table and one partition.
func TestE2EInsertOverwrite(t *testing.T) {
	srv := newServer(t)
	db := openDB(t, srv.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE ow")
	mustExec(t, db, `CREATE TABLE ow.t (id INT, v VARCHAR(10)) DUPLICATE KEY(id)
	  DISTRIBUTED BY HASH(id) BUCKETS 4 PROPERTIES ("replication_num" = "2")`)
	mustExec(t, db, "INSERT INTO ow.t VALUES (1,'a'),(2,'b'),(3,'c')")
	mustExec(t, db, `CREATE TABLE ow.src (id INT, v VARCHAR(10)) DUPLICATE KEY(id)
	  DISTRIBUTED BY HASH(id) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, "INSERT INTO ow.src VALUES (10,'x'),(20,'y')")
	res := mustExec(t, db, "INSERT OVERWRITE TABLE ow.t SELECT id, v FROM ow.src")
	if n, _ := res.RowsAffected(); n != 2 {
		t.Fatalf("rows affected %d", n)
	}
	if got := rowsOf(t, db, "SELECT id, v FROM ow.t ORDER BY id"); got != "10,x 20,y" {
		t.Fatalf("after overwrite: %s", got)
	}
	// An empty source empties the table; VALUES work too.
	mustExec(t, db, "INSERT OVERWRITE TABLE ow.t SELECT id, v FROM ow.src WHERE id > 100")
	if got := rowsOf(t, db, "SELECT count(*) FROM ow.t"); got != "0" {
		t.Fatalf("after empty overwrite: %s", got)
	}
	mustExec(t, db, "INSERT OVERWRITE TABLE ow.t VALUES (7, 'q')")
	if got := rowsOf(t, db, "SELECT id, v FROM ow.t"); got != "7,q" {
		t.Fatalf("after VALUES overwrite: %s", got)
	}
	// A failed overwrite keeps the old rows.
	mustExec(t, db, "CREATE TABLE ow.tiny (k TINYINT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES (\"replication_num\" = \"1\")")
	mustExec(t, db, "INSERT INTO ow.tiny VALUES (1), (2)")
	_, err := db.Exec("INSERT OVERWRITE TABLE ow.tiny SELECT id * 100 FROM ow.src")
	wantCode(t, err, 1264, "failed overwrite")
	if got := rowsOf(t, db, "SELECT k FROM ow.tiny ORDER BY k"); got != "1 2" {
		t.Fatalf("after failed overwrite: %s", got)
	}

	// One partition.
	mustExec(t, db, `CREATE TABLE ow.p (d INT, v INT) DUPLICATE KEY(d)
	  PARTITION BY RANGE(d) (PARTITION p1 VALUES LESS THAN ("10"), PARTITION p2 VALUES LESS THAN ("20"))
	  DISTRIBUTED BY HASH(v) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, "INSERT INTO ow.p VALUES (1,1),(2,2),(11,11),(12,12)")
	mustExec(t, db, "INSERT OVERWRITE TABLE ow.p PARTITION (p2) VALUES (15, 150)")
	if got := rowsOf(t, db, "SELECT d, v FROM ow.p ORDER BY d"); got != "1,1 2,2 15,150" {
		t.Fatalf("after partition overwrite: %s", got)
	}
	_, err = db.Exec("INSERT OVERWRITE TABLE ow.p PARTITION (p1) VALUES (15, 1)")
	if err == nil {
		t.Fatal("a row outside the overwritten partition was accepted")
	}
	if got := rowsOf(t, db, "SELECT d, v FROM ow.p ORDER BY d"); got != "1,1 2,2 15,150" {
		t.Fatalf("after refused partition overwrite: %s", got)
	}
	// A label is used up as by INSERT.
	mustExec(t, db, "INSERT OVERWRITE TABLE ow.t WITH LABEL ow1 VALUES (8, 'r')")
	_, err = db.Exec("INSERT OVERWRITE TABLE ow.t WITH LABEL ow1 VALUES (9, 's')")
	if err == nil {
		t.Fatal("a used label was accepted")
	}
	if got := rowsOf(t, db, "SELECT id FROM ow.t"); got != "8" {
		t.Fatalf("after label reuse: %s", got)
	}
	// Refused inside a transaction, with Doris's error.
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mustExec(t, conn, "BEGIN")
	_, err = conn.ExecContext(t.Context(), "INSERT OVERWRITE TABLE ow.t VALUES (1, 'z')")
	if err == nil || !strings.Contains(err.Error(), "This is in a transaction") {
		t.Fatalf("INSERT OVERWRITE in a transaction: %v", err)
	}
	mustExec(t, conn, "ROLLBACK")
	if got := rowsOf(t, db, "SELECT id FROM ow.t"); got != "8" {
		t.Fatalf("after refused overwrite: %s", got)
	}
}

// TestE2ECrashInsertOverwrite kills the server during INSERT OVERWRITE:
// after restart the table holds the old rows or the new ones, never a mix.
func TestE2ECrashInsertOverwrite(t *testing.T) {
	t.Parallel()
	const n = 100_000
	dir := t.TempDir()
	p := startProc(t, dir)
	db := openDB(t, p.mysqlAddr, "", true)
	mustExec(t, db, "CREATE DATABASE c")
	mustExec(t, db, `CREATE TABLE c.src (id BIGINT NOT NULL, s VARCHAR(40), x INT) DUPLICATE KEY(id)
	  DISTRIBUTED BY HASH(id) BUCKETS 4 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, `CREATE TABLE c.dst (id BIGINT NOT NULL, s VARCHAR(40), x INT) DUPLICATE KEY(id)
	  DISTRIBUTED BY HASH(id) BUCKETS 8 PROPERTIES ("replication_num" = "3")`)
	mustStreamLoad(t, p.httpAddr, "c", "src", map[string]string{"column_separator": ","}, csvRows(1, n))
	mustExec(t, db, "INSERT INTO c.dst VALUES (-1, 'old', 0), (-2, 'old', 0)")
	start := time.Now()
	mustExec(t, db, "INSERT OVERWRITE TABLE c.dst SELECT * FROM c.src")
	dur := time.Since(start)
	checkAllOrNone(t, db, "c.dst", n, true, "uninterrupted INSERT OVERWRITE")
	for i, frac := range []float64{0.2, 0.6, 0.95} {
		mustExec(t, db, "INSERT OVERWRITE TABLE c.dst VALUES (-1, 'old', 0), (-2, 'old', 0)")
		delay := time.Duration(float64(dur) * frac)
		done := make(chan error, 1)
		conn := openDB(t, p.mysqlAddr, "", i%2 == 0)
		go func() {
			_, err := conn.Exec("INSERT OVERWRITE TABLE c.dst SELECT * FROM c.src")
			done <- err
		}()
		time.Sleep(delay)
		p.kill()
		err := <-done
		conn.Close()
		db.Close()
		p = startProc(t, dir)
		db = openDB(t, p.mysqlAddr, "", true)
		ids := sortInts(queryInts(t, db, "SELECT id FROM c.dst"))
		switch {
		case len(ids) == 2 && ids[0] == -2 && ids[1] == -1 && err != nil:
			t.Logf("kill after %v: old rows", delay)
		case len(ids) == n:
			checkAllOrNone(t, db, "c.dst", n, true, "new rows")
			t.Logf("kill after %v: new rows (statement err=%v)", delay, err)
		default:
			t.Fatalf("kill after %v: %d rows after restart (statement err=%v): a mix", delay, len(ids), err)
		}
	}
}

// TestE2ECreateTableAsSelect: CTAS takes the query's columns (character
// types as VARCHAR(65533)), Doris's default key and distribution (the first
// column, 10 buckets) or the ones written, and loads through the table
// sink; a failed load leaves no table.
func TestE2ECreateTableAsSelect(t *testing.T) {
	srv := newServer(t)
	db := openDB(t, srv.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE ct")
	mustExec(t, db, `CREATE TABLE ct.src (id INT, name VARCHAR(8), n BIGINT) DUPLICATE KEY(id)
	  DISTRIBUTED BY HASH(id) BUCKETS 4 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, "INSERT INTO ct.src VALUES (1,'a',10),(2,'b',20),(3,'c',30)")
	res := mustExec(t, db, "CREATE TABLE ct.c1 PROPERTIES (\"replication_num\" = \"1\") AS SELECT id, name, n * 2 AS n2 FROM ct.src WHERE id < 3")
	if n, _ := res.RowsAffected(); n != 2 {
		t.Fatalf("rows affected %d", n)
	}
	if got := rowsOf(t, db, "SELECT id, name, n2 FROM ct.c1 ORDER BY id"); got != "1,a,20 2,b,40" {
		t.Fatalf("c1: %s", got)
	}
	desc := rowsOf(t, db, "SHOW CREATE TABLE ct.c1")
	for _, want := range []string{"varchar(65533)", "DUPLICATE KEY(`id`)", "DISTRIBUTED BY HASH(`id`) BUCKETS 10"} {
		if !strings.Contains(desc, want) {
			t.Fatalf("SHOW CREATE TABLE lacks %q: %s", want, desc)
		}
	}
	mustExec(t, db, `CREATE TABLE ct.c2 (k, v) DUPLICATE KEY(k) DISTRIBUTED BY HASH(v) BUCKETS 3
	  PROPERTIES ("replication_num" = "1") AS SELECT n, name FROM ct.src`)
	if got := rowsOf(t, db, "SELECT k, v FROM ct.c2 ORDER BY k"); got != "10,a 20,b 30,c" {
		t.Fatalf("c2: %s", got)
	}
	// A failed load leaves no table; the name is free again.
	_, err := db.Exec("CREATE TABLE ct.c3 PROPERTIES (\"replication_num\" = \"1\") AS SELECT id, 1 DIV (id - 2) AS x FROM ct.src")
	if err == nil {
		if _, err2 := db.Exec("SELECT * FROM ct.c3"); err2 != nil {
			t.Fatalf("CTAS succeeded but its table is unreadable: %v", err2)
		}
	}
	_, err = db.Exec(`CREATE TABLE ct.c4 (k) DUPLICATE KEY(k) PARTITION BY RANGE(k) (PARTITION p1 VALUES LESS THAN ("2"))
	  DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "1") AS SELECT id FROM ct.src`)
	if err == nil {
		t.Fatal("CTAS with rows outside every partition succeeded")
	}
	if _, err := db.Exec("SELECT * FROM ct.c4"); errCode(err) != 1146 {
		t.Fatalf("failed CTAS left a table: %v", err)
	}
	_, err = db.Exec("CREATE TABLE ct.c5 (a, b) AS SELECT id FROM ct.src")
	if err == nil {
		t.Fatal("CTAS with a column count mismatch succeeded")
	}
	_, err = db.Exec("CREATE TABLE ct.c1 AS SELECT id FROM ct.src")
	wantCode(t, err, 1050, "CTAS of an existing table")
	mustExec(t, db, "CREATE TABLE IF NOT EXISTS ct.c1 AS SELECT id FROM ct.src")
	if got := rowsOf(t, db, "SELECT count(*) FROM ct.c1"); got != "2" {
		t.Fatalf("CTAS IF NOT EXISTS changed the table: %s", got)
	}
	// Inside BEGIN, refused as DDL is.
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mustExec(t, conn, "BEGIN")
	if _, err := conn.ExecContext(t.Context(), "CREATE TABLE ct.c6 AS SELECT id FROM ct.src"); err == nil {
		t.Fatal("CTAS inside BEGIN succeeded")
	}
	mustExec(t, conn, "ROLLBACK")
	if _, err := db.Exec("SELECT * FROM ct.c6"); errCode(err) != 1146 {
		t.Fatalf("CTAS inside BEGIN left a table: %v", err)
	}
}

// TestE2ECrashCreateTableAsSelect kills the server during CTAS: after
// restart the table is absent (no half-made table under any name) or
// holds every row.
func TestE2ECrashCreateTableAsSelect(t *testing.T) {
	t.Parallel()
	const n = 100_000
	dir := t.TempDir()
	p := startProc(t, dir)
	db := openDB(t, p.mysqlAddr, "", true)
	mustExec(t, db, "CREATE DATABASE c")
	mustExec(t, db, `CREATE TABLE c.src (id BIGINT NOT NULL, s VARCHAR(40), x INT) DUPLICATE KEY(id)
	  DISTRIBUTED BY HASH(id) BUCKETS 4 PROPERTIES ("replication_num" = "1")`)
	mustStreamLoad(t, p.httpAddr, "c", "src", map[string]string{"column_separator": ","}, csvRows(1, n))
	start := time.Now()
	mustExec(t, db, `CREATE TABLE c.first PROPERTIES ("replication_num" = "3") AS SELECT * FROM c.src`)
	dur := time.Since(start)
	checkAllOrNone(t, db, "c.first", n, true, "uninterrupted CTAS")
	for i, frac := range []float64{0.2, 0.6, 0.95} {
		name := fmt.Sprintf("c.t%d", i)
		delay := time.Duration(float64(dur) * frac)
		done := make(chan error, 1)
		conn := openDB(t, p.mysqlAddr, "", true)
		go func() {
			_, err := conn.Exec(`CREATE TABLE ` + name + ` PROPERTIES ("replication_num" = "3") AS SELECT * FROM c.src`)
			done <- err
		}()
		time.Sleep(delay)
		p.kill()
		err := <-done
		conn.Close()
		db.Close()
		p = startProc(t, dir)
		db = openDB(t, p.mysqlAddr, "", true)
		tables := rowsOf(t, db, "SHOW TABLES FROM c")
		if strings.Contains(tables, "__ctas_") {
			t.Fatalf("kill after %v: a half-made table is left: %s", delay, tables)
		}
		if _, qerr := db.Exec("SELECT 1 FROM " + name + " LIMIT 1"); qerr != nil {
			if err == nil {
				t.Fatalf("kill after %v: acknowledged CTAS lost its table: %v", delay, qerr)
			}
			t.Logf("kill after %v: no table (statement err=%v)", delay, err)
			continue
		}
		checkAllOrNone(t, db, name, n, true, fmt.Sprintf("kill after %v", delay))
		t.Logf("kill after %v: complete table (statement err=%v)", delay, err)
	}
}
