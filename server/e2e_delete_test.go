package server_test

import (
	"database/sql"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dorisgo/dorisgo/server"
	"github.com/dorisgo/dorisgo/storage"
)

// DELETE on DUPLICATE, AGGREGATE and UNIQUE tables as Doris's delete
// predicates (storage/delete.go): exact rows after each DELETE, after
// later loads, restarts and a kill -9 in the middle of one.

// delRow is one row of dd.t; v and s are nil for NULL.
type delRow struct {
	k int
	d string
	v *int
	s *string
}

func (r delRow) strings() []string {
	v, s := "NULL", "NULL"
	if r.v != nil {
		v = strconv.Itoa(*r.v)
	}
	if r.s != nil {
		s = *r.s
	}
	return []string{strconv.Itoa(r.k), r.d, v, s}
}

func (r delRow) values() string {
	v, s := "NULL", "NULL"
	if r.v != nil {
		v = strconv.Itoa(*r.v)
	}
	if r.s != nil {
		s = "'" + *r.s + "'"
	}
	return fmt.Sprintf("(%d, '%s', %s, %s)", r.k, r.d, v, s)
}

func delRows(from, to int) []delRow {
	var out []delRow
	for k := from; k <= to; k++ {
		r := delRow{k: k, d: []string{"2023-06-01", "2024-06-01", "2025-06-01"}[k%3]}
		if k%7 != 0 {
			v := k % 5
			r.v = &v
		}
		if k%6 != 0 {
			s := fmt.Sprintf("s%d", k%4)
			r.s = &s
		}
		out = append(out, r)
	}
	return out
}

// model is what dd.t must hold.
type model []delRow

func (m *model) insert(t *testing.T, db *sql.DB, rows []delRow) {
	t.Helper()
	vals := make([]string, len(rows))
	for i, r := range rows {
		vals[i] = r.values()
	}
	mustExec(t, db, "INSERT INTO dd.t VALUES "+strings.Join(vals, ", "))
	*m = append(*m, rows...)
}

// delete runs stmt and drops the model's rows for which gone is true.
func (m *model) delete(t *testing.T, db *sql.DB, gone func(delRow) bool, stmt string, args ...any) {
	t.Helper()
	res := mustExec(t, db, stmt, args...)
	if n, err := res.RowsAffected(); err != nil || n != 0 {
		t.Fatalf("%s: %d rows affected (%v), want 0 as Doris reports", stmt, n, err)
	}
	var keep model
	for _, r := range *m {
		if !gone(r) {
			keep = append(keep, r)
		}
	}
	*m = keep
}

func (m model) check(t *testing.T, db *sql.DB, what string) {
	t.Helper()
	want := make([][]string, len(m))
	for i, r := range m {
		want[i] = r.strings()
	}
	got := sortedRows(queryStrings(t, db, "SELECT k, d, v, s FROM dd.t"))
	if want = sortedRows(want); !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
		t.Fatalf("%s: dd.t holds\n%q\nwant\n%q", what, got, want)
	}
}

const ddSchema = `CREATE TABLE dd.t (k INT NOT NULL, d DATE NOT NULL, v INT, s VARCHAR(20)) DUPLICATE KEY(k)
	PARTITION BY RANGE(d) (PARTITION p1 VALUES LESS THAN ("2024-01-01"), PARTITION p2 VALUES LESS THAN ("2025-01-01"),
	PARTITION p3 VALUES LESS THAN MAXVALUE) DISTRIBUTED BY HASH(k) BUCKETS 4 PROPERTIES ("replication_num" = "3")`

func isNull(p *int) bool { return p == nil }

// rowsets counts the rowsets every replica of every tablet reads now.
func rowsets(t *testing.T, s *server.Server) int {
	t.Helper()
	n := 0
	for _, b := range s.Backends() {
		for _, id := range b.Store().Tablets() {
			st, err := b.Store().TabletStats(id, storage.Version(1<<40))
			if err != nil {
				t.Fatal(err)
			}
			n += st.Rowsets
		}
	}
	return n
}

// partitionVersions maps partition names to their visible versions.
func partitionVersions(t *testing.T, db *sql.DB, table string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, r := range queryStrings(t, db, "SHOW PARTITIONS FROM "+table) {
		out[r[1]] = r[2]
	}
	return out
}

