package server_test

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/dorisgo/dorisgo/storage"
)

// mowSequence runs the same writes on a UNIQUE KEY table: loads replacing
// keys, UPDATE, DELETE on a value column and a key, a delete-sign row
// loaded by INSERT, DELETE ... USING a join, and a deleted key loaded
// again; it checks the rows after each step. Merge-on-write and
// merge-on-read must answer the same.
func mowSequence(t *testing.T, db *sql.DB, tbl string) {
	t.Helper()
	q := func(stmt string) [][]string { return queryStrings(t, db, strings.ReplaceAll(stmt, "$t", tbl)) }
	x := func(stmt string, args ...any) sql.Result {
		return mustExec(t, db, strings.ReplaceAll(stmt, "$t", tbl), args...)
	}
	x("INSERT INTO $t VALUES (1,'a',10),(2,'b',20),(3,'c',30),(4,'d',40),(5,'e',50)")
	x("INSERT INTO $t VALUES (2,'B',21),(4,'D',41),(6,'f',60)")
	x("INSERT INTO $t VALUES (4,'DD',42),(4,'DDD',43)") // the later row of a key in one load wins
	wantJoined(t, q("SELECT * FROM $t ORDER BY k"), "1,a,10 2,B,21 3,c,30 4,DDD,43 5,e,50 6,f,60")
	wantJoined(t, q("SELECT count(*), sum(n), max(v) FROM $t"), "6,214,f")
	wantJoined(t, q("SELECT k FROM $t WHERE n > 25 AND v < 'e' ORDER BY k"), "3 4")

	if n, _ := x("UPDATE $t SET n = n + 100 WHERE k <= 2").RowsAffected(); n != 2 {
		t.Fatalf("UPDATE affected %d rows, want 2", n)
	}
	wantJoined(t, q("SELECT k, n FROM $t WHERE k <= 3 ORDER BY k"), "1,110 2,121 3,30")

	// DELETE on a value column and on a key: delete-sign rows.
	if n, _ := x("DELETE FROM $t WHERE v = 'c'").RowsAffected(); n != 1 {
		t.Fatalf("DELETE affected %d rows, want 1", n)
	}
	x("DELETE FROM $t WHERE k = 1")
	wantJoined(t, q("SELECT * FROM $t ORDER BY k"), "2,B,121 4,DDD,43 5,e,50 6,f,60")

	// A row loaded with the delete sign deletes its key.
	x("INSERT INTO $t (k, v, n, __DORIS_DELETE_SIGN__) VALUES (5, 'zz', 0, 1), (7, 'g', 70, 0)")
	wantJoined(t, q("SELECT * FROM $t ORDER BY k"), "2,B,121 4,DDD,43 6,f,60 7,g,70")

	// DELETE ... USING (Doris 2.x): the keys a join matches.
	x("DELETE FROM $t USING mow_keys JOIN mow_keys2 ON mow_keys.k = mow_keys2.k WHERE $t.k = mow_keys.k AND mow_keys2.on_ = 1")
	wantJoined(t, q("SELECT * FROM $t ORDER BY k"), "2,B,121 7,g,70")

	// A deleted key loaded again is back.
	x("INSERT INTO $t VALUES (1,'again',1)")
	wantJoined(t, q("SELECT * FROM $t ORDER BY k"), "1,again,1 2,B,121 7,g,70")
	wantJoined(t, q("SELECT count(*) FROM $t"), "3")
}

