package eval

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

var arithKernels = map[string]kernel{
	"add": arithKernel, "subtract": arithKernel, "multiply": arithKernel,
	"divide": arithKernel, "mod": arithKernel, "int_divide": intDivKernel,
	"negate": negateKernel,
	"bitand": bitKernel, "bitor": bitKernel, "bitxor": bitKernel,
	"shift_left": bitKernel, "shift_right": bitKernel, "bitnot": bitnotKernel,
}

// outOfRange is MySQL's error 1690 for an overflowing expression.
func outOfRange(t types.T, c expr.Expr) error {
	name := "BIGINT"
	switch t.Kind {
	case types.Decimal:
		name = "DECIMAL"
	case types.LargeInt:
		name = "LARGEINT"
	case types.Double:
		name = "DOUBLE"
	}
	return sqlerr.DataOutOfRange.New(name, "("+c.String()+")")
}

func arithKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	switch c.T.Kind {
	case types.BigInt:
		return ev.arithI64(c, args[0], args[1])
	case types.Double:
		return ev.arithF64(c, args[0], args[1])
	case types.Decimal, types.LargeInt:
		return ev.arithDec(c, args[0], args[1])
	}
	return vec{}, sqlerr.Assertf("eval: %s of type %s", c.Fn, c.T)
}

// binLoop runs f over a and b with scalar broadcasting.
func binLoop[E, O any](a, b []E, as, bs bool, out []O, f func(x, y E) O) {
	switch {
	case as && !bs:
		x := a[0]
		for i, y := range b[:len(out)] {
			out[i] = f(x, y)
		}
	case bs && !as:
		y := b[0]
		for i, x := range a[:len(out)] {
			out[i] = f(x, y)
		}
	default:
		a, b = a[:len(out)], b[:len(out)]
		for i := range out {
			out[i] = f(a[i], b[i])
		}
	}
}

func (ev *evaluator) arithI64(c *expr.Call, a, b vec) (vec, error) {
	m := ev.rows([]vec{a, b})
	x, y := i64s(a), i64s(b)
	as, bs := a.scalar, b.scalar
	switch c.Fn {
	case "add", "subtract", "multiply":
		buf, out := fixedBuf[int64](ev.mem, m)
		var ovf bool
		switch c.Fn {
		case "add":
			ovf = addI64(x, y, as, bs, out)
		case "subtract":
			ovf = subI64(x, y, as, bs, out)
		default:
			ovf = mulI64(x, y, as, bs, out)
		}
		valid := ev.validity(m, a, b)
		if ovf && ev.overflowInValidRow(c.Fn, x, y, as, bs, valid, m) {
			buf.Release()
			if valid != nil {
				valid.Release()
			}
			return vec{}, outOfRange(types.BigIntT, c)
		}
		return ev.fixedVec(types.BigIntT, m, valid, buf, []vec{a, b}), nil
	case "mod":
		valid := ev.validityMut(m, a, b)
		vb := valid.Bytes()
		buf, out := fixedBuf[int64](ev.mem, m)
		for i := 0; i < m; i++ {
			p, q := x[a.idx(i)], y[b.idx(i)]
			switch q {
			case 0:
				bitutil.ClearBit(vb, i)
			case -1:
				out[i] = 0
			default:
				out[i] = p % q
			}
		}
		return ev.fixedVec(types.BigIntT, m, valid, buf, []vec{a, b}), nil
	}
	return vec{}, sqlerr.Assertf("eval: BIGINT %s", c.Fn)
}

// The overflow loops are branch-free and closure-free: they compute every
// slot and OR an overflow flag; a hit is re-checked against validity (NULL
// slots may hold garbage) on the slow path.
func addI64(x, y []int64, as, bs bool, out []int64) bool {
	var o int64
	switch {
	case as && !bs:
		p := x[0]
		for i, q := range y[:len(out)] {
			r := p + q
			o |= (p ^ r) & (q ^ r)
			out[i] = r
		}
	case bs && !as:
		q := y[0]
		for i, p := range x[:len(out)] {
			r := p + q
			o |= (p ^ r) & (q ^ r)
			out[i] = r
		}
	default:
		x, y = x[:len(out)], y[:len(out)]
		for i := range out {
			p, q := x[i], y[i]
			r := p + q
			o |= (p ^ r) & (q ^ r)
			out[i] = r
		}
	}
	return o < 0
}

