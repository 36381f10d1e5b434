package server_test

import (
	"fmt"
	"testing"
)

// ORDER BY … NULLS FIRST / NULLS LAST (Doris and standard SQL) overrides
// MySQL's default NULL placement, in plain ORDER BY (by expression, alias
// and ordinal), in window ORDER BY and after a set operation; Doris's CAST
// target types work too.
func TestE2EOrderNullsAndDorisCasts(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE ob")
	mustExec(t, db, `CREATE TABLE ob.t (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(v) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, "INSERT INTO ob.t VALUES (1, 1), (2, 2), (2, 3), (NULL, 4), (3, 5)")
	for _, tc := range []struct{ q, want string }{
		{"SELECT k FROM ob.t ORDER BY k", "[[NULL] [1] [2] [2] [3]]"},
		{"SELECT k FROM ob.t ORDER BY k NULLS LAST", "[[1] [2] [2] [3] [NULL]]"},
		{"SELECT k FROM ob.t ORDER BY k ASC NULLS LAST", "[[1] [2] [2] [3] [NULL]]"},
		{"SELECT k FROM ob.t ORDER BY k DESC NULLS FIRST", "[[NULL] [3] [2] [2] [1]]"},
		{"SELECT k AS kk FROM ob.t ORDER BY kk DESC NULLS LAST", "[[3] [2] [2] [1] [NULL]]"},
		{"SELECT k, v FROM ob.t ORDER BY 1 NULLS LAST, 2 DESC", "[[1 1] [2 3] [2 2] [3 5] [NULL 4]]"},
		{"SELECT k, row_number() OVER (ORDER BY k NULLS LAST, v) FROM ob.t ORDER BY 2", "[[1 1] [2 2] [2 3] [3 4] [NULL 5]]"},
		{"SELECT k FROM ob.t UNION SELECT v FROM ob.t ORDER BY 1 DESC NULLS FIRST", "[[NULL] [5] [4] [3] [2] [1]]"},
		{"SELECT CAST(v AS BIGINT) + 1, CAST(k AS VARCHAR(4)), CAST(v * 10 AS STRING), CAST('7' AS INT) FROM ob.t WHERE v = 2",
			"[[3 2 20 7]]"},
	} {
		if got := fmt.Sprint(queryStrings(t, db, tc.q)); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.q, got, tc.want)
		}
	}
}
