package report

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

func qr(suite, query string, dorisgo, duckdb float64, duckErr, mismatch string) QueryResult {
	return QueryResult{Suite: suite, Query: query, Mismatch: mismatch, Engines: map[string]Run{
		"dorisgo": {Median: dorisgo},
		"duckdb":  {Median: duckdb, Error: duckErr},
	}}
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func TestScaling(t *testing.T) {
	sf1 := &Report{SF: 1, PeakRSS: []int64{100 << 20, 28 << 20}, Queries: []QueryResult{
		qr("ssb", "Q1.1", 10, 5, "", ""),
		qr("ssb", "Q1.2", 20, 10, "", ""),
		qr("tpch", "Q1", 100, 50, "", ""),
		qr("tpch", "Q2", 8, 0, "timeout after 1s", ""),
	}}
	sf10 := &Report{SF: 10, PeakRSS: []int64{3 << 30}, Queries: []QueryResult{
		qr("ssb", "Q1.1", 100, 25, "", ""),             // 10x vs 5x: 2
		qr("ssb", "Q1.2", 40, 80, "", "row 3 differs"), // 2x vs 8x: 0.25
		qr("tpch", "Q1", 1000, 1000, "", ""),           // 10x vs 20x: 0.5
		qr("tpch", "Q2", 16, 4, "", ""),                // no DuckDB time at SF 1
		qr("tpch", "Q3", 5, 5, "", ""),                 // not run at SF 1
	}}
	sc := NewScaling([]*Report{sf1, sf10})
	if len(sc.Steps) != 1 || sc.Steps[0].From != 1 || sc.Steps[0].To != 10 {
		t.Fatalf("steps %+v", sc.Steps)
	}
	st := sc.Steps[0]
	if len(st.Rows) != 4 {
		t.Fatalf("rows %+v, want the 4 queries of both scales", st.Rows)
	}
	wantRows := []ScalingRow{
		{"ssb", "Q1.1", 10, 5, 2},
		{"ssb", "Q1.2", 2, 8, 0.25},
		{"tpch", "Q1", 10, 20, 0.5},
		{"tpch", "Q2", 2, 0, 0},
	}
	for i, w := range wantRows {
		g := st.Rows[i]
		if g.Suite != w.Suite || g.Query != w.Query {
			t.Fatalf("row %d is %s %s, want %s %s", i, g.Suite, g.Query, w.Suite, w.Query)
		}
		near(t, w.Query+" dorisgo", g.Dorisgo, w.Dorisgo)
		near(t, w.Query+" duckdb", g.DuckDB, w.DuckDB)
		near(t, w.Query+" relative", g.Relative, w.Relative)
	}
	for _, w := range []struct {
		suite              string
		n                  int
		dorisgo, duck, rel float64
	}{
		{"ssb", 2, math.Sqrt(20), math.Sqrt(40), math.Sqrt(0.5)},
		{"tpch", 1, 10, 20, 0.5},
		{"all", 3, math.Cbrt(200), math.Cbrt(800), math.Cbrt(0.25)},
	} {
		m := st.GeoMeans[w.suite]
		if m.N != w.n {
			t.Errorf("%s geomean over %d queries, want %d", w.suite, m.N, w.n)
		}
		near(t, w.suite+" geomean dorisgo", m.Dorisgo, w.dorisgo)
		near(t, w.suite+" geomean duckdb", m.DuckDB, w.duck)
		near(t, w.suite+" geomean relative", m.Relative, w.rel)
	}

	s1, s10 := sc.Scales[0], sc.Scales[1]
	if s1.PeakRSS != 128<<20 || s1.Matched != 3 || s1.Unchecked != 1 || s1.AllMatched {
		t.Errorf("SF 1 summary %+v", s1)
	}
	if s10.PeakRSS != 3<<30 || s10.Matched != 4 || s10.Wrong != 1 || s10.AllMatched {
		t.Errorf("SF 10 summary %+v", s10)
	}

	var b bytes.Buffer
	sc.Markdown(&b)
	md := b.String()
	for _, want := range []string{
		"| suite | query | dorisgo SF 10/1 | DuckDB SF 10/1 | dorisgo÷DuckDB |",
		"| ssb | Q1.1 | 10.00 | 5.00 | 2.00 |",
		"| ssb | Q1.2 | 2.00 | 8.00 | 0.25 |",
		"| tpch | Q2 | 2.00 | - | - |",
		"| ssb | geomean | **4.47** | **6.32** | **0.71** |",
		"| all | geomean | **5.85** | **9.28** | **0.63** |",
		"- SF 1: dorisgo peak RSS 128 MiB; 3 of 4 answers match DuckDB's (1 unchecked)",
		"- SF 10: dorisgo peak RSS 3072 MiB; 4 of 5 answers match DuckDB's (1 wrong)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

// Three scales make two steps, each against the scale before it; a scale
// whose answers all match says so.
func TestScalingSteps(t *testing.T) {
	mk := func(sf, ms float64) *Report {
		return &Report{SF: sf, Queries: []QueryResult{qr("ssb", "Q1.1", ms, ms/2, "", "")}}
	}
	sc := NewScaling([]*Report{mk(0.01, 1), mk(0.1, 4), mk(1, 40)})
	if len(sc.Steps) != 2 || sc.Steps[1].From != 0.1 || sc.Steps[1].To != 1 {
		t.Fatalf("steps %+v", sc.Steps)
	}
	near(t, "step 1", sc.Steps[0].Rows[0].Dorisgo, 4)
	near(t, "step 2", sc.Steps[1].Rows[0].Dorisgo, 10)
	near(t, "step 2 relative", sc.Steps[1].Rows[0].Relative, 1)
	var b bytes.Buffer
	sc.Markdown(&b)
	for _, want := range []string{
		"| ssb | Q1.1 | 4.00 | 4.00 | 1.00 | 10.00 | 10.00 | 1.00 |",
		"- SF 1: dorisgo peak RSS 0 MiB; all 1 answers match DuckDB's",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, b.String())
		}
	}
}
