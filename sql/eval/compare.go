package eval

import (
	"cmp"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

var compareKernels = map[string]kernel{
	"eq": cmpKernel, "ne": cmpKernel, "lt": cmpKernel, "le": cmpKernel, "gt": cmpKernel, "ge": cmpKernel,
	"null_safe_eq": nullSafeEqKernel,
	"in":           inKernel, "not_in": inKernel, "between": betweenKernel,
	"and": andOrKernel, "or": andOrKernel, "xor": xorKernel, "not": notKernel,
	"is_null": isNullKernel, "is_not_null": isNullKernel, "is_true": isTrueKernel, "is_false": isTrueKernel,
	"like": likeKernel, "not_like": likeKernel, "regexp": regexpKernel,
}

// cmpOp encodes which three-way outcomes (-1, 0, 1) satisfy an operator.
type cmpOp struct{ lt, eq, gt bool }

var cmpOps = map[string]cmpOp{
	"eq": {false, true, false}, "ne": {true, false, true}, "lt": {true, false, false},
	"le": {true, true, false}, "gt": {false, false, true}, "ge": {false, true, true},
	"null_safe_eq": {false, true, false},
}

func cmpKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	m := ev.rows(args)
	buf, out := boolBuf(ev.mem, m)
	if err := compareInto(cmpOps[c.Fn], args[0], args[1], m, out); err != nil {
		buf.Release()
		return vec{}, err
	}
	return ev.fixedVec(types.BoolT, m, ev.validity(m, args...), buf, args), nil
}

