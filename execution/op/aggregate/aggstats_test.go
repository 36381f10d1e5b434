package aggregate

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dorisgo/dorisgo/execution/op/optest"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sketch"
	"github.com/dorisgo/dorisgo/sql/types"
)

// statCalls are the statistics and sketch aggregates over aggInCols
// (k, v, s); the expected values are computed independently (two-pass
// moments, sorting, exact distinct counts) in statWant.
func statCalls() []AggCall {
	k, v, s := optest.ColRef(0, types.BigIntT), optest.ColRef(1, types.BigIntT), optest.ColRef(2, types.StringT)
	lit := func(f float64) expr.Expr { return expr.Lit(types.FloatDatum(f)) }
	one := func(fn string, args ...expr.Expr) AggCall {
		return AggCall{Fn: fn, Args: args, ArgType: args[0].Type()}
	}
	return []AggCall{
		one("stddev_pop", v), one("stddev_samp", v), one("var_pop", v), one("var_samp", v),
		one("covar_pop", v, k), one("covar_samp", v, k), one("corr", v, k),
		one("percentile", v, lit(0.3)), one("median", v), one("percentile_approx", v, lit(0.5)),
		one("ndv", v), one("bitmap_union_int", v),
		one("group_bit_and", v), one("group_bit_or", v), one("group_bit_xor", v),
		one("topn", s, expr.Lit(types.IntDatum(2))),
		one("max_by", v, v), one("min_by", v, k), // min_by(v, k): ties on k give any v of them
		one("count_by_enum", s),
	}
}

// statWant: per group key (or "x"), the expected value text of each call.
func statWant(rows []optest.Row, keys bool) map[string][]string {
	type acc struct {
		vs       []float64
		pairs    [][2]float64
		and, or  int64
		xor      int64
		distinct map[int64]bool
		strs     map[string]int64
		strNulls int
	}
	gs := map[string]*acc{}
	for _, r := range rows {
		key := "x"
		if keys {
			key = optest.FmtRow(r[:1])
		}
		g := gs[key]
		if g == nil {
			g = &acc{and: -1, distinct: map[int64]bool{}, strs: map[string]int64{}}
			gs[key] = g
		}
		if r[2] != nil {
			g.strs[r[2].(string)]++
		} else {
			g.strNulls++
		}
		if r[1] == nil {
			continue
		}
		v := r[1].(int64)
		g.vs = append(g.vs, float64(v))
		g.and &= v
		g.or |= v
		g.xor ^= v
		g.distinct[v] = true
		if r[0] != nil {
			g.pairs = append(g.pairs, [2]float64{float64(v), float64(r[0].(int64))})
		}
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	out := map[string][]string{}
	if !keys && len(gs) == 0 {
		gs["x"] = &acc{}
	}
	for key, g := range gs {
		n := float64(len(g.vs))
		var mean, m2 float64
		for _, x := range g.vs {
			mean += x
		}
		mean /= n
		for _, x := range g.vs {
			m2 += (x - mean) * (x - mean)
		}
		null := "NULL"
		vals := []string{null, null, null, null, null, null, null, null, null, null, "0", "0", null, null, null, null, null, "skip", ""}
		if n > 0 {
			vals[0], vals[2] = f(math.Sqrt(m2/n)), f(m2/n)
			if n > 1 {
				vals[1], vals[3] = f(math.Sqrt(m2/(n-1))), f(m2/(n-1))
			}
			sorted := slices.Clone(g.vs)
			slices.Sort(sorted)
			vals[7] = f(exactPercentile(sorted, 0.3))
			vals[8] = f(exactPercentile(sorted, 0.5))
			vals[9] = vals[8]
			vals[10] = strconv.Itoa(len(g.distinct))
			vals[11] = vals[10]
			vals[12], vals[13], vals[14] = strconv.FormatInt(g.and, 10), strconv.FormatInt(g.or, 10), strconv.FormatInt(g.xor, 10)
			vals[16] = strconv.FormatFloat(sorted[len(sorted)-1], 'g', -1, 64)
		}
		if pn := float64(len(g.pairs)); pn > 0 {
			var mx, my float64
			for _, p := range g.pairs {
				mx += p[0]
				my += p[1]
			}
			mx, my = mx/pn, my/pn
			var c, sx, sy float64
			for _, p := range g.pairs {
				c += (p[0] - mx) * (p[1] - my)
				sx += (p[0] - mx) * (p[0] - mx)
				sy += (p[1] - my) * (p[1] - my)
			}
			vals[4] = f(c / pn)
			if pn > 1 {
				vals[5] = f(c / (pn - 1))
			}
			vals[6] = "0"
			if sx*sy > 0 {
				vals[6] = f(c / math.Sqrt(sx*sy))
			}
		}
		if len(g.strs) > 0 {
			type e struct {
				s string
				c int64
			}
			var es []e
			for s, c := range g.strs {
				es = append(es, e{s, c})
			}
			slices.SortFunc(es, func(a, b e) int {
				if a.c != b.c {
					return int(b.c - a.c)
				}
				return strings.Compare(a.s, b.s)
			})
			es = es[:min(2, len(es))]
			var parts []string
			for _, x := range es {
				parts = append(parts, strconv.Quote(x.s)+":"+strconv.FormatInt(x.c, 10))
			}
			vals[15] = "{" + strings.Join(parts, ",") + "}"
		}
		var keys []string
		var notNull int64
		for s, c := range g.strs {
			keys = append(keys, s)
			notNull += c
		}
		slices.Sort(keys)
		var cbe []string
		for _, s := range keys {
			cbe = append(cbe, strconv.Quote(s)+":"+strconv.FormatInt(g.strs[s], 10))
		}
		vals[18] = fmt.Sprintf(`[{"cbe":{%s},"notnull":%d,"null":%d,"all":%d}]`, strings.Join(cbe, ","), notNull, g.strNulls, notNull+int64(g.strNulls))
		out[key] = vals
	}
	return out
}

// approxEqual compares value texts: floats to 1e-9 relative (the
// percentile_approx column to 2.0 absolute, ndv to 2%), others exactly.
func approxEqual(col int, got, want string) bool {
	if got == want || want == "skip" {
		return true
	}
	g, err1 := strconv.ParseFloat(got, 64)
	w, err2 := strconv.ParseFloat(want, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	switch col {
	case 9:
		return math.Abs(g-w) <= 2
	case 10:
		return math.Abs(g-w) <= 0.02*w
	}
	return math.Abs(g-w) <= 1e-9*math.Max(1, math.Abs(w))
}

func checkStats(t *testing.T, got []string, want map[string][]string, keys bool) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d groups, want %d", len(got), len(want))
	}
	for _, line := range got {
		parts := strings.Split(line, "|")
		key := "x"
		if keys {
			key, parts = parts[0], parts[1:]
		}
		w, ok := want[key]
		if !ok {
			t.Fatalf("unexpected group %q", key)
		}
		for i := range w {
			if !approxEqual(i, parts[i], w[i]) {
				t.Errorf("group %s, %s: got %s, want %s", key, statCalls()[i].Fn, parts[i], w[i])
			}
		}
	}
}

