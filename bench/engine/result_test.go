package engine

import (
	"math/big"
	"testing"
	"time"
)

func TestNormalize(t *testing.T) {
	cases := []struct {
		in   any
		want string
	}{
		{nil, "NULL"},
		{[]byte("12.345"), "12.35"},
		{[]byte("ASIA   "), "ASIA"},
		{[]byte("1995-01-01"), "1995-01-01"},
		{[]byte("1995-01-01 00:00:00"), "1995-01-01"},
		{int64(7), "7.00"},
		{float64(-0.001), "0.00"},
		{big.NewInt(123), "123.00"},
		{time.Date(1996, 2, 3, 0, 0, 0, 0, time.UTC), "1996-02-03"},
		{"MFGR#12", "MFGR#12"},
	}
	for _, c := range cases {
		if got := Normalize(c.in); got != c.want {
			t.Errorf("Normalize(%#v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestCompare(t *testing.T) {
	want := Result{Rows: [][]string{{"a", "1.00"}, {"b", "2.00"}}}
	if d := Compare(Result{Rows: [][]string{{"b", "2.01"}, {"a", "1.00"}}}, want, false); d != "" {
		t.Errorf("unordered, within tolerance: %s", d)
	}
	if d := Compare(Result{Rows: [][]string{{"b", "2.00"}, {"a", "1.00"}}}, want, true); d == "" {
		t.Error("ordered compare accepted swapped rows")
	}
	if d := Compare(Result{Rows: [][]string{{"a", "1.00"}, {"b", "2.50"}}}, want, false); d == "" {
		t.Error("accepted a wrong value")
	}
	if d := Compare(Result{Rows: [][]string{{"a", "1.00"}}}, want, false); d == "" {
		t.Error("accepted a missing row")
	}
}

func TestHasOrderBy(t *testing.T) {
	if !HasOrderBy("SELECT a FROM t ORDER BY a") {
		t.Error("top-level ORDER BY missed")
	}
	if HasOrderBy("SELECT * FROM (SELECT a FROM t ORDER BY a LIMIT 3) x") {
		t.Error("ORDER BY inside a subquery taken as top-level")
	}
}