// compareInto sets bit i of out where row i of a op b holds; both
// arguments have the same physical type (NewCall cast them).
func compareInto(op cmpOp, a, b vec, m int, out []byte) error {
	switch x := a.arr.(type) {
	case *array.Int64:
		cmpOrdered(op, x.Int64Values(), i64s(b), a.scalar, b.scalar, m, out)
	case *array.Float64:
		cmpOrdered(op, x.Float64Values(), f64s(b), a.scalar, b.scalar, m, out)
	case *array.Date32:
		cmpOrdered(op, x.Date32Values(), b.arr.(*array.Date32).Date32Values(), a.scalar, b.scalar, m, out)
	case *array.Timestamp:
		cmpOrdered(op, x.TimestampValues(), b.arr.(*array.Timestamp).TimestampValues(), a.scalar, b.scalar, m, out)
	case *array.Int32:
		cmpOrdered(op, x.Int32Values(), b.arr.(*array.Int32).Int32Values(), a.scalar, b.scalar, m, out)
	case *array.Int16:
		cmpOrdered(op, x.Int16Values(), b.arr.(*array.Int16).Int16Values(), a.scalar, b.scalar, m, out)
	case *array.Int8:
		cmpOrdered(op, x.Int8Values(), b.arr.(*array.Int8).Int8Values(), a.scalar, b.scalar, m, out)
	case *array.Float32:
		cmpOrdered(op, x.Float32Values(), b.arr.(*array.Float32).Float32Values(), a.scalar, b.scalar, m, out)
	case *array.Decimal128:
		y := b.arr.(*array.Decimal128)
		cmpDecimals(op, x.Values(), y.Values(), a.scalar, b.scalar, m, out)
	case *array.String:
		y := b.arr.(*array.String)
		if eq, ne := op == (cmpOp{false, true, false}), op == (cmpOp{true, false, true}); (eq || ne) && b.scalar && !a.scalar {
			// Equality with a constant: lengths first, then the bytes;
			// no three-way compare, no string headers.
			c := y.Value(b.idx(0))
			offs, data := x.ValueOffsets(), x.ValueBytes()
			base := int(offs[0])
			for i := 0; i < m; i++ {
				lo, hi := int(offs[i])-base, int(offs[i+1])-base
				out[i>>3] |= b2u((hi-lo == len(c) && string(data[lo:hi]) == c) == eq) << (i & 7)
			}
			return nil
		}
		for i := 0; i < m; i++ {
			if op.test(strings.Compare(x.Value(a.idx(i)), y.Value(b.idx(i)))) {
				bitutil.SetBit(out, i)
			}
		}
	case *array.Boolean:
		y := b.arr.(*array.Boolean)
		for i := 0; i < m; i++ {
			if op.test(cmpBool(x.Value(a.idx(i)), y.Value(b.idx(i)))) {
				bitutil.SetBit(out, i)
			}
		}
	default:
		return sqlerr.Assertf("eval: compare %s", a.arr.DataType())
	}
	return nil
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

func (op cmpOp) test(c int) bool {
	switch {
	case c < 0:
		return op.lt
	case c > 0:
		return op.gt
	}
	return op.eq
}

// cmpOrdered packs x op y into bits, one closure-free loop per operator
// so the inner loop is a plain comparison.
func cmpOrdered[E cmp.Ordered](op cmpOp, x, y []E, as, bs bool, m int, out []byte) {
	switch op {
	case cmpOp{false, true, false}:
		packEq(x, y, as, bs, m, out, false)
	case cmpOp{true, false, true}:
		packEq(x, y, as, bs, m, out, true)
	case cmpOp{true, false, false}:
		packLess(x, y, as, bs, m, out, false)
	case cmpOp{false, false, true}:
		packLess(y, x, bs, as, m, out, false)
	case cmpOp{true, true, false}:
		packLess(y, x, bs, as, m, out, true) // x <= y  ⇔  !(y < x)
	default:
		packLess(x, y, as, bs, m, out, true) // x >= y  ⇔  !(x < y)
	}
}

// cmpDecimals is cmpOrdered for DECIMAL: a 128-bit two's complement value
// orders by its signed high word, then its unsigned low word.
func cmpDecimals(op cmpOp, x, y []decimal128.Num, xs, ys bool, m int, out []byte) {
	less := func(p, q decimal128.Num) bool {
		ph, qh := p.HighBits(), q.HighBits()
		return ph < qh || (ph == qh && p.LowBits() < q.LowBits())
	}
	var test func(p, q decimal128.Num) bool
	switch op {
	case cmpOp{false, true, false}:
		test = func(p, q decimal128.Num) bool { return p == q }
	case cmpOp{true, false, true}:
		test = func(p, q decimal128.Num) bool { return p != q }
	case cmpOp{true, false, false}:
		test = less
	case cmpOp{false, false, true}:
		test = func(p, q decimal128.Num) bool { return less(q, p) }
	case cmpOp{true, true, false}:
		test = func(p, q decimal128.Num) bool { return !less(q, p) }
	default:
		test = func(p, q decimal128.Num) bool { return !less(p, q) }
	}
	if ys && !xs {
		// Column against a constant, the common case.
		switch op {
		case cmpOp{true, false, false}: // v < c
			packDecLess(x[:m], y[0], false, out, false)
			return
		case cmpOp{false, false, true}: // v > c  ⇔  c < v
			packDecLess(x[:m], y[0], true, out, false)
			return
		case cmpOp{true, true, false}: // v <= c  ⇔  !(c < v)
			packDecLess(x[:m], y[0], true, out, true)
			return
		case cmpOp{false, true, true}: // v >= c  ⇔  !(v < c)
			packDecLess(x[:m], y[0], false, out, true)
			return
		}
	}
	for i := 0; i < m; i++ {
		xi, yi := i, i
		if xs {
			xi = 0
		}
		if ys {
			yi = 0
		}
		out[i>>3] |= b2u(test(x[xi], y[yi])) << (i & 7)
	}
}

// packDecLess sets bit i of out (zeroed) where (v[i] < c) != neg, or with
// constFirst where (c < v[i]) != neg; eight results per store.
func packDecLess(v []decimal128.Num, c decimal128.Num, constFirst bool, out []byte, neg bool) {
	ch, cl := c.HighBits(), c.LowBits()
	flip := byte(0)
	if neg {
		flip = 0xff
	}
	lt := func(x decimal128.Num) byte { // x < c
		h := x.HighBits()
		return b2u(h < ch || (h == ch && x.LowBits() < cl))
	}
	gt := func(x decimal128.Num) byte { // c < x
		h := x.HighBits()
		return b2u(h > ch || (h == ch && x.LowBits() > cl))
	}
	i := 0
	if constFirst {
		for ; i+8 <= len(v); i += 8 {
			w := v[i : i+8 : i+8]
			out[i>>3] = (gt(w[0]) | gt(w[1])<<1 | gt(w[2])<<2 | gt(w[3])<<3 | gt(w[4])<<4 | gt(w[5])<<5 | gt(w[6])<<6 | gt(w[7])<<7) ^ flip
		}
		for ; i < len(v); i++ {
			out[i>>3] |= (gt(v[i]) ^ (flip & 1)) << (i & 7)
		}
		return
	}
	for ; i+8 <= len(v); i += 8 {
		w := v[i : i+8 : i+8]
		out[i>>3] = (lt(w[0]) | lt(w[1])<<1 | lt(w[2])<<2 | lt(w[3])<<3 | lt(w[4])<<4 | lt(w[5])<<5 | lt(w[6])<<6 | lt(w[7])<<7) ^ flip
	}
	for ; i < len(v); i++ {
		out[i>>3] |= (lt(v[i]) ^ (flip & 1)) << (i & 7)
	}
}

// b2u is 1 for true; the compiler turns it into a flag set, not a branch.
func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// packLess sets bit i of out (zeroed) where (x[i] < y[i]) != neg; a scalar
// side (xs, ys) is read at index 0. Eight results are gathered in a register
// and stored once: a read-modify-write of out per row cost more than the
// comparisons. NaN never compares true in MySQL; DOUBLE inputs here never
// hold NaN (kernels turn it into NULL).
func packLess[E cmp.Ordered](x, y []E, xs, ys bool, m int, out []byte, neg bool) {
	flip := byte(0)
	if neg {
		flip = 0xff
	}
	i := 0
	switch {
	case !xs && ys:
		c := y[0]
		for ; i+8 <= m; i += 8 {
			v := x[i : i+8 : i+8]
			out[i>>3] = (b2u(v[0] < c) | b2u(v[1] < c)<<1 | b2u(v[2] < c)<<2 | b2u(v[3] < c)<<3 |
				b2u(v[4] < c)<<4 | b2u(v[5] < c)<<5 | b2u(v[6] < c)<<6 | b2u(v[7] < c)<<7) ^ flip
		}
	case xs && !ys:
		c := x[0]
		for ; i+8 <= m; i += 8 {
			v := y[i : i+8 : i+8]
			out[i>>3] = (b2u(c < v[0]) | b2u(c < v[1])<<1 | b2u(c < v[2])<<2 | b2u(c < v[3])<<3 |
				b2u(c < v[4])<<4 | b2u(c < v[5])<<5 | b2u(c < v[6])<<6 | b2u(c < v[7])<<7) ^ flip
		}
	case !xs && !ys:
		for ; i+8 <= m; i += 8 {
			v, w := x[i:i+8:i+8], y[i:i+8:i+8]
			out[i>>3] = (b2u(v[0] < w[0]) | b2u(v[1] < w[1])<<1 | b2u(v[2] < w[2])<<2 | b2u(v[3] < w[3])<<3 |
				b2u(v[4] < w[4])<<4 | b2u(v[5] < w[5])<<5 | b2u(v[6] < w[6])<<6 | b2u(v[7] < w[7])<<7) ^ flip
		}
	}
	packTail(x, y, xs, ys, i, m, out, neg, func(a, b E) bool { return a < b })
}

// packTail sets the result bits of rows i..m-1 one at a time: the rows
// after the last whole byte, or all of them when both sides are scalars.
func packTail[E cmp.Ordered](x, y []E, xs, ys bool, i, m int, out []byte, neg bool, op func(a, b E) bool) {
	for ; i < m; i++ {
		xi, yi := i, i
		if xs {
			xi = 0
		}
		if ys {
			yi = 0
		}
		out[i>>3] |= b2u(op(x[xi], y[yi]) != neg) << (i & 7)
	}
}

// packEq is packLess for ==.
func packEq[E cmp.Ordered](x, y []E, xs, ys bool, m int, out []byte, neg bool) {
	flip := byte(0)
	if neg {
		flip = 0xff
	}
	i := 0
	if xs && !ys {
		x, y, xs, ys = y, x, ys, xs
	}
	switch {
	case !xs && ys:
		c := y[0]
		for ; i+8 <= m; i += 8 {
			v := x[i : i+8 : i+8]
			out[i>>3] = (b2u(v[0] == c) | b2u(v[1] == c)<<1 | b2u(v[2] == c)<<2 | b2u(v[3] == c)<<3 |
				b2u(v[4] == c)<<4 | b2u(v[5] == c)<<5 | b2u(v[6] == c)<<6 | b2u(v[7] == c)<<7) ^ flip
		}
	case !xs && !ys:
		for ; i+8 <= m; i += 8 {
			v, w := x[i:i+8:i+8], y[i:i+8:i+8]
			out[i>>3] = (b2u(v[0] == w[0]) | b2u(v[1] == w[1])<<1 | b2u(v[2] == w[2])<<2 | b2u(v[3] == w[3])<<3 |
				b2u(v[4] == w[4])<<4 | b2u(v[5] == w[5])<<5 | b2u(v[6] == w[6])<<6 | b2u(v[7] == w[7])<<7) ^ flip
		}
	}
	packTail(x, y, xs, ys, i, m, out, neg, func(a, b E) bool { return a == b })
}

func nullSafeEqKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	a, b := args[0], args[1]
	m := ev.rows(args)
	buf, out := boolBuf(ev.mem, m)
	an, bn := a.nullScalar(), b.nullScalar()
	switch {
	case an && bn:
		bitutil.SetBit(out, 0)
		for i := 1; i < m; i++ {
			bitutil.SetBit(out, i)
		}
	case an || bn:
		other := b
		if bn {
			other = a
		}
		for i := 0; i < m; i++ {
			if other.isNull(i) {
				bitutil.SetBit(out, i)
			}
		}
	default:
		if err := compareInto(cmpOps["eq"], a, b, m, out); err != nil {
			buf.Release()
			return vec{}, err
		}
		if a.arr.NullN() > 0 || b.arr.NullN() > 0 {
			for i := 0; i < m; i++ {
				x, y := a.isNull(i), b.isNull(i)
				if x || y {
					bitutil.SetBitTo(out, i, x && y)
				}
			}
		}
	}
	return vec{arr: newArray(types.BoolT, m, nil, buf, 0), scalar: allScalar(args), owned: true}, nil
}