func subI64(x, y []int64, as, bs bool, out []int64) bool {
	var o int64
	switch {
	case as && !bs:
		p := x[0]
		for i, q := range y[:len(out)] {
			r := p - q
			o |= (p ^ q) & (p ^ r)
			out[i] = r
		}
	case bs && !as:
		q := y[0]
		for i, p := range x[:len(out)] {
			r := p - q
			o |= (p ^ q) & (p ^ r)
			out[i] = r
		}
	default:
		x, y = x[:len(out)], y[:len(out)]
		for i := range out {
			p, q := x[i], y[i]
			r := p - q
			o |= (p ^ q) & (p ^ r)
			out[i] = r
		}
	}
	return o < 0
}

func mulI64(x, y []int64, as, bs bool, out []int64) bool {
	var o uint64
	switch {
	case as && !bs:
		p := x[0]
		for i, q := range y[:len(out)] {
			hi, lo := mul64(p, q)
			o |= uint64(hi) ^ uint64(int64(lo)>>63)
			out[i] = int64(lo)
		}
	case bs && !as:
		q := y[0]
		for i, p := range x[:len(out)] {
			hi, lo := mul64(p, q)
			o |= uint64(hi) ^ uint64(int64(lo)>>63)
			out[i] = int64(lo)
		}
	default:
		x, y = x[:len(out)], y[:len(out)]
		for i := range out {
			hi, lo := mul64(x[i], y[i])
			o |= uint64(hi) ^ uint64(int64(lo)>>63)
			out[i] = int64(lo)
		}
	}
	return o != 0
}

func (ev *evaluator) overflowInValidRow(fn string, x, y []int64, as, bs bool, valid *memory.Buffer, m int) bool {
	var vb []byte
	if valid != nil {
		vb = valid.Bytes()
	}
	for i := 0; i < m; i++ {
		if !validAt(vb, i) {
			continue
		}
		p, q := x[0], y[0]
		if !as {
			p = x[i]
		}
		if !bs {
			q = y[i]
		}
		var bad bool
		switch fn {
		case "add":
			r := p + q
			bad = (p^r)&(q^r) < 0
		case "subtract":
			r := p - q
			bad = (p^q)&(p^r) < 0
		default:
			hi, lo := mul64(p, q)
			bad = hi != int64(lo)>>63
		}
		if bad {
			return true
		}
	}
	return false
}

func (ev *evaluator) arithF64(c *expr.Call, a, b vec) (vec, error) {
	m := ev.rows([]vec{a, b})
	x, y := f64s(a), f64s(b)
	buf, out := fixedBuf[float64](ev.mem, m)
	switch c.Fn {
	case "add":
		binLoop(x, y, a.scalar, b.scalar, out, func(p, q float64) float64 { return p + q })
	case "subtract":
		binLoop(x, y, a.scalar, b.scalar, out, func(p, q float64) float64 { return p - q })
	case "multiply":
		binLoop(x, y, a.scalar, b.scalar, out, func(p, q float64) float64 { return p * q })
	case "divide", "mod":
		valid := ev.validityMut(m, a, b)
		vb := valid.Bytes()
		for i := 0; i < m; i++ {
			p, q := x[a.idx(i)], y[b.idx(i)]
			if q == 0 {
				bitutil.ClearBit(vb, i)
				continue
			}
			if c.Fn == "divide" {
				out[i] = p / q
			} else {
				out[i] = math.Mod(p, q)
			}
		}
		return ev.checkFloat(c, m, valid, buf, []vec{a, b})
	}
	return ev.checkFloat(c, m, ev.validity(m, a, b), buf, []vec{a, b})
}

// checkFloat raises 1690 for infinite results, as MySQL does for DOUBLE.
func (ev *evaluator) checkFloat(c *expr.Call, m int, valid, buf *memory.Buffer, args []vec) (vec, error) {
	var vb []byte
	if valid != nil {
		vb = valid.Bytes()
	}
	res := ev.fixedVec(types.DoubleT, m, valid, buf, args)
	out := f64s(res)
	for i, f := range out {
		if (math.IsInf(f, 0) || math.IsNaN(f)) && validAt(vb, i) {
			res.release()
			return vec{}, outOfRange(types.DoubleT, c)
		}
	}
	return res, nil
}