// TestE2EDelete: simple and general conditions, prepared arguments, NULL
// keeping a row, later loads untouched, PARTITION clauses, partition and
// bucket pruning, SHOW DELETE, a restart.
func TestE2EDelete(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	defer func() { s.Close() }()
	db := openDB(t, s.MySQLAddr(), "", false) // server-side prepared statements
	mustExec(t, db, "CREATE DATABASE dd")
	mustExec(t, db, ddSchema)
	var m model
	m.insert(t, db, delRows(1, 20))
	m.insert(t, db, delRows(21, 40))
	m.check(t, db, "loaded")

	// Pruning first, before background compaction may merge rowsets: the
	// condition fixes the partition and the bucket, so one tablet (three
	// replicas) gets the delete and only p3 gets a new version.
	before, vers := rowsets(t, s), partitionVersions(t, db, "dd.t")
	m.delete(t, db, func(r delRow) bool { return r.k == 5 }, "DELETE FROM dd.t WHERE d >= '2025-01-01' AND k = 5")
	if got := rowsets(t, s) - before; got != 3 {
		t.Errorf("a delete pruned to one tablet added %d rowsets, want 3 (one per replica)", got)
	}
	after := partitionVersions(t, db, "dd.t")
	if after["p1"] != vers["p1"] || after["p2"] != vers["p2"] || after["p3"] == vers["p3"] {
		t.Errorf("partition versions %v -> %v: only p3 should advance", vers, after)
	}
	m.check(t, db, "pruned delete")

	m.delete(t, db, func(r delRow) bool { return r.v != nil && *r.v == 1 }, "DELETE FROM dd.t WHERE v = 1")
	m.check(t, db, "v = 1 (NULL v kept)")
	m.delete(t, db, func(r delRow) bool { return r.k == 12 }, "DELETE FROM dd.t WHERE k = ?", 12)
	m.check(t, db, "prepared k = ?")
	// A general condition (DUPLICATE tables): OR, BETWEEN, NOT, arithmetic.
	m.delete(t, db, func(r delRow) bool {
		return 2*r.k >= 14 && 2*r.k <= 20 && r.s != nil || r.s != nil && *r.s == "s3" && r.v != nil && *r.v > 3
	}, "DELETE FROM dd.t WHERE k * 2 BETWEEN 14 AND 20 AND NOT (s IS NULL) OR s = 's3' AND v > 3")
	m.check(t, db, "general condition")
	m.delete(t, db, func(r delRow) bool { return isNull(r.v) && r.k > 30 }, "DELETE FROM dd.t WHERE v IS NULL AND k > 30")
	m.check(t, db, "IS NULL")

	// Rows loaded after a delete are not touched by it.
	m.insert(t, db, []delRow{delRows(1, 1)[0], delRows(7, 7)[0], delRows(15, 15)[0]})
	m.check(t, db, "loaded after the deletes")

	// PARTITION p2: only rows of p2 (d in 2024).
	m.delete(t, db, func(r delRow) bool { return r.d == "2024-06-01" && r.v != nil && *r.v == 0 }, "DELETE FROM dd.t PARTITION p2 WHERE v = 0")
	m.delete(t, db, func(r delRow) bool { return r.d != "2024-06-01" && r.v != nil && *r.v == 2 && r.k < 20 },
		"DELETE FROM dd.t PARTITIONS (p1, p3) WHERE v IN (2) AND k < 20")
	m.check(t, db, "PARTITION clauses")

	wantShow := [][]string{
		{"t", "*", `d GE "2025-01-01", k EQ "5"`},
		{"t", "*", `v EQ "1"`},
		{"t", "*", `k EQ "12"`},
		{"t", "*", "k * 2 between 14 and 20 and not (s is null) or s = 's3' and v > 3"},
		{"t", "*", "v IS NULL, k GT \"30\""},
		{"t", "p2", `v EQ "0"`},
		{"t", "p1, p3", "v IN (2), k LT \"20\""},
	}
	checkShowDelete := func(what string) {
		t.Helper()
		rows := queryStrings(t, db, "SHOW DELETE FROM dd")
		if len(rows) != len(wantShow) {
			t.Fatalf("%s: SHOW DELETE has %d rows, want %d: %q", what, len(rows), len(wantShow), rows)
		}
		for i, r := range rows {
			if r[0] != wantShow[i][0] || r[1] != wantShow[i][1] || r[3] != wantShow[i][2] || r[4] != "FINISHED" {
				t.Errorf("%s: SHOW DELETE row %d = %q, want %q", what, i, r, wantShow[i])
			}
			if _, err := time.Parse("2006-01-02 15:04:05", r[2]); err != nil {
				t.Errorf("%s: CreateTime %q: %v", what, r[2], err)
			}
		}
	}
	checkShowDelete("before restart")

	db.Close()
	s.Close()
	s = startServer(t, dir)
	db = openDB(t, s.MySQLAddr(), "", true)
	m.check(t, db, "after restart")
	checkShowDelete("after restart")
	m.delete(t, db, func(r delRow) bool { return r.k >= 35 }, "DELETE FROM dd.t WHERE k >= 35")
	m.check(t, db, "delete after restart")
}