// tri is a three-valued boolean column view.
type tri struct {
	v    vec
	vals []byte
	voff int
}

func triOf(v vec) tri {
	b := v.arr.(*array.Boolean)
	return tri{v: v, vals: b.Data().Buffers()[1].Bytes(), voff: b.Data().Offset()}
}

func (t tri) at(i int) (val, null bool) {
	j := t.v.idx(i)
	if t.v.arr.IsNull(j) {
		return false, true
	}
	return bitutil.BitIsSet(t.vals, t.voff+j), false
}

// andOr folds AND / OR over boolean vecs with three-valued logic.
func (ev *evaluator) andOr(isAnd bool, args []vec) vec {
	m := ev.rows(args)
	if v, ok := ev.andOrNoNulls(isAnd, args, m); ok {
		return v
	}
	valsBuf, vals := boolBuf(ev.mem, m)
	validBuf, valid := boolBuf(ev.mem, m)
	ts := make([]tri, len(args))
	for k, a := range args {
		if a.arr.DataType().ID() == arrow.NULL {
			a = ev.nullVec(types.BoolT)
			defer a.release()
		}
		ts[k] = triOf(a)
	}
	for i := 0; i < m; i++ {
		sawNull, decided := false, false
		for _, t := range ts {
			v, null := t.at(i)
			if null {
				sawNull = true
				continue
			}
			if v != isAnd { // FALSE decides AND, TRUE decides OR
				decided = true
				break
			}
		}
		switch {
		case decided:
			bitutil.SetBit(valid, i)
			if !isAnd {
				bitutil.SetBit(vals, i)
			}
		case !sawNull:
			bitutil.SetBit(valid, i)
			if isAnd {
				bitutil.SetBit(vals, i)
			}
		}
	}
	return vec{arr: newArray(types.BoolT, m, validBuf, valsBuf, array.UnknownNullCount), scalar: allScalar(args), owned: true}
}

