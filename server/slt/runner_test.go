package slt

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	src := `# comment
hash-threshold 8

statement ok
CREATE TABLE t1(a INTEGER,
  b INTEGER)

skipif sqlite # why
onlyif mysql
query IT rowsort label-7
SELECT a, b
FROM t1
----
1
x

query R nosort
SELECT 1
----
3 values hashing to 0123456789abcdef0123456789abcdef

statement error
DROP TABLE nope

halt
`
	recs, err := Parse("inline", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 6 {
		t.Fatalf("got %d records: %+v", len(recs), recs)
	}
	if r := recs[0]; r.Kind != KindHashThreshold || r.Threshold != 8 || r.Line != 2 {
		t.Errorf("hash-threshold: %+v", r)
	}
	if r := recs[1]; r.Kind != KindStatement || r.ExpectError || r.SQL != "CREATE TABLE t1(a INTEGER,\n  b INTEGER)" || r.Line != 4 {
		t.Errorf("statement: %+v", r)
	}
	q := recs[2]
	if q.Kind != KindQuery || q.Types != "IT" || q.Sort != RowSort || q.Label != "label-7" || q.Line != 10 ||
		q.SQL != "SELECT a, b\nFROM t1" || strings.Join(q.Expected, ",") != "1,x" || len(q.Conditions) != 2 {
		t.Errorf("query: %+v", q)
	}
	if !q.Skipped("sqlite") || q.Skipped("mysql") || !q.Skipped("postgresql") {
		t.Errorf("conditions: %+v", q.Conditions)
	}
	if r := recs[3]; !r.IsHash || r.HashCount != 3 || r.Hash != "0123456789abcdef0123456789abcdef" || r.Expected != nil {
		t.Errorf("hash query: %+v", r)
	}
	if r := recs[4]; r.Kind != KindStatement || !r.ExpectError {
		t.Errorf("statement error: %+v", r)
	}
	if r := recs[5]; r.Kind != KindHalt {
		t.Errorf("halt: %+v", r)
	}
	if _, err := Parse("bad", strings.NewReader("query X nosort\nSELECT 1\n")); err == nil {
		t.Error("bad column type accepted")
	}
}

func TestFormatValue(t *testing.T) {
	for _, c := range []struct {
		typ  byte
		in   string
		null bool
		want string
	}{
		{'I', "42", false, "42"},
		{'I', "-3.9", false, "-3"}, // truncated toward zero, like sqlite3_column_int64
		{'I', "3.000", false, "3"},
		{'I', "1e3", false, "1000"},
		{'I', "12abc", false, "12"},
		{'I', "abc", false, "0"},
		{'I', "", true, "NULL"},
		{'R', "3", false, "3.000"},
		{'R', "-0.5", false, "-0.500"},
		{'R', "2.0005", false, "2.001"},
		{'R', "x", false, "0.000"},
		{'T', "", false, "(empty)"},
		{'T', "a\tb\xff", false, "a@b@"},
		{'T', "NULL", true, "NULL"},
		{'T', "12.5", false, "12.5"},
	} {
		if got := FormatValue(c.typ, []byte(c.in), c.null); got != c.want {
			t.Errorf("FormatValue(%c, %q, %v) = %q, want %q", c.typ, c.in, c.null, got, c.want)
		}
	}
}

func TestSortAndHash(t *testing.T) {
	v := []string{"b", "2", "a", "10", "a", "1"}
	SortValues(v, 2, RowSort)
	if got := strings.Join(v, ","); got != "a,1,a,10,b,2" {
		t.Errorf("rowsort: %s", got)
	}
	SortValues(v, 2, ValueSort)
	if got := strings.Join(v, ","); got != "1,10,2,a,a,b" {
		t.Errorf("valuesort: %s", got)
	}
	// md5("1\n2\n"), as sqllogictest hashes values.
	if got := HashValues([]string{"1", "2"}); got != "6ddb4095eb719e2a9f0a3f95677d24e0" {
		t.Errorf("hash: %s", got)
	}
}

