package server_test

import (
	"context"
	"strings"
	"testing"
)

// TestE2EStreamLoadJSONShape: JSON of the wrong shape fails saying what
// shape was expected, never in encoding/json's Go type names, and leaves
// the label free.
func TestE2EStreamLoadJSONShape(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE js")
	mustExec(t, db, `CREATE TABLE js.t (id INT NOT NULL, name VARCHAR(20)) DUPLICATE KEY(id)
	  DISTRIBUTED BY HASH(id) BUCKETS 2 PROPERTIES ("replication_num" = "1")`)
	ctx := context.Background()
	for _, tc := range []struct {
		name, body string
		strip      bool
		want       []string
	}{
		{"array without strip_outer_array", `[{"id": 1, "name": "a"}]`, false, []string{"row 1", "expected an object", "got an array", "strip_outer_array"}},
		{"number in the outer array", `[{"id": 1}, 7]`, true, []string{"row 2", "expected an object", "got a number"}},
		{"string rows", `{"id": 1}` + "\n" + `"x"`, false, []string{"row 2", "expected an object", "got a string"}},
		{"cut off", `{"id": 1, "name": "a`, false, []string{"row 1", "ends inside a value"}},
	} {
		label := "js-" + strings.ReplaceAll(tc.name, " ", "-")
		h := map[string]string{"label": label, "format": "json"}
		if tc.strip {
			h["strip_outer_array"] = "true"
		}
		r, err := streamLoad(ctx, s.HTTPAddr(), "js", "t", "root", "", h, strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != "Fail" {
			t.Fatalf("%s: %+v", tc.name, r)
		}
		for _, w := range tc.want {
			if !strings.Contains(r.Message, w) {
				t.Errorf("%s: message %q lacks %q", tc.name, r.Message, w)
			}
		}
		for _, bad := range []string{"Go value", "map[string]", "interface {}", "json:"} {
			if strings.Contains(r.Message, bad) {
				t.Errorf("%s: message %q shows %q", tc.name, r.Message, bad)
			}
		}
		// The label is still free.
		ok, err := streamLoad(ctx, s.HTTPAddr(), "js", "t", "root", "", map[string]string{"label": label, "format": "json"},
			strings.NewReader(`{"id": 1, "name": "a"}`))
		if err != nil || ok.Status != "Success" || ok.NumberLoadedRows != 1 {
			t.Errorf("%s: retry under %s: %+v %v", tc.name, label, ok, err)
		}
	}
}
