package server_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Runtime filters only drop probe rows the join would drop anyway: every
// join shape returns the same rows with runtime_filter_mode = OFF, LOCAL,
// the default GLOBAL, GLOBAL without waiting for the filters, and with three
// pipeline tasks (shared and per-task builds). EXPLAIN shows where filters
// go (joins of the drop-unmatched-probe types; shuffle joins and scans below
// an exchange or an aggregate over the key only with GLOBAL; never LEFT
// OUTER or with the mode off), and EXPLAIN ANALYZE shows the scan emitting
// fewer rows with them, global ones included.
func TestE2ERuntimeFilters(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	corpus := loadJoinCorpus(t, db)
	more := []string{
		"SELECT f.k, f.a, d.name FROM j.f JOIN %s j.d ON f.k = d.k WHERE d.name = 'n3'",
		"SELECT f.k, count(*) FROM j.f JOIN %s j.d ON f.k = d.k AND d.id < 5 GROUP BY f.k",
		"SELECT f.a FROM j.f WHERE f.k IN (SELECT k FROM j.d WHERE name = 'n1')",
		"SELECT f.a FROM j.f WHERE f.k NOT IN (SELECT k FROM j.d WHERE k IS NOT NULL AND name = 'n1')",
		"SELECT f.a FROM j.f WHERE NOT EXISTS (SELECT 1 FROM j.d WHERE d.k = f.k AND d.name = 'n2')",
		"SELECT f.k, c.b, d.name FROM j.f JOIN %s j.c ON f.k = c.k JOIN j.d ON f.k = d.k WHERE d.name = 'n4' AND c.b > 100",
		"SELECT x.k, x.n FROM (SELECT k, count(*) n FROM j.f GROUP BY k) x JOIN %s j.d ON x.k = d.k WHERE d.id < 10",
		"SELECT f.k, d.name FROM j.d RIGHT JOIN %s j.f ON f.k = d.k WHERE d.id < 7",
		"SELECT f.k, d.name FROM j.f JOIN %s j.d ON f.k = d.k WHERE d.id > 1000",
		"SELECT f.k, n.number FROM j.f JOIN %s numbers(\"number\" = \"20\") n ON f.k = n.number",
		"SELECT t.k, t.a FROM (SELECT k, a FROM j.f LIMIT 1000) t JOIN %s j.d ON t.k = d.k WHERE d.id < 9",
	}
	hints := []string{"", "[shuffle]", "[broadcast]", "[bucket]"}
	var queries []string
	for _, q := range append(corpus, more...) {
		for _, h := range hints {
			queries = append(queries, strings.ReplaceAll(q, "%s", h))
		}
	}
	with := func(q, vars string) string {
		return fmt.Sprintf("SELECT /*+ SET_VAR(%s) */ ", vars) + strings.TrimPrefix(q, "SELECT ")
	}
	for _, q := range queries {
		off := sortedRows(queryStrings(t, db, with(q, "runtime_filter_mode = 'OFF'")))
		for _, vars := range []string{"runtime_filter_mode = 'GLOBAL'", "runtime_filter_mode = 'LOCAL'",
			"runtime_filter_wait_time_ms = 0", "parallel_pipeline_task_num = 3"} {
			got := sortedRows(queryStrings(t, db, with(q, vars)))
			if fmt.Sprint(got) != fmt.Sprint(off) {
				t.Errorf("%s with %s: %d rows, without runtime filters %d rows\n got %v\nwant %v", q, vars, len(got), len(off),
					head(got), head(off))
			}
		}
	}

	explain := func(q string) string {
		var b strings.Builder
		for _, r := range queryStrings(t, db, q) {
			b.WriteString(strings.Join(r, " ") + "\n")
		}
		return b.String()
	}
	selective := "SELECT f.k, f.a, d.name FROM j.f JOIN %s j.d ON f.k = d.k WHERE d.name = 'n3'"
	for _, c := range []struct {
		q    string
		want bool
	}{
		{fmt.Sprintf(selective, "[broadcast]"), true},
		{fmt.Sprintf(selective, "[bucket]"), true},
		{"SELECT f.k, c.b FROM j.f JOIN j.c ON f.k = c.k", true}, // colocate
		{fmt.Sprintf(selective, "[shuffle]"), true},              // global
		{with(fmt.Sprintf(selective, "[shuffle]"), "runtime_filter_mode = 'LOCAL'"), false},
		{"SELECT f.k, d.name FROM j.f LEFT JOIN [broadcast] j.d ON f.k = d.k", false},
		{"SELECT f.k, c.b FROM j.f JOIN j.c ON f.k <=> c.k", false},
		{with(fmt.Sprintf(selective, "[broadcast]"), "runtime_filter_mode = 'OFF'"), false},
	} {
		plan := explain("EXPLAIN " + c.q)
		has := strings.Contains(plan, "runtime filters: RF000[min_max, bloom] <- ") &&
			strings.Contains(plan, "runtime filters: RF000[min_max, bloom] -> `f`.`k`")
		if has != c.want {
			t.Errorf("%s: runtime filter planned = %v, want %v:\n%s", c.q, has, c.want, plan)
		}
	}

	// The filter works in the scan: with it, the fact scan emits only the
	// rows whose key a 'n3' dimension row has.
	scanRows := func(q string) int {
		m := regexp.MustCompile(`0:OlapScanNode\s+instances=\d+\s+rows=(\d+)`).FindStringSubmatch(explain("EXPLAIN ANALYZE " + q))
		if m == nil {
			t.Fatalf("no scan rows in the profile of %s", q)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	q := fmt.Sprintf(selective, "[broadcast]")
	on, off := scanRows(q), scanRows(with(q, "runtime_filter_mode = 'OFF'"))
	if off != 401 || on >= off/3 {
		t.Errorf("fact scan rows: %d with runtime filters, %d without (want 401 without and far fewer with)", on, off)
	}
	// A global filter crosses the shuffle's exchange, and the one below
	// the aggregate's too (the key is its group key).
	for _, q := range []string{fmt.Sprintf(selective, "[shuffle]"),
		"SELECT x.k, x.n FROM (SELECT k, count(*) n FROM j.f GROUP BY k) x JOIN [shuffle] j.d ON x.k = d.k WHERE d.name = 'n3'"} {
		global, local := scanRows(q), scanRows(with(q, "runtime_filter_mode = 'LOCAL'"))
		if local != 401 || global >= local/3 {
			t.Errorf("%s: fact scan rows %d with a global filter, %d with local ones only (want 401 and far fewer)", q, global, local)
		}
	}
}
