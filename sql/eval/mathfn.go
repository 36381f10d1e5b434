package eval

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

var mathKernels = map[string]kernel{
	"abs": absKernel, "ceil": ceilFloorKernel, "floor": ceilFloorKernel,
	"round": roundKernel, "truncate": roundKernel, "sign": signKernel,
	"sqrt": f64Kernel(func(x []float64) (float64, bool) { return math.Sqrt(x[0]), x[0] >= 0 }),
	"exp":  f64Kernel(func(x []float64) (float64, bool) { return math.Exp(x[0]), true }),
	"ln":   f64Kernel(func(x []float64) (float64, bool) { return math.Log(x[0]), x[0] > 0 }),
	"log2": f64Kernel(func(x []float64) (float64, bool) { return math.Log2(x[0]), x[0] > 0 }),
	"log10": f64Kernel(func(x []float64) (float64, bool) {
		return math.Log10(x[0]), x[0] > 0
	}),
	"log": f64Kernel(func(x []float64) (float64, bool) {
		if len(x) == 1 {
			return math.Log(x[0]), x[0] > 0
		}
		return math.Log(x[1]) / math.Log(x[0]), x[0] > 0 && x[0] != 1 && x[1] > 0
	}),
	"power": f64Kernel(func(x []float64) (float64, bool) {
		r := math.Pow(x[0], x[1])
		return r, !math.IsNaN(r)
	}),
	"pi": f64Kernel(func(x []float64) (float64, bool) { return math.Pi, true }),
}

// f64Kernel lifts a row function over DOUBLE arguments; !ok gives NULL.
func f64Kernel(f func(x []float64) (float64, bool)) kernel {
	return func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		m := ev.rows(args)
		if len(args) == 0 {
			m = 1
		}
		valid := ev.validityMut(m, args...)
		vb := valid.Bytes()
		buf, out := fixedBuf[float64](ev.mem, m)
		cols := make([][]float64, len(args))
		for k, a := range args {
			cols[k] = f64s(a)
		}
		row := make([]float64, len(args))
		for i := 0; i < m; i++ {
			if !bitutil.BitIsSet(vb, i) {
				continue
			}
			for k, a := range args {
				row[k] = cols[k][a.idx(i)]
			}
			r, ok := f(row)
			if !ok {
				bitutil.ClearBit(vb, i)
				continue
			}
			if math.IsInf(r, 0) {
				buf.Release()
				valid.Release()
				return vec{}, outOfRange(types.DoubleT, c)
			}
			out[i] = r
		}
		return ev.fixedVec(types.DoubleT, m, valid, buf, args), nil
	}
}

func absKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	a := args[0]
	m := a.arr.Len()
	valid := ev.validity(m, a)
	switch src := a.arr.(type) {
	case *array.Int64:
		buf, out := fixedBuf[int64](ev.mem, m)
		for i, v := range src.Int64Values() {
			if v == math.MinInt64 && !a.isNull(i) {
				buf.Release()
				if valid != nil {
					valid.Release()
				}
				return vec{}, outOfRange(types.BigIntT, c)
			}
			out[i] = abs64(v)
		}
		return ev.fixedVec(c.T, m, valid, buf, args), nil
	case *array.Float64:
		buf, out := fixedBuf[float64](ev.mem, m)
		for i, v := range src.Float64Values() {
			out[i] = math.Abs(v)
		}
		return ev.fixedVec(c.T, m, valid, buf, args), nil
	case *array.Decimal128:
		buf, out := fixedBuf[num](ev.mem, m)
		for i, v := range src.Values() {
			out[i] = v.Abs()
		}
		return ev.fixedVec(c.T, m, valid, buf, args), nil
	}
	return vec{}, sqlerr.Assertf("eval: abs %s", a.arr.DataType())
}

func ceilFloorKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	a := args[0]
	m := a.arr.Len()
	valid := ev.validity(m, a)
	ceil := c.Fn == "ceil"
	switch src := a.arr.(type) {
	case *array.Int64:
		a.arr.Retain()
		if valid != nil {
			valid.Release()
		}
		return vec{arr: a.arr, scalar: a.scalar, owned: true}, nil
	case *array.Float64:
		buf, out := fixedBuf[float64](ev.mem, m)
		for i, v := range src.Float64Values() {
			if ceil {
				out[i] = math.Ceil(v)
			} else {
				out[i] = math.Floor(v)
			}
		}
		return ev.fixedVec(c.T, m, valid, buf, args), nil
	case *array.Decimal128:
		s := decScale(src)
		buf, out := fixedBuf[num](ev.mem, m)
		for i, v := range src.Values() {
			q := scaleDown(v, s, false) // truncates toward zero
			back, _ := scaleUp(q, s)
			if back != v {
				if ceil && v.Sign() > 0 {
					q, _ = decAdd(q, pow10[0])
				} else if !ceil && v.Sign() < 0 {
					q, _ = decSub(q, pow10[0])
				}
			}
			out[i] = q
		}
		return ev.fixedVec(c.T, m, valid, buf, args), nil
	}
	return vec{}, sqlerr.Assertf("eval: %s %s", c.Fn, a.arr.DataType())
}

// roundKernel: ROUND rounds half away from zero for exact values and half
// to even for doubles (as MySQL with glibc); TRUNCATE cuts toward zero.
func roundKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	a := args[0]
	m := ev.rows(args)
	round := c.Fn == "round"
	var ds []int64
	if len(args) == 2 {
		ds = i64s(args[1])
	}
	digits := func(i int) int {
		if ds == nil {
			return 0
		}
		d := ds[args[1].idx(i)]
		if d > 38 {
			return 38
		}
		if d < -38 {
			return -38
		}
		return int(d)
	}
	valid := ev.validity(m, args...)
	switch src := a.arr.(type) {
	case *array.Int64:
		buf, out := fixedBuf[int64](ev.mem, m)
		vs := src.Int64Values()
		for i := 0; i < m; i++ {
			v, d := vs[a.idx(i)], digits(i)
			if d >= 0 {
				out[i] = v
				continue
			}
			if -d > 18 {
				out[i] = 0
				continue
			}
			p := pow10i64[-d]
			q, r := v/p, v%p
			if round && 2*abs64(r) >= p {
				q += sign64(v)
			}
			out[i] = q * p
		}
		return ev.fixedVec(c.T, m, valid, buf, args), nil
	case *array.Float64:
		buf, out := fixedBuf[float64](ev.mem, m)
		vs := src.Float64Values()
		for i := 0; i < m; i++ {
			v, d := vs[a.idx(i)], digits(i)
			p := math.Pow10(d)
			x := v * p
			if round {
				x = math.RoundToEven(x)
			} else {
				x = math.Trunc(x)
			}
			out[i] = x / p
			if math.IsInf(x, 0) || math.IsNaN(x) {
				out[i] = v
			}
		}
		return ev.fixedVec(c.T, m, valid, buf, args), nil
	case *array.Decimal128:
		s := decScale(src)
		rs := c.T.Scale
		buf, out := fixedBuf[num](ev.mem, m)
		vs := src.Values()
		for i := 0; i < m; i++ {
			v, d := vs[a.idx(i)], digits(i)
			if d < s {
				// drop s-d digits, then come back to the result scale
				k := s - d
				q := scaleDown(v, k, round)
				if d >= 0 {
					v, _ = rescale(q, d, rs)
				} else {
					v, _ = scaleUp(q, -d+rs)
				}
			} else {
				v, _ = rescale(v, s, rs)
			}
			out[i] = v
		}
		return ev.fixedVec(c.T, m, valid, buf, args), nil
	}
	return vec{}, sqlerr.Assertf("eval: %s %s", c.Fn, a.arr.DataType())
}

func signKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	a := args[0]
	m := a.arr.Len()
	buf, out := fixedBuf[int64](ev.mem, m)
	switch src := a.arr.(type) {
	case *array.Int64:
		for i, v := range src.Int64Values() {
			out[i] = sign64(v)
		}
	case *array.Float64:
		for i, v := range src.Float64Values() {
			switch {
			case v > 0:
				out[i] = 1
			case v < 0:
				out[i] = -1
			default:
				out[i] = 0
			}
		}
	case *array.Decimal128:
		for i, v := range src.Values() {
			out[i] = int64(v.Sign())
		}
	default:
		buf.Release()
		return vec{}, sqlerr.Assertf("eval: sign %s", a.arr.DataType())
	}
	return ev.fixedVec(types.BigIntT, m, ev.validity(m, a), buf, args), nil
}
