package physical

import (
	"fmt"
	"math"
	"strings"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/planner/explain"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/sql/eval"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Estimates from ANALYZE's column statistics (catalog.TableStatistics).
// Without statistics every estimate stays the rule it was: each predicate
// keeps a tenth of the rows, a GROUP BY as many groups as input rows, an
// equi join the rows of its probe side. With them: equality keeps 1/NDV,
// ranges the fraction the histogram (else min/max) puts below or above the
// constant, a GROUP BY the product of its keys' NDVs (capped by its input),
// an inner equi join |L|·|R| / max(NDV(l), NDV(r)) over its most selective
// key per pair of relations it joins (pairs multiply). Each node records where its estimate came from (EXPLAIN VERBOSE).

// defaultSel is a predicate's selectivity without statistics.
const defaultSel = 0.1

// colStat is what the planner knows of one column's values.
type colStat struct {
	ndv      float64
	nullFrac float64
	min, max *types.Datum
	hist     []catalog.HistogramBucket
	name     string // table.column, for EXPLAIN
	rel      string // the scan's alias: which relation the column is of
}

func (d *distPlanner) colStat(id logical.ColumnID) *colStat {
	return d.cstats[id]
}

func (d *distPlanner) setColStat(id logical.ColumnID, s *colStat) {
	if s == nil {
		return
	}
	if d.cstats == nil {
		d.cstats = map[logical.ColumnID]*colStat{}
	}
	d.cstats[id] = s
}

// scanStats registers the statistics of the scanned columns.
func (d *distPlanner) scanStats(s *logical.Scan) {
	if d.ctx.Cat == nil {
		return
	}
	ts := d.ctx.Cat.Statistics(s.Table.ID)
	if ts == nil {
		return
	}
	d.anyStats = true
	for i, c := range s.Cols {
		if i >= len(s.Ords) || s.Ords[i] < 0 || s.Ords[i] >= len(s.Table.Columns) {
			continue
		}
		name := s.Table.Columns[s.Ords[i]].Name
		cs := ts.Column(name)
		if cs == nil || cs.Count <= 0 {
			continue
		}
		st := &colStat{ndv: float64(max(cs.NDV, 1)), min: cs.Min, max: cs.Max, hist: cs.Histogram,
			nullFrac: float64(cs.NumNull) / float64(cs.Count), name: s.Table.Name + "." + name, rel: s.Alias}
		d.setColStat(c.ID, st)
	}
}

// passStats lets a projected column reuse its source column's statistics.
func (d *distPlanner) passStats(to logical.ColumnID, e expr.Expr) {
	if r, ok := stripCasts(e).(*expr.ColRef); ok {
		if s := d.colStat(logical.ColumnID(r.Index)); s != nil {
			d.setColStat(to, s)
		}
	}
}

// refStat is the statistics of a column reference (through casts).
func (d *distPlanner) refStat(e expr.Expr) *colStat {
	if r, ok := stripCasts(e).(*expr.ColRef); ok {
		return d.colStat(logical.ColumnID(r.Index))
	}
	return nil
}

// filterRows estimates rows after conds. Without statistics for any of
// them it is filtered (a tenth per predicate) and source is "".
func (d *distPlanner) filterRows(rows int64, conds []expr.Expr) (int64, string) {
	if rows < 0 || len(conds) == 0 || d.cstats == nil {
		return filtered(rows, len(conds)), ""
	}
	sel, used := d.conjunction(conds)
	if len(used) == 0 {
		return filtered(rows, len(conds)), ""
	}
	return max(1, int64(math.Round(float64(rows)*sel))), "statistics: " + strings.Join(used, ", ")
}

// bound is one side of a range on a column (a > 3, a <= 7).
type bound struct {
	v         types.Datum
	inclusive bool
	set       bool
}

// conjunction is the selectivity of conds all holding. Bounds on the same
// column combine into one range (a >= x AND a < y keeps what lies between,
// not the product of both sides); the rest multiply.
func (d *distPlanner) conjunction(conds []expr.Expr) (float64, []string) {
	type rng struct {
		s      *colStat
		lo, hi bound
	}
	var ranges []*rng
	var rest []expr.Expr
	for _, c := range conds {
		call, ok := c.(*expr.Call)
		if !ok || len(call.Args) != 2 {
			rest = append(rest, c)
			continue
		}
		fn, col, k := call.Fn, call.Args[0], call.Args[1]
		if _, isConst := constOf(col); isConst {
			fn, col, k = flip(fn), k, col
		}
		s := d.refStat(col)
		v, isConst := constOf(k)
		if s == nil || !isConst || !s.comparable(v) || (fn != "lt" && fn != "le" && fn != "gt" && fn != "ge") {
			rest = append(rest, c)
			continue
		}
		var r *rng
		for _, x := range ranges {
			if x.s == s {
				r = x
			}
		}
		if r == nil {
			r = &rng{s: s}
			ranges = append(ranges, r)
		}
		b := bound{v: v, inclusive: fn == "le" || fn == "ge", set: true}
		if fn == "lt" || fn == "le" {
			if !r.hi.set || types.Compare(v, r.hi.v) < 0 {
				r.hi = b
			}
		} else if !r.lo.set || types.Compare(v, r.lo.v) > 0 {
			r.lo = b
		}
	}
	sel := 1.0
	var used []string
	for _, r := range ranges {
		upper := 1 - r.s.nullFrac
		if r.hi.set {
			upper = r.s.below(r.hi.v, r.hi.inclusive)
		}
		lower := 0.0
		if r.lo.set {
			lower = r.s.below(r.lo.v, !r.lo.inclusive)
		}
		sel *= clamp(upper - lower)
		used = append(used, r.s.rangeNote())
	}
	for _, c := range rest {
		s, why := d.selectivity(c)
		sel *= s
		if why != "" {
			used = append(used, why)
		}
	}
	return sel, used
}

// selectivity is the fraction of rows e keeps and, when statistics gave
// it, a note saying which.
func (d *distPlanner) selectivity(e expr.Expr) (float64, string) {
	c, ok := e.(*expr.Call)
	if !ok {
		return defaultSel, ""
	}
	switch c.Fn {
	case "and":
		sel, notes := d.conjunction(c.Args)
		if len(notes) == 0 {
			return math.Pow(defaultSel, float64(len(c.Args))), ""
		}
		return sel, strings.Join(notes, ", ")
	case "or":
		sel, notes := 0.0, []string(nil)
		for _, a := range c.Args {
			s, why := d.selectivity(a)
			sel = sel + s - sel*s
			if why != "" {
				notes = append(notes, why)
			}
		}
		if len(notes) == 0 {
			return defaultSel, ""
		}
		return sel, strings.Join(notes, ", ")
	case "not":
		if len(c.Args) == 1 {
			if s, why := d.selectivity(c.Args[0]); why != "" {
				return clamp(1 - s), "not " + why
			}
		}
	case "is_null", "is_not_null":
		if s := d.refStat(c.Args[0]); s != nil {
			if c.Fn == "is_null" {
				return s.nullFrac, fmt.Sprintf("nulls(%s)=%.3g", s.name, s.nullFrac)
			}
			return 1 - s.nullFrac, fmt.Sprintf("nulls(%s)=%.3g", s.name, s.nullFrac)
		}
	case "in", "not_in":
		if s := d.refStat(c.Args[0]); s != nil && allConst(c.Args[1:]) {
			sel := clamp(float64(len(c.Args)-1) / s.ndv * (1 - s.nullFrac))
			if c.Fn == "not_in" {
				sel = clamp(1 - s.nullFrac - sel)
			}
			return sel, fmt.Sprintf("ndv(%s)=%.0f", s.name, s.ndv)
		}
	case "between":
		if s := d.refStat(c.Args[0]); s != nil {
			lo, lok := constOf(c.Args[1])
			hi, hok := constOf(c.Args[2])
			if lok && hok {
				return clamp(s.below(hi, true) - s.below(lo, false)), s.rangeNote()
			}
		}
	case "like", "not_like":
		if s := d.refStat(c.Args[0]); s != nil {
			if sel, ok := s.like(c.Args[1:]); ok {
				if c.Fn == "not_like" {
					sel = clamp(1 - s.nullFrac - sel)
				}
				return sel, s.likeNote()
			}
		}
	case "eq", "ne", "lt", "le", "gt", "ge", "null_safe_eq":
		if len(c.Args) != 2 {
			break
		}
		if sel, why, ok := d.columnPair(c.Fn, c.Args[0], c.Args[1]); ok {
			return sel, why
		}
		fn, col, k := c.Fn, c.Args[0], c.Args[1]
		if _, isConst := constOf(col); isConst {
			fn, col, k = flip(fn), k, col
		}
		s := d.refStat(col)
		v, ok := constOf(k)
		if s == nil || !ok {
			break
		}
		nonNull := 1 - s.nullFrac
		switch fn {
		case "eq", "null_safe_eq":
			if s.outside(v) {
				return 0, fmt.Sprintf("%s outside [min, max] of %s", v.String(), s.name)
			}
			return clamp(nonNull / s.ndv), fmt.Sprintf("ndv(%s)=%.0f", s.name, s.ndv)
		case "ne":
			return clamp(nonNull * (1 - 1/s.ndv)), fmt.Sprintf("ndv(%s)=%.0f", s.name, s.ndv)
		case "lt", "le":
			return clamp(s.below(v, fn == "le")), s.rangeNote()
		case "gt", "ge":
			return clamp(nonNull - s.below(v, fn == "gt")), s.rangeNote()
		}
	}
	return defaultSel, ""
}

func clamp(f float64) float64 { return min(1, max(0, f)) }

// like is the fraction of rows matching a constant LIKE pattern (args:
// the pattern, then the escape if given). Without wildcards it is an
// equality; otherwise the pattern is tested on the histogram's bucket
// bounds, a sample of the column's values (PostgreSQL tests patterns on
// its histogram the same way). ok is false without string bounds.
func (s *colStat) like(args []expr.Expr) (float64, bool) {
	p, ok := constOf(args[0])
	if !ok || !p.T.IsString() {
		return 0, false
	}
	esc := byte('\\')
	if len(args) > 1 {
		e, ok := constOf(args[1])
		if !ok || !e.T.IsString() {
			return 0, false
		}
		if e.S != "" {
			esc = e.S[0]
		}
	}
	nonNull := 1 - s.nullFrac
	if !strings.ContainsAny(p.S, "%_") {
		return clamp(nonNull / s.ndv), true
	}
	var bounds, hits int
	for _, b := range s.hist {
		for _, v := range []types.Datum{b.Lower, b.Upper} {
			if !v.T.IsString() {
				return 0, false
			}
			bounds++
			if eval.LikeMatch(v.S, p.S, esc) {
				hits++
			}
		}
	}
	if bounds == 0 {
		return 0, false
	}
	// Half a hit more than seen: a pattern no bound matches is rare, not absent.
	return clamp(nonNull * (float64(hits) + 0.5) / float64(bounds+1)), true
}

func (s *colStat) likeNote() string { return fmt.Sprintf("pattern on histogram(%s)", s.name) }

// columnPair estimates a comparison of two columns with statistics (Q12's
// l_commitdate < l_receiptdate): equality keeps 1/max(NDV) of the rows;
// an order comparison keeps what the two value ranges imply, assuming
// each column uniform over its [min, max] and the two independent.
func (d *distPlanner) columnPair(fn string, l, r expr.Expr) (float64, string, bool) {
	a, b := d.refStat(l), d.refStat(r)
	if a == nil || b == nil || a.min == nil || a.max == nil || b.min == nil || b.max == nil || !a.comparable(*b.min) {
		return 0, "", false
	}
	nonNull := (1 - a.nullFrac) * (1 - b.nullFrac)
	note := fmt.Sprintf("min/max(%s, %s)", a.name, b.name)
	switch fn {
	case "eq", "null_safe_eq":
		return clamp(nonNull / max(a.ndv, b.ndv)), fmt.Sprintf("ndv(%s, %s)", a.name, b.name), true
	case "ne":
		return clamp(nonNull * (1 - 1/max(a.ndv, b.ndv))), fmt.Sprintf("ndv(%s, %s)", a.name, b.name), true
	case "gt", "ge":
		a, b = b, a // l > r is r < l
	}
	lo1, ok1 := numeric(*a.min)
	hi1, ok2 := numeric(*a.max)
	lo2, ok3 := numeric(*b.min)
	hi2, ok4 := numeric(*b.max)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return 0, "", false
	}
	return clamp(nonNull * probBelow(lo1, hi1, lo2, hi2)), note, true
}