// TestStatAggsSingleAndTwoPhase: one update-finalize pass and three
// update-serialize instances merged by a merge-finalize give the
// independently computed values, with and without GROUP BY, on empty
// input too.
func TestStatAggsSingleAndTwoPhase(t *testing.T) {
	r := rand.New(rand.NewSource(15))
	calls := statCalls()
	for _, keys := range []bool{false, true} {
		for _, n := range []int{0, 1, 2, 3000} {
			rows := aggRows(r, n, 40)
			want := statWant(rows, keys)

			mem, check := optest.Checked(t)
			a := runAgg(t, mem, optest.NewSource(mem, aggInCols, rows, 700), fragment.AggUpdateFinalize, keys, calls)
			checkStats(t, optest.Drain(t, a), want, keys)
			a.Close()
			check()

			mem, check = optest.Checked(t)
			var partial []arrow.Record
			for inst := 0; inst < 3; inst++ {
				a := runAgg(t, mem, optest.NewSource(mem, aggInCols, rows[inst*n/3:(inst+1)*n/3], 700), fragment.AggUpdateSerialize, keys, calls)
				for {
					rec, err := a.Next(t.Context())
					if err != nil {
						break
					}
					partial = append(partial, rec)
				}
				a.Close()
			}
			col := 0
			if keys {
				col = 1
			}
			merge := make([]AggCall, len(calls))
			for i, c := range calls {
				ts, err := AggStateTypes(c.Fn, c.ArgType, false)
				if err != nil {
					t.Fatal(err)
				}
				mc := c
				mc.Args = nil
				for _, st := range ts {
					mc.Args = append(mc.Args, optest.ColRef(col, st))
					col++
				}
				merge[i] = mc
			}
			src := &optest.SliceOp{Sc: types.ArrowSchema(aggOutCols(calls, keys, false)), Recs: partial}
			m := runAgg(t, mem, src, fragment.AggMergeFinalize, keys, merge)
			checkStats(t, optest.Drain(t, m), want, keys)
			m.Close()
			check()
		}
	}
}

