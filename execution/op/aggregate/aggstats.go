package aggregate

import (
	"encoding/binary"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dorisgo/dorisgo/sql/sketch"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Statistics and percentiles: STDDEV/VARIANCE (pop and samp), CORR,
// COVAR (pop and samp), PERCENTILE, MEDIAN, PERCENTILE_APPROX.

type momentKind uint8

const (
	momVarPop momentKind = iota
	momVarSamp
	momStdPop
	momStdSamp
)

// momentAgg keeps Welford's (count, mean, M2) per group: M2 is the sum of
// squared deviations from the running mean, updated as x arrives, so no
// catastrophic cancellation of Σx² − (Σx)²/n. Partial states merge with
// Chan et al.'s pairwise formula.
type momentAgg struct {
	kind     momentKind
	n        []int64
	mean, m2 []float64
	fbuf     []float64
}

func (a *momentAgg) resize(g int) {
	a.n = resizeSlice(a.n, g)
	a.mean = resizeSlice(a.mean, g)
	a.m2 = resizeSlice(a.m2, g)
}

func (a *momentAgg) update(gids []int32, args []arrow.Array) {
	col := args[0]
	if col.DataType().ID() == arrow.NULL {
		return
	}
	vs := float64Values(col, a.fbuf)
	a.fbuf = vs
	nulls := col.NullN() > 0
	for i, g := range gids {
		if nulls && col.IsNull(i) {
			continue
		}
		x := vs[i]
		a.n[g]++
		d := x - a.mean[g]
		a.mean[g] += d / float64(a.n[g])
		a.m2[g] += d * (x - a.mean[g])
	}
}

// chan merges (nb, mb, m2b) into (na, ma, m2a).
func chanMerge(na int64, ma, m2a float64, nb int64, mb, m2b float64) (int64, float64, float64) {
	if nb == 0 {
		return na, ma, m2a
	}
	if na == 0 {
		return nb, mb, m2b
	}
	n := na + nb
	d := mb - ma
	return n, ma + d*float64(nb)/float64(n), m2a + m2b + d*d*float64(na)*float64(nb)/float64(n)
}

func (a *momentAgg) merge(gids []int32, states []arrow.Array) {
	ns := int64Values(states[0], nil)
	ms := float64Values(states[1], nil)
	m2s := float64Values(states[2], nil)
	for i, g := range gids {
		if states[0].IsNull(i) {
			continue
		}
		a.n[g], a.mean[g], a.m2[g] = chanMerge(a.n[g], a.mean[g], a.m2[g], ns[i], ms[i], m2s[i])
	}
}

func (a *momentAgg) serialize(mem memory.Allocator, from, to int) []arrow.Array {
	return []arrow.Array{buildInts(mem, types.BigIntT, a.n[from:to], nil),
		buildFloats(mem, types.DoubleT, a.mean[from:to], nil), buildFloats(mem, types.DoubleT, a.m2[from:to], nil)}
}

// finalize: NULL without rows; the sample forms are NULL for one row
// (n−1 = 0), the population forms 0.
func (a *momentAgg) finalize(mem memory.Allocator, from, to int) arrow.Array {
	out := make([]float64, to-from)
	valid := make([]bool, to-from)
	for i := range out {
		g := from + i
		n := a.n[g]
		div := float64(n)
		if a.kind == momVarSamp || a.kind == momStdSamp {
			div--
		}
		if n == 0 || div <= 0 {
			continue
		}
		v := math.Max(a.m2[g]/div, 0)
		if a.kind == momStdPop || a.kind == momStdSamp {
			v = math.Sqrt(v)
		}
		out[i], valid[i] = v, true
	}
	return buildFloats(mem, types.DoubleT, out, valid)
}

func (a *momentAgg) memBytes() int64 { return int64(cap(a.n)*8 + cap(a.mean)*8 + cap(a.m2)*8) }

type coKind uint8

const (
	coCorr coKind = iota
	coCovarPop
	coCovarSamp
)

// coMomentAgg is the two-variable Welford state over rows where both x and
// y are non-NULL: count, means, co-moment C = Σ(x−x̄)(y−ȳ) and both M2s.
type coMomentAgg struct {
	kind       coKind
	n          []int64
	mx, my, c  []float64
	m2x, m2y   []float64
	xbuf, ybuf []float64
}

func (a *coMomentAgg) resize(g int) {
	a.n = resizeSlice(a.n, g)
	a.mx, a.my, a.c = resizeSlice(a.mx, g), resizeSlice(a.my, g), resizeSlice(a.c, g)
	a.m2x, a.m2y = resizeSlice(a.m2x, g), resizeSlice(a.m2y, g)
}

func (a *coMomentAgg) update(gids []int32, args []arrow.Array) {
	if args[0].DataType().ID() == arrow.NULL || args[1].DataType().ID() == arrow.NULL {
		return
	}
	xs := float64Values(args[0], a.xbuf)
	a.xbuf = xs
	ys := float64Values(args[1], a.ybuf)
	a.ybuf = ys
	nulls := anyNulls(args)
	for i, g := range gids {
		if nulls && !allValid(args, i) {
			continue
		}
		x, y := xs[i], ys[i]
		a.n[g]++
		n := float64(a.n[g])
		dx, dy := x-a.mx[g], y-a.my[g]
		a.mx[g] += dx / n
		a.my[g] += dy / n
		a.c[g] += dx * (y - a.my[g])
		a.m2x[g] += dx * (x - a.mx[g])
		a.m2y[g] += dy * (y - a.my[g])
	}
}

func (a *coMomentAgg) merge(gids []int32, states []arrow.Array) {
	ns := int64Values(states[0], nil)
	var f [5][]float64
	for k := range f {
		f[k] = float64Values(states[k+1], nil)
	}
	for i, g := range gids {
		nb := ns[i]
		if states[0].IsNull(i) || nb == 0 {
			continue
		}
		na := a.n[g]
		if na == 0 {
			a.n[g], a.mx[g], a.my[g], a.c[g], a.m2x[g], a.m2y[g] = nb, f[0][i], f[1][i], f[2][i], f[3][i], f[4][i]
			continue
		}
		n := na + nb
		w := float64(na) * float64(nb) / float64(n)
		dx, dy := f[0][i]-a.mx[g], f[1][i]-a.my[g]
		a.mx[g] += dx * float64(nb) / float64(n)
		a.my[g] += dy * float64(nb) / float64(n)
		a.c[g] += f[2][i] + dx*dy*w
		a.m2x[g] += f[3][i] + dx*dx*w
		a.m2y[g] += f[4][i] + dy*dy*w
		a.n[g] = n
	}
}

func (a *coMomentAgg) serialize(mem memory.Allocator, from, to int) []arrow.Array {
	out := []arrow.Array{buildInts(mem, types.BigIntT, a.n[from:to], nil)}
	for _, s := range [][]float64{a.mx, a.my, a.c, a.m2x, a.m2y} {
		out = append(out, buildFloats(mem, types.DoubleT, s[from:to], nil))
	}
	return out
}

// finalize: NULL without rows (COVAR_SAMP: with fewer than two); CORR of
// a constant column (zero variance) is 0, as Doris answers.
func (a *coMomentAgg) finalize(mem memory.Allocator, from, to int) arrow.Array {
	out := make([]float64, to-from)
	valid := make([]bool, to-from)
	for i := range out {
		g := from + i
		n := a.n[g]
		switch {
		case n == 0:
			continue
		case a.kind == coCovarPop:
			out[i] = a.c[g] / float64(n)
		case a.kind == coCovarSamp:
			if n < 2 {
				continue
			}
			out[i] = a.c[g] / float64(n-1)
		default:
			if d := math.Sqrt(a.m2x[g] * a.m2y[g]); d > 0 {
				out[i] = a.c[g] / d
			}
		}
		valid[i] = true
	}
	return buildFloats(mem, types.DoubleT, out, valid)
}

func (a *coMomentAgg) memBytes() int64 { return int64(cap(a.n) * 48) }

// constFloat reads a constant argument (percentile's p) from its first
// non-NULL row; ok false if every row is NULL.
func constFloat(col arrow.Array) (float64, bool) {
	if col.DataType().ID() == arrow.NULL {
		return 0, false
	}
	vs := float64Values(col, nil)
	for i := range vs {
		if col.IsValid(i) {
			return vs[i], true
		}
	}
	return 0, false
}

// percentileAgg is PERCENTILE(x, p) and MEDIAN(x): every value is kept and
// the answer interpolates linearly between the two nearest ranks, as
// Doris's exact percentile: pos = p·(n−1). Its partial state is p and the
// values, little-endian float64s.
type percentileAgg struct {
	p    float64
	hasP bool
	vals [][]float64
	fbuf []float64
	n    int64
}

func (a *percentileAgg) resize(g int) { a.vals = resizeSlice(a.vals, g) }

func (a *percentileAgg) update(gids []int32, args []arrow.Array) {
	col := args[0]
	if len(args) > 1 && !a.hasP {
		a.p, a.hasP = constFloat(args[1])
	}
	if col.DataType().ID() == arrow.NULL || !a.hasP {
		return
	}
	vs := float64Values(col, a.fbuf)
	a.fbuf = vs
	nulls := col.NullN() > 0
	for i, g := range gids {
		if nulls && col.IsNull(i) {
			continue
		}
		a.vals[g] = append(a.vals[g], vs[i])
		a.n++
	}
}

func (a *percentileAgg) merge(gids []int32, states []arrow.Array) {
	sc := states[0].(*array.String)
	for i, g := range gids {
		if sc.IsNull(i) {
			continue
		}
		b := sc.Value(i)
		if len(b) < 8 {
			continue
		}
		a.p, a.hasP = math.Float64frombits(binary.LittleEndian.Uint64([]byte(b[:8]))), true
		for off := 8; off+8 <= len(b); off += 8 {
			a.vals[g] = append(a.vals[g], math.Float64frombits(binary.LittleEndian.Uint64([]byte(b[off:off+8]))))
			a.n++
		}
	}
}

func (a *percentileAgg) serialize(mem memory.Allocator, from, to int) []arrow.Array {
	out := make([]string, to-from)
	valid := make([]bool, to-from)
	for i := range out {
		vs := a.vals[from+i]
		if !a.hasP {
			continue
		}
		b := make([]byte, 0, 8+8*len(vs))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(a.p))
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
		out[i], valid[i] = string(b), true
	}
	return []arrow.Array{buildStrings(mem, out, valid)}
}

