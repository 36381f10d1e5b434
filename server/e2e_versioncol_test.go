package server_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestE2EVersionColumn: a merge-on-write UNIQUE KEY table has Doris's
// hidden __DORIS_VERSION_COL__ (BIGINT, default 0): DESC and * show it only
// with show_hidden_columns, and it reads as the partition version the row
// was written at (an INSERT, an UPDATE's rewrite, a DELETE's deleting row
// each take the next version, as in Doris's docs, where a table's first
// load is version 2). The versions survive background compaction and a
// restart. Writes that name it are refused; DUPLICATE tables have no such
// column.
func TestE2EVersionColumn(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE vc")
	db = openDB(t, s.MySQLAddr(), "vc", true)
	mustExec(t, db, `CREATE TABLE u (k INT, v VARCHAR(8)) UNIQUE KEY(k)
		DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, "INSERT INTO u VALUES (1,'foo'),(2,'bar')") // version 2
	mustExec(t, db, "INSERT INTO u VALUES (3,'baz')")           // 3
	mustExec(t, db, "UPDATE u SET v = 'BAR' WHERE k = 2")       // 4
	mustExec(t, db, "DELETE FROM u WHERE k = 1")                // 5

	wantJoined(t, queryStrings(t, db, "SELECT * FROM u ORDER BY k"), "2,BAR 3,baz")
	// Named, it reads without show_hidden_columns (Doris binds hidden
	// columns by name; * leaves them out).
	wantJoined(t, queryStrings(t, db, "SELECT k, __DORIS_VERSION_COL__ FROM u ORDER BY k"), "2,4 3,3")
	wantJoined(t, queryStrings(t, db, "SELECT k FROM u WHERE __DORIS_VERSION_COL__ > 3"), "2")

	hid := openDB(t, s.MySQLAddr(), "vc", true)
	hid.SetMaxOpenConns(1)
	mustExec(t, hid, "SET show_hidden_columns = true")
	var desc []string
	for _, r := range queryStrings(t, hid, "DESC u") {
		desc = append(desc, strings.Join(r[:5], "|"))
	}
	want := "k|INT|YES|true|NULL v|VARCHAR(8)|YES|false|NULL __DORIS_DELETE_SIGN__|TINYINT|NO|false|0 __DORIS_VERSION_COL__|BIGINT|NO|false|0"
	if got := strings.Join(desc, " "); got != want {
		t.Fatalf("DESC u with show_hidden_columns:\n got %s\nwant %s", got, want)
	}
	// Doris's docs' example: the deleted key shows with sign 1 and the
	// version of the DELETE.
	wantJoined(t, queryStrings(t, hid, "SELECT * FROM u ORDER BY k"), "1,foo,1,5 2,BAR,0,4 3,baz,0,3")

	// Ten more loads: the tablet's rowsets are compacted (Publish queues a
	// compaction above 8 rowsets); each row keeps its own version.
	for i := 0; i < 10; i++ {
		mustExec(t, db, fmt.Sprintf("INSERT INTO u VALUES (%d, 'n')", 100+i)) // versions 6..15
	}
	waitFor(t, 30*time.Second, "compaction of u", func() bool {
		rows := queryStrings(t, db, "SHOW TABLETS FROM u")
		n, _ := strconv.Atoi(rows[0][14]) // VersionCount
		return n > 0 && n <= 8
	})
	check := func(what string) {
		t.Helper()
		got := queryStrings(t, db, "SELECT k, __DORIS_VERSION_COL__ FROM u WHERE k IN (2, 3, 100, 109) ORDER BY k")
		var lines []string
		for _, r := range got {
			lines = append(lines, strings.Join(r, ","))
		}
		if g := strings.Join(lines, " "); g != "2,4 3,3 100,6 109,15" {
			t.Fatalf("%s: versions %s, want 2,4 3,3 100,6 109,15", what, g)
		}
	}
	check("after compaction")
	hid.Close()
	s.Close()
	s = startServer(t, dir)
	defer s.Close()
	db = openDB(t, s.MySQLAddr(), "vc", true)
	check("after restart")
	mustExec(t, db, "INSERT INTO u VALUES (3, 'again')")
	wantJoined(t, queryStrings(t, db, "SELECT k, v, __DORIS_VERSION_COL__ FROM u WHERE k = 3"), "3,again,16")

	// Writes naming it are refused, with the column in the message.
	for _, stmt := range []string{
		"INSERT INTO u (k, v, __DORIS_VERSION_COL__) VALUES (7, 'x', 99)",
		"UPDATE u SET __DORIS_VERSION_COL__ = 1 WHERE k = 2",
	} {
		_, err := db.Exec(stmt)
		if err == nil || !strings.Contains(err.Error(), "__DORIS_VERSION_COL__ of table u holds the version each row is written at") {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	rep, err := streamLoad(t.Context(), s.HTTPAddr(), "vc", "u", "root", "", map[string]string{"columns": "k, v, __DORIS_VERSION_COL__", "column_separator": ","}, strings.NewReader("8,y,1\n"))
	if err != nil || rep.Status != "Fail" || !strings.Contains(rep.Message, "__DORIS_VERSION_COL__") {
		t.Fatalf("stream load naming the version column: %+v %v", rep, err)
	}
	wantJoined(t, queryStrings(t, db, "SELECT count(*) FROM u WHERE k IN (7, 8)"), "0")

	// DUPLICATE tables have none.
	mustExec(t, db, `CREATE TABLE d (k INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("replication_num" = "1")`)
	_, err = db.Exec("SELECT __DORIS_VERSION_COL__ FROM d")
	wantCode(t, err, 1054, "version column of a DUPLICATE table")
}

// TestE2EVersionColumnMergeOnRead: a merge-on-read UNIQUE KEY table has the
// version column too (Doris adds it to every UNIQUE KEY table, merged as
// REPLACE): a key reads the version of the row that wins the merge, before
// and after compaction folds its versions, and after a restart.
func TestE2EVersionColumnMergeOnRead(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE vcm")
	db = openDB(t, s.MySQLAddr(), "vcm", true)
	mustExec(t, db, `CREATE TABLE m (k INT, v VARCHAR(8)) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1
		PROPERTIES ("replication_num" = "1", "enable_unique_key_merge_on_write" = "false")`)
	mustExec(t, db, "INSERT INTO m VALUES (1,'a'),(2,'b')") // version 2
	mustExec(t, db, "INSERT INTO m VALUES (2,'B')")         // 3
	mustExec(t, db, "INSERT INTO m VALUES (3,'c')")         // 4
	want := "1,a,2 2,B,3 3,c,4"
	wantJoined(t, queryStrings(t, db, "SELECT k, v, __DORIS_VERSION_COL__ FROM m ORDER BY k"), want)
	wantJoined(t, queryStrings(t, db, "SELECT k FROM m WHERE __DORIS_VERSION_COL__ = 3"), "2")
	wantJoined(t, queryStrings(t, db, "SELECT * FROM m ORDER BY k"), "1,a 2,B 3,c")

	// Ten more versions of key 2: compaction merges them, and the key keeps
	// the version of its last write.
	for i := 0; i < 10; i++ {
		mustExec(t, db, fmt.Sprintf("INSERT INTO m VALUES (2, 'x%d')", i)) // versions 5..14
	}
	want = "1,a,2 2,x9,14 3,c,4"
	waitFor(t, 30*time.Second, "compaction of m", func() bool {
		rows := queryStrings(t, db, "SHOW TABLETS FROM m")
		n, _ := strconv.Atoi(rows[0][14]) // VersionCount
		return n > 0 && n <= 8
	})
	wantJoined(t, queryStrings(t, db, "SELECT k, v, __DORIS_VERSION_COL__ FROM m ORDER BY k"), want)
	s.Close()
	s = startServer(t, dir)
	defer s.Close()
	db = openDB(t, s.MySQLAddr(), "vcm", true)
	wantJoined(t, queryStrings(t, db, "SELECT k, v, __DORIS_VERSION_COL__ FROM m ORDER BY k"), want)

	_, err := db.Exec("INSERT INTO m (k, v, __DORIS_VERSION_COL__) VALUES (7, 'x', 99)")
	if err == nil || !strings.Contains(err.Error(), "__DORIS_VERSION_COL__ of table m holds the version each row is written at") {
		t.Fatalf("insert naming the version column: %v", err)
	}
}
