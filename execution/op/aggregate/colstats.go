package aggregate

import (
	"math/rand/v2"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/axiomhq/hyperloglog"
	"github.com/dorisgo/dorisgo/sql/sketch"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Column statistics for ANALYZE: a backend feeds one tablet's batches to a
// ColumnCollector per column; the FE merges the tablets' partials
// (MergeColumnPartials): counts add, HyperLogLog sketches merge (so a value
// in two tablets counts once), min/max combine, and the samples, weighted
// by the rows each stands for, become one equi-height histogram.

// SampleSize is how many non-NULL values a tablet keeps for the histogram.
const SampleSize = 512

// ColumnPartial is one tablet's statistics of one column.
type ColumnPartial struct {
	Rows  int64  `json:"rows"`  // rows seen (sampled rows under WITH SAMPLE)
	Nulls int64  `json:"nulls"` // of those, NULL
	Bytes int64  `json:"bytes"` // value bytes of the non-NULL rows seen
	HLL   []byte `json:"hll"`
	// Min and Max are nil when every row seen was NULL.
	Min *types.Datum `json:"min,omitempty"`
	Max *types.Datum `json:"max,omitempty"`
	// Sample is a uniform sample of the non-NULL values seen.
	Sample []types.Datum `json:"sample,omitempty"`
}

// Prepare readies the datums for JSON (decimals as text).
func (p *ColumnPartial) Prepare() {
	each(p, (*types.Datum).Prepare)
}

// Restore undoes Prepare after decoding.
func (p *ColumnPartial) Restore() {
	each(p, (*types.Datum).Restore)
}

func each(p *ColumnPartial, f func(*types.Datum)) {
	if p.Min != nil {
		f(p.Min)
	}
	if p.Max != nil {
		f(p.Max)
	}
	for i := range p.Sample {
		f(&p.Sample[i])
	}
}

// ColumnCollector accumulates one column of one tablet.
type ColumnCollector struct {
	t    types.T
	p    ColumnPartial
	hll  *hyperloglog.Sketch
	buf  []byte
	rate float64 // row sampling probability (1: every row)
	rng  *rand.Rand
	seen int64 // non-NULL values offered to the reservoir
}

// NewColumnCollector collects a column of type t, keeping each row with
// probability rate (1 or more: every row). seed makes the sample
// reproducible per tablet.
func NewColumnCollector(t types.T, rate float64, seed uint64) *ColumnCollector {
	return &ColumnCollector{t: t, hll: sketch.NewHLL(), rate: rate, rng: rand.New(rand.NewPCG(seed, 0x5eed))}
}

// Add folds one batch's column in.
func (c *ColumnCollector) Add(col arrow.Array) {
	n := col.Len()
	var rows []int
	if c.rate < 1 {
		rows = make([]int, 0, int(float64(n)*c.rate)+1)
		for i := 0; i < n; i++ {
			if c.rng.Float64() < c.rate {
				rows = append(rows, i)
			}
		}
	}
	count := n
	if rows != nil {
		count = len(rows)
	}
	c.p.Rows += int64(count)
	at := func(k int) int {
		if rows == nil {
			return k
		}
		return rows[k]
	}
	nulls := col.NullN() > 0
	width := int64(c.t.Width())
	str, isStr := col.(*array.String)
	lo, hi := -1, -1
	for k := 0; k < count; k++ {
		i := at(k)
		if nulls && col.IsNull(i) {
			c.p.Nulls++
			continue
		}
		c.buf = valueBytes(c.buf[:0], col, i)
		c.hll.Insert(c.buf)
		if isStr {
			c.p.Bytes += int64(len(str.Value(i)))
		} else {
			c.p.Bytes += width
		}
		if lo < 0 || less(col, i, lo) {
			lo = i
		}
		if hi < 0 || less(col, hi, i) {
			hi = i
		}
		c.offer(col, i)
	}
	if lo >= 0 {
		c.keep(&c.p.Min, types.DatumAt(col, lo, c.t), -1)
		c.keep(&c.p.Max, types.DatumAt(col, hi, c.t), 1)
	}
}

// offer is reservoir sampling (algorithm R) of the non-NULL values.
func (c *ColumnCollector) offer(col arrow.Array, i int) {
	c.seen++
	if len(c.p.Sample) < SampleSize {
		c.p.Sample = append(c.p.Sample, types.DatumAt(col, i, c.t))
		return
	}
	if j := c.rng.Int64N(c.seen); j < SampleSize {
		c.p.Sample[j] = types.DatumAt(col, i, c.t)
	}
}

func (c *ColumnCollector) keep(dst **types.Datum, d types.Datum, sign int) {
	if *dst == nil || types.Compare(d, **dst)*sign > 0 {
		*dst = &d
	}
}

// Partial is what was collected.
func (c *ColumnCollector) Partial() ColumnPartial {
	p := c.p
	p.HLL = sketch.HLLBytes(c.hll)
	return p
}

// less compares rows i and j of a non-NULL column by value.
func less(col arrow.Array, i, j int) bool {
	switch a := col.(type) {
	case *array.Int8:
		return a.Value(i) < a.Value(j)
	case *array.Int16:
		return a.Value(i) < a.Value(j)
	case *array.Int32:
		return a.Value(i) < a.Value(j)
	case *array.Int64:
		return a.Value(i) < a.Value(j)
	case *array.Float32:
		return a.Value(i) < a.Value(j)
	case *array.Float64:
		return a.Value(i) < a.Value(j)
	case *array.Date32:
		return a.Value(i) < a.Value(j)
	case *array.Timestamp:
		return a.Value(i) < a.Value(j)
	case *array.String:
		return a.Value(i) < a.Value(j)
	case *array.Decimal128:
		return a.Value(i).Less(a.Value(j))
	case *array.Boolean:
		return !a.Value(i) && a.Value(j)
	}
	return false
}

// HistogramBucket is one bucket of an equi-height histogram: the values in
// [Lower, Upper], how many rows they are, and the rows of all buckets before.
type HistogramBucket struct {
	Lower  types.Datum `json:"lower"`
	Upper  types.Datum `json:"upper"`
	NDV    int64       `json:"ndv"`
	Count  float64     `json:"count"`
	PreSum float64     `json:"pre_sum"`
}

// ColumnSummary is a column's merged statistics.
type ColumnSummary struct {
	Rows, Nulls, Bytes int64 // scaled to the whole table under sampling
	NDV                int64
	Min, Max           *types.Datum
	Histogram          []HistogramBucket
}

// MaxBuckets bounds a histogram (Doris's default histogram buckets: 128).
const MaxBuckets = 128

// MergeColumnPartials merges the tablets' partials of one column. tableRows
// is the table's row count: under sampling (seen rows fewer) counts scale up
// and an NDV that grew with the sample (most values distinct) scales too.
func MergeColumnPartials(parts []ColumnPartial, tableRows int64) ColumnSummary {
	var s ColumnSummary
	hll := sketch.NewHLL()
	type weighted struct {
		d types.Datum
		w float64
	}
	var sample []weighted
	for _, p := range parts {
		s.Rows += p.Rows
		s.Nulls += p.Nulls
		s.Bytes += p.Bytes
		sketch.MergeHLL(hll, sketch.HLL(p.HLL))
		if p.Min != nil && (s.Min == nil || types.Compare(*p.Min, *s.Min) < 0) {
			s.Min = p.Min
		}
		if p.Max != nil && (s.Max == nil || types.Compare(*p.Max, *s.Max) > 0) {
			s.Max = p.Max
		}
		if len(p.Sample) > 0 {
			w := float64(p.Rows-p.Nulls) / float64(len(p.Sample))
			for _, d := range p.Sample {
				sample = append(sample, weighted{d, w})
			}
		}
	}
	s.NDV = int64(hll.Estimate())
	seen := s.Rows
	if tableRows > seen && seen > 0 {
		f := float64(tableRows) / float64(seen)
		if nonNull := seen - s.Nulls; nonNull > 0 && float64(s.NDV) >= 0.9*float64(nonNull) {
			s.NDV = int64(float64(s.NDV) * f)
		}
		s.Rows, s.Nulls, s.Bytes = tableRows, int64(float64(s.Nulls)*f), int64(float64(s.Bytes)*f)
		for i := range sample {
			sample[i].w *= f
		}
	}
	if nonNull := s.Rows - s.Nulls; s.NDV > nonNull {
		s.NDV = nonNull
	}
	sort.SliceStable(sample, func(i, j int) bool { return types.Compare(sample[i].d, sample[j].d) < 0 })
	var total float64
	for _, x := range sample {
		total += x.w
	}
	if len(sample) == 0 || total <= 0 {
		return s
	}
	per := total / float64(min(MaxBuckets, len(sample)))
	var cur *HistogramBucket
	var pre float64
	for i, x := range sample {
		// Equal values never straddle two buckets.
		sameAsPrev := i > 0 && types.Compare(x.d, sample[i-1].d) == 0
		if cur == nil || (cur.Count >= per && !sameAsPrev) {
			if cur != nil {
				pre += cur.Count
			}
			s.Histogram = append(s.Histogram, HistogramBucket{Lower: x.d, Upper: x.d, PreSum: pre})
			cur = &s.Histogram[len(s.Histogram)-1]
		}
		if !sameAsPrev || cur.NDV == 0 {
			cur.NDV++
		}
		cur.Upper = x.d
		cur.Count += x.w
	}
	return s
}
