package eval

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// The rest of the math set: trigonometry, pmod, conv/bin/oct, rand.

func f1(f func(float64) float64) kernel {
	return f64Kernel(func(x []float64) (float64, bool) {
		r := f(x[0])
		return r, !math.IsNaN(r)
	})
}

var mathLibKernels = map[string]kernel{
	"sin":  f1(math.Sin),
	"cos":  f1(math.Cos),
	"tan":  f1(math.Tan),
	"asin": f1(math.Asin),
	"acos": f1(math.Acos),
	"atan": f64Kernel(func(x []float64) (float64, bool) {
		if len(x) == 2 {
			return math.Atan2(x[0], x[1]), true
		}
		return math.Atan(x[0]), true
	}),
	"atan2": f64Kernel(func(x []float64) (float64, bool) { return math.Atan2(x[0], x[1]), true }),
	"cot": f64Kernel(func(x []float64) (float64, bool) {
		t := math.Tan(x[0])
		return 1 / t, t != 0
	}),
	"degrees": f1(func(v float64) float64 { return v * 180 / math.Pi }),
	"radians": f1(func(v float64) float64 { return v * math.Pi / 180 }),
	"e":       f64Kernel(func(x []float64) (float64, bool) { return math.E, true }),
	"cbrt":    f1(math.Cbrt),
	"mod_double": f64Kernel(func(x []float64) (float64, bool) {
		return math.Mod(x[0], x[1]), x[1] != 0
	}),
	"pmod":     pmodKernel,
	"positive": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) { return passThrough(args[0]), nil },
	"negative": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		return arithKernels["negate"](ev, c, args)
	},
	"conv": strKernel(func(r *strRow) (string, bool) { return conv(r.s(0), r.i(1), r.i(2)) }),
	"bin":  strKernel(func(r *strRow) (string, bool) { return strconv.FormatUint(uint64(r.i(0)), 2), true }),
	"oct":  strKernel(func(r *strRow) (string, bool) { return strconv.FormatUint(uint64(r.i(0)), 8), true }),
	"rand": randKernel,
}

func passThrough(v vec) vec {
	v.arr.Retain()
	return vec{arr: v.arr, scalar: v.scalar, owned: true}
}

// pmodKernel: the positive modulo ((a % b) + b) % b; b = 0 gives NULL.
func pmodKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	m := ev.rows(args)
	switch args[0].arr.(type) {
	case *array.Int64:
		as, bs := i64s(args[0]), i64s(args[1])
		b := array.NewInt64Builder(ev.mem)
		defer b.Release()
		for i := 0; i < m; i++ {
			x, y := as[args[0].idx(i)], bs[args[1].idx(i)]
			if args[0].isNull(i) || args[1].isNull(i) || y == 0 {
				b.AppendNull()
				continue
			}
			if y == -1 {
				b.Append(0)
				continue
			}
			b.Append((x%y + y) % y)
		}
		return builderVec(b, args), nil
	case *array.Float64:
		return f64Kernel(func(x []float64) (float64, bool) {
			return math.Mod(math.Mod(x[0], x[1])+x[1], x[1]), x[1] != 0
		})(ev, c, args)
	}
	return vec{}, sqlerr.Assertf("eval: pmod of %s", args[0].arr.DataType())
}

// conv is MySQL's CONV: the longest valid prefix of s in base from,
// printed in base to (negative to: signed).
func conv(s string, from, to int64) (string, bool) {
	fb, tb := abs64(from), abs64(to)
	if fb < 2 || fb > 36 || tb < 2 || tb > 36 {
		return "", false
	}
	s = strings.TrimSpace(s)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var v uint64
	overflow := false
	n := 0
	for ; n < len(s); n++ {
		d := digitVal(s[n])
		if d < 0 || int64(d) >= fb {
			break
		}
		nv := v*uint64(fb) + uint64(d)
		if nv/uint64(fb) != v {
			overflow = true
		}
		v = nv
	}
	if overflow {
		v = math.MaxUint64
	}
	if neg {
		if to < 0 {
			return "-" + strings.ToUpper(strconv.FormatUint(v, int(tb))), true
		}
		v = -v
	}
	if to < 0 && int64(v) < 0 {
		return "-" + strings.ToUpper(strconv.FormatUint(uint64(-int64(v)), int(tb))), true
	}
	return strings.ToUpper(strconv.FormatUint(v, int(tb))), true
}

func digitVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return -1
}

// randKernel: RAND() is uniform on [0, 1) per row; RAND(seed) repeats the
// same sequence for the same seed (the first row's, per batch).
func randKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	m := ev.n
	if ev.rec == nil {
		m = 1
	}
	var src *rand.Rand
	switch {
	case len(args) == 1 && args[0].isNull(0):
		src = rand.New(rand.NewPCG(0, 0)) // MySQL: RAND(NULL) is RAND(0)
	case len(args) == 1:
		src = rand.New(rand.NewPCG(uint64(i64s(args[0])[args[0].idx(0)]), 0))
	default:
		src = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	buf, out := fixedBuf[float64](ev.mem, m)
	for i := range out {
		out[i] = src.Float64()
	}
	return vec{arr: newArray(types.DoubleT, m, nil, buf, 0), owned: true, scalar: ev.rec == nil}, nil
}
