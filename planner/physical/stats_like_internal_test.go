package physical

import (
	"fmt"
	"math"
	"testing"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// A LIKE with wildcards is estimated by testing the pattern on the
// histogram's bounds: a substring in 1 of 10 names is found in about a
// tenth, two rare words together in about none (half a hit, not zero);
// without wildcards it is an equality.
func TestLikeSelectivityFromHistogram(t *testing.T) {
	var hist []catalog.HistogramBucket
	for i := 0; i < 100; i++ {
		name := func(j int) types.Datum {
			s := fmt.Sprintf("item %03d plain", j)
			if j%10 == 3 {
				s = fmt.Sprintf("item %03d green", j)
			}
			return types.StringDatum(s)
		}
		hist = append(hist, catalog.HistogramBucket{Lower: name(2 * i), Upper: name(2*i + 1), NDV: 2, Count: 10, PreSum: float64(10 * i)})
	}
	s := &colStat{name: "p_name", ndv: 1000, hist: hist}
	pat := func(p string) []expr.Expr { return []expr.Expr{expr.Lit(types.StringDatum(p))} }
	for _, c := range []struct {
		pattern string
		lo, hi  float64
	}{
		{"%green%", 0.08, 0.12},
		{"%Customer%Complaints%", 0.001, 0.005},
		{"item 007 plain", 0.0009, 0.0011}, // no wildcard: 1/NDV
		{"item%", 0.95, 1},
	} {
		sel, ok := s.like(pat(c.pattern))
		if !ok || sel < c.lo || sel > c.hi {
			t.Errorf("LIKE %q: selectivity %.4f (ok %v), want in [%g, %g]", c.pattern, sel, ok, c.lo, c.hi)
		}
	}
	if _, ok := (&colStat{name: "x", ndv: 10}).like(pat("%a%")); ok {
		t.Error("a LIKE with wildcards estimated without a histogram")
	}
}

// P(X < Y) for independent uniform ranges: disjoint ranges give 0 or 1,
// identical ones a half, and Y's range past X's end the share beyond.
func TestProbBelow(t *testing.T) {
	for _, c := range []struct{ a1, b1, a2, b2, want float64 }{
		{0, 10, 20, 30, 1},
		{20, 30, 0, 10, 0},
		{0, 10, 0, 10, 0.5},
		{0, 10, 5, 15, 0.875},
		{5, 5, 0, 10, 0.5},
	} {
		if got := probBelow(c.a1, c.b1, c.a2, c.b2); math.Abs(got-c.want) > 0.01 {
			t.Errorf("P(U[%g,%g] < U[%g,%g]) = %.3f, want %.3f", c.a1, c.b1, c.a2, c.b2, got, c.want)
		}
	}
}
