package server_test

import (
	"strings"
	"testing"
)

// TestE2EStreamLoadJSONPaths: json_root narrows each document, jsonpaths
// picks each column's value (mapped through the columns header), and the
// parser-tuning headers are read and checked.
func TestE2EStreamLoadJSONPaths(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE jp")
	mustExec(t, db, `CREATE TABLE jp.t (k INT, name VARCHAR(20), price DECIMAL(20,6), tag VARCHAR(40) DEFAULT 'none')
		DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	load := func(h map[string]string, body string) loadReply {
		t.Helper()
		h["format"] = "json"
		return mustStreamLoad(t, s.HTTPAddr(), "jp", "t", h, []byte(body))
	}
	check := func(want string) {
		t.Helper()
		wantJoined(t, queryStrings(t, db, "SELECT k, name, price, tag FROM jp.t ORDER BY k"), want)
		mustExec(t, db, "TRUNCATE TABLE jp.t")
	}

	// jsonpaths in table column order; a missing path takes the default,
	// a nested object its JSON text; 18 digits survive (never a double).
	r := load(map[string]string{"jsonpaths": `["$.id", "$.info.name", "$.p", "$.info.tags"]`, "strip_outer_array": "true"},
		`[{"id": 1, "info": {"name": "a", "tags": {"x": 1}}, "p": 12345678901234.123456},
		  {"id": 2, "info": {"name": "b"}, "p": "2.5"}]`)
	if r.Status != "Success" || r.NumberLoadedRows != 2 {
		t.Fatalf("load: %+v", r)
	}
	check(`1,a,12345678901234.123456,{"x": 1} 2,b,2.500000,none`)

	// json_root with strip_outer_array, jsonpaths through a columns mapping.
	r = load(map[string]string{"json_root": "$.data.rows", "strip_outer_array": "true",
		"jsonpaths": `["$.name", "$['the.id']"]`, "columns": "name, k", "fuzzy_parse": "true", "num_as_string": "true"},
		`{"data": {"rows": [{"the.id": 7, "name": "seven"}, {"the.id": 8, "name": "eight"}]}}`)
	if r.Status != "Success" || r.NumberLoadedRows != 2 {
		t.Fatalf("load: %+v", r)
	}
	check("7,seven,NULL,none 8,eight,NULL,none")

	// json_root on documents one per line, by key.
	r = load(map[string]string{"json_root": "$.row", "read_json_by_line": "true"},
		"{\"row\": {\"k\": 3, \"name\": \"c\"}}\n{\"row\": {\"k\": 4, \"tag\": \"t4\"}}\n")
	if r.Status != "Success" || r.NumberLoadedRows != 2 {
		t.Fatalf("load: %+v", r)
	}
	check("3,c,NULL,none 4,NULL,NULL,t4")

	for _, c := range []struct {
		h    map[string]string
		body string
		msg  string
	}{
		{map[string]string{"json_root": "$.nope"}, `{"row": {"k": 1}}`, "JSON Root not found: $.nope"},
		{map[string]string{"json_root": "$.rows"}, `{"rows": [{"k": 1}]}`, "strip_outer_array: true"},
		{map[string]string{"jsonpaths": `$.k`}, `{"k": 1}`, "Invalid jsonpaths"},
		{map[string]string{"jsonpaths": `["k"]`}, `{"k": 1}`, "a path starts with $"},
		{map[string]string{"jsonpaths": `["$.a", "$.b", "$.c", "$.d", "$.e"]`}, `{"k": 1}`, "jsonpaths has 5 paths but the load has 4 columns"},
		{map[string]string{"fuzzy_parse": "maybe"}, `{"k": 1}`, "fuzzy_parse"},
		{map[string]string{"json_root": "$.r", "strip_outer_array": "true"}, `{"r": {"k": 1}}`, "strip_outer_array must be TRUE"},
	} {
		c.h["format"] = "json"
		r, err := streamLoad(t.Context(), s.HTTPAddr(), "jp", "t", "root", "", c.h, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != "Fail" || !strings.Contains(r.Message, c.msg) {
			t.Errorf("%v: %s %q, want Fail saying %q", c.h, r.Status, r.Message, c.msg)
		}
	}
	wantJoined(t, queryStrings(t, db, "SELECT count(*) FROM jp.t"), "0")

	// A jsonpaths load into a CSV format is refused, naming the headers.
	r, err := streamLoad(t.Context(), s.HTTPAddr(), "jp", "t", "root", "", map[string]string{"jsonpaths": `["$.k"]`}, strings.NewReader("1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != "Fail" || !strings.Contains(r.Message, "apply to format json only") {
		t.Errorf("csv with jsonpaths: %+v", r)
	}
}

// TestE2EStreamLoadPartitions: a row no partition holds is filtered ("no
// partition for this tuple", counted against max_filter_ratio, in the
// ErrorURL), and the partitions header limits a load to the partitions it
// names.
func TestE2EStreamLoadPartitions(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE sp")
	mustExec(t, db, `CREATE TABLE sp.t (k INT, v INT) DUPLICATE KEY(k)
		PARTITION BY RANGE(k) (PARTITION p1 VALUES LESS THAN ("10"), PARTITION p2 VALUES LESS THAN ("20"))
		DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "1")`)
	load := func(h map[string]string) loadReply {
		t.Helper()
		h["column_separator"] = ","
		r, err := streamLoad(t.Context(), s.HTTPAddr(), "sp", "t", "root", "", h, strings.NewReader("5,1\n15,2\n25,3\n"))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := load(map[string]string{}); r.Status != "Fail" || r.NumberFilteredRows != 1 || !strings.Contains(r.Message, "too many filtered rows") {
		t.Fatalf("row outside every partition: %+v", r)
	}
	r := load(map[string]string{"max_filter_ratio": "0.5"})
	if r.Status != "Success" || r.NumberLoadedRows != 2 || r.NumberFilteredRows != 1 || r.ErrorURL == "" {
		t.Fatalf("with max_filter_ratio: %+v", r)
	}
	if code, log := fetchErrorLog(t, r.ErrorURL, "root", ""); code != 200 || !strings.Contains(log, "no partition for this tuple") || !strings.Contains(log, "25,3") {
		t.Fatalf("error log: %d %s", code, log)
	}
	r = load(map[string]string{"partitions": "p2", "max_filter_ratio": "1"})
	if r.Status != "Success" || r.NumberLoadedRows != 1 || r.NumberFilteredRows != 2 {
		t.Fatalf("partitions p2: %+v", r)
	}
	wantJoined(t, queryStrings(t, db, "SELECT k FROM sp.t ORDER BY k"), "5 15 15")
	if r := load(map[string]string{"partitions": "p1, p9"}); r.Status != "Fail" || !strings.Contains(r.Message, "partition p9 does not exist in table t") {
		t.Fatalf("unknown partition: %+v", r)
	}
}
