package join

import (
	"context"
	"math"
	"math/bits"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/eval"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// RuntimeFilters are one fragment instance's runtime filters by id: hash
// joins publish their build keys once built, scans below them read them.
// A filter is only ever published complete (see fragment.AssignRuntimeFilters),
// so a scan may apply it as soon as it is there and must skip it until then.
//
// Global filters (RFBuild.Global) go to Send instead: the backend ships
// this instance's part to the backends of the target scans, which merge
// the parts of every instance of the join in Global.
type RuntimeFilters struct {
	mu sync.Mutex
	m  map[int]*RuntimeFilter
	// Send ships a global filter's part (nil: the instance sends none).
	Send func(id int, f *RuntimeFilter)
	// Global holds the global filters this instance's scans apply, merged
	// on its backend; Wait is how long a scan waits for them before its
	// first read.
	Global *GlobalFilters
	Wait   time.Duration
	// Scale is how many instances build each global filter: a part's
	// bloom is sized for that many times its own keys, so that the merged
	// one keeps its bits per key.
	Scale int
}

// scale is the sizing factor of filter b's bloom.
func (r *RuntimeFilters) scale(b fragment.RFBuild) int {
	if r == nil || !b.Global || r.Scale < 1 {
		return 1
	}
	return r.Scale
}

// NewRuntimeFilters returns an empty set.
func NewRuntimeFilters() *RuntimeFilters { return &RuntimeFilters{m: map[int]*RuntimeFilter{}} }

func (r *RuntimeFilters) publish(id int, f *RuntimeFilter) {
	if r == nil || f == nil {
		return
	}
	r.mu.Lock()
	if _, ok := r.m[id]; !ok {
		r.m[id] = f
	}
	r.mu.Unlock()
}

// publishBuilt hands over a filter of the join's build side: a global one
// to Send, a local one to the instance's scans.
func (r *RuntimeFilters) publishBuilt(b fragment.RFBuild, f *RuntimeFilter) {
	if r == nil {
		return
	}
	if b.Global {
		if f == nil {
			f = &RuntimeFilter{all: true} // the targets must not wait for it
		}
		if r.Send != nil {
			r.Send(b.ID, f)
		}
		return
	}
	r.publish(b.ID, f)
}

func (r *RuntimeFilters) get(id int) *RuntimeFilter {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.m[id]
}

// target is the filter a scan target applies now (nil: not there yet).
func (r *RuntimeFilters) target(t fragment.RFTarget) *RuntimeFilter {
	if t.Global {
		return r.Global.Get(t.ID)
	}
	return r.get(t.ID)
}

// RuntimeFilter is a set of int64 build keys: their min/max and a blocked
// bloom filter (one 64-bit word per key, three bits in it), so a probe
// value costs a range check and one cache line. False positives only let
// rows through that the join then drops.
type RuntimeFilter struct {
	empty    bool
	all      bool // passes every value (a global filter whose build could not make one)
	min, max int64
	// set, when not nil, is the exact set: bit v-min of the bitmap over
	// [min, max], in place of the bloom (words, more are nil). Keys over a
	// narrow range (a dimension's dense IDs) test one bit, no hash: TPC-H
	// Q11's filter of 400 supplier keys over 800,000 partsupp rows was a
	// quarter of its CPU as a bloom.
	set   []uint64
	words []uint64
	shift uint // word index = hash >> shift
	// more are further blooms of a merged global filter whose parts were
	// of too different sizes to fold into one: a value passes when any
	// bloom has it.
	more []bloom
}

// bloom is one blocked bloom filter of a merged filter.
type bloom struct {
	words []uint64
	shift uint
}

func (b bloom) has(h uint64) bool {
	m := bloomMask(h)
	return b.words[wordOf(h, b.shift)]&m == m
}

// newRuntimeFilter collects key's non-NULL values; nil when the key's type
// is not one the filter holds.
func newRuntimeFilter(key arrow.Array, scale int) *RuntimeFilter {
	if _, ok := rfValues(key); !ok {
		return nil
	}
	n := key.Len() - key.NullN()
	f := &RuntimeFilter{empty: n == 0, min: math.MaxInt64, max: math.MinInt64}
	if f.empty {
		return f
	}
	vals := op.FixedKeyValues(key, make([]uint64, key.Len()))
	nulls := key.NullN() > 0
	for i, u := range vals {
		if nulls && key.IsNull(i) {
			continue
		}
		f.min, f.max = min(f.min, int64(u)), max(f.max, int64(u))
	}
	if setFits(f.min, f.max, n*scale) {
		f.set = make([]uint64, setWords(f.min, f.max))
		for i, u := range vals {
			if !nulls || !key.IsNull(i) {
				d := uint64(int64(u) - f.min)
				f.set[d>>6] |= 1 << (d & 63)
			}
		}
		return f
	}
	f.initBloom(n * scale)
	for i, u := range vals {
		if !nulls || !key.IsNull(i) {
			f.addBloom(u)
		}
	}
	return f
}

// setFits: keys over [lo, hi] go in an exact bitmap when it takes at most
// 64 bits a key (four times the bloom's 16; keys: how many the filter will
// hold) or 32 KiB whatever the keys, and never more than 2 MiB. Probing a
// bitmap is one bit test and no hash: 2.0 ns a row against the bloom's 5.4
// even for 214k keys over 6M (a 750 KiB bitmap), 1.7 against 4.6 for SSB
// Q2.3's 194 part keys over 200k (BenchmarkRuntimeFilterKeep). The bound
// in keys keeps a filter of a few keys over a wide range, which a global
// filter ships between backends, small.
func setFits(lo, hi int64, keys int) bool {
	span := uint64(hi - lo) // hi >= lo
	return span < maxSetBits && (span < 1<<18 || span < 64*uint64(keys))
}

// maxSetBits bounds an exact set's bitmap (2 MiB).
const maxSetBits = 1 << 24

func setWords(lo, hi int64) int { return int(uint64(hi-lo)>>6) + 1 }

// initBloom sizes an empty bloom for about n keys: 16 bits per key, a
// power of two of words, at most 16 MiB.
func (f *RuntimeFilter) initBloom(n int) {
	w := 1
	for w*4 < n && w < 1<<21 {
		w <<= 1
	}
	f.words = make([]uint64, w)
	f.shift = uint(64 - bits.TrailingZeros(uint(w)))
}

func (f *RuntimeFilter) addBloom(u uint64) {
	h := op.FixedHash(u)
	f.words[f.word(h)] |= bloomMask(h)
}

func (f *RuntimeFilter) word(h uint64) uint64 { return wordOf(h, f.shift) }

// wordOf is the word of a bloom of 64-shift index bits holding hash h.
func wordOf(h uint64, shift uint) uint64 {
	if shift >= 64 {
		return 0
	}
	return h >> shift
}

func bloomMask(h uint64) uint64 { return 1<<(h&63) | 1<<((h>>6)&63) | 1<<((h>>12)&63) }

// intVals is a column's values read as int64 (the join's key encoding).
type intVals struct {
	i8  []int8
	i16 []int16
	i32 []int32
	i64 []int64
}

func rfValues(a arrow.Array) (intVals, bool) {
	switch c := a.(type) {
	case *array.Int8:
		return intVals{i8: c.Int8Values()}, true
	case *array.Int16:
		return intVals{i16: c.Int16Values()}, true
	case *array.Int32:
		return intVals{i32: c.Int32Values()}, true
	case *array.Int64:
		return intVals{i64: c.Int64Values()}, true
	case *array.Date32:
		return intVals{i32: arrow.Int32Traits.CastFromBytes(arrow.Date32Traits.CastToBytes(c.Date32Values()))}, true
	case *array.Timestamp:
		return intVals{i64: arrow.Int64Traits.CastFromBytes(arrow.TimestampTraits.CastToBytes(c.TimestampValues()))}, true
	}
	return intVals{}, false
}

// keepRows narrows sel (row numbers, ascending) to the rows whose value
// may be a build key; NULL never is.
func keepRows[T int8 | int16 | int32 | int64](f *RuntimeFilter, vals []T, a arrow.Array, sel []int32, mixed bool) []int32 {
	out := sel[:0]
	nulls := a.NullN() > 0
	if f.empty {
		return out
	}
	if f.set != nil {
		span := uint64(f.max - f.min)
		if !nulls && mixed {
			// Branch-free: every row is written, the next slot taken only
			// if it passes. A filter keeping a fifth of its rows (SSB Q3's
			// customers of one region) would mispredict a branch per row
			// one time in five: 2.2 ns a row against 1.8 (2000 keys over
			// 10k, BenchmarkRuntimeFilterKeep); when nearly every row or
			// nearly none passes, the branch is the faster (it lets the
			// loads of a bitmap bigger than the cache run ahead). out
			// trails sel, so the writes never overtake the reads.
			set, k := f.set, 0
			out = sel[:len(sel)]
			for _, i := range sel {
				d := uint64(int64(vals[i]) - f.min)
				in := d <= span
				w := d >> 6
				if !in {
					w = 0
				}
				out[k] = i
				k += int(set[w]>>(d&63)&1) & b2i(in)
			}
			return out[:k]
		}
		for _, i := range sel {
			d := uint64(int64(vals[i]) - f.min)
			if d <= span && f.set[d>>6]&(1<<(d&63)) != 0 && (!nulls || a.IsValid(int(i))) {
				out = append(out, i)
			}
		}
		return out
	}
	for _, i := range sel {
		v := int64(vals[i])
		if v < f.min || v > f.max || (nulls && a.IsNull(int(i))) {
			continue
		}
		h := op.FixedHash(uint64(v))
		if m := bloomMask(h); f.words[f.word(h)]&m == m {
			out = append(out, i)
			continue
		}
		for _, b := range f.more {
			if b.has(h) {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// keepAll is keep (mixed: keepMixed) over every row of a, into out (a
// buffer to reuse). A set over a column without NULLs reads the values in
// order, without first listing every row number: the first filter of a
// scan tests all of its rows.
func (f *RuntimeFilter) keepAll(a arrow.Array, out []int32, mixed bool) []int32 {
	n := a.Len()
	if f.empty {
		return out[:0]
	}
	if !f.all && f.set != nil && a.NullN() == 0 {
		v, _ := rfValues(a)
		switch {
		case v.i8 != nil:
			return setDense(f, v.i8[:n], out, mixed)
		case v.i16 != nil:
			return setDense(f, v.i16[:n], out, mixed)
		case v.i32 != nil:
			return setDense(f, v.i32[:n], out, mixed)
		case v.i64 != nil:
			return setDense(f, v.i64[:n], out, mixed)
		}
	}
	out = op.GrowInt32(out, n)
	for i := range out {
		out[i] = int32(i)
	}
	return f.keepRows(a, out, mixed)
}

// setDense is keepRows' set loops over rows 0..len(vals)-1.
func setDense[T int8 | int16 | int32 | int64](f *RuntimeFilter, vals []T, out []int32, mixed bool) []int32 {
	span, set := uint64(f.max-f.min), f.set
	out = op.GrowInt32(out, len(vals))
	k := 0
	if mixed {
		for i, v := range vals {
			d := uint64(int64(v) - f.min)
			in := d <= span
			w := d >> 6
			if !in {
				w = 0
			}
			out[k] = int32(i)
			k += int(set[w]>>(d&63)&1) & b2i(in)
		}
		return out[:k]
	}
	for i, v := range vals {
		d := uint64(int64(v) - f.min)
		if d <= span && set[d>>6]&(1<<(d&63)) != 0 {
			out[k] = int32(i)
			k++
		}
	}
	return out[:k]
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (f *RuntimeFilter) keep(a arrow.Array, sel []int32) []int32 { return f.keepRows(a, sel, false) }

// keepMixed is keep for a filter seen to keep neither nearly all nor nearly
// none of the rows (see keepRows).
func (f *RuntimeFilter) keepMixed(a arrow.Array, sel []int32) []int32 {
	return f.keepRows(a, sel, true)
}

func (f *RuntimeFilter) keepRows(a arrow.Array, sel []int32, mixed bool) []int32 {
	if f.all {
		return sel
	}
	v, _ := rfValues(a)
	switch {
	case v.i8 != nil:
		return keepRows(f, v.i8, a, sel, mixed)
	case v.i16 != nil:
		return keepRows(f, v.i16, a, sel, mixed)
	case v.i32 != nil:
		return keepRows(f, v.i32, a, sel, mixed)
	case v.i64 != nil:
		return keepRows(f, v.i64, a, sel, mixed)
	}
	return sel
}

// rfUseless: after this many rows a filter that kept more than
// rfKeepRatio of them is dropped for the rest of the scan (it costs more
// than it saves, e.g. a foreign key joined to its whole dimension).
const (
	rfProbeRows = 1 << 16
	rfKeepRatio = 0.9
)

// ScanFilter applies a scan's pushed conjuncts and then the runtime filters
// targeting it, and gathers the surviving rows of the kept columns once.
type ScanFilter struct {
	child   op.Operator
	env     *op.Env
	pred    expr.Expr // the conjuncts; nil: none
	keep    []int     // output columns (read column indexes); nil: all
	schema  *arrow.Schema
	filters *RuntimeFilters
	targets []fragment.RFTarget
	seen    []int64 // per target: rows tested
	kept    []int64
	off     []bool
	sel     []int32
	sub     []int32 // rows of a gathered batch the conjuncts keep (predicateOn)
	// quiet: no conjunct holds an explicit CAST, which warns per row it
	// cannot convert; only then may the filters go first.
	quiet  bool
	waited bool
}

// waitGlobal waits, before the scan's first read, for its global filters
// until they are all complete or the wait (runtime_filter_wait_time_ms)
// is over; one arriving later still applies from then on. While the
// join's build runs, its probe side could only fill the exchange's
// buffers anyway.
func (s *ScanFilter) waitGlobal(ctx context.Context) error {
	if s.filters == nil || s.filters.Global == nil || s.filters.Wait <= 0 {
		return nil
	}
	var ids []int
	for _, t := range s.targets {
		if t.Global {
			ids = append(ids, t.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	return s.filters.Global.Wait(ctx, ids, s.filters.Wait)
}

var _ op.Operator = (*ScanFilter)(nil)

// NewScanFilter filters child's rows by conjuncts (may be empty), then by
// the targets' filters (their columns index out), and outputs columns keep
// of child's (nil: all), described by out.
func NewScanFilter(env *op.Env, child op.Operator, conjuncts []expr.Expr, keep []int, out []types.Column, filters *RuntimeFilters, targets []fragment.RFTarget) (*ScanFilter, error) {
	s := &ScanFilter{child: child, env: env, filters: filters, targets: targets, keep: keep, schema: types.ArrowSchema(out),
		seen: make([]int64, len(targets)), kept: make([]int64, len(targets)), off: make([]bool, len(targets))}
	s.quiet = true
	for _, c := range conjuncts {
		expr.Walk(c, func(e expr.Expr) bool {
			if c, isCast := e.(*expr.Cast); isCast && c.Explicit {
				s.quiet = false // it warns per row: test it on every row, as the plan says
			}
			return s.quiet
		})
	}
	for _, c := range expr.FuseRanges(conjuncts) {
		if s.pred == nil {
			s.pred = c
			continue
		}
		p, err := expr.NewCall("and", s.pred, c)
		if err != nil {
			return nil, err
		}
		s.pred = p
	}
	return s, nil
}

func (s *ScanFilter) Schema() *arrow.Schema { return s.schema }

func (s *ScanFilter) Close() { s.child.Close() }

var _ op.ScanCounter = (*ScanFilter)(nil)

func (s *ScanFilter) Scanned() (int64, int64) {
	if c, ok := s.child.(op.ScanCounter); ok {
		return c.Scanned()
	}
	return 0, 0
}

// readCol is the read column of output column c.
func (s *ScanFilter) readCol(c int) int {
	if s.keep == nil {
		return c
	}
	if c < len(s.keep) {
		return s.keep[c]
	}
	return -1
}

func (s *ScanFilter) Next(ctx context.Context) (arrow.Record, error) {
	rec, sel, err := s.NextSelected(ctx)
	if err != nil || sel == nil {
		return rec, err
	}
	defer rec.Release()
	cols, err := op.TakeCols(s.env.Mem, rec.Columns(), sel)
	if err != nil {
		return nil, err
	}
	out := array.NewRecord(s.schema, cols, int64(len(sel)))
	op.ReleaseAll(cols)
	return out, nil
}

// filtersSelective: a runtime filter in use has kept under an eighth of
// the rows it tested, so testing the filters first and the conjuncts only
// on the rows they let through is the cheaper order (SSB Q1.3's seven days
// of dates keep 0.3% of lineorder; its BETWEENs on discount and quantity
// then test a few rows of each batch, not all of them).
func (s *ScanFilter) filtersSelective() bool {
	for t := range s.targets {
		if !s.off[t] && s.seen[t] >= 4096 && s.kept[t]*8 < s.seen[t] {
			return true
		}
	}
	return false
}

// predicateOn narrows sel (all: every row) to the rows of rec the
// conjuncts keep, evaluating them on just those rows.
func (s *ScanFilter) predicateOn(rec arrow.Record, sel []int32, all bool) ([]int32, error) {
	if all {
		b, err := eval.EvalPredicate(s.env.Eval, s.pred, rec, s.env.Mem)
		if err != nil {
			return nil, err
		}
		defer b.Release()
		return eval.SelectedIndices(b, sel[:0]), nil
	}
	cols, err := op.TakeCols(s.env.Mem, rec.Columns(), sel)
	if err != nil {
		return nil, err
	}
	sub := array.NewRecord(rec.Schema(), cols, int64(len(sel)))
	op.ReleaseAll(cols)
	defer sub.Release()
	b, err := eval.EvalPredicate(s.env.Eval, s.pred, sub, s.env.Mem)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	s.sub = eval.SelectedIndices(b, s.sub[:0])
	for j, k := range s.sub { // k >= j: in place
		sel[j] = sel[k]
	}
	return sel[:len(s.sub)], nil
}

// CanSelect: a ScanFilter always can.
func (s *ScanFilter) CanSelect() bool { return true }

// NextSelected returns the next batch with a row passing, as its kept
// columns, and the rows that pass (nil: every row).
func (s *ScanFilter) NextSelected(ctx context.Context) (arrow.Record, []int32, error) {
	if !s.waited {
		s.waited = true
		if err := s.waitGlobal(ctx); err != nil {
			return nil, nil, err
		}
	}
	for {
		rec, err := s.child.Next(ctx)
		if err != nil {
			return nil, nil, err
		}
		n := int(rec.NumRows())
		sel := s.sel[:0]
		all := true
		filtersFirst := s.pred != nil && s.quiet && s.filtersSelective()
		if s.pred != nil && !filtersFirst {
			b, err := eval.EvalPredicate(s.env.Eval, s.pred, rec, s.env.Mem)
			if err != nil {
				rec.Release()
				return nil, nil, err
			}
			sel = eval.SelectedIndices(b, sel)
			b.Release()
			all = false
		}
		for t, tg := range s.targets {
			if len(sel) == 0 && !all {
				break
			}
			col := s.readCol(tg.Column)
			if s.off[t] || col < 0 || col >= int(rec.NumCols()) {
				continue
			}
			f := s.filters.target(tg)
			if f == nil || f.all {
				continue
			}
			before := len(sel)
			seen, kept := s.seen[t], s.kept[t]
			mixed := seen > 0 && kept > seen/20 && kept < seen-seen/20
			switch {
			case all:
				before, all = n, false
				sel = f.keepAll(rec.Column(col), sel, mixed)
			case mixed:
				sel = f.keepMixed(rec.Column(col), sel)
			default:
				sel = f.keep(rec.Column(col), sel)
			}
			s.seen[t] += int64(before)
			s.kept[t] += int64(len(sel))
			if s.seen[t] >= rfProbeRows && float64(s.kept[t]) > rfKeepRatio*float64(s.seen[t]) {
				s.off[t] = true
			}
		}
		if filtersFirst && (all || len(sel) > 0) {
			if sel, err = s.predicateOn(rec, sel, all); err != nil {
				rec.Release()
				return nil, nil, err
			}
			all = false
		}
		s.sel = sel
		if !all && len(sel) == 0 {
			rec.Release()
			continue
		}
		in := rec.Columns()
		if s.keep != nil {
			in = make([]arrow.Array, len(s.keep))
			for i, c := range s.keep {
				in[i] = rec.Column(c)
			}
		}
		out := array.NewRecord(s.schema, in, int64(n))
		rec.Release()
		if all || len(sel) == n {
			return out, nil, nil // every row passed
		}
		return out, sel, nil
	}
}
