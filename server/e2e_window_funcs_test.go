package server_test

import "testing"

// TestE2EWindowRankDistribution: NTILE, PERCENT_RANK, CUME_DIST (peers
// share a value) and first_value/last_value with Doris's ignore_null
// argument, per partition, against values worked out by hand.
func TestE2EWindowRankDistribution(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE wf")
	mustExec(t, db, `CREATE TABLE wf.w (g INT, k INT, v INT) DUPLICATE KEY(g) DISTRIBUTED BY HASH(g) BUCKETS 2
		PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, "INSERT INTO wf.w VALUES (1,1,NULL),(1,2,10),(1,3,NULL),(1,4,30),(1,5,40),(2,1,5),(2,2,NULL)")
	for _, c := range []struct{ q, want string }{
		{"SELECT ntile(2) OVER (PARTITION BY g ORDER BY k) FROM wf.w ORDER BY g, k", "1 1 1 2 2 1 2"},
		{"SELECT ntile(3) OVER (PARTITION BY g ORDER BY k) FROM wf.w ORDER BY g, k", "1 1 2 2 3 1 2"},
		{"SELECT ntile(10) OVER (PARTITION BY g ORDER BY k) FROM wf.w ORDER BY g, k", "1 2 3 4 5 1 2"},
		{"SELECT percent_rank() OVER (PARTITION BY g ORDER BY k) FROM wf.w ORDER BY g, k", "0 0.25 0.5 0.75 1 0 1"},
		{"SELECT cume_dist() OVER (PARTITION BY g ORDER BY k) FROM wf.w ORDER BY g, k", "0.2 0.4 0.6 0.8 1 0.5 1"},
		// Peers (the two NULLs of g 1 sort first) share their value.
		{"SELECT cume_dist() OVER (PARTITION BY g ORDER BY v), percent_rank() OVER (PARTITION BY g ORDER BY v) FROM wf.w WHERE g = 1 ORDER BY v, k",
			"0.4,0 0.4,0 0.6,0.5 0.8,0.75 1,1"},
		{"SELECT first_value(v, true) OVER (PARTITION BY g ORDER BY k ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM wf.w ORDER BY g, k",
			"NULL 10 10 10 10 5 5"},
		{"SELECT first_value(v) OVER (PARTITION BY g ORDER BY k ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM wf.w ORDER BY g, k",
			"NULL NULL NULL NULL NULL 5 5"},
		{"SELECT last_value(v, true) OVER (PARTITION BY g ORDER BY k ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM wf.w ORDER BY g, k",
			"NULL 10 10 30 40 5 5"},
		{"SELECT last_value(v, true) OVER (PARTITION BY g ORDER BY k ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM wf.w ORDER BY g, k",
			"40 40 40 40 40 5 NULL"},
		{"SELECT last_value(v, false) OVER (PARTITION BY g ORDER BY k ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM wf.w ORDER BY g, k",
			"40 40 40 40 40 NULL NULL"},
	} {
		wantJoined(t, queryStrings(t, db, c.q), c.want)
	}
	for _, q := range []string{
		"SELECT ntile(0) OVER (ORDER BY k) FROM wf.w",
		"SELECT ntile(k) OVER (ORDER BY k) FROM wf.w",
		"SELECT first_value(v, k) OVER (ORDER BY k) FROM wf.w",
	} {
		_, err := db.Exec(q)
		wantCode(t, err, 1105, q)
	}
}
