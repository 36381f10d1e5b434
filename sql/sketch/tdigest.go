package sketch

import (
	"encoding/binary"
	"math"
	"slices"
)

// TDigest is a merging t-digest (Dunning) for percentile_approx: centroids
// (mean, weight) whose size is bounded by 4·W·q(1−q)/compression, so the
// tails stay exact while the middle is summarized. No t-digest module is
// in the proxy list we may use (/work/.library/env/packages), hence this
// small one. Quantiles interpolate between centroid midpoints as Doris's
// be/src/util/tdigest.h does.
type TDigest struct {
	Compression float64
	means, ws   []float64 // merged centroids, by mean
	buf         []float64 // points not yet merged (weight 1)
	bufW        []float64
	total       float64
	min, max    float64
}

// NewTDigest is an empty digest; compression ≤ 0 takes Doris's default 10000.
func NewTDigest(compression float64) *TDigest {
	if compression <= 0 {
		compression = 10000
	}
	return &TDigest{Compression: compression, min: math.Inf(1), max: math.Inf(-1)}
}

// Add adds one value.
func (t *TDigest) Add(v float64) { t.addW(v, 1) }

func (t *TDigest) addW(v, w float64) {
	t.buf = append(t.buf, v)
	t.bufW = append(t.bufW, w)
	t.total += w
	t.min, t.max = math.Min(t.min, v), math.Max(t.max, v)
	if len(t.buf) >= 8*int(math.Min(t.Compression, 4096))+64 {
		t.compress()
	}
}

// Count is the number of values added.
func (t *TDigest) Count() float64 { return t.total }

// Merge folds o into t.
func (t *TDigest) Merge(o *TDigest) {
	o.compress()
	for i := range o.means {
		t.addW(o.means[i], o.ws[i])
	}
}

func (t *TDigest) compress() {
	if len(t.buf) == 0 {
		return
	}
	type c struct{ m, w float64 }
	all := make([]c, 0, len(t.means)+len(t.buf))
	for i := range t.means {
		all = append(all, c{t.means[i], t.ws[i]})
	}
	for i := range t.buf {
		all = append(all, c{t.buf[i], t.bufW[i]})
	}
	t.buf, t.bufW = t.buf[:0], t.bufW[:0]
	slices.SortStableFunc(all, func(a, b c) int {
		switch {
		case a.m < b.m:
			return -1
		case a.m > b.m:
			return 1
		}
		return 0
	})
	t.means, t.ws = t.means[:0], t.ws[:0]
	cum := 0.0
	for _, x := range all {
		if n := len(t.means); n > 0 {
			last := t.ws[n-1]
			q := (cum - last + (last+x.w)/2) / t.total
			if last+x.w <= 4*t.total*q*(1-q)/t.Compression {
				t.means[n-1] += (x.m - t.means[n-1]) * x.w / (last + x.w)
				t.ws[n-1] += x.w
				cum += x.w
				continue
			}
		}
		t.means = append(t.means, x.m)
		t.ws = append(t.ws, x.w)
		cum += x.w
	}
}

// Quantile estimates the q-quantile (0 ≤ q ≤ 1); NaN when empty.
func (t *TDigest) Quantile(q float64) float64 {
	t.compress()
	n := len(t.means)
	if n == 0 {
		return math.NaN()
	}
	if n == 1 {
		return t.means[0]
	}
	index := q * t.total
	if index < 1 {
		return t.min
	}
	if index > t.total-1 {
		return t.max
	}
	// The first centroid's midpoint sits at half its weight; between
	// midpoints the value is interpolated linearly.
	so := t.ws[0] / 2
	if index < so {
		return t.min + (t.means[0]-t.min)*index/so
	}
	for i := 0; i < n-1; i++ {
		dw := (t.ws[i] + t.ws[i+1]) / 2
		if so+dw > index {
			z1 := index - so
			z2 := so + dw - index
			return (t.means[i]*z2 + t.means[i+1]*z1) / (z1 + z2)
		}
		so += dw
	}
	return t.means[n-1] + (t.max-t.means[n-1])*(index-so)/(t.total-so)
}

// Bytes serializes the digest: compression, min, max, then (mean, weight)
// pairs, little-endian float64s.
func (t *TDigest) Bytes() []byte {
	t.compress()
	b := make([]byte, 0, 24+16*len(t.means))
	for _, f := range []float64{t.Compression, t.min, t.max} {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
	}
	for i := range t.means {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(t.means[i]))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(t.ws[i]))
	}
	return b
}

// ParseTDigest reads Bytes' output; nil for malformed input.
func ParseTDigest(b []byte) *TDigest {
	if len(b) < 24 || (len(b)-24)%16 != 0 {
		return nil
	}
	f := func(i int) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])) }
	t := NewTDigest(f(0))
	t.min, t.max = f(1), f(2)
	for i := 3; 8*i < len(b); i += 2 {
		t.means = append(t.means, f(i))
		t.ws = append(t.ws, f(i+1))
		t.total += f(i + 1)
	}
	return t
}