func (ev *evaluator) arithDec(c *expr.Call, a, b vec) (vec, error) {
	m := ev.rows([]vec{a, b})
	da, db := a.arr.(*array.Decimal128), b.arr.(*array.Decimal128)
	sa, sb := decScale(da), decScale(db)
	x, y := da.Values(), db.Values()
	rp, rs := c.T.Precision, c.T.Scale
	if c.T.Kind == types.LargeInt {
		// Past 38 digits: decFits takes any 128-bit value (±(2^127-1) has 39).
		rp, rs = types.MaxDecimalPrecision+1, 0
	}
	valid := ev.validityMut(m, a, b)
	vb := valid.Bytes()
	buf, out := fixedBuf[num](ev.mem, m)
	fail := func() (vec, error) {
		buf.Release()
		valid.Release()
		return vec{}, outOfRange(c.T, c)
	}
	if done, ok := arithDecFast(c.Fn, x, y, a.scalar, b.scalar, sa, sb, rs, rp, m, vb, out); done {
		if !ok {
			return fail()
		}
		return ev.fixedVec(c.T, m, valid, buf, []vec{a, b}), nil
	}
	for i := 0; i < m; i++ {
		if !bitutil.BitIsSet(vb, i) {
			continue
		}
		p, q := x[a.idx(i)], y[b.idx(i)]
		var r num
		ok := true
		switch c.Fn {
		case "add", "subtract":
			var ok1, ok2 bool
			p, ok1 = rescale(p, sa, rs)
			q, ok2 = rescale(q, sb, rs)
			if c.Fn == "add" {
				r, ok = decAdd(p, q)
			} else {
				r, ok = decSub(p, q)
			}
			ok = ok && ok1 && ok2
		case "multiply":
			r, ok = decMul(p, q)
			if ok && sa+sb != rs {
				r, ok = rescale(r, sa+sb, rs)
			}
		case "divide":
			if q.Sign() == 0 {
				bitutil.ClearBit(vb, i)
				continue
			}
			r, ok = decDiv(p, q, sa, sb, rs)
		case "mod":
			if q.Sign() == 0 {
				bitutil.ClearBit(vb, i)
				continue
			}
			var ok1, ok2 bool
			p, ok1 = rescale(p, sa, rs)
			q, ok2 = rescale(q, sb, rs)
			r, ok = decMod(p, q)
			ok = ok && ok1 && ok2
		}
		if !ok || !decFits(r, rp) {
			return fail()
		}
		out[i] = r
	}
	return ev.fixedVec(c.T, m, valid, buf, []vec{a, b}), nil
}

// arithDecFast computes add, subtract and multiply in int64 when every
// operand and result fits (TPC-H's money columns always do), which is most
// of a decimal expression's cost otherwise. done is false when it cannot
// (other operators, scales that round, an operand or result beyond int64):
// then nothing was written and the general loop runs. ok is false when a
// result exceeds the result precision (the caller's out-of-range error).
func arithDecFast(fn string, x, y []num, xs, ys bool, sa, sb, rs, rp, m int, vb []byte, out []num) (done, ok bool) {
	var fa, fb int64 = 1, 1
	switch fn {
	case "add", "subtract":
		ka, kb := rs-sa, rs-sb
		if ka < 0 || kb < 0 || ka > 18 || kb > 18 {
			return false, false
		}
		fa, fb = pow10i64[ka], pow10i64[kb]
	case "multiply":
		if sa+sb != rs {
			return false, false
		}
	default:
		return false, false
	}
	var lim int64 // |result| < lim; 0: any int64 fits the precision
	if rp <= 18 {
		lim = pow10i64[rp]
	}
	if rp > types.MaxDecimalPrecision || rp <= 0 {
		return false, false
	}
	// Compute into out; give up on the first value that does not fit
	// int64 (out is then simply overwritten by the general loop).
	mul, sub := fn == "multiply", fn == "subtract"
	maxA, maxB := int64(math.MaxInt64)/fa, int64(math.MaxInt64)/fb // |operand| that cannot overflow its scaling
	if m > 0 && bitutil.CountSetBits(vb, 0, m) == m {
		// No NULL rows: a loop per operation with no per-row branch but
		// the range checks (a scalar operand is read at index i&0).
		ma, mb := -1, -1
		if xs {
			ma = 0
		}
		if ys {
			mb = 0
		}
		if mul {
			return decMulDense(x, y, ma, mb, m, lim, out)
		}
		if sub {
			fb = -fb
		}
		return decAddDense(x, y, ma, mb, m, fa, fb, maxA, maxB, lim, out)
	}
	for i := 0; i < m; i++ {
		if vb[i>>3]&(1<<(i&7)) == 0 {
			continue
		}
		ia, ib := i, i
		if xs {
			ia = 0
		}
		if ys {
			ib = 0
		}
		p, q := x[ia], y[ib]
		pl, ql := int64(p.LowBits()), int64(q.LowBits())
		if p.HighBits() != pl>>63 || q.HighBits() != ql>>63 {
			return false, false
		}
		var r int64
		if mul {
			h, lo := mul64(pl, ql)
			r = int64(lo)
			if h != r>>63 {
				return false, false
			}
		} else {
			if pl > maxA || pl < -maxA || ql > maxB || ql < -maxB {
				return false, false
			}
			u, v := pl*fa, ql*fb
			if sub {
				if v == math.MinInt64 {
					return false, false
				}
				v = -v
			}
			r = u + v
			if (u >= 0) == (v >= 0) && (r >= 0) != (u >= 0) {
				return false, false
			}
		}
		if lim != 0 && (r >= lim || r <= -lim) {
			return true, false
		}
		out[i] = decimal128.FromI64(r)
	}
	return true, true
}

