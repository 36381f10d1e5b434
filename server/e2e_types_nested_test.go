package server_test

import (
	"strings"
	"testing"
)

// Doris's ARRAY, MAP and STRUCT columns (issue 15): DDL rules, literals and
// constructors, storage in tablets, Doris's text form over both protocols,
// casts, subscripts, and survival of a restart.

const nestedDDL = `CREATE TABLE n (id INT, a ARRAY<INT>, s ARRAY<VARCHAR(10)>, aa ARRAY<ARRAY<INT>>,
	m MAP<STRING,INT>, st STRUCT<a:INT, b:STRING>)
DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 3 PROPERTIES ("replication_num" = "1")`

var nestedRows = [][]string{
	{"1", "[1, 2, 3]", `["a", "b"]`, "[[1, 2], [3]]", `{"k":1, "z":2}`, `{"a":1, "b":"x"}`},
	{"2", "[]", `["x", null, "y"]`, "[[], null, [null]]", "{}", `{"a":null, "b":null}`},
	{"3", "NULL", "NULL", "NULL", "NULL", "NULL"},
	{"4", "[null, -5]", `["it's", "q"q"]`, "[[4]]", `{"n":null}`, `{"a":7, "b":"y z"}`},
}

func TestE2ETypesNested(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	addr := s.MySQLAddr()
	root := openDB(t, addr, "", true)
	mustExec(t, root, "CREATE DATABASE ndb")
	d := openDB(t, addr, "ndb", true)
	mustExec(t, d, nestedDDL)

	mustExec(t, d, `INSERT INTO n VALUES (1, [1, 2, 3], ['a', 'b'], [[1, 2], [3]], {'k': 1, 'z': 2}, named_struct('a', 1, 'b', 'x')),
		(2, [], array('x', NULL, 'y'), array(array(), NULL, array(NULL)), map(), struct(NULL, NULL)), (3, NULL, NULL, NULL, NULL, NULL)`)
	// Binary protocol: a nested value is sent as its text and cast.
	bin := openDB(t, addr, "ndb", false)
	mustExec(t, bin, "INSERT INTO n VALUES (?, CAST(? AS ARRAY<INT>), CAST(? AS ARRAY<STRING>), [[4]], map('n', NULL), struct(7, 'y z'))",
		4, "[null, -5]", `["it's", "q\"q"]`)
	queryBoth(t, addr, "ndb", "SELECT id, a, s, aa, m, st FROM n WHERE id > /*?*/0 ORDER BY id", nestedRows)

	// Subscripts and accessors: 1-based, out of range NULL, negative from the end.
	queryBoth(t, addr, "ndb", `SELECT id, a[1], a[-1], a[9], s[2], aa[1][2], m['k'], m['none'], struct_element(st, 'a') IS NULL, struct_element(st, 'b'), struct_element(st, 1), size(a), map_size(m)
		FROM n WHERE id IN (1, 2) AND id > /*?*/0 ORDER BY id`, [][]string{
		{"1", "1", "3", "NULL", "b", "2", "1", "NULL", "0", "x", "1", "3", "2"},
		{"2", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "1", "NULL", "NULL", "0", "0"},
	})

	// Casts: text parses (invalid is NULL), a nested value prints as text.
	queryBoth(t, addr, "ndb", `SELECT CAST('[1,2]' AS ARRAY<INT>), CAST('[1,x]' AS ARRAY<INT>), CAST('{"a":1}' AS MAP<STRING,INT>), CAST(a AS STRING), CAST(a AS ARRAY<BIGINT>)
		FROM n WHERE id = 1 + /*?*/0`, [][]string{{"[1, 2]", "NULL", `{"a":1}`, "[1, 2, 3]", "[1, 2, 3]"}})

	// Doris refuses nested columns as keys, in non-DUPLICATE tables and as
	// distribution columns, and never compares, groups or orders them.
	for q, msg := range map[string]string{
		`CREATE TABLE k1 (a ARRAY<INT>, v INT) DUPLICATE KEY(a) DISTRIBUTED BY HASH(v) BUCKETS 1 PROPERTIES ("replication_num" = "1")`:    "Array can only be used in the non-key column of the duplicate table at present.",
		`CREATE TABLE k2 (k INT, m MAP<INT,INT>) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("replication_num" = "1")`:     "Map can only be used in the non-key column of the duplicate table at present.",
		`CREATE TABLE k3 (k INT, s STRUCT<a:INT>) DUPLICATE KEY(k) DISTRIBUTED BY HASH(s) BUCKETS 1 PROPERTIES ("replication_num" = "1")`: "Struct Type should not be used in distribution column[s].",
		"ALTER TABLE n ADD COLUMN k2 ARRAY<INT> KEY": "Array can only be used in the non-key column of the duplicate table at present.",
	} {
		_, err := d.Exec(q)
		wantCode(t, err, 1105, q)
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %q", q, err, msg)
		}
	}
	for _, q := range []string{"SELECT id FROM n WHERE a = [1, 2, 3]", "SELECT a, count(*) FROM n GROUP BY a", "SELECT id FROM n ORDER BY a", "SELECT id FROM n ORDER BY m"} {
		_, err := queryStringsErr(d, q)
		wantCode(t, err, 1105, q)
		if err == nil || !strings.Contains(err.Error(), "don't support filter, group by or order by") {
			t.Errorf("%s: %v", q, err)
		}
	}

	var desc []string
	for _, r := range queryStrings(t, d, "DESC n") {
		desc = append(desc, r[0]+" "+r[1])
	}
	if got := strings.Join(desc, ", "); got != "id INT, a ARRAY<INT>, s ARRAY<VARCHAR(10)>, aa ARRAY<ARRAY<INT>>, m MAP<STRING,INT>, st STRUCT<a:INT,b:STRING>" {
		t.Errorf("DESC n: %s", got)
	}

	// Everything is in the tablets: a restart reads the same rows back.
	s.Close()
	s = startServer(t, dir)
	defer s.Close()
	addr = s.MySQLAddr()
	waitBackendsAlive(t, openDB(t, addr, "", true), 3)
	queryBoth(t, addr, "ndb", "SELECT id, a, s, aa, m, st FROM n WHERE id > /*?*/0 ORDER BY id", nestedRows)
}

