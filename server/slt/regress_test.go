package slt

import "testing"

// TestRegressions runs, in sqllogictest form, the causes of corpus failures
// fixed in the engine, with cases the corpus records (which mostly return
// nothing) do not pin down.
func TestRegressions(t *testing.T) {
	r := &Runner{DB: startServer(t)}
	res := runInline(t, r, `statement ok
CREATE TABLE t(a INTEGER, b INTEGER)

statement ok
INSERT INTO t VALUES(1, 10), (1, 20), (2, 30), (3, NULL)

# HAVING: an unqualified name is a select alias before a FROM column
# (random/groupby/slt_good_1.test:36597).
query I rowsort
SELECT DISTINCT t.a AS b FROM t GROUP BY t.a HAVING NULL NOT IN ( b )
----

query II rowsort
SELECT a AS b, COUNT(*) FROM t GROUP BY a HAVING b > 1
----
2
1
3
1

# ... but inside an aggregate it is the column,
query I rowsort
SELECT a AS b FROM t GROUP BY a HAVING SUM(b) > 25
----
1
2

# and a GROUP BY column of that name comes first.
query II rowsort
SELECT a AS b, b AS a FROM t GROUP BY a, b HAVING a > 1
----
2
30
3
NULL

# An ungrouped column that no alias names is still 1055.
statement error
SELECT a AS c FROM t GROUP BY a HAVING b > 1
`)
	for _, f := range res.Failures {
		t.Error(f)
	}
	if res.Passed != 7 {
		t.Errorf("passed %d records, want 7", res.Passed)
	}
}
