package server_test

import (
	"fmt"
	"strings"
	"testing"
)

// GROUP BY ... WITH ROLLUP and Doris's ROLLUP/CUBE/GROUPING SETS through
// the real server over a table bucketed on several backends, against rows
// computed by hand. The data has NULL keys, so a data NULL and a rollup
// NULL are told apart by GROUPING().
func TestE2ERollup(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE r")
	mustExec(t, db, `CREATE TABLE r.t (k INT, a VARCHAR(4), b INT, c INT, v INT) DUPLICATE KEY(k)
		DISTRIBUTED BY HASH(k) BUCKETS 6 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, `INSERT INTO r.t VALUES
		(1, 'x', 1, 10, 5), (2, 'x', 1, 20, 7), (3, 'x', 2, 10, 1), (4, 'y', 1, 10, 2),
		(5, 'y', NULL, 10, 4), (6, NULL, 1, 20, 3), (7, NULL, NULL, 10, NULL), (8, 'y', 1, 20, 6)`)
	waitBackendsAlive(t, db, 3)

	// Unordered results are compared sorted; ORDER BY ones as returned.
	for _, tc := range []struct {
		q       string
		ordered bool
		want    []string
	}{
		{q: "SELECT a, SUM(v), COUNT(*), GROUPING(a) FROM r.t GROUP BY a WITH ROLLUP", want: []string{
			"x|13|3|0", "y|12|3|0", "NULL|3|2|0", "NULL|28|8|1"}},
		{q: "SELECT a, b, SUM(v), GROUPING(a), GROUPING(b), GROUPING(a, b) FROM r.t GROUP BY a, b WITH ROLLUP", want: []string{
			"x|1|12|0|0|0", "x|2|1|0|0|0", "y|1|8|0|0|0", "y|NULL|4|0|0|0", "NULL|1|3|0|0|0", "NULL|NULL|NULL|0|0|0",
			"x|NULL|13|0|1|1", "y|NULL|12|0|1|1", "NULL|NULL|3|0|1|1",
			"NULL|NULL|28|1|1|3"}},
		{q: "SELECT a, b, c, COUNT(*) FROM r.t GROUP BY a, b, c WITH ROLLUP", want: []string{
			"x|1|10|1", "x|1|20|1", "x|2|10|1", "y|1|10|1", "y|NULL|10|1", "NULL|1|20|1", "NULL|NULL|10|1", "y|1|20|1",
			"x|1|NULL|2", "x|2|NULL|1", "y|1|NULL|2", "y|NULL|NULL|1", "NULL|1|NULL|1", "NULL|NULL|NULL|1",
			"x|NULL|NULL|3", "y|NULL|NULL|3", "NULL|NULL|NULL|2",
			"NULL|NULL|NULL|8"}},
		// HAVING sees the rollup row (and its NULL key) like any group.
		{q: "SELECT a, SUM(v) AS s FROM r.t GROUP BY a WITH ROLLUP HAVING SUM(v) > 12 OR GROUPING(a) = 1", want: []string{
			"x|13", "NULL|28"}},
		{q: "SELECT a, SUM(v) FROM r.t GROUP BY a WITH ROLLUP HAVING a IS NULL AND GROUPING(a) = 0", want: []string{"NULL|3"}},
		{q: "SELECT a, b, SUM(v) FROM r.t GROUP BY a, b WITH ROLLUP ORDER BY GROUPING(a), GROUPING(b), a, b", ordered: true, want: []string{
			"NULL|NULL|NULL", "NULL|1|3", "x|1|12", "x|2|1", "y|NULL|4", "y|1|8",
			"NULL|NULL|3", "x|NULL|13", "y|NULL|12",
			"NULL|NULL|28"}},
		{q: "SELECT a, SUM(v) FROM r.t GROUP BY a WITH ROLLUP ORDER BY 2 DESC LIMIT 2", ordered: true, want: []string{"NULL|28", "x|13"}},
		{q: "SELECT a, COUNT(DISTINCT c), COUNT(DISTINCT b), COUNT(b) FROM r.t GROUP BY a WITH ROLLUP", want: []string{
			"x|2|2|3", "y|2|1|2", "NULL|2|1|1", "NULL|2|2|6"}},
		{q: "SELECT b + 1, COUNT(*) FROM r.t GROUP BY b + 1 WITH ROLLUP", want: []string{
			"2|5", "3|1", "NULL|2", "NULL|8"}},
		{q: "SELECT a, b, COUNT(*), GROUPING_ID(a, b) FROM r.t GROUP BY CUBE(a, b)", want: []string{
			"x|1|2|0", "x|2|1|0", "y|1|2|0", "y|NULL|1|0", "NULL|1|1|0", "NULL|NULL|1|0",
			"x|NULL|3|1", "y|NULL|3|1", "NULL|NULL|2|1",
			"NULL|1|5|2", "NULL|2|1|2", "NULL|NULL|2|2",
			"NULL|NULL|8|3"}},
		{q: "SELECT a, c, SUM(v) FROM r.t GROUP BY GROUPING SETS ((a), (c), ())", want: []string{
			"x|NULL|13", "y|NULL|12", "NULL|NULL|3",
			"NULL|10|12", "NULL|20|16",
			"NULL|NULL|28"}},
		{q: "SELECT a, SUM(v) FROM r.t GROUP BY ROLLUP(a)", want: []string{"x|13", "y|12", "NULL|3", "NULL|28"}},
		// A non-equi correlated subquery (an Apply) under the rollup.
		{q: "SELECT a, SUM(v) FROM r.t WHERE v >= (SELECT MAX(v) FROM r.t t2 WHERE t2.k < t.k) GROUP BY a WITH ROLLUP", want: []string{"x|7", "NULL|7"}},
		// A rollup inside a subquery, filtered outside.
		{q: "SELECT COUNT(*), SUM(s) FROM (SELECT a, SUM(v) s FROM r.t WHERE k > 1 GROUP BY a WITH ROLLUP) q WHERE a IS NULL", want: []string{"2|26"}},
	} {
		for _, p := range protocols {
			pdb := openDB(t, s.MySQLAddr(), "", p.interpolate)
			rows := queryStrings(t, pdb, tc.q)
			if !tc.ordered {
				rows = sortedRows(rows)
			}
			var got []string
			for _, r := range rows {
				got = append(got, strings.Join(r, "|"))
			}
			want := tc.want
			if !tc.ordered {
				var w [][]string
				for _, x := range want {
					w = append(w, strings.Split(x, "|"))
				}
				want = nil
				for _, r := range sortedRows(w) {
					want = append(want, strings.Join(r, "|"))
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s (%s):\n got %v\nwant %v", tc.q, p.name, got, want)
			}
		}
	}

	// The plan repeats rows under a two-phase aggregation.
	text := explainText(t, db, "SELECT a, SUM(v) FROM r.t GROUP BY a WITH ROLLUP")
	for _, want := range []string{"REPEAT_NODE", "repeat: repeat 1 lines [[0], []]", "AGGREGATE (merge finalize)", "numNodes=3"} {
		if !strings.Contains(text, want) {
			t.Errorf("EXPLAIN lacks %q:\n%s", want, text)
		}
	}

	for _, tc := range []struct {
		q    string
		code uint16
	}{
		{"SELECT a, GROUPING(a) FROM r.t GROUP BY a", 1111},
		{"SELECT a FROM r.t WHERE GROUPING(a) = 0 GROUP BY a WITH ROLLUP", 1111},
		{"SELECT a, GROUPING(b) FROM r.t GROUP BY a WITH ROLLUP", 3580},
		{"SELECT a, b FROM r.t GROUP BY a WITH ROLLUP", 1055},
		{"SELECT a FROM r.t GROUP BY a WITH ROLLUP WITH ROLLUP", 1064},
	} {
		_, err := queryStringsErr(db, tc.q)
		wantCode(t, err, tc.code, tc.q)
	}
}
