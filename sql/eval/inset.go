package eval

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// inSetMin is the shortest IN list evaluated as a set: below it comparing
// with each item is as cheap as hashing.
const inSetMin = 16

// setIn reports whether c is x [NOT] IN (constants) long enough for a set.
func setIn(c *expr.Call) bool {
	if (c.Fn != "in" && c.Fn != "not_in") || len(c.Args) <= inSetMin {
		return false
	}
	for _, a := range c.Args[1:] {
		if _, ok := a.(*expr.Const); !ok {
			return false
		}
	}
	return true
}

// valueSet is c's items as a set, from the query's InSets when it has them.
// nil: an item's Arrow type differs from the probe's (inKernel compares).
func (ev *evaluator) valueSet(c *expr.Call) *expr.ValueSet {
	build := func() *expr.ValueSet {
		pt := c.Args[0].Type()
		want := pt.Arrow()
		s := &expr.ValueSet{Vals: make(map[types.Datum]struct{}, len(c.Args)-1)}
		// Through one Arrow array, as rows are read, so keys match exactly.
		b := array.NewBuilder(ev.mem, want)
		defer b.Release()
		for _, a := range c.Args[1:] {
			d := a.(*expr.Const).Val
			if d.Null {
				s.Null = true
				continue
			}
			if !arrow.TypeEqual(d.T.Arrow(), want) {
				return nil
			}
			types.AppendDatum(b, d)
		}
		arr := b.NewArray()
		defer arr.Release()
		for i := 0; i < arr.Len(); i++ {
			s.Vals[expr.Key(types.DatumAt(arr, i, pt))] = struct{}{}
		}
		return s
	}
	if ev.ctx != nil && ev.ctx.Sets != nil {
		return ev.ctx.Sets.Get(c, build)
	}
	return build()
}

// evalInSet is x [NOT] IN (constants) as one lookup per row, with inKernel's
// three-valued result: TRUE on a match, else NULL when x or an item is
// NULL, else FALSE (NOT IN negates TRUE and FALSE). ok is false when the
// items do not suit a set.
func (ev *evaluator) evalInSet(c *expr.Call) (out vec, ok bool, err error) {
	set := ev.valueSet(c)
	if set == nil {
		return vec{}, false, nil
	}
	probe, err := ev.eval(c.Args[0])
	if err != nil {
		return vec{}, true, err
	}
	defer probe.release()
	if probe.nullScalar() {
		return ev.nullVec(types.BoolT), true, nil
	}
	m := ev.rows([]vec{probe})
	t := c.Args[0].Type()
	buf, vals := boolBuf(ev.mem, m)
	valid := memory.NewResizableBuffer(ev.mem)
	valid.Resize(int(bitutil.BytesForBits(int64(m))))
	vb := valid.Bytes()
	bitutil.SetBitsTo(vb, 0, int64(m), true)
	in := c.Fn == "in"
	nulls := 0
	for i := 0; i < m; i++ {
		if probe.isNull(i) {
			bitutil.ClearBit(vb, i)
			nulls++
			continue
		}
		_, hit := set.Vals[expr.Key(types.DatumAt(probe.arr, probe.idx(i), t))]
		switch {
		case hit:
			if in {
				bitutil.SetBit(vals, i)
			}
		case set.Null:
			bitutil.ClearBit(vb, i)
			nulls++
		case !in:
			bitutil.SetBit(vals, i)
		}
	}
	if nulls == 0 {
		valid.Release()
		valid = nil
	}
	return vec{arr: newArray(types.BoolT, m, valid, buf, nulls), scalar: probe.scalar, owned: true}, true, nil
}