// andOrNoNulls is the common case of andOr: full-length arguments without
// NULLs, folded a machine word at a time.
func (ev *evaluator) andOrNoNulls(isAnd bool, args []vec, m int) (vec, bool) {
	for _, a := range args {
		if a.scalar || a.arr.Len() != m || a.arr.DataType().ID() != arrow.BOOL || a.arr.NullN() > 0 {
			return vec{}, false
		}
	}
	buf := memory.NewResizableBuffer(ev.mem)
	buf.Resize(int(bitutil.BytesForBits(int64(m))))
	out := buf.Bytes()
	first := args[0].arr.Data()
	bitutil.CopyBitmap(first.Buffers()[1].Bytes(), first.Offset(), m, out, 0)
	var prev []byte
	for _, a := range args[1:] {
		prev = append(prev[:0], out...) // the kernels must not read what they write
		d := a.arr.Data()
		if isAnd {
			bitutil.BitmapAnd(prev, d.Buffers()[1].Bytes(), 0, int64(d.Offset()), out, 0, int64(m))
		} else {
			bitutil.BitmapOr(prev, d.Buffers()[1].Bytes(), 0, int64(d.Offset()), out, 0, int64(m))
		}
	}
	return vec{arr: newArray(types.BoolT, m, nil, buf, 0), owned: true}, true
}

func andOrKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	return ev.andOr(c.Fn == "and", args), nil
}

func xorKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	m := ev.rows(args)
	buf, out := boolBuf(ev.mem, m)
	x, y := bools(args[0]), bools(args[1])
	for i := 0; i < m; i++ {
		if x.Value(args[0].idx(i)) != y.Value(args[1].idx(i)) {
			bitutil.SetBit(out, i)
		}
	}
	return ev.fixedVec(types.BoolT, m, ev.validity(m, args...), buf, args), nil
}

func notKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	m := ev.rows(args)
	buf, out := boolBuf(ev.mem, m)
	x := bools(args[0])
	for i := 0; i < m; i++ {
		if !x.Value(i) {
			bitutil.SetBit(out, i)
		}
	}
	return ev.fixedVec(types.BoolT, m, ev.validity(m, args...), buf, args), nil
}

func isNullKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	a := args[0]
	m := a.arr.Len()
	buf, out := boolBuf(ev.mem, m)
	want := c.Fn == "is_null"
	for i := 0; i < m; i++ {
		if a.isNull(i) == want {
			bitutil.SetBit(out, i)
		}
	}
	return vec{arr: newArray(types.BoolT, m, nil, buf, 0), scalar: a.scalar, owned: true}, nil
}

func isTrueKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	a := args[0]
	m := a.arr.Len()
	buf, out := boolBuf(ev.mem, m)
	want := c.Fn == "is_true"
	if a.arr.DataType().ID() != arrow.NULL {
		x := bools(a)
		for i := 0; i < m; i++ {
			if !x.IsNull(i) && x.Value(i) == want {
				bitutil.SetBit(out, i)
			}
		}
	}
	return vec{arr: newArray(types.BoolT, m, nil, buf, 0), scalar: a.scalar, owned: true}, nil
}

// cmpVec compares a and b (same physical type) into a BOOLEAN vec.
func (ev *evaluator) cmpVec(op cmpOp, a, b vec) (vec, error) {
	args := []vec{a, b}
	if a.nullScalar() || b.nullScalar() {
		return ev.nullVec(types.BoolT), nil
	}
	m := ev.rows(args)
	buf, out := boolBuf(ev.mem, m)
	if err := compareInto(op, a, b, m, out); err != nil {
		buf.Release()
		return vec{}, err
	}
	return ev.fixedVec(types.BoolT, m, ev.validity(m, args...), buf, args), nil
}

// inKernel: x IN (list) is the three-valued OR of x = item; NOT IN negates.
func inKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	probe := args[0]
	eqs := make([]vec, 0, len(args)-1)
	defer func() {
		for _, e := range eqs {
			e.release()
		}
	}()
	for _, item := range args[1:] {
		e, err := ev.cmpVec(cmpOps["eq"], probe, item)
		if err != nil {
			return vec{}, err
		}
		eqs = append(eqs, e)
	}
	res := ev.andOr(false, eqs)
	if c.Fn == "in" {
		return res, nil
	}
	defer res.release()
	return notKernel(ev, c, []vec{res})
}

func betweenKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	if v, ok := ev.betweenConst(args); ok {
		return v, nil
	}
	ge, err := ev.cmpVec(cmpOps["ge"], args[0], args[1])
	if err != nil {
		return vec{}, err
	}
	defer ge.release()
	le, err := ev.cmpVec(cmpOps["le"], args[0], args[2])
	if err != nil {
		return vec{}, err
	}
	defer le.release()
	return ev.andOr(true, []vec{ge, le}), nil
}