// probBelow is P(X < Y) for X uniform on [a1, b1] and Y uniform on [a2,
// b2], independent (a point range for a column of one value). It is
// integrated numerically: the exact piecewise form buys nothing here.
func probBelow(a1, b1, a2, b2 float64) float64 {
	if b1 <= a2 {
		return 1
	}
	if a1 >= b2 {
		return 0
	}
	// P(X < Y) = E_Y[F_X(Y)], F_X the CDF of X, over 64 points of Y.
	const n = 64
	sum := 0.0
	for i := 0; i < n; i++ {
		y := a2 + (b2-a2)*(float64(i)+0.5)/n
		switch {
		case y <= a1:
		case y >= b1:
			sum++
		default:
			sum += (y - a1) / (b1 - a1)
		}
	}
	return sum / n
}

func flip(fn string) string {
	switch fn {
	case "lt":
		return "gt"
	case "le":
		return "ge"
	case "gt":
		return "lt"
	case "ge":
		return "le"
	}
	return fn
}

func constOf(e expr.Expr) (types.Datum, bool) {
	if c, ok := stripCasts(e).(*expr.Const); ok && !c.Val.Null {
		return c.Val, true
	}
	return types.Datum{}, false
}

func allConst(es []expr.Expr) bool {
	for _, e := range es {
		if _, ok := constOf(e); !ok {
			return false
		}
	}
	return true
}

