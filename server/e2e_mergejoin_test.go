package server_test

import (
	"fmt"
	"strings"
	"testing"
)

// A Spark MERGE hint runs the join as a sort-merge join on the shuffled
// distribution: it must return exactly the rows the hash join returns, for
// every join type, with NULL keys, duplicate keys on both sides, a
// null-safe key and residual conditions; EXPLAIN shows the algorithm.
func TestE2EMergeJoinSameRows(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE m")
	mustExec(t, db, `CREATE TABLE m.t1 (k BIGINT, s VARCHAR(8), v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 4 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, `CREATE TABLE m.t2 (k BIGINT, s VARCHAR(8), w INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(w) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	var t1, t2 []string
	for i := 0; i < 300; i++ {
		t1 = append(t1, fmt.Sprintf("(%d, 's%d', %d)", i%37, i%3, i))
		if i%2 == 0 {
			t2 = append(t2, fmt.Sprintf("(%d, 's%d', %d)", (i*7)%53, i%4, i))
		}
	}
	// NULL keys on both sides, and one key with many rows on each side.
	for i := 0; i < 5; i++ {
		t1 = append(t1, fmt.Sprintf("(NULL, 's%d', %d)", i, 1000+i))
		t2 = append(t2, fmt.Sprintf("(NULL, 's%d', %d)", i, 1000+i))
	}
	for i := 0; i < 40; i++ {
		t1 = append(t1, fmt.Sprintf("(5, 'z', %d)", 2000+i))
		t2 = append(t2, fmt.Sprintf("(5, 'z', %d)", 2000+i))
	}
	mustExec(t, db, "INSERT INTO m.t1 VALUES "+strings.Join(t1, ","))
	mustExec(t, db, "INSERT INTO m.t2 VALUES "+strings.Join(t2, ","))
	waitBackendsAlive(t, db, 3)

	// %s is where the hint goes; each hinted query must plan a sort merge
	// join unless listed in notMerge.
	queries := []string{
		"SELECT %s t1.k, t1.v, t2.w FROM m.t1 JOIN m.t2 ON t1.k = t2.k",
		"SELECT %s t1.k, t1.v, t2.w FROM m.t1 LEFT JOIN m.t2 ON t1.k = t2.k",
		"SELECT %s t1.k, t1.v, t2.w FROM m.t1 RIGHT JOIN m.t2 ON t1.k = t2.k",
		"SELECT %s t1.k, t1.v, t2.w FROM m.t1 FULL OUTER JOIN m.t2 ON t1.k = t2.k",
		"SELECT %s t1.k, t1.v, t2.w FROM m.t1 FULL OUTER JOIN m.t2 ON t1.k = t2.k AND t1.v < t2.w",
		"SELECT %s t1.k, t1.v, t2.w FROM m.t1 JOIN m.t2 ON t1.k <=> t2.k",
		"SELECT %s t1.k, t1.v, t2.w FROM m.t1 LEFT JOIN m.t2 ON t1.k <=> t2.k AND t1.s = t2.s",
		"SELECT %s t1.k, t1.s, t2.w FROM m.t1 JOIN m.t2 ON t1.k = t2.k AND t1.s = t2.s AND t1.v > t2.w",
		"SELECT %s t1.k, t1.v FROM m.t1 WHERE t1.k IN (SELECT k FROM m.t2)",
		"SELECT %s t1.k, t1.v FROM m.t1 WHERE EXISTS (SELECT 1 FROM m.t2 WHERE t2.k = t1.k AND t2.w > t1.v)",
		"SELECT %s t1.k, t1.v FROM m.t1 WHERE NOT EXISTS (SELECT 1 FROM m.t2 WHERE t2.k = t1.k)",
		"SELECT %s t1.k, t1.v FROM m.t1 WHERE NOT EXISTS (SELECT 1 FROM m.t2 WHERE t2.k = t1.k AND t2.w < t1.v)",
		"SELECT %s t1.s, count(*), sum(t2.w) FROM m.t1 JOIN m.t2 ON t1.k = t2.k GROUP BY t1.s",
		"SELECT %s t1.k, t1.v FROM m.t1 WHERE t1.k NOT IN (SELECT k FROM m.t2)",
	}
	notMerge := map[int]bool{len(queries) - 1: true} // NOT IN: null aware, stays a broadcast hash join
	for i, q := range queries {
		base := sortedRows(queryStrings(t, db, fmt.Sprintf(q, "")))
		if len(base) == 0 && !notMerge[i] {
			t.Fatalf("%s: no rows; the test must exercise the join", q)
		}
		hinted := fmt.Sprintf(q, "/*+ MERGE(t2) */")
		got := sortedRows(queryStrings(t, db, hinted))
		if fmt.Sprint(got) != fmt.Sprint(base) {
			t.Errorf("%s: %d rows, without hint %d rows\n got %v\nwant %v", hinted, len(got), len(base), got, base)
		}
		// Several pipeline tasks per backend: each merges its local share.
		tasks := fmt.Sprintf(q, "/*+ SET_VAR(parallel_pipeline_task_num = 3) MERGE(t2) */")
		if got := sortedRows(queryStrings(t, db, tasks)); fmt.Sprint(got) != fmt.Sprint(base) {
			t.Errorf("%s: %d rows, without hint %d rows", tasks, len(got), len(base))
		}
		text := explainText(t, db, tasks)
		if merge := strings.Contains(text, "join algorithm: SORT MERGE"); merge == notMerge[i] {
			t.Errorf("%s: sort merge in plan = %v\n%s", tasks, merge, text)
		}
		if notMerge[i] && !strings.Contains(text, "hint: MERGE(t2) ignored, reason: join type does not support shuffle") {
			t.Errorf("%s: no ignored-hint line\n%s", tasks, text)
		}
	}
}