// betweenConst is x BETWEEN lo AND hi for a column x of an integer-coded
// type (dates and datetimes included) or a decimal, and non-NULL constant
// bounds, in one pass: lo <= x <= hi is x-lo <= hi-lo in unsigned
// arithmetic, one comparison a row. ok is false for other arguments.
func (ev *evaluator) betweenConst(args []vec) (vec, bool) {
	x, lo, hi := args[0], args[1], args[2]
	if x.scalar || !lo.scalar || !hi.scalar || lo.isNull(0) || hi.isNull(0) {
		return vec{}, false
	}
	m := ev.rows(args)
	buf, out := boolBuf(ev.mem, m)
	ok := false
	switch a := x.arr.(type) {
	case *array.Int8:
		ok = rangeInto[int8, *array.Int8](a.Int8Values(), lo, hi, m, out)
	case *array.Int16:
		ok = rangeInto[int16, *array.Int16](a.Int16Values(), lo, hi, m, out)
	case *array.Int32:
		ok = rangeInto[int32, *array.Int32](a.Int32Values(), lo, hi, m, out)
	case *array.Int64:
		ok = rangeInto[int64, *array.Int64](a.Int64Values(), lo, hi, m, out)
	case *array.Date32:
		ok = rangeInto[arrow.Date32, *array.Date32](a.Date32Values(), lo, hi, m, out)
	case *array.Timestamp:
		ok = rangeInto[arrow.Timestamp, *array.Timestamp](a.TimestampValues(), lo, hi, m, out)
	case *array.Decimal128:
		l, h, both := boundsOf[decimal128.Num, *array.Decimal128](lo, hi)
		if ok = both && fitsI64(l) && fitsI64(h); ok {
			packDecRange(a.Values(), int64(l.LowBits()), int64(h.LowBits()), m, out)
		}
	}
	if !ok {
		buf.Release()
		return vec{}, false
	}
	return ev.fixedVec(types.BoolT, m, ev.validity(m, args...), buf, args), true
}

// valuer is an Arrow array of fixed-width values.
type valuer[E any] interface {
	arrow.Array
	Value(int) E
}

// boundsOf reads two scalar bounds of x's array type A.
func boundsOf[E any, A valuer[E]](lo, hi vec) (l, h E, ok bool) {
	la, ok1 := lo.arr.(A)
	ha, ok2 := hi.arr.(A)
	if !ok1 || !ok2 {
		return l, h, false
	}
	return la.Value(0), ha.Value(0), true
}

func rangeInto[E ~int8 | ~int16 | ~int32 | ~int64, A valuer[E]](x []E, lo, hi vec, m int, out []byte) bool {
	l, h, ok := boundsOf[E, A](lo, hi)
	if ok {
		packRange(x, l, h, m, out)
	}
	return ok
}

// packRange sets bit i of out (zeroed) where lo <= x[i] <= hi, eight rows
// a stored byte (see packLess). Signed values convert to uint64 by sign
// extension, so x-lo and hi-lo are exact modulo 2^64 for lo <= hi.
func packRange[E ~int8 | ~int16 | ~int32 | ~int64](x []E, lo, hi E, m int, out []byte) {
	if lo > hi {
		return
	}
	ul, d := uint64(lo), uint64(hi)-uint64(lo)
	x = x[:m]
	i := 0
	for ; i+8 <= m; i += 8 {
		v := x[i : i+8 : i+8]
		out[i>>3] = b2u(uint64(v[0])-ul <= d) | b2u(uint64(v[1])-ul <= d)<<1 | b2u(uint64(v[2])-ul <= d)<<2 |
			b2u(uint64(v[3])-ul <= d)<<3 | b2u(uint64(v[4])-ul <= d)<<4 | b2u(uint64(v[5])-ul <= d)<<5 |
			b2u(uint64(v[6])-ul <= d)<<6 | b2u(uint64(v[7])-ul <= d)<<7
	}
	for ; i < m; i++ {
		out[i>>3] |= b2u(uint64(x[i])-ul <= d) << (i & 7)
	}
}