func (s *colStat) rangeNote() string {
	if len(s.hist) > 0 {
		return fmt.Sprintf("histogram(%s)", s.name)
	}
	return fmt.Sprintf("min/max(%s)", s.name)
}

// comparable: v can be ordered against the column's values.
func (s *colStat) comparable(v types.Datum) bool {
	if s.min == nil {
		return false
	}
	a, b := s.min.T, v.T
	switch {
	case a.IsString() || b.IsString():
		return a.IsString() && b.IsString()
	case a.IsTemporal() || b.IsTemporal():
		return a.IsTemporal() && b.IsTemporal()
	}
	return a.IsNumeric() && b.IsNumeric() || a.Kind == b.Kind
}

func (s *colStat) outside(v types.Datum) bool {
	if !s.comparable(v) || s.max == nil {
		return false
	}
	return types.Compare(v, *s.min) < 0 || types.Compare(v, *s.max) > 0
}

// numeric is a datum on a line for interpolation (ok false: strings).
func numeric(d types.Datum) (float64, bool) {
	switch {
	case d.T.Kind == types.Date:
		return float64(d.I) * 86400e6, true
	case d.T.Kind == types.DateTime:
		return float64(d.I), true
	case d.T.IsNumeric() || d.T.Kind == types.Boolean:
		return d.Float(), true
	}
	return 0, false
}