func (a *percentileAgg) finalize(mem memory.Allocator, from, to int) arrow.Array {
	out := make([]float64, to-from)
	valid := make([]bool, to-from)
	for i := range out {
		vs := a.vals[from+i]
		if len(vs) == 0 {
			continue
		}
		slices.Sort(vs)
		out[i], valid[i] = exactPercentile(vs, a.p), true
	}
	return buildFloats(mem, types.DoubleT, out, valid)
}

// exactPercentile of sorted vs: linear interpolation at p·(n−1).
func exactPercentile(vs []float64, p float64) float64 {
	p = math.Min(math.Max(p, 0), 1)
	pos := p * float64(len(vs)-1)
	lo := int(math.Floor(pos))
	if lo+1 >= len(vs) {
		return vs[len(vs)-1]
	}
	return vs[lo] + (pos-float64(lo))*(vs[lo+1]-vs[lo])
}

func (a *percentileAgg) memBytes() int64 { return int64(cap(a.vals)*24) + a.n*8 }

// tdigestAgg is PERCENTILE_APPROX(x, p [, compression]): a t-digest per
// group (sql/sketch). Its partial state is p and the serialized digest.
type tdigestAgg struct {
	p, comp float64
	hasP    bool
	ds      []*sketch.TDigest
	fbuf    []float64
	n       int64
}