// TestE2EMergeOnWrite: UNIQUE KEY tables merge on write by default
// (SHOW CREATE TABLE says so), the property false keeps merge-on-read,
// Doris's error for the property elsewhere; the same writes give the same
// rows on both, before and after a restart; the delete sign column shows
// only with show_hidden_columns, where deleted keys show their sign 1.
func TestE2EMergeOnWrite(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE mw")
	db = openDB(t, s.MySQLAddr(), "mw", true)
	// 8 buckets: no tablet gets the 9 loads after which a background
	// compaction would drop the deleted keys' rows shown below.
	mustExec(t, db, `CREATE TABLE mow (k INT, v VARCHAR(10), n INT) UNIQUE KEY(k)
		DISTRIBUTED BY HASH(k) BUCKETS 8 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, `CREATE TABLE mor (k INT, v VARCHAR(10), n INT) UNIQUE KEY(k)
		DISTRIBUTED BY HASH(k) BUCKETS 8 PROPERTIES ("replication_num" = "1", "enable_unique_key_merge_on_write" = "false")`)
	mustExec(t, db, `CREATE TABLE mow_keys (k INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, `CREATE TABLE mow_keys2 (k INT, on_ INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, "INSERT INTO mow_keys VALUES (4),(6),(7)")
	mustExec(t, db, "INSERT INTO mow_keys2 VALUES (4,1),(6,1),(7,0)")

	_, err := db.Exec(`CREATE TABLE bad (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1
		PROPERTIES ("replication_num" = "1", "enable_unique_key_merge_on_write" = "true")`)
	if err == nil || !strings.Contains(err.Error(), "enable_unique_key_merge_on_write property only support unique key table") {
		t.Fatalf("property on a DUPLICATE table: %v", err)
	}
	show := queryStrings(t, db, "SHOW CREATE TABLE mow")[0][1]
	if !strings.Contains(show, `"enable_unique_key_merge_on_write" = "true"`) || strings.Contains(show, "__DORIS_DELETE_SIGN__") {
		t.Fatalf("SHOW CREATE TABLE mow:\n%s", show)
	}
	if show := queryStrings(t, db, "SHOW CREATE TABLE mor")[0][1]; !strings.Contains(show, `"enable_unique_key_merge_on_write" = "false"`) {
		t.Fatalf("SHOW CREATE TABLE mor:\n%s", show)
	}
	_, err = db.Exec("DELETE FROM mow_keys USING mow_keys2 WHERE mow_keys.k = mow_keys2.k")
	if err == nil || !strings.Contains(err.Error(), "only supports unique key model") {
		t.Fatalf("DELETE USING on a DUPLICATE table: %v", err)
	}

	for _, tbl := range []string{"mow", "mor"} {
		t.Run(tbl, func(t *testing.T) { mowSequence(t, db, tbl) })
	}

	// The models are what they say: merge-on-write tablets marked the
	// replaced rows in delete bitmaps, merge-on-read ones hold none.
	var mowTablets, morTablets int
	var marked uint64
	for _, be := range s.Backends() {
		st := be.Store()
		for _, tab := range st.Tablets() {
			sc, err := st.Schema(tab)
			if err != nil || sc.Keys != storage.UniqueKeys {
				continue
			}
			_, rows, err := st.DeleteBitmaps(tab)
			if err != nil {
				t.Fatal(err)
			}
			if sc.MergeOnWrite {
				mowTablets++
				marked += rows
			} else if morTablets++; rows != 0 {
				t.Fatalf("merge-on-read tablet %d has %d rows in delete bitmaps", tab, rows)
			}
		}
	}
	// mow: 2 and 4 replaced, 4 twice in one load, 4 again; UPDATE 2 keys;
	// 6 deleting rows and the re-insert of 1 replace one row each.
	if mowTablets != 8 || morTablets != 8 || marked < 10 {
		t.Fatalf("%d merge-on-write tablets with %d marked rows, %d merge-on-read tablets", mowTablets, marked, morTablets)
	}

	// Hidden columns: DESC and * show the delete sign only when asked,
	// and then every key's newest row, deleted ones with sign 1.
	descCols := func(c *sql.DB) string {
		var names []string
		for _, r := range queryStrings(t, c, "DESC mow") {
			names = append(names, r[0])
		}
		return strings.Join(names, ",")
	}
	if got := descCols(db); got != "k,v,n" {
		t.Fatalf("DESC mow: %s", got)
	}
	// One connection, so the session variable holds for what follows.
	hid := openDB(t, s.MySQLAddr(), "mw", true)
	hid.SetMaxOpenConns(1)
	mustExec(t, hid, "SET show_hidden_columns = true")
	if got := descCols(hid); got != "k,v,n,__DORIS_DELETE_SIGN__,__DORIS_VERSION_COL__" {
		t.Fatalf("DESC mow with show_hidden_columns: %s", got)
	}
	for _, tbl := range []string{"mow", "mor"} {
		var got []string
		for _, r := range queryStrings(t, hid, "SELECT * FROM "+tbl+" ORDER BY k") {
			// Both have the version column too (e2e_versioncol_test.go).
			if want := 5; len(r) != want {
				t.Fatalf("%s with show_hidden_columns: row %v, want %d columns", tbl, r, want)
			}
			got = append(got, r[0]+":"+r[3])
		}
		// 3, 4, 5, 6 are deleted (sign 1); 1, 2, 7 live.
		if g := strings.Join(got, " "); g != "1:0 2:0 3:1 4:1 5:1 6:1 7:0" {
			t.Fatalf("%s with show_hidden_columns: %s", tbl, g)
		}
	}
	hid.Close()

	// CREATE TABLE … UNIQUE KEY … AS SELECT fills the delete sign with 0.
	mustExec(t, db, `CREATE TABLE mow_ctas UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "1") AS SELECT * FROM mow`)
	mustExec(t, db, "INSERT INTO mow_ctas VALUES (2, 'ctas', 0)")
	wantJoined(t, queryStrings(t, db, "SELECT * FROM mow_ctas ORDER BY k"), "1,again,1 2,ctas,0 7,g,70")

	// After a restart the same rows.
	s.Close()
	s = startServer(t, dir)
	defer s.Close()
	db = openDB(t, s.MySQLAddr(), "mw", true)
	for _, tbl := range []string{"mow", "mor"} {
		wantJoined(t, queryStrings(t, db, "SELECT * FROM "+tbl+" ORDER BY k"), "1,again,1 2,B,121 7,g,70")
	}
	mustExec(t, db, "INSERT INTO mow VALUES (2,'after',2)")
	wantJoined(t, queryStrings(t, db, "SELECT * FROM mow ORDER BY k"), "1,again,1 2,after,2 7,g,70")
}

// TestE2EMergeOnWriteStreamLoad: stream load's merge_type (DELETE deletes
// the loaded keys, MERGE those its delete condition holds for) and
// partial_columns (a key's other columns come from its row; a new or
// deleted key takes the defaults), with Doris's errors.
func TestE2EMergeOnWriteStreamLoad(t *testing.T) {
	s := newServer(t)
	root := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, root, "CREATE DATABASE msl")
	db := openDB(t, s.MySQLAddr(), "msl", true)
	mustExec(t, db, `CREATE TABLE sl (k INT, a INT, b VARCHAR(10), c INT DEFAULT "7") UNIQUE KEY(k)
		DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, `CREATE TABLE slmor (k INT, a INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2
		PROPERTIES ("replication_num" = "1", "enable_unique_key_merge_on_write" = "false")`)
	mustExec(t, db, `CREATE TABLE sldup (k INT, a INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2
		PROPERTIES ("replication_num" = "1")`)
	csv := map[string]string{"column_separator": ","}
	with := func(kv ...string) map[string]string {
		h := map[string]string{"column_separator": ","}
		for i := 0; i < len(kv); i += 2 {
			h[kv[i]] = kv[i+1]
		}
		return h
	}
	rows := func() string {
		var out []string
		for _, r := range queryStrings(t, db, "SELECT k, a, b, c FROM sl ORDER BY k") {
			out = append(out, strings.Join(r, ","))
		}
		return strings.Join(out, " ")
	}
	want := func(w string) {
		t.Helper()
		if g := rows(); g != w {
			t.Fatalf("rows:\n got %s\nwant %s", g, w)
		}
	}
	mustStreamLoad(t, s.HTTPAddr(), "msl", "sl", csv, []byte("1,10,x,100\n2,20,y,200\n3,30,z,300\n"))
	mustStreamLoad(t, s.HTTPAddr(), "msl", "sl", with("merge_type", "DELETE"), []byte("2,0,q,0\n9,0,none,0\n"))
	want("1,10,x,100 3,30,z,300")
	mustStreamLoad(t, s.HTTPAddr(), "msl", "sl", with("merge_type", "MERGE", "delete", "a > 100"),
		[]byte("1,11,xx,101\n3,300,del,0\n4,40,w,400\n"))
	want("1,11,xx,101 4,40,w,400")

	// Partial columns: only k and b given.
	mustStreamLoad(t, s.HTTPAddr(), "msl", "sl", with("partial_columns", "true", "columns", "k, b"),
		[]byte("1,PB\n5,NEW\n2,back\n"))
	want("1,11,PB,101 2,NULL,back,7 4,40,w,400 5,NULL,NEW,7")
	// A mapped column counts as given.
	mustStreamLoad(t, s.HTTPAddr(), "msl", "sl", with("partial_columns", "true", "columns", "k, tmp, a = tmp * 2"),
		[]byte("4,5\n"))
	want("1,11,PB,101 2,NULL,back,7 4,10,w,400 5,NULL,NEW,7")

	fails := []struct {
		table   string
		headers map[string]string
		msg     string
	}{
		{"sl", with("merge_type", "MERGE"), "Excepted DELETE ON clause when merge type is MERGE."},
		{"sl", with("delete", "a > 1"), "Not support DELETE ON clause when merge type is not MERGE."},
		{"sl", with("merge_type", "UPSERT"), "Invalid merge type UPSERT"},
		{"sldup", with("merge_type", "DELETE"), "load by MERGE or DELETE is only supported in unique tables."},
		{"sl", with("partial_columns", "true", "columns", "a, b"), "Partial update should include all key columns, missing: k"},
		{"slmor", with("partial_columns", "true", "columns", "k"), "Only unique key merge on write support partial update"},
	}
	for _, f := range fails {
		r, err := streamLoad(t.Context(), s.HTTPAddr(), "msl", f.table, "root", "", f.headers, strings.NewReader("1,2\n"))
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != "Fail" || !strings.Contains(r.Message, f.msg) {
			t.Fatalf("%s %v: %+v, want Fail with %q", f.table, f.headers, r, f.msg)
		}
	}
	want("1,11,PB,101 2,NULL,back,7 4,10,w,400 5,NULL,NEW,7")
}
