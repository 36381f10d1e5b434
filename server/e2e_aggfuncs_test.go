package server_test

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The Doris 2.x aggregate library end to end: a 6-bucket table over the 3
// embedded backends, so every splittable aggregate runs update-serialize
// on the backends and merge-finalize above the exchange. Expected values
// are computed here from the inserted rows.

type afRow struct {
	k, g int
	x    *int     // NULL every 7th row; group 4 all NULL
	y    *float64 // NULL every 11th row
	s    string
}

func afRows() []afRow {
	var rows []afRow
	for i := 0; i < 240; i++ {
		r := afRow{k: i, g: i % 5, s: fmt.Sprintf("s%d", i%6)}
		if i%7 != 0 && r.g != 4 {
			x := (i*37)%101 - 20
			r.x = &x
		}
		if i%11 != 0 {
			y := float64(i%13)/4 + float64(i%3)
			r.y = &y
		}
		rows = append(rows, r)
	}
	return rows
}

func sqlVal[T any](p *T) string {
	if p == nil {
		return "NULL"
	}
	return fmt.Sprint(*p)
}

// afExpect computes, over rows, the values the test query selects.
func afExpect(rows []afRow) []string {
	var xs []float64
	var ixs []int64
	var px, py []float64
	distinct := map[int64]bool{}
	and, or, xor := int64(-1), int64(0), int64(0)
	maxK, minK := -1, -1
	var maxS, minS string
	for _, r := range rows {
		if r.x != nil {
			v := int64(*r.x)
			xs = append(xs, float64(v))
			ixs = append(ixs, v)
			distinct[v] = true
			and, or, xor = and&v, or|v, xor^v
			if r.y != nil {
				px, py = append(px, float64(v)), append(py, *r.y)
			}
		}
		if maxK < 0 || r.k > maxK {
			maxK, maxS = r.k, r.s
		}
		if minK < 0 || r.k < minK {
			minK, minS = r.k, r.s
		}
	}
	if maxK < 0 {
		maxS, minS = "NULL", "NULL"
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	n := float64(len(xs))
	out := make([]string, 0, 24)
	if n == 0 {
		// stddev..corr, percentile, median NULL, ndv 0, bit ops NULL,
		// max_by, min_by, bitmap/hll counts 0, percentile_approx NULL, count 0.
		for i := 0; i < 11; i++ {
			out = append(out, "NULL")
		}
		out = append(out, "0", "0", "NULL", "NULL", "NULL", maxS, minS, "0", "0", "0", "NULL", "0")
		return out
	}
	var mean, m2 float64
	for _, v := range xs {
		mean += v
	}
	mean /= n
	for _, v := range xs {
		m2 += (v - mean) * (v - mean)
	}
	samp := func(v float64) string {
		if n < 2 {
			return "NULL"
		}
		return f(v)
	}
	out = append(out, f(math.Sqrt(m2/n)), samp(math.Sqrt(m2/(n-1))), f(m2/n), samp(m2/(n-1)),
		f(math.Sqrt(m2/n)), samp(m2/(n-1)))
	pn := float64(len(px))
	var mx, my, c, sx, sy float64
	for i := range px {
		mx, my = mx+px[i], my+py[i]
	}
	mx, my = mx/pn, my/pn
	for i := range px {
		c += (px[i] - mx) * (py[i] - my)
		sx += (px[i] - mx) * (px[i] - mx)
		sy += (py[i] - my) * (py[i] - my)
	}
	out = append(out, f(c/pn), f(c/(pn-1)), f(c/math.Sqrt(sx*sy)))
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	pct := func(p float64) float64 {
		pos := p * (n - 1)
		lo := int(pos)
		if lo+1 >= len(sorted) {
			return sorted[lo]
		}
		return sorted[lo] + (pos-float64(lo))*(sorted[lo+1]-sorted[lo])
	}
	nonNeg := 0
	for v := range distinct {
		if v >= 0 {
			nonNeg++
		}
	}
	out = append(out, f(pct(0.25)), f(pct(0.5)), "", strconv.Itoa(len(distinct)), strconv.Itoa(len(distinct)),
		strconv.FormatInt(and, 10), strconv.FormatInt(or, 10), strconv.FormatInt(xor, 10), maxS, minS,
		strconv.Itoa(nonNeg), strconv.Itoa(nonNeg), strconv.Itoa(len(distinct)), f(pct(0.5)), strconv.Itoa(len(xs)))
	return slices.Delete(out, 11, 12)
}

const afSelect = `stddev(x), stddev_samp(x), variance(x), var_samp(x), std(x), variance_samp(x),
	covar(x, y), covar_samp(x, y), corr(x, y), percentile(x, 0.25), median(x),
	ndv(x), approx_count_distinct(x), group_bit_and(x), group_bit_or(x), group_bit_xor(x),
	max_by(s, k), min_by(s, k), bitmap_union_count(to_bitmap(x)), bitmap_count(bitmap_union(to_bitmap(x))),
	hll_union_agg(hll_hash(x)), percentile_approx(x, 0.5), count(x)`

// afClose: exact for texts and integers, 1e-9 relative for floats;
// percentile_approx (column pa) within 1 of the exact median.
func afClose(got, want string, approx bool) bool {
	if got == want {
		return true
	}
	g, e1 := strconv.ParseFloat(got, 64)
	w, e2 := strconv.ParseFloat(want, 64)
	if e1 != nil || e2 != nil {
		return false
	}
	if approx {
		return math.Abs(g-w) <= 1
	}
	return math.Abs(g-w) <= 1e-9*math.Max(1, math.Abs(w))
}

func afCheck(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d\ngot  %v\nwant %v", what, len(got), len(want), got, want)
	}
	for i := range want {
		if !afClose(got[i], want[i], i == 20) {
			t.Errorf("%s: value %d = %s, want %s\ngot  %v\nwant %v", what, i, got[i], want[i], got, want)
		}
	}
}