// TestE2EDeleteRules: Doris's errors for what a DELETE may not do.
func TestE2EDeleteRules(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE dr")
	mustExec(t, db, "USE dr")
	mustExec(t, db, `CREATE TABLE a (k INT NOT NULL, k2 VARCHAR(8) NOT NULL, total BIGINT SUM) AGGREGATE KEY(k, k2)
	  DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, `CREATE TABLE u (k INT NOT NULL, v VARCHAR(8)) UNIQUE KEY(k)
	  DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, "CREATE TABLE plain (pk INTEGER PRIMARY KEY, c FLOAT)")
	mustExec(t, db, "INSERT INTO plain VALUES (1, 1.5), (2, 2.5)")
	mustExec(t, db, "CREATE VIEW pv AS SELECT * FROM plain")
	for _, c := range []struct {
		stmt string
		code uint16
		msg  string
	}{
		{"DELETE FROM plain", 1105, "Where clause is not set"},
		{"DELETE FROM plain WHERE nope = 1", 1054, "Unknown column 'nope' in 'where clause'"},
		{"DELETE FROM nope WHERE pk = 1", 1146, "Table 'dr.nope' doesn't exist"},
		{"DELETE FROM nodb.plain WHERE pk = 1", 1049, ""},
		{"DELETE FROM plain PARTITION p9 WHERE pk = 1", 1105, "Partition does not exist. name: p9"},
		{"DELETE FROM plain WHERE pk IN (SELECT pk FROM plain)", 1235, "subqueries in the condition of a DELETE"},
		{"DELETE FROM plain WHERE EXISTS (SELECT 1)", 1235, "subqueries"},
		{"DELETE FROM plain WHERE pk = 1 LIMIT 1", 1235, "ORDER BY or LIMIT"},
		{"DELETE FROM plain WHERE 1 = 1", 1105, "delete all rows is forbidden temporary."},
		{"DELETE FROM pv WHERE pk = 1", 1105, "delete command could be only used on olap table"},
		// A placeholder outside a prepared statement is MySQL's syntax error.
		{"DELETE FROM plain WHERE pk = ?", 1064, "near '?'"},
		// A condition failing on a row fails the DELETE, not later reads.
		{"DELETE FROM plain WHERE pk * 9223372036854775807 > 0", 1690, "BIGINT value is out of range"},
		{"DELETE plain FROM plain JOIN u ON plain.pk = u.k", 1235, ""},
		{"EXPLAIN DELETE FROM plain WHERE pk = 1", 1105, "delete command on aggregate/duplicate table is not explainable"},
		{"DELETE FROM a WHERE total > 3", 1105, "Column[total] is not key column"},
		{"DELETE FROM a WHERE k = 1 OR k = 2", 1105, "Where clause only supports compound predicate, binary predicate, is_null predicate or in predicate."},
		{"DELETE FROM a WHERE k + 1 = 2", 1105, "Where clause only supports"},
	} {
		_, err := db.Exec(c.stmt)
		wantCode(t, err, c.code, c.stmt)
		if !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want it to contain %q", c.stmt, err, c.msg)
		}
	}
	// Doris's simple predicates work on key tables; a condition that
	// folds to FALSE deletes nothing, without a transaction.
	mustExec(t, db, "DELETE FROM a WHERE k = 1 AND k2 != 'x' AND k2 IN ('a', 'b') AND k2 IS NOT NULL AND k >= 0")
	mustExec(t, db, "DELETE FROM u WHERE k NOT IN (1, 2) AND k <= 10 AND k > -3 AND k < 9 AND k BETWEEN 0 AND 5")
	mustExec(t, db, "DELETE FROM plain WHERE 1 = 0")
	// On a UNIQUE KEY table a condition that is no delete predicate (a
	// value column, an expression) deletes through delete-sign rows, as
	// Doris 2.x's DeleteFromUsingCommand (e2e_mow_test.go).
	mustExec(t, db, "INSERT INTO u VALUES (1, 'x'), (2, 'y'), (3, 'z'), (4, 'w')")
	mustExec(t, db, "DELETE FROM u WHERE v = 'x'")
	mustExec(t, db, "DELETE FROM u WHERE k * 2 = 4")
	mustExec(t, db, "DELETE FROM u WHERE k NOT BETWEEN 1 AND 3")
	if got := queryStrings(t, db, "SELECT * FROM u"); !reflect.DeepEqual(got, [][]string{{"3", "z"}}) {
		t.Errorf("u after deletes: %q", got)
	}
	if got := sortedRows(queryStrings(t, db, "SELECT * FROM plain")); !reflect.DeepEqual(got, [][]string{{"1", "1.5"}, {"2", "2.5"}}) {
		t.Errorf("plain after a FALSE delete: %q", got)
	}
	// A float column on a DUPLICATE table (the sqllogictest tables).
	mustExec(t, db, "DELETE FROM plain WHERE c > 2 OR c IS NULL")
	if got := queryStrings(t, db, "SELECT * FROM plain"); !reflect.DeepEqual(got, [][]string{{"1", "1.5"}}) {
		t.Errorf("plain after c > 2: %q", got)
	}
}