// frac is where v lies in [lo, hi] (0..1; 0.5 when it cannot say).
func frac(v, lo, hi types.Datum) float64 {
	x, ok1 := numeric(v)
	a, ok2 := numeric(lo)
	b, ok3 := numeric(hi)
	if !ok1 || !ok2 || !ok3 || b <= a {
		return 0.5
	}
	return clamp((x - a) / (b - a))
}

// below is the fraction of all rows whose value is < v (<= v when
// inclusive), NULLs never counted.
func (s *colStat) below(v types.Datum, inclusive bool) float64 {
	nonNull := 1 - s.nullFrac
	if !s.comparable(v) {
		return nonNull / 3 // Doris's default range selectivity
	}
	if len(s.hist) > 0 {
		last := s.hist[len(s.hist)-1]
		total := last.PreSum + last.Count
		if total <= 0 {
			return nonNull / 3
		}
		for _, b := range s.hist {
			lo, hi := types.Compare(v, b.Lower), types.Compare(v, b.Upper)
			switch {
			case lo < 0:
				return nonNull * b.PreSum / total
			case hi < 0 || hi == 0 && !inclusive:
				// Inside the bucket: interpolate; a value equal to the
				// lower bound keeps (or drops) its share of the bucket.
				f := frac(v, b.Lower, b.Upper)
				if lo == 0 {
					f = 0
					if inclusive {
						f = 1 / float64(max(b.NDV, 1))
					}
				}
				return nonNull * (b.PreSum + f*b.Count) / total
			}
		}
		return nonNull
	}
	if s.max == nil {
		return nonNull / 3
	}
	switch {
	case types.Compare(v, *s.min) < 0:
		return 0
	case types.Compare(v, *s.max) > 0:
		return nonNull
	}
	f := frac(v, *s.min, *s.max)
	if inclusive {
		f += 1 / s.ndv
	}
	return nonNull * clamp(f)
}