func TestAggregateLibrary(t *testing.T) {
	srv := newServer(t)
	db := openDB(t, srv.MySQLAddr(), "", true)
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE af")
	mustExec(t, db, "USE af")
	mustExec(t, db, `CREATE TABLE t (k INT, g INT, x INT, y DOUBLE, s VARCHAR(20)) DUPLICATE KEY(k)
		DISTRIBUTED BY HASH(k) BUCKETS 6 PROPERTIES ("replication_num" = "1")`)
	rows := afRows()
	var vals []string
	for _, r := range rows {
		vals = append(vals, fmt.Sprintf("(%d, %d, %s, %s, '%s')", r.k, r.g, sqlVal(r.x), sqlVal(r.y), r.s))
	}
	mustExec(t, db, "INSERT INTO t VALUES "+strings.Join(vals, ", "))

	plan := strings.Join(flat(queryStrings(t, db, "EXPLAIN SELECT g, stddev(x), ndv(x), percentile(x, 0.5) FROM t GROUP BY g")), "\n")
	if !strings.Contains(plan, "update serialize") || !strings.Contains(plan, "merge finalize") {
		t.Fatalf("not two-phase:\n%s", plan)
	}

	t.Run("group by", func(t *testing.T) {
		got := queryStrings(t, db, "SELECT g, "+afSelect+" FROM t GROUP BY g ORDER BY g")
		if len(got) != 5 {
			t.Fatalf("%d groups", len(got))
		}
		for _, row := range got {
			g, _ := strconv.Atoi(row[0])
			var part []afRow
			for _, r := range rows {
				if r.g == g {
					part = append(part, r)
				}
			}
			afCheck(t, "group "+row[0], row[1:], afExpect(part))
		}
	})
	t.Run("whole table", func(t *testing.T) {
		got := queryStrings(t, db, "SELECT "+afSelect+" FROM t")
		afCheck(t, "all", got[0], afExpect(rows))
	})
	t.Run("empty input", func(t *testing.T) {
		got := queryStrings(t, db, "SELECT "+afSelect+" FROM t WHERE k < 0")
		afCheck(t, "empty", got[0], afExpect(nil))
		if g := queryStrings(t, db, "SELECT g, stddev(x) FROM t WHERE k < 0 GROUP BY g"); len(g) != 0 {
			t.Fatalf("empty GROUP BY gave %v", g)
		}
	})
	t.Run("one row", func(t *testing.T) {
		got := queryStrings(t, db, "SELECT stddev(x), stddev_samp(x), var_pop(x), var_samp(x), covar_samp(x, y), percentile(x, 0.9) FROM t WHERE k = 1")
		want := []string{"0", "NULL", "0", "NULL", "NULL", strconv.Itoa(*rows[1].x)}
		if strings.Join(got[0], ",") != strings.Join(want, ",") {
			t.Fatalf("one row: %v, want %v", got[0], want)
		}
	})
	t.Run("all NULL group", func(t *testing.T) {
		got := queryStrings(t, db, "SELECT "+afSelect+" FROM t WHERE g = 4")
		var part []afRow
		for _, r := range rows {
			if r.g == 4 {
				part = append(part, r)
			}
		}
		afCheck(t, "g=4", got[0], afExpect(part))
	})
	t.Run("topn collect", func(t *testing.T) {
		got := queryStrings(t, db, "SELECT topn(s, 2), collect_set(g), collect_list(s), any(g) FROM t WHERE k IN (0, 6, 12, 1)")
		// s: k 0, 6, 12 → s0; k 1 → s1. g: 0, 1, 2, 1.
		if got[0][0] != `{"s0":3,"s1":1}` {
			t.Errorf("topn = %s", got[0][0])
		}
		set := strings.Split(strings.Trim(got[0][1], "[]"), ", ")
		slices.Sort(set)
		if strings.Join(set, ",") != "0,1,2" {
			t.Errorf("collect_set = %s", got[0][1])
		}
		list := strings.Split(strings.Trim(got[0][2], "[]"), ", ")
		slices.Sort(list)
		if strings.Join(list, ",") != `"s0","s0","s0","s1"` {
			t.Errorf("collect_list = %s", got[0][2])
		}
		if g := got[0][3]; g != "0" && g != "1" && g != "2" {
			t.Errorf("any = %s", g)
		}
		empty := queryStrings(t, db, "SELECT topn(s, 2), collect_list(s) FROM t WHERE k < 0")
		if empty[0][0] != "NULL" || empty[0][1] != "[]" {
			t.Errorf("empty topn, collect_list = %v", empty[0])
		}
	})
	t.Run("having rollup", func(t *testing.T) {
		byG := map[int][]afRow{}
		for _, r := range rows {
			byG[r.g] = append(byG[r.g], r)
		}
		var want []string
		for g := 0; g < 5; g++ {
			if e := afExpect(byG[g]); atoi(e[11]) > 30 {
				want = append(want, fmt.Sprintf("%d %s", g, e[11]))
			}
		}
		got := flat(queryStrings(t, db, "SELECT g, ndv(x) FROM t GROUP BY g HAVING ndv(x) > 30 ORDER BY g"))
		if len(want) == 0 || len(want) == 5 {
			t.Fatalf("HAVING keeps %d of 5 groups: pick another bound", len(want))
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("HAVING ndv: %v, want %v", got, want)
		}
		roll := queryStrings(t, db, "SELECT g, bitmap_union_count(to_bitmap(x)), median(x) FROM t WHERE g < 2 GROUP BY ROLLUP(g) ORDER BY g")
		if len(roll) != 3 || roll[0][0] != "NULL" {
			t.Fatalf("ROLLUP: %v", roll)
		}
		var both []afRow
		for _, r := range rows {
			if r.g < 2 {
				both = append(both, r)
			}
		}
		for i, part := range [][]afRow{both, byG[0], byG[1]} {
			e := afExpect(part)
			afCheck(t, "rollup "+roll[i][0], roll[i][1:], []string{e[18], e[10]})
		}
	})
	t.Run("errors", func(t *testing.T) {
		_, err := queryStringsErr(db, "SELECT percentile(x, k) FROM t")
		wantCode(t, err, 1105, "non-constant p")
		_, err = queryStringsErr(db, "SELECT corr(x) FROM t")
		wantCode(t, err, 1582, "corr of one argument")
		_, err = queryStringsErr(db, "SELECT percentile(x, 1.5) FROM t")
		wantCode(t, err, 1105, "percentile level 1.5")
		_, err = queryStringsErr(db, "SELECT bitmap_count(x) FROM t")
		wantCode(t, err, 1210, "bitmap_count of an INT")
	})
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func flat(rows [][]string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, strings.Join(r, " "))
	}
	return out
}

