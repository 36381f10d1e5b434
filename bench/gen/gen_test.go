package gen

import (
	"bytes"
	"crypto/sha256"
	"os"
	"strconv"
	"strings"
	"testing"
)

func generate(t *testing.T, suite string, workers int) map[string][]byte {
	t.Helper()
	tables, err := Suite(suite, 0.001)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files, err := Generate(Options{SF: 0.001, Seed: 42, Dir: dir, Workers: workers}, tables)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if n := int64(bytes.Count(b, []byte("\n"))); n != f.Rows {
			t.Fatalf("%s: %d lines, reported %d rows", f.Table, n, f.Rows)
		}
		out[f.Table] = b
	}
	return out
}

func TestDeterministicAcrossWorkers(t *testing.T) {
	for _, suite := range []string{"ssb", "tpch"} {
		a, b := generate(t, suite, 1), generate(t, suite, 4)
		for name := range a {
			if sha256.Sum256(a[name]) != sha256.Sum256(b[name]) {
				t.Errorf("%s.%s differs between 1 and 4 workers", suite, name)
			}
		}
	}
}

func rows(b []byte) [][]string {
	var out [][]string
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		out = append(out, strings.Split(l, "|"))
	}
	return out
}

func atoi(t *testing.T, s string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("not an integer: %q", s)
	}
	return v
}

func TestSSBDomains(t *testing.T) {
	d := generate(t, "ssb", 2)
	widths := map[string]int{"dates": 17, "customer": 8, "supplier": 7, "part": 9, "lineorder": 17}
	for name, w := range widths {
		for _, r := range rows(d[name]) {
			if len(r) != w {
				t.Fatalf("%s: %d fields, want %d: %v", name, len(r), w, r)
			}
		}
	}
	if n := len(rows(d["dates"])); n != 2557 {
		t.Errorf("dates: %d rows, want 2557 (1992..1998)", n)
	}
	if n := len(rows(d["customer"])); n != 30 {
		t.Errorf("customer: %d rows", n)
	}
	for _, r := range rows(d["lineorder"]) {
		if q := atoi(t, r[8]); q < 1 || q > 50 {
			t.Fatalf("lo_quantity %d", q)
		}
		if disc := atoi(t, r[11]); disc < 0 || disc > 10 {
			t.Fatalf("lo_discount %d", disc)
		}
		if od := atoi(t, r[5]); od < 19920101 || od > 19980802 {
			t.Fatalf("lo_orderdate %d", od)
		}
		if c := atoi(t, r[2]); c < 1 || c > 30 {
			t.Fatalf("lo_custkey %d", c)
		}
	}
	for _, r := range rows(d["part"]) {
		if !strings.HasPrefix(r[4], r[3]) || !strings.HasPrefix(r[3], r[2]) {
			t.Fatalf("brand/category/mfgr not nested: %v", r)
		}
	}
	for _, r := range rows(d["customer"]) {
		if len(r[3]) != 10 {
			t.Fatalf("city %q is not 9 characters plus a digit", r[3])
		}
	}
}

func TestTPCHDomains(t *testing.T) {
	d := generate(t, "tpch", 2)
	widths := map[string]int{"region": 3, "nation": 4, "supplier": 7, "part": 9, "partsupp": 5,
		"customer": 8, "orders": 9, "lineitem": 16}
	for name, w := range widths {
		for _, r := range rows(d[name]) {
			if len(r) != w {
				t.Fatalf("%s: %d fields, want %d: %v", name, len(r), w, r)
			}
		}
	}
	orders := rows(d["orders"])
	if len(orders) != 1500 {
		t.Fatalf("orders: %d rows", len(orders))
	}
	keys := map[string]bool{}
	for _, o := range orders {
		keys[o[0]] = true
		if atoi(t, o[1])%3 == 0 {
			t.Fatalf("o_custkey %s divisible by 3", o[1])
		}
	}
	for _, l := range rows(d["lineitem"]) {
		if !keys[l[0]] {
			t.Fatalf("lineitem of unknown order %s", l[0])
		}
		if l[10] > l[12] || l[11] < "1992" {
			t.Fatalf("dates out of order: %v", l)
		}
	}
	if n := len(rows(d["partsupp"])); n != 4*200 {
		t.Fatalf("partsupp: %d rows", n)
	}
}