// TestE2EDeleteKeyModels: on AGGREGATE and UNIQUE tables a delete drops
// every version of the keys it names, and a key loaded afterwards starts
// over (SUM from zero, the new value).
func TestE2EDeleteKeyModels(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	defer func() { s.Close() }()
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE dk")
	mustExec(t, db, `CREATE TABLE dk.a (k INT NOT NULL, k2 VARCHAR(8) NOT NULL, total BIGINT SUM, mx INT MAX) AGGREGATE KEY(k, k2)
	  DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "2")`)
	mustExec(t, db, `CREATE TABLE dk.u (k INT NOT NULL, v VARCHAR(8)) UNIQUE KEY(k)
	  DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "3")`)
	mustExec(t, db, "INSERT INTO dk.a VALUES (1, 'a', 5, 1), (1, 'b', 7, 2), (2, 'a', 1, 3)")
	mustExec(t, db, "INSERT INTO dk.a VALUES (1, 'a', 10, 9), (3, 'c', 4, 4)")
	mustExec(t, db, "INSERT INTO dk.u VALUES (1, 'one'), (2, 'two'), (3, 'three')")
	mustExec(t, db, "INSERT INTO dk.u VALUES (2, 'TWO'), (4, 'four')")

	mustExec(t, db, "DELETE FROM dk.a WHERE k = 1 AND k2 = 'a'")
	mustExec(t, db, "DELETE FROM dk.u WHERE k IN (2, 3)")
	wantA := [][]string{{"1", "b", "7", "2"}, {"2", "a", "1", "3"}, {"3", "c", "4", "4"}}
	wantU := [][]string{{"1", "one"}, {"4", "four"}}
	check := func(what string) {
		t.Helper()
		if got := sortedRows(queryStrings(t, db, "SELECT * FROM dk.a")); !reflect.DeepEqual(got, wantA) {
			t.Errorf("%s: dk.a = %q, want %q", what, got, wantA)
		}
		if got := sortedRows(queryStrings(t, db, "SELECT * FROM dk.u")); !reflect.DeepEqual(got, wantU) {
			t.Errorf("%s: dk.u = %q, want %q", what, got, wantU)
		}
	}
	check("after delete")
	mustExec(t, db, "INSERT INTO dk.a VALUES (1, 'a', 2, 0)")
	mustExec(t, db, "INSERT INTO dk.u VALUES (2, 'again')")
	wantA = [][]string{{"1", "a", "2", "0"}, {"1", "b", "7", "2"}, {"2", "a", "1", "3"}, {"3", "c", "4", "4"}}
	wantU = [][]string{{"1", "one"}, {"2", "again"}, {"4", "four"}}
	check("key loaded again")
	// Many small writes: background compaction folds the deletes away
	// and the rows stay the same.
	for i := 0; i < 10; i++ {
		mustExec(t, db, fmt.Sprintf("INSERT INTO dk.a VALUES (9, 'z', %d, %d)", i, i))
		mustExec(t, db, fmt.Sprintf("DELETE FROM dk.u WHERE k = %d", 100+i))
	}
	mustExec(t, db, "DELETE FROM dk.a WHERE k = 9")
	check("after compaction")
	db.Close()
	s.Close()
	s = startServer(t, dir)
	db = openDB(t, s.MySQLAddr(), "", false)
	check("after restart")
}