// TestE2ETypesNestedLoad: stream load CSV fields in Doris's text form and
// JSON documents' native arrays and objects into nested columns; a field
// that does not parse loads as NULL (non-strict) or filters the row
// (strict_mode). collect_list gives an ARRAY that INSERT … SELECT stores.
func TestE2ETypesNestedLoad(t *testing.T) {
	s := newServer(t)
	addr := s.MySQLAddr()
	root := openDB(t, addr, "", true)
	mustExec(t, root, "CREATE DATABASE nsl")
	d := openDB(t, addr, "nsl", true)
	mustExec(t, d, nestedDDL)
	csv := "1|[1, 2,3]|[\"a\", 'b', null]|[[1], []]|{\"k\":1, \"z\":null}|{1, \"x\"}\n" +
		"2|[1, x]|[]|\\N|{}|{\"a\":2, \"b\":\"y\"}\n"
	r := mustStreamLoad(t, s.HTTPAddr(), "nsl", "n", map[string]string{"column_separator": "|"}, []byte(csv))
	if r.NumberLoadedRows != 2 || r.NumberFilteredRows != 0 {
		t.Fatalf("CSV load: %+v", r)
	}
	r = mustStreamLoad(t, s.HTTPAddr(), "nsl", "n", map[string]string{"column_separator": "|", "strict_mode": "true", "max_filter_ratio": "0.6"},
		[]byte("3|[1, x]|[]|[]|{}|{1, \"a\"}\n4|[4]|[]|[]|{}|{4, \"b\"}\n"))
	if r.NumberLoadedRows != 1 || r.NumberFilteredRows != 1 {
		t.Fatalf("strict CSV load: %+v", r)
	}
	js := `[{"id": 11, "a": [5, null], "s": ["p", "q"], "aa": [[7, 8]], "m": {"x": 9}, "st": {"a": 10, "b": "j"}},
		{"id": 12, "a": null, "s": [], "m": {}}]`
	r = mustStreamLoad(t, s.HTTPAddr(), "nsl", "n", map[string]string{"format": "json", "strip_outer_array": "true"}, []byte(js))
	if r.NumberLoadedRows != 2 {
		t.Fatalf("JSON load: %+v", r)
	}
	queryBoth(t, addr, "nsl", "SELECT id, a, s, aa, m, st FROM n WHERE id > /*?*/0 ORDER BY id", [][]string{
		{"1", "[1, 2, 3]", `["a", "b", null]`, "[[1], []]", `{"k":1, "z":null}`, `{"a":1, "b":"x"}`},
		{"2", "NULL", "[]", "NULL", "{}", `{"a":2, "b":"y"}`},
		{"4", "[4]", "[]", "[]", "{}", `{"a":4, "b":"b"}`},
		{"11", "[5, null]", `["p", "q"]`, "[[7, 8]]", `{"x":9}`, `{"a":10, "b":"j"}`},
		{"12", "NULL", "[]", "NULL", "{}", "NULL"},
	})

	// Aggregates that build arrays, across the exchange, and stored back.
	queryBoth(t, addr, "nsl", `SELECT array_sort(collect_list(id)), array_sort(collect_set(size(s))), size(array_agg(a)) FROM n WHERE id > /*?*/0`,
		[][]string{{"[1, 2, 4, 11, 12]", "[0, 2, 3]", "3"}})
	mustExec(t, d, `CREATE TABLE agg (k INT, ids ARRAY<INT>) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, d, "INSERT INTO agg SELECT id % 2, array_sort(collect_list(id)) FROM n GROUP BY id % 2")
	queryBoth(t, addr, "nsl", "SELECT k, ids, array_contains(ids, 11) FROM agg WHERE k >= /*?*/0 ORDER BY k", [][]string{
		{"0", "[2, 4, 12]", "0"}, {"1", "[1, 11]", "1"},
	})
}

// TestE2ETypesNestedOperators: nested columns pass through the other
// operators as payload (joins, unions, conditionals, any_value, deletes,
// schema changes, CTAS) and are refused where Doris refuses them.
func TestE2ETypesNestedOperators(t *testing.T) {
	s := newServer(t)
	addr := s.MySQLAddr()
	root := openDB(t, addr, "", true)
	mustExec(t, root, "CREATE DATABASE nop")
	d := openDB(t, addr, "nop", true)
	mustExec(t, d, `CREATE TABLE x (id INT, v INT, l ARRAY<INT>) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, d, `INSERT INTO x VALUES (1, 1, [1]), (2, 1, [2, 3]), (3, 2, NULL)`)
	// A text parameter converts to the ARRAY column.
	mustExec(t, openDB(t, addr, "nop", false), `INSERT INTO x VALUES (?, ?, ?)`, 4, 2, "[7, 8]")

	queryBoth(t, addr, "nop", `SELECT id, IF(id > 1, l, [0]), COALESCE(l, []), CASE WHEN id = 1 THEN l END FROM x WHERE id > /*?*/0 ORDER BY id`, [][]string{
		{"1", "[0]", "[1]", "[1]"}, {"2", "[2, 3]", "[2, 3]", "NULL"}, {"3", "NULL", "[]", "NULL"}, {"4", "[7, 8]", "[7, 8]", "NULL"},
	})
	queryBoth(t, addr, "nop", `SELECT a.id, b.l FROM x a JOIN x b ON a.id = b.id + /*?*/0 WHERE b.l IS NOT NULL ORDER BY a.id`, [][]string{
		{"1", "[1]"}, {"2", "[2, 3]"}, {"4", "[7, 8]"},
	})
	queryBoth(t, addr, "nop", `SELECT l FROM x WHERE id = 1 + /*?*/0 UNION ALL SELECT [9, 9]`, [][]string{{"[1]"}, {"[9, 9]"}})
	if got := sortedRows(queryStrings(t, d, "SELECT v, size(any_value(l)) >= 1 FROM x WHERE l IS NOT NULL GROUP BY v")); len(got) != 2 || got[0][1] != "1" || got[1][1] != "1" {
		t.Errorf("any_value(l) per group: %v", got)
	}

	mustExec(t, d, "ALTER TABLE x ADD COLUMN m MAP<STRING,INT>")
	mustExec(t, d, "INSERT INTO x VALUES (5, 3, [5], {'five': 5})")
	mustExec(t, d, "DELETE FROM x WHERE id = 1")
	mustExec(t, d, "CREATE TABLE y AS SELECT id, l, m FROM x")
	queryBoth(t, addr, "nop", "SELECT id, l, m FROM y WHERE id > /*?*/0 ORDER BY id", [][]string{
		{"2", "[2, 3]", "NULL"}, {"3", "NULL", "NULL"}, {"4", "[7, 8]", "NULL"}, {"5", "[5]", `{"five":5}`},
	})

	// Subscripted elements are plain values: grouped and ordered.
	queryBoth(t, addr, "nop", "SELECT l[1] AS f, count(*) FROM x WHERE id > /*?*/0 GROUP BY l[1] ORDER BY f", [][]string{
		{"NULL", "1"}, {"2", "1"}, {"5", "1"}, {"7", "1"},
	})
	for _, q := range []string{"SELECT DISTINCT l FROM x", "SELECT id FROM x WHERE m IN (map('a', 1))",
		"SELECT count(DISTINCT l) FROM x", "SELECT l FROM x UNION SELECT [1]", "SELECT l FROM x INTERSECT SELECT [1]",
		"SELECT id, row_number() OVER (PARTITION BY l ORDER BY id) FROM x", "SELECT id, rank() OVER (ORDER BY m) FROM x",
		"SELECT a.id FROM x a JOIN x b ON a.l = b.l", "SELECT v, count(*) FROM x GROUP BY ROLLUP(v, l)"} {
		_, err := queryStringsErr(d, q)
		wantCode(t, err, 1105, q)
		if err == nil || !strings.Contains(err.Error(), "don't support filter, group by or order by") {
			t.Errorf("%s: %v", q, err)
		}
	}
	_, err := queryStringsErr(d, "SELECT max(l) FROM x")
	wantCode(t, err, 1210, "max(array)")
}