// groupRows estimates an aggregation's groups: the product of the keys'
// NDVs, each capped by the input rows; "" without statistics for every key.
func (d *distPlanner) groupRows(in int64, groups []expr.Expr) (int64, string) {
	if in < 0 || len(groups) == 0 || d.cstats == nil {
		return in, ""
	}
	prod := 1.0
	var notes []string
	for _, g := range groups {
		s := d.refStat(g)
		if s == nil {
			return in, ""
		}
		n := s.ndv
		if s.nullFrac > 0 {
			n++ // NULL is a group of its own
		}
		prod *= min(n, float64(in))
		notes = append(notes, fmt.Sprintf("ndv(%s)=%.0f", s.name, s.ndv))
	}
	// In floating point: a product of many NDVs overflows an int64.
	return max(1, int64(math.Round(min(float64(in), prod)))), "statistics: " + strings.Join(notes, ", ")
}

// joinRows estimates an equi join's rows from its keys' NDVs: per pair of
// relations the most selective key; ok false without statistics on both
// sides of any key.
func (d *distPlanner) joinRows(typ fragment.JoinType, l, r *pnode, equi []logical.EquiCond) (int64, string, bool) {
	if l.rows < 0 || r.rows < 0 || d.cstats == nil {
		return 0, "", false
	}
	// Conjuncts between the same two relations are one (often composite)
	// key: the most selective counts. Conjuncts between different pairs
	// (a cycle: Q5's c_nationkey = s_nationkey next to l_suppkey =
	// s_suppkey) filter independently: their selectivities multiply.
	type pair struct{ l, r string }
	denom := map[pair]float64{}
	var order []pair
	best, bl, br := 0.0, 0.0, 0.0
	var notes []string
	for _, e := range equi {
		ls, rs := d.refStat(e.L), d.refStat(e.R)
		if ls == nil || rs == nil {
			continue
		}
		nl, nr := min(ls.ndv, float64(max(l.rows, 1))), min(rs.ndv, float64(max(r.rows, 1)))
		m := max(nl, nr)
		k := pair{ls.rel, rs.rel}
		if _, ok := denom[k]; !ok {
			order = append(order, k)
		}
		if m > denom[k] {
			denom[k] = m
		}
		if m > best {
			best, bl, br = m, nl, nr
		}
		notes = append(notes, fmt.Sprintf("ndv(%s)=%.0f, ndv(%s)=%.0f", ls.name, ls.ndv, rs.name, rs.ndv))
	}
	if best == 0 {
		return 0, "", false
	}
	note := "statistics: " + strings.Join(notes, ", ")
	L, R := float64(l.rows), float64(r.rows)
	inner := L * R
	for _, k := range order {
		inner /= denom[k]
	}
	var rows float64
	switch typ {
	case fragment.JoinInner:
		rows = inner
	case fragment.JoinLeftOuter:
		rows = max(inner, L)
	case fragment.JoinRightOuter:
		rows = max(inner, R)
	case fragment.JoinFullOuter:
		rows = max(inner, L+R)
	case fragment.JoinLeftSemi:
		rows = L * min(1, br/bl)
	case fragment.JoinRightSemi:
		rows = R * min(1, bl/br)
	case fragment.JoinLeftAnti, fragment.JoinNullAwareLeftAnti:
		rows = L * max(defaultSel, 1-min(1, br/bl))
	case fragment.JoinRightAnti:
		rows = R * max(defaultSel, 1-min(1, bl/br))
	default:
		return 0, "", false
	}
	return max(1, int64(math.Round(rows))), note, true
}

// writeCard prints a node's cardinality and, in VERBOSE when the statement
// read any table with statistics, where the estimate came from.
func (n *pnode) writeCard(w *explain.Writer) {
	w.Attr("cardinality=%d", n.rows)
	if w.Verbose() && n.pl != nil && n.pl.anyStats {
		src := n.est
		if src == "" {
			src = "default"
		}
		w.Attr("cardinality from: %s", src)
	}
}