// packDecRange is packRange over decimals with bounds that are int64s: a
// value that is not an int64 lies outside them.
func packDecRange(x []decimal128.Num, lo, hi int64, m int, out []byte) {
	if lo > hi {
		return
	}
	ul, d := uint64(lo), uint64(hi)-uint64(lo)
	x = x[:m]
	for i, v := range x {
		l := v.LowBits()
		out[i>>3] |= b2u(v.HighBits() == int64(l)>>63 && l-ul <= d) << (i & 7)
	}
}

func fitsI64(v decimal128.Num) bool { return v.HighBits() == int64(v.LowBits())>>63 }

// likeMatch reports whether s matches a LIKE pattern (byte-wise, '_' is one
// UTF-8 character, esc escapes the next pattern character).
func likeMatch(s, p string, esc byte) bool {
	si, pi := 0, 0
	starP, starS := -1, 0
	for si < len(s) {
		if pi < len(p) {
			c := p[pi]
			switch {
			case c == '%':
				starP, starS = pi, si
				pi++
				continue
			case c == '_':
				_, w := utf8.DecodeRuneInString(s[si:])
				si += w
				pi++
				continue
			case c == esc && pi+1 < len(p):
				if s[si] == p[pi+1] {
					si++
					pi += 2
					continue
				}
			default:
				if s[si] == c {
					si++
					pi++
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		_, w := utf8.DecodeRuneInString(s[starS:])
		starS += w
		si, pi = starS, starP+1
	}
	for pi < len(p) && p[pi] == '%' {
		pi++
	}
	return pi == len(p)
}

func likeKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	esc := byte('\\')
	if len(args) == 3 {
		if e := strs(args[2]).Value(0); e != "" {
			esc = e[0]
		}
	}
	m := ev.rows(args)
	buf, out := boolBuf(ev.mem, m)
	s, p := strs(args[0]), strs(args[1])
	want := c.Fn == "like"
	if args[1].scalar && !args[0].scalar {
		if pat := p.Value(args[1].idx(0)); !strings.ContainsAny(pat, "_"+string(esc)) {
			// Only '%' wildcards (TPC-H's '%special%requests%', 'forest%'):
			// prefix, substrings in order, suffix.
			segs := strings.Split(pat, "%")
			for i := 0; i < m; i++ {
				out[i>>3] |= b2u(likeSegments(s.Value(i), segs) == want) << (i & 7)
			}
			return ev.fixedVec(types.BoolT, m, ev.validity(m, args...), buf, args), nil
		}
	}
	for i := 0; i < m; i++ {
		if likeMatch(s.Value(args[0].idx(i)), p.Value(args[1].idx(i)), esc) == want {
			bitutil.SetBit(out, i)
		}
	}
	return ev.fixedVec(types.BoolT, m, ev.validity(m, args...), buf, args), nil
}

// likeSegments matches s against a LIKE pattern without '_' or escapes,
// split at its '%'s.
func likeSegments(s string, segs []string) bool {
	if len(segs) == 1 {
		return s == segs[0]
	}
	if !strings.HasPrefix(s, segs[0]) {
		return false
	}
	s = s[len(segs[0]):]
	last := segs[len(segs)-1]
	for _, mid := range segs[1 : len(segs)-1] {
		k := strings.Index(s, mid)
		if k < 0 {
			return false
		}
		s = s[k+len(mid):]
	}
	return strings.HasSuffix(s, last)
}

func regexpKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	m := ev.rows(args)
	buf, out := boolBuf(ev.mem, m)
	s, p := strs(args[0]), strs(args[1])
	var re *regexp.Regexp
	last := ""
	for i := 0; i < m; i++ {
		if args[0].isNull(i) || args[1].isNull(i) {
			continue
		}
		pat := p.Value(args[1].idx(i))
		if re == nil || pat != last {
			var err error
			if re, err = regexp.Compile(pat); err != nil {
				buf.Release()
				return vec{}, sqlerr.WrongArguments.New("regexp")
			}
			last = pat
		}
		if re.MatchString(s.Value(args[0].idx(i))) {
			bitutil.SetBit(out, i)
		}
	}
	return ev.fixedVec(types.BoolT, m, ev.validity(m, args...), buf, args), nil
}

// LikeMatch reports whether s matches the LIKE pattern p (the planner's
// estimates test patterns against histogram bounds with it).
func LikeMatch(s, p string, esc byte) bool { return likeMatch(s, p, esc) }
