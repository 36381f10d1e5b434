package server_test

import (
	"fmt"
	"strings"
	"testing"
)

// Pipeline tasks (parallel_pipeline_task_num > 1) change only how an
// instance spreads its work over goroutines, never the rows: the join
// corpus under every hint, and aggregations, sorts, limits, set operations
// and windows, return what they return with one task. EXPLAIN ANALYZE
// shows that the tasks really ran.
func TestE2EPipelineTasksSameRows(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	corpus := loadJoinCorpus(t, db)
	more := []string{
		"SELECT k, count(*), sum(a), min(s), max(a) FROM j.f %s GROUP BY k",
		"SELECT s, count(DISTINCT k), avg(a) FROM j.f %s GROUP BY s",
		"SELECT count(*), sum(a) FROM j.f %s",
		"SELECT k, a FROM j.f %s ORDER BY a DESC, k LIMIT 17",
		"SELECT k, a FROM j.f %s ORDER BY a LIMIT 5 OFFSET 11",
		"SELECT k, a, s FROM j.f %s ORDER BY k, a",
		"SELECT count(*) FROM (SELECT k FROM j.f %s LIMIT 13) x",
		"SELECT k FROM j.f %s UNION SELECT k FROM j.c",
		"SELECT k FROM j.f %s INTERSECT SELECT k FROM j.c",
		"SELECT k FROM j.f %s EXCEPT SELECT k FROM j.d",
		"SELECT k, a, row_number() OVER (PARTITION BY k ORDER BY a) FROM j.f %s",
		"SELECT k, a, sum(a) OVER (ORDER BY a, k) FROM j.f %s",
		"SELECT f.k, count(*) FROM j.f %s WHERE f.k IN (SELECT k FROM j.c) GROUP BY f.k",
		"SELECT f.a FROM j.f %s WHERE f.k NOT IN (SELECT k FROM j.d WHERE k IS NOT NULL)",
		"SELECT d.name, count(*) FROM j.d JOIN j.f ON d.k = f.k %s GROUP BY d.name HAVING count(*) > 3",
	}
	hints := []string{"", "[shuffle]", "[broadcast]", "[bucket]"}
	var queries []string
	for _, q := range corpus {
		for _, h := range hints {
			queries = append(queries, fmt.Sprintf(q, h))
		}
	}
	for _, q := range more {
		queries = append(queries, fmt.Sprintf(q, ""))
	}
	withTasks := func(q string, n int) string {
		return fmt.Sprintf("SELECT /*+ SET_VAR(parallel_pipeline_task_num = %d) */ ", n) + strings.TrimPrefix(q, "SELECT ")
	}
	for _, q := range queries {
		ordered := strings.Contains(q, "ORDER BY a DESC, k LIMIT") || strings.Contains(q, "ORDER BY k, a") ||
			strings.Contains(q, "OFFSET")
		base := queryStrings(t, db, withTasks(q, 1))
		for _, n := range []int{2, 3} {
			got := queryStrings(t, db, withTasks(q, n))
			if !ordered {
				got, base = sortedRows(got), sortedRows(base)
			}
			if fmt.Sprint(got) != fmt.Sprint(base) {
				t.Errorf("%s with %d tasks: %d rows, with one task %d rows\n got %v\nwant %v", q, n, len(got), len(base),
					head(got), head(base))
			}
		}
	}

	// The tasks really run: the scan fragments report three per instance.
	for _, q := range []string{
		"SELECT k, count(*) FROM j.f GROUP BY k",
		"SELECT f.k, c.b FROM j.f JOIN j.c ON f.k = c.k",
		"SELECT f.k, d.name FROM j.f JOIN [broadcast] j.d ON f.k = d.k",
		"SELECT f.k, d.name FROM j.f JOIN [shuffle] j.d ON f.k = d.k",
	} {
		var b strings.Builder
		for _, r := range queryStrings(t, db, "EXPLAIN ANALYZE "+withTasks(q, 3)) {
			b.WriteString(strings.Join(r, " ") + "\n")
		}
		lines := b.String()
		if !strings.Contains(lines, "tasks=3") {
			t.Errorf("%s: no fragment ran 3 pipeline tasks:\n%s", q, lines)
		}
	}
}

func head(rows [][]string) [][]string {
	if len(rows) > 5 {
		return rows[:5]
	}
	return rows
}