// TestE2EDeleteCrash kills the server while DELETEs run, each removing one
// residue class of ids from a table of 48 tablets × 3 replicas: after the
// restart every acknowledged delete is applied, and each class is there
// whole or gone whole — the one in flight included.
func TestE2EDeleteCrash(t *testing.T) {
	t.Parallel()
	const n, classes = 20_000, 40
	dir := t.TempDir()
	p := startProc(t, dir)
	db := openDB(t, p.mysqlAddr, "", true)
	mustExec(t, db, "CREATE DATABASE c")
	mustExec(t, db, `CREATE TABLE c.del (id BIGINT NOT NULL, s VARCHAR(40), x INT) DUPLICATE KEY(id)
	  PARTITION BY RANGE(id) (PARTITION p0 VALUES LESS THAN ("5000"), PARTITION p1 VALUES LESS THAN ("10000"),
	  PARTITION p2 VALUES LESS THAN ("15000"), PARTITION p3 VALUES LESS THAN MAXVALUE)
	  DISTRIBUTED BY HASH(id) BUCKETS 12 PROPERTIES ("replication_num" = "3")`)
	mustStreamLoad(t, p.httpAddr, "c", "del", map[string]string{"column_separator": ","}, csvRows(1, n))
	// x = id % 997 (csvRows): class j is the ids with x % classes = j.
	classOf := func(id int64) int { return int(id%997) % classes }

	start := time.Now()
	mustExec(t, db, "DELETE FROM c.del WHERE x % 40 = 0")
	one := time.Since(start)
	acked := map[int]bool{0: true}
	inFlight := -1
	// Each round lets a few deletes through, then kills at a fraction of
	// one delete's time into the next, so the kills land in different
	// phases of it (writing, preparing, committing, publishing).
	for round, frac := range []float64{0.2, 0.5, 0.8} {
		done := make(chan struct{})
		ack := make(chan struct{}, classes)
		conn := openDB(t, p.mysqlAddr, "", round%2 == 0)
		go func() {
			defer close(done)
			for j := 1; j < classes; j++ {
				if acked[j] {
					continue
				}
				inFlight = j
				if _, err := conn.Exec(fmt.Sprintf("DELETE FROM c.del WHERE x %% %d = %d", classes, j)); err != nil {
					return
				}
				acked[j] = true
				ack <- struct{}{}
			}
			inFlight = -1
		}()
		for i := 0; i <= round; i++ {
			<-ack
		}
		time.Sleep(time.Duration(float64(one) * frac))
		p.kill()
		<-done
		conn.Close()
		db.Close()

		p = startProc(t, dir)
		db = openDB(t, p.mysqlAddr, "", true)
		present := map[int]int{}
		for _, id := range queryInts(t, db, "SELECT id FROM c.del") {
			present[classOf(id)]++
		}
		whole := map[int]int{}
		for id := int64(1); id <= n; id++ {
			whole[classOf(id)]++
		}
		for j := 0; j < classes; j++ {
			switch got := present[j]; {
			case acked[j] && got != 0:
				t.Fatalf("round %d: acknowledged delete of class %d left %d rows", round, j, got)
			case got != 0 && got != whole[j]:
				t.Fatalf("round %d: class %d has %d of %d rows: a delete was half applied", round, j, got, whole[j])
			case got == 0 && !acked[j]:
				if j != inFlight {
					t.Fatalf("round %d: class %d vanished though no delete of it was sent", round, j)
				}
				acked[j] = true // the one in flight committed
			}
		}
		t.Logf("round %d: killed %v into a delete; %d classes deleted, in flight %d", round, time.Duration(float64(one)*frac), len(acked), inFlight)
	}
	// The table still takes loads and deletes.
	mustExec(t, db, "INSERT INTO c.del VALUES (1, 'again', 1)")
	mustExec(t, db, "DELETE FROM c.del WHERE s = 'again'")
	want := int64(1)
	if acked[classOf(1)] {
		want = 0
	}
	if got := queryInts(t, db, "SELECT count(*) FROM c.del WHERE id = 1"); len(got) != 1 || got[0] != want {
		t.Fatalf("after restart: %v rows of id 1, want %d", got, want)
	}
}
