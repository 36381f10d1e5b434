package server_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestE2EDeepExpr: deeply nested expressions reach the backends and run
// (the plan's wire encoding has no depth limit): a CASE with 600 WHENs,
// 199 nested parentheses (the most the parser allows), and a chain of 2000 additions, in the select
// list and in the WHERE pushed to the scan.
func TestE2EDeepExpr(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, `CREATE DATABASE dx`)
	mustExec(t, db, `CREATE TABLE dx.t (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, `INSERT INTO dx.t VALUES (1, 10), (2, 20), (3, 30), (700, 7000)`)

	var cs strings.Builder
	cs.WriteString("CASE")
	for i := 1; i <= 600; i++ {
		fmt.Fprintf(&cs, " WHEN k = %d THEN %d", i, i*100)
	}
	cs.WriteString(" ELSE -1 END")
	got := queryStrings(t, db, "SELECT k, "+cs.String()+" FROM dx.t WHERE "+cs.String()+" <> 200 ORDER BY k")
	if want := "[[1 100] [3 300] [700 -1]]"; fmt.Sprint(got) != want {
		t.Fatalf("CASE with 600 WHENs: got %v, want %s", got, want)
	}

	paren := strings.Repeat("(", 199) + "v" + strings.Repeat(")", 199)
	got = queryStrings(t, db, "SELECT k, "+paren+" FROM dx.t WHERE "+paren+" > 15 ORDER BY k")
	if want := "[[2 20] [3 30] [700 7000]]"; fmt.Sprint(got) != want {
		t.Fatalf("199 parentheses: got %v, want %s", got, want)
	}

	sum := "v" + strings.Repeat(" + k", 2000)
	got = queryStrings(t, db, "SELECT k, "+sum+" FROM dx.t WHERE "+sum+" < 10000 ORDER BY k")
	if want := "[[1 2010] [2 4020] [3 6030]]"; fmt.Sprint(got) != want {
		t.Fatalf("2000 additions: got %v, want %s", got, want)
	}
}