func TestBitmapHLLColumns(t *testing.T) {
	srv := newServer(t)
	db := openDB(t, srv.MySQLAddr(), "", true)
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE bh")
	mustExec(t, db, "USE bh")
	mustExec(t, db, `CREATE TABLE uv (dt INT, page VARCHAR(10), users BITMAP BITMAP_UNION, h HLL HLL_UNION)
		AGGREGATE KEY(dt, page) DISTRIBUTED BY HASH(dt) BUCKETS 4 PROPERTIES ("replication_num" = "1")`)
	for _, q := range []string{"SELECT users, count(*) FROM uv GROUP BY users", "SELECT dt FROM uv ORDER BY h", "SELECT dt FROM uv WHERE users = h"} {
		_, err := queryStringsErr(db, q)
		wantCode(t, err, 1105, q)
	}
	// Doris's rules for the column types: never a key, only their union.
	for stmt, msg := range map[string]string{
		`CREATE TABLE bk (b BITMAP, k INT) DUPLICATE KEY(b) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("replication_num" = "1")`:           "Key column can not set bitmap or hll type:b",
		`CREATE TABLE bs (k INT, b BITMAP SUM) AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("replication_num" = "1")`:       "Aggregate type SUM is not compatible with primitive type BITMAP",
		`CREATE TABLE bi (k INT, b INT BITMAP_UNION) AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("replication_num" = "1")`: "Aggregate type BITMAP_UNION is not compatible with primitive type INT",
		`CREATE TABLE hh (k INT, h HLL MAX) AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("replication_num" = "1")`:          "Aggregate type MAX is not compatible with primitive type HLL",
	} {
		_, err := db.Exec(stmt)
		wantCode(t, err, 1105, stmt)
		if !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %q", stmt, err, msg)
		}
	}
	mustExec(t, db, `INSERT INTO uv VALUES (1, 'a', to_bitmap(1), hll_hash(1)), (1, 'a', to_bitmap(2), hll_hash(2)),
		(2, 'a', to_bitmap(4), hll_hash(4))`)
	mustExec(t, db, `INSERT INTO uv VALUES (1, 'a', to_bitmap(2), hll_hash(2)), (1, 'b', bitmap_from_string('3,5'), hll_hash(3)),
		(2, 'a', to_bitmap(5), hll_hash(5)), (3, 'c', NULL, NULL)`)

	check := func(q string, want ...string) {
		t.Helper()
		got := flat(queryStrings(t, db, q))
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\ngot  %q\nwant %q", q, got, want)
		}
	}
	check("SELECT dt, page, bitmap_count(users), bitmap_to_string(users), hll_cardinality(h) FROM uv ORDER BY dt, page",
		"1 a 2 1,2 2", "1 b 2 3,5 1", "2 a 2 4,5 2", "3 c 0 NULL 0")
	check("SELECT bitmap_union_count(users), hll_union_agg(h), bitmap_to_string(bitmap_union(users)) FROM uv",
		"5 5 1,2,3,4,5")
	check("SELECT dt, bitmap_union_count(users), hll_union_agg(h) FROM uv GROUP BY dt ORDER BY dt",
		"1 4 3", "2 2 2", "3 0 0")
	check("SELECT bitmap_to_string(bitmap_intersect(users)), bitmap_to_string(group_bitmap_xor(users)) FROM uv WHERE dt = 1",
		" 1,2,3,5")
	check("SELECT hll_cardinality(hll_union(h)), hll_cardinality(hll_raw_agg(h)) FROM uv", "5 5")
	// A BITMAP or HLL value itself answers NULL, as Doris without
	// return_object_data_as_binary.
	check("SELECT users, h FROM uv WHERE dt = 2", "NULL NULL")
	check("SELECT bitmap_count(users) FROM uv WHERE dt = 2 AND page = 'a'", "2")
	bin := openDB(t, srv.MySQLAddr(), "bh", false) // binary protocol rows
	if got := flat(queryStrings(t, bin, "SELECT users, h, bitmap_count(users) FROM uv WHERE dt = ?", 2)); len(got) != 1 || got[0] != "NULL NULL 2" {
		t.Errorf("binary protocol: %q", got)
	}

	// Loaded again from a query: INSERT … SELECT folds into the same keys.
	mustExec(t, db, "INSERT INTO uv SELECT dt, page, bitmap_union(to_bitmap(dt * 100)), hll_union(hll_hash(dt)) FROM uv GROUP BY dt, page")
	check("SELECT dt, page, bitmap_to_string(users) FROM uv ORDER BY dt, page",
		"1 a 1,2,100", "1 b 3,5,100", "2 a 4,5,200", "3 c 300")

	// Stream load builds the structures from the file's columns, as Doris
	// loads them (columns: dt, page, u, users = to_bitmap(u), h = hll_hash(u)).
	mustStreamLoad(t, srv.HTTPAddr(), "bh", "uv", map[string]string{"column_separator": ",",
		"columns": "dt, page, u, users = to_bitmap(u), h = hll_hash(u)"}, []byte("4,d,7\n4,d,8\n4,d,7\n"))
	check("SELECT bitmap_to_string(users), hll_cardinality(h) FROM uv WHERE dt = 4", "7,8 2")

	// A BITMAP column takes BITMAP values only.
	if _, err := db.Exec("INSERT INTO uv VALUES (9, 'x', 'abc', NULL)"); err == nil {
		t.Errorf("a string loaded into a BITMAP column")
	} else {
		t.Logf("string into BITMAP: %v", err)
	}
	if _, err := db.Exec("INSERT INTO uv VALUES (9, 'x', NULL, 5)"); err == nil {
		t.Errorf("an integer loaded into an HLL column")
	}
	check("DESC uv", "dt INT YES true NULL ", "page VARCHAR(10) YES true NULL ",
		"users BITMAP YES false NULL BITMAP_UNION", "h HLL YES false NULL HLL_UNION")

	// Scalar bitmap functions.
	check(`SELECT bitmap_to_string(bitmap_or(to_bitmap(1), bitmap_from_string('2,3'))),
		bitmap_to_string(bitmap_and(bitmap_from_string('1,2,3'), bitmap_from_string('2,3,4'))),
		bitmap_to_string(bitmap_xor(bitmap_from_string('1,2,3'), bitmap_from_string('2,3,4'))),
		bitmap_to_string(bitmap_not(bitmap_from_string('1,2,3'), bitmap_from_string('2'))),
		bitmap_contains(bitmap_from_string('1,2'), 2), bitmap_contains(bitmap_from_string('1,2'), 3),
		bitmap_count(bitmap_empty()), bitmap_count(NULL), bitmap_count(bitmap_hash('abc')),
		bitmap_to_string(to_bitmap(-1)), bitmap_from_string('1,x') IS NULL,
		bitmap_min(bitmap_from_string('7,3,9')), bitmap_max(bitmap_from_string('7,3,9')),
		hll_cardinality(hll_empty()), hll_cardinality(hll_hash(NULL)), hll_cardinality(NULL)`,
		"1,2,3 2,3 1,4 1,3 1 0 0 0 1 NULL 1 3 9 0 0 0")
}
