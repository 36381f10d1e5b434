package parser

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

func TestParseStatistics(t *testing.T) {
	cases := []struct {
		sql  string
		want Statement
	}{
		{"ANALYZE TABLE t", &Analyze{Table: "t"}},
		{"analyze table d.t (a, `b`) with sync", &Analyze{DB: "d", Table: "t", Columns: []string{"a", "b"}, Sync: true}},
		{"ANALYZE TABLE t WITH SAMPLE PERCENT 10 WITH SYNC", &Analyze{Table: "t", SamplePercent: 10, Sync: true}},
		{"ANALYZE TABLE t WITH SAMPLE ROWS 1000", &Analyze{Table: "t", SampleRows: 1000}},
		{"SHOW COLUMN STATS t", &ShowColumnStats{Table: "t"}},
		{"SHOW COLUMN STATS d.t (c)", &ShowColumnStats{DB: "d", Table: "t", Columns: []string{"c"}}},
		{"SHOW TABLE STATS t", &ShowTableStats{Table: "t"}},
		{"SHOW ANALYZE", &ShowAnalyze{}},
		{"SHOW ANALYZE d.t", &ShowAnalyze{DB: "d", Table: "t"}},
		{"SHOW ANALYZE 12345", &ShowAnalyze{JobID: 12345}},
		{"DROP STATS t", &DropStats{Table: "t"}},
		{"DROP STATS t (a, b)", &DropStats{Table: "t", Columns: []string{"a", "b"}}},
	}
	for _, c := range cases {
		got, err := ParseOne(c.sql)
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %#v, want %#v", c.sql, got, c.want)
		}
	}
	for _, bad := range []string{
		"ANALYZE TABLE t WITH SAMPLE PERCENT 0",
		"ANALYZE TABLE t WITH SAMPLE PERCENT 101",
		"ANALYZE TABLE t WITH SAMPLE ROWS 0",
		"ANALYZE TABLE t WITH SAMPLE",
		"ANALYZE TABLE t WITH FOO",
		"ANALYZE TABLE t (a",
		"SHOW COLUMN STATS",
		"DROP STATS t extra",
	} {
		if _, err := ParseOne(bad); err == nil {
			t.Errorf("%s: parsed", bad)
		}
	}
	// Doris forms not offered answer 1235, naming the statement.
	for _, q := range []string{"ANALYZE DATABASE d", "SHOW AUTO ANALYZE", "SHOW COLUMN CACHED STATS t", "KILL ANALYZE 12"} {
		_, err := ParseOne(q)
		if e := sqlerr.As(err); e == nil || e.Code != sqlerr.NotSupportedYet.Code || !strings.Contains(err.Error(), strings.Fields(q)[1]) {
			t.Errorf("%s: %v, want 1235 naming it", q, err)
		}
	}
}