// decMulDense is arithDecFast's multiplication of rows all valid.
func decMulDense(x, y []num, ma, mb, m int, lim int64, out []num) (done, ok bool) {
	out = out[:m]
	for i := range out {
		p, q := x[i&ma], y[i&mb]
		pl, ql := int64(p.LowBits()), int64(q.LowBits())
		h, lo := mul64(pl, ql)
		r := int64(lo)
		if p.HighBits() != pl>>63 || q.HighBits() != ql>>63 || h != r>>63 {
			return false, false
		}
		if lim != 0 && (r >= lim || r <= -lim) {
			return true, false
		}
		out[i] = decimal128.FromI64(r)
	}
	return true, true
}

// decAddDense is arithDecFast's addition (fb negative: subtraction) of
// rows all valid.
func decAddDense(x, y []num, ma, mb, m int, fa, fb, maxA, maxB, lim int64, out []num) (done, ok bool) {
	out = out[:m]
	for i := range out {
		p, q := x[i&ma], y[i&mb]
		pl, ql := int64(p.LowBits()), int64(q.LowBits())
		if p.HighBits() != pl>>63 || q.HighBits() != ql>>63 ||
			pl > maxA || pl < -maxA || ql > maxB || ql < -maxB {
			return false, false
		}
		u, v := pl*fa, ql*fb
		r := u + v
		if (u >= 0) == (v >= 0) && (r >= 0) != (u >= 0) {
			return false, false
		}
		if lim != 0 && (r >= lim || r <= -lim) {
			return true, false
		}
		out[i] = decimal128.FromI64(r)
	}
	return true, true
}

// decMod is the remainder with the dividend's sign (truncated division).
func decMod(p, q num) (num, bool) {
	if x, ok := small(p); ok {
		if y, ok := small(q); ok {
			if y == -1 {
				return num{}, true
			}
			return decimal128.FromI64(x % y), true
		}
	}
	_, r := p.Div(q)
	return r, true
}

func intDivKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	a, b := args[0], args[1]
	m := ev.rows(args)
	valid := ev.validityMut(m, a, b)
	vb := valid.Bytes()
	buf, out := fixedBuf[int64](ev.mem, m)
	fail := func() (vec, error) {
		buf.Release()
		valid.Release()
		return vec{}, outOfRange(types.BigIntT, c)
	}
	switch a.arr.(type) {
	case *array.Int64:
		x, y := i64s(a), i64s(b)
		for i := 0; i < m; i++ {
			p, q := x[a.idx(i)], y[b.idx(i)]
			switch {
			case q == 0:
				bitutil.ClearBit(vb, i)
			case q == -1 && p == math.MinInt64:
				if bitutil.BitIsSet(vb, i) {
					return fail()
				}
			default:
				out[i] = p / q
			}
		}
	case *array.Float64:
		x, y := f64s(a), f64s(b)
		for i := 0; i < m; i++ {
			p, q := x[a.idx(i)], y[b.idx(i)]
			if q == 0 {
				bitutil.ClearBit(vb, i)
				continue
			}
			r := math.Trunc(p / q)
			if r >= 9223372036854775807.0 || r < -9223372036854775808.0 || math.IsNaN(r) {
				if bitutil.BitIsSet(vb, i) {
					return fail()
				}
				continue
			}
			out[i] = int64(r)
		}
	case *array.Decimal128:
		da, db := a.arr.(*array.Decimal128), b.arr.(*array.Decimal128)
		sa, sb := decScale(da), decScale(db)
		x, y := da.Values(), db.Values()
		for i := 0; i < m; i++ {
			if !bitutil.BitIsSet(vb, i) {
				continue
			}
			p, q := x[a.idx(i)], y[b.idx(i)]
			if q.Sign() == 0 {
				bitutil.ClearBit(vb, i)
				continue
			}
			// Align scales, then integer-divide the unscaled values.
			s := sa
			if sb > s {
				s = sb
			}
			p1, ok1 := rescale(p, sa, s)
			q1, ok2 := rescale(q, sb, s)
			if !ok1 || !ok2 {
				return fail()
			}
			r, _ := p1.Div(q1)
			v, ok := small(r)
			if !ok {
				return fail()
			}
			out[i] = v
		}
	default:
		buf.Release()
		valid.Release()
		return vec{}, sqlerr.Assertf("eval: DIV on %s", a.arr.DataType())
	}
	return ev.fixedVec(types.BigIntT, m, valid, buf, args), nil
}

func negateKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	a := args[0]
	m := a.arr.Len()
	valid := ev.validity(m, a)
	var vb []byte
	if valid != nil {
		vb = valid.Bytes()
	}
	switch src := a.arr.(type) {
	case *array.Int64:
		buf, out := fixedBuf[int64](ev.mem, m)
		for i, v := range src.Int64Values() {
			if v == math.MinInt64 && validAt(vb, i) {
				buf.Release()
				if valid != nil {
					valid.Release()
				}
				return vec{}, outOfRange(types.BigIntT, c)
			}
			out[i] = -v
		}
		return ev.fixedVec(c.T, m, valid, buf, args), nil
	case *array.Float64:
		buf, out := fixedBuf[float64](ev.mem, m)
		for i, v := range src.Float64Values() {
			out[i] = -v
		}
		return ev.fixedVec(c.T, m, valid, buf, args), nil
	case *array.Decimal128:
		buf, out := fixedBuf[num](ev.mem, m)
		for i, v := range src.Values() {
			out[i] = v.Negate()
		}
		return ev.fixedVec(c.T, m, valid, buf, args), nil
	}
	return vec{}, sqlerr.Assertf("eval: negate %s", a.arr.DataType())
}

func bitKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	a, b := args[0], args[1]
	m := ev.rows(args)
	buf, out := fixedBuf[int64](ev.mem, m)
	x, y := i64s(a), i64s(b)
	var f func(p, q int64) int64
	switch c.Fn {
	case "bitand":
		f = func(p, q int64) int64 { return p & q }
	case "bitor":
		f = func(p, q int64) int64 { return p | q }
	case "bitxor":
		f = func(p, q int64) int64 { return p ^ q }
	case "shift_left":
		f = func(p, q int64) int64 {
			if q < 0 || q > 63 {
				return 0
			}
			return int64(uint64(p) << uint(q))
		}
	default:
		f = func(p, q int64) int64 {
			if q < 0 || q > 63 {
				return 0
			}
			return int64(uint64(p) >> uint(q))
		}
	}
	binLoop(x, y, a.scalar, b.scalar, out, f)
	return ev.fixedVec(types.BigIntT, m, ev.validity(m, a, b), buf, args), nil
}

func bitnotKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	a := args[0]
	m := a.arr.Len()
	buf, out := fixedBuf[int64](ev.mem, m)
	for i, v := range i64s(a) {
		out[i] = ^v
	}
	return ev.fixedVec(types.BigIntT, m, ev.validity(m, a), buf, args), nil
}
