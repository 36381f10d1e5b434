package server_test

import (
	"strings"
	"testing"
)

// Doris's JSON / JSONB column type (issue 15): validated on input, kept in
// compact form, read back as JSON text over both protocols, accepted by
// the JSON functions, cast to and from strings.

const jsonDDL = `CREATE TABLE j (id INT, j JSON, jb JSONB)
DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 3 PROPERTIES ("replication_num" = "1")`

func TestE2ETypesJSON(t *testing.T) {
	s := newServer(t)
	addr := s.MySQLAddr()
	root := openDB(t, addr, "", true)
	mustExec(t, root, "CREATE DATABASE jdb")
	d := openDB(t, addr, "jdb", true)
	mustExec(t, d, jsonDDL)

	mustExec(t, d, `INSERT INTO j VALUES (1, '{"a": 1, "b": [1, 2, {"c": "x y"}]}', ' [1, 2.50, "s"] '), (2, 'null', '"str"'), (3, NULL, '123')`)
	bin := openDB(t, addr, "jdb", false)
	mustExec(t, bin, "INSERT INTO j VALUES (?, ?, ?)", 4, `{"k": {"n": -1.5e3}, "t": true}`, `[]`)
	// Invalid JSON is an error in INSERT (Doris: json parse error), nothing stored.
	_, err := d.Exec(`INSERT INTO j VALUES (5, '{"a": 1}', '{bad')`)
	wantCode(t, err, 1366, "INSERT invalid JSON")
	_, err = bin.Exec("INSERT INTO j VALUES (?, ?, ?)", 5, "not json", "1")
	wantCode(t, err, 1366, "prepared INSERT invalid JSON")
	mustExec(t, d, "INSERT INTO j SELECT id + 10, jb, j FROM j WHERE id = 1")

	want := [][]string{
		{"1", `{"a":1,"b":[1,2,{"c":"x y"}]}`, `[1,2.50,"s"]`},
		{"2", "null", `"str"`},
		{"3", "NULL", "123"},
		{"4", `{"k":{"n":-1.5e3},"t":true}`, "[]"},
		{"11", `[1,2.50,"s"]`, `{"a":1,"b":[1,2,{"c":"x y"}]}`},
	}
	queryBoth(t, addr, "jdb", "SELECT id, j, jb FROM j WHERE id > /*?*/0 ORDER BY id", want)

	// The JSON functions take JSON columns.
	queryBoth(t, addr, "jdb", `SELECT id, json_extract(j, '$.a'), get_json_string(j, '$.b[2].c'), get_json_int(j, '$.a'), json_length(jb), json_valid(j)
		FROM j WHERE id IN (1, 4) AND id > /*?*/0 ORDER BY id`, [][]string{
		{"1", "1", "x y", "1", "3", "1"},
		{"4", "NULL", "NULL", "NULL", "0", "1"},
	})
	// CAST to JSON validates and compacts; CAST from JSON gives its text.
	queryBoth(t, addr, "jdb", `SELECT CAST('{ "x" : [ 1 , 2 ] }' AS JSON), CAST('nope' AS JSON), CAST(' 7 ' AS JSONB), CAST(j AS STRING), length(CAST(jb AS VARCHAR(100)))
		FROM j WHERE id = 1 + /*?*/0`, [][]string{{`{"x":[1,2]}`, "NULL", "7", `{"a":1,"b":[1,2,{"c":"x y"}]}`, "12"}})

	// Doris neither orders JSON (max) nor keys a table by it.
	_, err = queryStringsErr(d, "SELECT max(j) FROM j")
	wantCode(t, err, 1210, "max(json)")
	_, err = d.Exec(`CREATE TABLE jk (j JSON, v INT) DUPLICATE KEY(j) DISTRIBUTED BY HASH(j) BUCKETS 1 PROPERTIES ("replication_num" = "1")`)
	wantCode(t, err, 1105, "JSON key column")
	// Nor compares, groups or sorts it (Doris's message names the types).
	for _, q := range []string{"SELECT id FROM j WHERE j = '{}'", "SELECT j, count(*) FROM j GROUP BY j",
		"SELECT id FROM j ORDER BY jb", "SELECT id FROM j WHERE j IN ('1', '2')"} {
		_, err = queryStringsErr(d, q)
		wantCode(t, err, 1105, q)
		if !strings.Contains(err.Error(), "don't support filter, group by or order by") {
			t.Errorf("%s: %v", q, err)
		}
	}

	// DESC and SHOW CREATE TABLE.
	var desc []string
	for _, r := range queryStrings(t, d, "DESC j") {
		desc = append(desc, r[0]+" "+r[1])
	}
	if got := strings.Join(desc, ", "); got != "id INT, j JSON, jb JSON" {
		t.Errorf("DESC j: %s", got)
	}
	if sc := queryStrings(t, d, "SHOW CREATE TABLE j")[0][1]; !strings.Contains(sc, "`j` json NULL") || !strings.Contains(sc, "`jb` json NULL") {
		t.Errorf("SHOW CREATE TABLE j:\n%s", sc)
	}
}

// TestE2ETypesJSONStreamLoad: CSV fields and JSON documents' values load
// into JSON columns; invalid JSON loads as NULL (non-strict) or filters
// the row (strict_mode), as Doris.
func TestE2ETypesJSONStreamLoad(t *testing.T) {
	s := newServer(t)
	addr := s.MySQLAddr()
	root := openDB(t, addr, "", true)
	mustExec(t, root, "CREATE DATABASE jsl")
	d := openDB(t, addr, "jsl", true)
	mustExec(t, d, jsonDDL)
	csv := "1|{\"a\": [1, 2]}|[true, false]\n2|{oops|\\N\n"
	r := mustStreamLoad(t, s.HTTPAddr(), "jsl", "j", map[string]string{"column_separator": "|"}, []byte(csv))
	if r.NumberLoadedRows != 2 || r.NumberFilteredRows != 0 {
		t.Fatalf("CSV load: %+v", r)
	}
	r = mustStreamLoad(t, s.HTTPAddr(), "jsl", "j", map[string]string{"column_separator": "|", "strict_mode": "true", "max_filter_ratio": "0.6"}, []byte("3|{oops|1\n4|1|2\n"))
	if r.NumberLoadedRows != 1 || r.NumberFilteredRows != 1 {
		t.Fatalf("strict CSV load: %+v", r)
	}
	js := `[{"id": 11, "j": {"x": {"y": [1, "two"]}}, "jb": "[3, 4]"}, {"id": 12, "j": [1, 2], "jb": null}]`
	r = mustStreamLoad(t, s.HTTPAddr(), "jsl", "j", map[string]string{"format": "json", "strip_outer_array": "true"}, []byte(js))
	if r.NumberLoadedRows != 2 {
		t.Fatalf("JSON load: %+v", r)
	}
	queryBoth(t, addr, "jsl", "SELECT id, j, jb FROM j WHERE id > /*?*/0 ORDER BY id", [][]string{
		{"1", `{"a":[1,2]}`, "[true,false]"},
		{"2", "NULL", "NULL"},
		{"4", "1", "2"},
		{"11", `{"x":{"y":[1,"two"]}}`, "[3,4]"},
		{"12", "[1,2]", "NULL"},
	})
}