// runInline runs a script on a real server.
func runInline(t *testing.T, r *Runner, src string) *Result {
	t.Helper()
	res, err := r.RunScript(context.Background(), t.Name(), strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestRunScript(t *testing.T) {
	r := &Runner{DB: startServer(t)}
	src := `statement ok
CREATE TABLE t1(a INTEGER, b INTEGER, c VARCHAR(10))

statement ok
INSERT INTO t1 VALUES(1, 10, 'x'), (2, NULL, ''), (3, 30, 'z')

statement error
SELECT nope FROM t1

query IIT rowsort
SELECT a, b, c FROM t1
----
1
10
x
2
NULL
(empty)
3
30
z

query R rowsort
SELECT a FROM t1 WHERE a < 3
----
1.000
2.000

query I valuesort label-1
SELECT a FROM t1
----
3 values hashing to c0710d6b4f15dfa88f600b0e6b624077

query I valuesort label-1
SELECT a FROM t1 WHERE a > 0
----
1
2
3

skipif mysql
query I nosort
SELECT this is not sql
----
1

onlyif sqlite
statement ok
THIS IS NOT SQL

onlyif mysql
halt

query I nosort
SELECT 1 FROM nowhere
----
1
`
	res := runInline(t, r, src)
	if res.Failed != 0 || res.Passed != 7 || res.Skipped != 2 || !res.Halted {
		for _, f := range res.Failures {
			t.Log(f)
		}
		t.Fatalf("passed %d failed %d skipped %d halted %v", res.Passed, res.Failed, res.Skipped, res.Halted)
	}
}

func TestRunScriptFailures(t *testing.T) {
	r := &Runner{DB: startServer(t)}
	src := `statement ok
CREATE TABLE t(a INTEGER)

statement ok
INSERT INTO t VALUES(1), (2)

statement error
INSERT INTO t VALUES(3)

query I rowsort
SELECT a FROM t
----
1
2

query I rowsort
SELECT a FROM t
----
2 values hashing to 00000000000000000000000000000000

query II rowsort
SELECT a FROM t
----
1
2

query I rowsort
SELECT x FROM t
----
1

query I rowsort label-a
SELECT a FROM t WHERE a = 1
----
1

query I rowsort label-a
SELECT a FROM t WHERE a = 4
----
`
	res := runInline(t, r, src)
	got := map[int]string{}
	for _, f := range res.Failures {
		got[f.Line] = f.Reason
	}
	// Line 7: the INSERT succeeded; 10: 3 rows now, not 2; 16: wrong hash;
	// 21: one column, not two; 27: unknown column; 37: label mismatch
	// (the record's own expected output is empty, which does match).
	want := map[int]string{7: "statement succeeded, error expected", 10: "wrong result", 16: "wrong result",
		21: "wrong column count", 27: "1054:", 37: "label mismatch"}
	for line, reason := range want {
		if !strings.HasPrefix(got[line], reason) {
			t.Errorf("line %d: got reason %q, want prefix %q", line, got[line], reason)
		}
	}
	if res.Failed != len(want) || res.Passed != 3 {
		t.Errorf("passed %d failed %d: %v", res.Passed, res.Failed, got)
	}

	// The known-failures list: listed failures pass, unlisted fail, and a
	// listed record that passes is reported as fixed.
	known := KnownFailures{}
	known.Set("f.test", res)
	known["f.test:2"] = "was broken"
	unexpected, fixed := known.Check("f.test", res)
	if len(unexpected) != 0 || len(fixed) != 1 || fixed[0] != 2 {
		t.Errorf("check: unexpected %v fixed %v", unexpected, fixed)
	}
	// -update-known keeps a hand-written reason of a record that still
	// fails and drops the entry of one that passes.
	known["f.test:10"] = "needs ONLY_FULL_GROUP_BY off"
	known.Set("f.test", res)
	if _, ok := known["f.test:2"]; ok || known["f.test:10"] != "needs ONLY_FULL_GROUP_BY off" {
		t.Errorf("set kept or lost the wrong entries: %v", known)
	}
	known["f.test:10"] = "wrong result"
	known["f.test:2"] = "was broken"
	known["gone.test:3"] = "x"
	if o := known.Orphans([]string{"f.test"}); len(o) != 1 || o[0] != "gone.test:3" {
		t.Errorf("orphans %v", o)
	}
	delete(known, "gone.test:3")
	delete(known, "f.test:27")
	if unexpected, _ := known.Check("f.test", res); len(unexpected) != 1 || unexpected[0].Line != 27 {
		t.Errorf("unlisted failure not reported: %v", unexpected)
	}
	path := filepath.Join(t.TempDir(), "known.txt")
	if err := WriteKnown(path, known, []string{"f.test"}); err != nil {
		t.Fatal(err)
	}
	back, err := ReadKnown(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(known) || back["f.test:10"] != "wrong result" {
		t.Errorf("round trip: %v vs %v", back, known)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "f.test:2 was broken\n") {
		t.Errorf("file:\n%s", b)
	}
}

func TestGroupReason(t *testing.T) {
	for in, want := range map[string]string{
		"1235: This version of MySQL doesn't yet support 'ORDER BY'":         "1235: This version of MySQL doesn't yet support 'ORDER BY'",
		"1235: This version of MySQL doesn't yet support 'select a from t1'": "1235: This version of MySQL doesn't yet support ?",
		"1054: Unknown column 'col9' in 'field list'":                        "1054: Unknown column ? in 'field list'",
		"1105: value 12 out of range":                                        "1105: value N out of range",
	} {
		if got := groupReason(in); got != want {
			t.Errorf("groupReason(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBudget(t *testing.T) {
	r := &Runner{DB: startServer(t), Budget: time.Nanosecond}
	res := runInline(t, r, "statement ok\nCREATE TABLE t(a INTEGER)\n\nskipif mysql\nquery I nosort\nSELECT 1\n----\n1\n\nquery I nosort\nSELECT 1\n----\n1\n")
	if res.Passed+res.Failed != 0 || res.Skipped != 1 || len(res.NotRun) != 2 || res.NotRun[1] != 10 {
		t.Fatalf("passed %d failed %d skipped %d not run %v", res.Passed, res.Failed, res.Skipped, res.NotRun)
	}
	known := KnownFailures{"f.test:10": "wrong result"}
	if unexpected, fixed := known.Check("f.test", res); len(unexpected)+len(fixed) != 0 {
		t.Errorf("not-run records checked: %v %v", unexpected, fixed)
	}
	known.Set("f.test", res)
	if _, ok := known["f.test:1"]; known["f.test:10"] != "wrong result" || ok || len(known) != 1 {
		t.Errorf("set: %v", known)
	}
}