// TestMomentMergeStable: Chan's merge keeps precision where the naive
// Σx² − (Σx)²/n loses it (values near 1e9 with unit spread).
func TestMomentMergeStable(t *testing.T) {
	a, b := &momentAgg{kind: momVarPop}, &momentAgg{kind: momVarPop}
	a.resize(1)
	b.resize(1)
	for i := 0; i < 1000; i++ {
		x := 1e9 + float64(i%4)
		if i%2 == 0 {
			a.n[0]++
			d := x - a.mean[0]
			a.mean[0] += d / float64(a.n[0])
			a.m2[0] += d * (x - a.mean[0])
		} else {
			b.n[0]++
			d := x - b.mean[0]
			b.mean[0] += d / float64(b.n[0])
			b.m2[0] += d * (x - b.mean[0])
		}
	}
	n, _, m2 := chanMerge(a.n[0], a.mean[0], a.m2[0], b.n[0], b.mean[0], b.m2[0])
	if got := m2 / float64(n); math.Abs(got-1.25) > 1e-9 {
		t.Fatalf("var_pop = %v, want 1.25", got)
	}
}

func TestTDigestQuantiles(t *testing.T) {
	d := sketch.NewTDigest(100)
	for i := 0; i < 100000; i++ {
		d.Add(float64(i % 1000))
	}
	d2 := sketch.ParseTDigest(d.Bytes())
	for _, q := range []float64{0.01, 0.25, 0.5, 0.9, 0.99} {
		if got, want := d2.Quantile(q), q*999; math.Abs(got-want) > 10 {
			t.Errorf("q%.2f = %v, want ≈%v", q, got, want)
		}
	}
	small := sketch.NewTDigest(0)
	for _, v := range []float64{5, 1, 3, 2, 4} {
		small.Add(v)
	}
	if got := small.Quantile(0.5); got != 3 {
		t.Errorf("median of 1..5 = %v", got)
	}
}

func TestBitmapAggModes(t *testing.T) {
	mk := func(vs ...uint64) string { return string(sketch.BitmapOf(vs...)) }
	col := buildStrings(memory.DefaultAllocator, []string{mk(1, 2, 3), mk(2, 3, 4), "", mk(3, 9)}, []bool{true, true, false, true})
	defer col.Release()
	gids := []int32{0, 0, 0, 0}
	for _, c := range []struct {
		mode bitmapMode
		want string
	}{{bmUnion, "1,2,3,4,9"}, {bmIntersect, "3"}, {bmXor, "1,3,4,9"}} {
		a := &bitmapAgg{mode: c.mode}
		a.resize(1)
		a.update(gids, []arrow.Array{col})
		out := a.finalize(memory.DefaultAllocator, 0, 1)
		got := sketch.BitmapString(sketch.Bitmap([]byte(out.(interface{ Value(int) string }).Value(0))))
		out.Release()
		if got != c.want {
			t.Errorf("mode %d: %s, want %s", c.mode, got, c.want)
		}
	}
}

// TestStatAggDistinct: DISTINCT feeds each distinct value once (one
// phase), here to VAR_POP and PERCENTILE.
func TestStatAggDistinct(t *testing.T) {
	v := optest.ColRef(1, types.BigIntT)
	calls := []AggCall{{Fn: "var_pop", Args: []expr.Expr{v}, ArgType: types.BigIntT, Distinct: true},
		{Fn: "percentile", Args: []expr.Expr{v, expr.Lit(types.FloatDatum(0.5))}, ArgType: types.BigIntT, Distinct: true}}
	var rows []optest.Row
	for _, x := range []int64{1, 1, 1, 2, 3, 3, 10} {
		rows = append(rows, optest.Row{int64(0), x, "s"})
	}
	rows = append(rows, optest.Row{int64(0), nil, "s"})
	mem, check := optest.Checked(t)
	a := runAgg(t, mem, optest.NewSource(mem, aggInCols, rows, 3), fragment.AggUpdateFinalize, false, calls)
	got := optest.Drain(t, a)
	a.Close()
	check()
	// Distinct values 1, 2, 3, 10: mean 4, var_pop (9+4+1+36)/4; median 2.5.
	if len(got) != 1 || got[0] != "12.5|2.5" {
		t.Fatalf("got %v, want [12.5|2.5]", got)
	}
}