func (a *tdigestAgg) resize(g int) { a.ds = resizeSlice(a.ds, g) }

func (a *tdigestAgg) digest(g int32) *sketch.TDigest {
	if a.ds[g] == nil {
		a.ds[g] = sketch.NewTDigest(a.comp)
	}
	return a.ds[g]
}

func (a *tdigestAgg) update(gids []int32, args []arrow.Array) {
	col := args[0]
	if !a.hasP {
		a.p, a.hasP = constFloat(args[1])
		if len(args) > 2 {
			// Doris takes compressions in [2048, 10000], else its default.
			if c, ok := constFloat(args[2]); ok && c >= 2048 && c <= 10000 {
				a.comp = c
			}
		}
	}
	if col.DataType().ID() == arrow.NULL || !a.hasP {
		return
	}
	vs := float64Values(col, a.fbuf)
	a.fbuf = vs
	nulls := col.NullN() > 0
	for i, g := range gids {
		if nulls && col.IsNull(i) {
			continue
		}
		a.digest(g).Add(vs[i])
		a.n++
	}
}

func (a *tdigestAgg) merge(gids []int32, states []arrow.Array) {
	sc := states[0].(*array.String)
	for i, g := range gids {
		if sc.IsNull(i) || len(sc.Value(i)) < 8 {
			continue
		}
		b := []byte(sc.Value(i))
		a.p, a.hasP = math.Float64frombits(binary.LittleEndian.Uint64(b)), true
		d := sketch.ParseTDigest(b[8:])
		if d == nil {
			continue
		}
		if a.ds[g] == nil {
			a.comp = d.Compression
		}
		a.digest(g).Merge(d)
		a.n += int64(d.Count())
	}
}

