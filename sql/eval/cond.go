package eval

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

var condKernels = map[string]kernel{
	"coalesce": coalesceKernel, "ifnull": coalesceKernel, "if": ifKernel,
	"nullif": nullifKernel, "greatest": extremeKernel, "least": extremeKernel,
}

// choose builds a column of type t whose row i is row i of srcs[pick[i]]
// (NULL when pick[i] < 0). Every src that pick refers to has t's physical
// type (IF's condition, srcs[0], is never picked).
func (ev *evaluator) choose(t types.T, m int, srcs []vec, pick []int32) (vec, error) {
	valid := ev.validityMut(m)
	vb := valid.Bytes()
	for i, p := range pick {
		if p < 0 || srcs[p].isNull(i) {
			bitutil.ClearBit(vb, i)
		}
	}
	scalar := m == 1 // one row: every input was a scalar (or the batch has one row)
	switch t.Arrow().ID() {
	case arrow.STRING:
		valid.Release()
		b := array.NewStringBuilder(ev.mem)
		defer b.Release()
		ss := make([]*array.String, len(srcs))
		for k, s := range srcs {
			ss[k], _ = s.arr.(*array.String)
		}
		for i, p := range pick {
			if p < 0 || srcs[p].isNull(i) {
				b.AppendNull()
				continue
			}
			b.Append(ss[p].Value(srcs[p].idx(i)))
		}
		return vec{arr: b.NewArray(), scalar: scalar, owned: true}, nil
	case arrow.BOOL:
		buf, out := boolBuf(ev.mem, m)
		for i, p := range pick {
			if p >= 0 && !srcs[p].isNull(i) && srcs[p].arr.(*array.Boolean).Value(srcs[p].idx(i)) {
				bitutil.SetBit(out, i)
			}
		}
		return vec{arr: newArray(t, m, valid, buf, array.UnknownNullCount), scalar: scalar, owned: true}, nil
	case arrow.INT8:
		return chooseFixed[int8](ev, t, m, srcs, pick, valid, scalar), nil
	case arrow.INT16:
		return chooseFixed[int16](ev, t, m, srcs, pick, valid, scalar), nil
	case arrow.INT32, arrow.DATE32, arrow.FLOAT32:
		return chooseFixed[int32](ev, t, m, srcs, pick, valid, scalar), nil
	case arrow.INT64, arrow.TIMESTAMP, arrow.FLOAT64:
		return chooseFixed[int64](ev, t, m, srcs, pick, valid, scalar), nil
	case arrow.DECIMAL128:
		return chooseFixed[num](ev, t, m, srcs, pick, valid, scalar), nil
	case arrow.LIST, arrow.MAP, arrow.STRUCT:
		valid.Release()
		return ev.chooseNested(t, m, srcs, pick, scalar)
	}
	valid.Release()
	return vec{}, sqlerr.Assertf("eval: choose %s", t)
}

// rawValues views a fixed-width array's values as E (same width).
func rawValues[E any](arr arrow.Array) []E {
	d := arr.Data()
	b := d.Buffers()[1]
	if b == nil {
		return nil
	}
	raw := b.Bytes()
	var zero E
	n := len(raw) / int(unsafe.Sizeof(zero))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*E)(unsafe.Pointer(&raw[0])), n)[d.Offset() : d.Offset()+d.Len()]
}

func chooseFixed[E any](ev *evaluator, t types.T, m int, srcs []vec, pick []int32, valid *memory.Buffer, scalar bool) vec {
	buf, out := fixedBuf[E](ev.mem, m)
	// Only the picked sources are of t's width: IF passes its BOOLEAN
	// condition as srcs[0], whose bitmap read as E overran its buffer.
	used := make([]bool, len(srcs))
	for _, p := range pick {
		if p >= 0 {
			used[p] = true
		}
	}
	vals := make([][]E, len(srcs))
	for k, s := range srcs {
		if used[k] && s.arr.DataType().ID() != arrow.NULL {
			vals[k] = rawValues[E](s.arr)
		}
	}
	for i, p := range pick {
		if p >= 0 && vals[p] != nil {
			out[i] = vals[p][srcs[p].idx(i)]
		}
	}
	return vec{arr: newArray(t, m, valid, buf, array.UnknownNullCount), scalar: scalar, owned: true}
}

func coalesceKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	m := ev.rows(args)
	pick := make([]int32, m)
	for i := range pick {
		pick[i] = -1
		for k, a := range args {
			if !a.isNull(i) {
				pick[i] = int32(k)
				break
			}
		}
	}
	return ev.choose(c.T, m, args, pick)
}

// truthy reports row i of a boolean condition vec as TRUE (not NULL).
func truthy(v vec, i int) bool {
	if v.isNull(i) || v.arr.DataType().ID() == arrow.NULL {
		return false
	}
	return v.arr.(*array.Boolean).Value(v.idx(i))
}

func ifKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	m := ev.rows(args)
	pick := make([]int32, m)
	for i := range pick {
		pick[i] = 2
		if truthy(args[0], i) {
			pick[i] = 1
		}
	}
	return ev.choose(c.T, m, args, pick)
}

func nullifKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	ta, tb := c.Args[0].Type(), c.Args[1].Type()
	ct := expr.CompareType(ta, tb)
	a, err := ev.castVec(args[0], ta, ct)
	if err != nil {
		return vec{}, err
	}
	defer a.release()
	b, err := ev.castVec(args[1], tb, ct)
	if err != nil {
		return vec{}, err
	}
	defer b.release()
	eq, err := ev.cmpVec(cmpOps["eq"], a, b)
	if err != nil {
		return vec{}, err
	}
	defer eq.release()
	m := ev.rows(args)
	pick := make([]int32, m)
	for i := range pick {
		if truthy(eq, i) {
			pick[i] = -1
		}
	}
	return ev.choose(c.T, m, args[:1], pick)
}

// extremeKernel: GREATEST/LEAST, NULL if any argument is NULL.
func extremeKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	m := ev.rows(args)
	op := cmpOps["gt"]
	if c.Fn == "least" {
		op = cmpOps["lt"]
	}
	pick := make([]int32, m)
	bits := make([]byte, bitutil.BytesForBits(int64(m)))
	for k := 1; k < len(args); k++ {
		// Compare candidate k with the current winner row by row.
		cur, err := ev.choose(c.T, m, args, pick)
		if err != nil {
			return vec{}, err
		}
		for i := range bits {
			bits[i] = 0
		}
		err = compareInto(op, args[k], cur, m, bits)
		cur.release()
		if err != nil {
			return vec{}, err
		}
		for i := range pick {
			if bitutil.BitIsSet(bits, i) {
				pick[i] = int32(k)
			}
		}
	}
	for i := range pick {
		for _, a := range args {
			if a.isNull(i) {
				pick[i] = -1
				break
			}
		}
	}
	return ev.choose(c.T, m, args, pick)
}

// evalCase evaluates CASE: each row takes the first arm whose condition is
// TRUE (searched) or whose value equals the operand (simple).
func (ev *evaluator) evalCase(x *expr.Case) (vec, error) {
	var vs []vec
	defer func() {
		for _, v := range vs {
			v.release()
		}
	}()
	var operand vec
	if x.Operand != nil {
		o, err := ev.eval(x.Operand)
		if err != nil {
			return vec{}, err
		}
		vs = append(vs, o)
		operand = o
	}
	conds := make([]vec, len(x.Whens))
	thens := make([]vec, 0, len(x.Whens)+1)
	for k, w := range x.Whens {
		c, err := ev.eval(w.Cond)
		if err != nil {
			return vec{}, err
		}
		vs = append(vs, c)
		if x.Operand != nil {
			eq, err := ev.cmpVec(cmpOps["eq"], operand, c)
			if err != nil {
				return vec{}, err
			}
			vs = append(vs, eq)
			c = eq
		}
		conds[k] = c
		t, err := ev.eval(w.Then)
		if err != nil {
			return vec{}, err
		}
		vs = append(vs, t)
		thens = append(thens, t)
	}
	if x.Else != nil {
		e, err := ev.eval(x.Else)
		if err != nil {
			return vec{}, err
		}
		vs = append(vs, e)
		thens = append(thens, e)
	}
	all := append(append([]vec{}, conds...), thens...)
	if x.Operand != nil {
		all = append(all, operand)
	}
	m := ev.rows(all)
	pick := make([]int32, m)
	for i := range pick {
		pick[i] = -1
		if x.Else != nil {
			pick[i] = int32(len(x.Whens))
		}
		for k, c := range conds {
			if truthy(c, i) {
				pick[i] = int32(k)
				break
			}
		}
	}
	res, err := ev.choose(x.T, m, thens, pick)
	if err != nil {
		return vec{}, err
	}
	return res, nil
}