func (a *tdigestAgg) serialize(mem memory.Allocator, from, to int) []arrow.Array {
	out := make([]string, to-from)
	valid := make([]bool, to-from)
	for i := range out {
		d := a.ds[from+i]
		if d == nil || !a.hasP {
			continue
		}
		b := binary.LittleEndian.AppendUint64(nil, math.Float64bits(a.p))
		out[i], valid[i] = string(append(b, d.Bytes()...)), true
	}
	return []arrow.Array{buildStrings(mem, out, valid)}
}

func (a *tdigestAgg) finalize(mem memory.Allocator, from, to int) arrow.Array {
	out := make([]float64, to-from)
	valid := make([]bool, to-from)
	for i := range out {
		d := a.ds[from+i]
		if d == nil || d.Count() == 0 {
			continue
		}
		out[i], valid[i] = d.Quantile(math.Min(math.Max(a.p, 0), 1)), true
	}
	return buildFloats(mem, types.DoubleT, out, valid)
}

// memBytes charges 16 bytes per value added, an upper bound until a
// digest compresses (which a long input makes it do).
func (a *tdigestAgg) memBytes() int64 { return int64(cap(a.ds)*8) + a.n*16 }

// newStatAggFunc builds the functions of aggstats.go, aggsketch.go and
// aggmisc.go by canonical name; nil for others.
func newStatAggFunc(fn string, arg, res types.T) aggFunc {
	switch fn {
	case "stddev_pop":
		return &momentAgg{kind: momStdPop}
	case "stddev_samp":
		return &momentAgg{kind: momStdSamp}
	case "var_pop":
		return &momentAgg{kind: momVarPop}
	case "var_samp":
		return &momentAgg{kind: momVarSamp}
	case "corr":
		return &coMomentAgg{kind: coCorr}
	case "covar_pop":
		return &coMomentAgg{kind: coCovarPop}
	case "covar_samp":
		return &coMomentAgg{kind: coCovarSamp}
	case "percentile":
		return &percentileAgg{}
	case "median":
		return &percentileAgg{p: 0.5, hasP: true}
	case "percentile_approx":
		return &tdigestAgg{comp: 10000}
	case "ndv":
		return &hllAgg{mode: hllNDV}
	case "hll_union_agg":
		return &hllAgg{mode: hllUnionAgg}
	case "hll_union":
		return &hllAgg{mode: hllUnion}
	case "bitmap_union":
		return &bitmapAgg{mode: bmUnion}
	case "bitmap_union_count":
		return &bitmapAgg{mode: bmUnionCount}
	case "bitmap_intersect":
		return &bitmapAgg{mode: bmIntersect}
	case "group_bitmap_xor":
		return &bitmapAgg{mode: bmXor}
	case "bitmap_union_int":
		return &bitmapAgg{mode: bmUnionInt}
	case "intersect_count":
		return &intersectAgg{}
	case "group_bit_and":
		return &bitAgg{t: res, op: bitAnd}
	case "group_bit_or":
		return &bitAgg{t: res, op: bitOr}
	case "group_bit_xor":
		return &bitAgg{t: res, op: bitXor}
	case "max_by":
		return &byAgg{t: res, max: true}
	case "min_by":
		return &byAgg{t: res}
	case "topn":
		return &topnAgg{argT: arg}
	case "collect_list":
		return &collectAgg{argT: arg}
	case "collect_set":
		return &collectAgg{argT: arg, set: true}
	case "histogram":
		return &histAgg{collectAgg: collectAgg{argT: arg}, n: 128}
	case "count_by_enum":
		return &enumAgg{}
	}
	return nil
}
