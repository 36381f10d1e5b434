package eval

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// vec is an intermediate result: a full column, or a one-row array that
// stands for every row (scalar).
type vec struct {
	arr    arrow.Array
	scalar bool
	owned  bool // produced here, released after use
}

func (v vec) release() {
	if v.owned && v.arr != nil {
		v.arr.Release()
	}
}

// isNull reports whether row i of v is NULL (broadcasting scalars).
func (v vec) isNull(i int) bool {
	if v.arr.DataType().ID() == arrow.NULL {
		return true
	}
	if v.scalar {
		return v.arr.IsNull(0)
	}
	return v.arr.IsNull(i)
}

func (v vec) nullScalar() bool { return v.scalar && v.isNull(0) }

// idx maps row i to the array slot holding its value.
func (v vec) idx(i int) int {
	if v.scalar {
		return 0
	}
	return i
}

type evaluator struct {
	ctx *expr.Context
	mem memory.Allocator
	rec arrow.Record
	n   int
}

// rows is the output length of a kernel over args: 1 if all are scalars.
func (ev *evaluator) rows(args []vec) int {
	for _, a := range args {
		if !a.scalar {
			return ev.n
		}
	}
	return 1
}

func allScalar(args []vec) bool {
	for _, a := range args {
		if !a.scalar {
			return false
		}
	}
	return true
}

// Eval evaluates e over rec. The result has rec.NumRows() rows and the
// Arrow type of e.Type(); the caller releases it.
func Eval(ctx *expr.Context, e expr.Expr, rec arrow.Record, mem memory.Allocator) (arrow.Array, error) {
	ev := &evaluator{ctx: ctx, mem: mem, rec: rec, n: int(rec.NumRows())}
	v, err := ev.eval(e)
	if err != nil {
		return nil, err
	}
	return ev.materialize(v, e.Type()), nil
}

// materialize turns v into an owned full-length array.
func (ev *evaluator) materialize(v vec, t types.T) arrow.Array {
	if !v.scalar {
		if !v.owned {
			v.arr.Retain()
		}
		return v.arr
	}
	defer v.release()
	if ev.n == 1 {
		v.arr.Retain()
		return v.arr
	}
	b := array.NewBuilder(ev.mem, t.Arrow())
	defer b.Release()
	d := types.DatumAt(v.arr, 0, t)
	if d.Null {
		b.AppendNulls(ev.n)
	} else {
		b.Reserve(ev.n)
		for i := 0; i < ev.n; i++ {
			types.AppendDatum(b, d)
		}
	}
	return b.NewArray()
}

// EvalPredicate evaluates a boolean expression as a selection: NULL rows
// are not selected, so the result has no nulls.
func EvalPredicate(ctx *expr.Context, e expr.Expr, rec arrow.Record, mem memory.Allocator) (*array.Boolean, error) {
	arr, err := Eval(ctx, e, rec, mem)
	if err != nil {
		return nil, err
	}
	b, ok := arr.(*array.Boolean)
	if !ok {
		arr.Release()
		return nil, sqlerr.Assertf("eval: predicate %s is %s, not BOOLEAN", e, e.Type())
	}
	if b.NullN() == 0 {
		return b, nil
	}
	defer b.Release()
	n := b.Len()
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(n))))
	out := buf.Bytes()
	bitutil.BitmapAnd(b.Data().Buffers()[1].Bytes(), b.NullBitmapBytes(), int64(b.Data().Offset()), int64(b.Data().Offset()), out, 0, int64(n))
	return newArray(types.BoolT, n, nil, buf, 0).(*array.Boolean), nil
}

// Filter keeps the rows of rec where sel is true (sel has no nulls, as
// EvalPredicate returns). The caller releases the result.
func Filter(rec arrow.Record, sel *array.Boolean, mem memory.Allocator) (arrow.Record, error) {
	if sel.Len() != int(rec.NumRows()) {
		return nil, sqlerr.Assertf("eval: filter of %d rows with %d-row selection", rec.NumRows(), sel.Len())
	}
	if sel.NullN() == 0 {
		cnt := countTrue(sel)
		if cnt == sel.Len() {
			rec.Retain()
			return rec, nil
		}
		if cnt == 0 {
			return rec.NewSlice(0, 0), nil
		}
	}
	idx := SelectedIndices(sel, make([]int32, 0, sel.Len()))
	cols, err := TakeColumns(mem, rec.Columns(), idx)
	if err != nil {
		return nil, err
	}
	out := array.NewRecord(rec.Schema(), cols, int64(len(idx)))
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}

func countTrue(b *array.Boolean) int {
	return bitutil.CountSetBits(b.Data().Buffers()[1].Bytes(), b.Data().Offset(), b.Len())
}

// Fold replaces every constant subtree of e (no column, no parameter) by
// its value. Errors (overflow in a constant) surface here, as in MySQL.
func Fold(e expr.Expr, ctx *expr.Context) (expr.Expr, error) {
	return expr.Rewrite(e, func(x expr.Expr) (expr.Expr, error) {
		if _, ok := x.(*expr.Const); ok || !foldable(x) {
			return x, nil
		}
		d, err := EvalConst(ctx, x)
		if err != nil {
			return nil, err
		}
		return expr.Lit(d), nil
	})
}

// foldable: x computes from constants alone. Rewrite works bottom up, so
// its constant children are already literals; looking at them alone keeps
// Fold linear (an OR of 10,000 terms walked its subtree at every level).
func foldable(x expr.Expr) bool {
	switch x := x.(type) {
	case *expr.ColRef, *expr.Param:
		return false
	case *expr.Call:
		if volatile[x.Fn] {
			return false
		}
	}
	for _, c := range x.Children() {
		if c == nil {
			continue
		}
		if _, ok := c.(*expr.Const); !ok {
			return false
		}
	}
	return true
}

// EvalConst evaluates a constant expression to a datum.
func EvalConst(ctx *expr.Context, e expr.Expr) (types.Datum, error) {
	mem := memory.DefaultAllocator
	ev := &evaluator{ctx: ctx, mem: mem, n: 1}
	v, err := ev.eval(e)
	if err != nil {
		return types.Datum{}, err
	}
	defer v.release()
	return types.DatumAt(v.arr, 0, e.Type()), nil
}

// eval dispatches on the node type.
func (ev *evaluator) eval(e expr.Expr) (vec, error) {
	switch x := e.(type) {
	case *expr.ColRef:
		if ev.rec == nil || x.Index < 0 || x.Index >= int(ev.rec.NumCols()) {
			return vec{}, sqlerr.Assertf("eval: column %d out of range for %s", x.Index, x)
		}
		return vec{arr: ev.rec.Column(x.Index)}, nil
	case *expr.Const:
		return ev.constVec(x.Val), nil
	case *expr.Param:
		// A correlated subquery reads its outer row through parameters.
		if ev.ctx != nil {
			if d, ok := ev.ctx.Params[x.Index]; ok {
				if d.Null {
					d = types.NullDatum(x.T)
				}
				return ev.constVec(d), nil
			}
		}
		return vec{}, sqlerr.Assertf("eval: unbound parameter %s", x)
	case *expr.Cast:
		a, err := ev.eval(x.Arg)
		if err != nil {
			return vec{}, err
		}
		defer a.release()
		o := castOpts{explicit: x.Explicit}
		if ev.ctx != nil {
			o.warn = ev.ctx.Warn
		}
		return ev.cast(a, x.Arg.Type(), x.To, o)
	case *expr.Case:
		return ev.evalCase(x)
	case *expr.Call:
		if setIn(x) {
			if v, ok, err := ev.evalInSet(x); ok {
				return v, err
			}
		}
		if x.Fn == "and" || x.Fn == "or" {
			return ev.evalChain(x)
		}
		k, ok := kernels[x.Fn]
		if !ok {
			return vec{}, sqlerr.SPDoesNotExist.New(x.Fn)
		}
		args := make([]vec, len(x.Args))
		defer func() {
			for _, a := range args {
				a.release()
			}
		}()
		for i, a := range x.Args {
			v, err := ev.eval(a)
			if err != nil {
				return vec{}, err
			}
			args[i] = v
		}
		if !lenient[x.Fn] {
			for _, a := range args {
				if a.nullScalar() {
					return ev.nullVec(x.T), nil
				}
			}
		}
		// A stopped query stops between two functions of a batch, not at
		// its end: 16,384 rows through 40 nested md5 took a second.
		if err := ev.ctx.Err(); err != nil {
			return vec{}, err
		}
		return k(ev, x, args)
	}
	return vec{}, sqlerr.Assertf("eval: unknown node %T", e)
}

// constVec builds the one-row array for a datum.
func (ev *evaluator) constVec(d types.Datum) vec {
	t := d.T
	if t.Kind == types.Null {
		return vec{arr: array.NewNull(1), scalar: true, owned: true}
	}
	b := array.NewBuilder(ev.mem, t.Arrow())
	defer b.Release()
	types.AppendDatum(b, d)
	return vec{arr: b.NewArray(), scalar: true, owned: true}
}

func (ev *evaluator) nullVec(t types.T) vec { return ev.constVec(types.NullDatum(t)) }

// kernel computes a Call from its evaluated arguments.
type kernel func(ev *evaluator, c *expr.Call, args []vec) (vec, error)

// lenient functions see NULL scalar arguments themselves; every other
// function returns NULL as soon as one argument is a NULL constant.
var lenient = map[string]bool{
	"and": true, "or": true, "null_safe_eq": true, "is_null": true, "is_not_null": true,
	"is_true": true, "is_false": true, "coalesce": true, "ifnull": true, "nullif": true,
	"if": true, "concat_ws": true, "in": true, "not_in": true,
	"null_or_empty": true, "not_null_or_empty": true, "json_object": true, "json_array": true,
	"field": true, "elt": true, "rand": true,
}

// volatile functions give a new value per row and call: never folded.
var volatile = map[string]bool{"rand": true}

var kernels map[string]kernel

func init() {
	kernels = map[string]kernel{}
	for _, m := range []map[string]kernel{arithKernels, compareKernels, condKernels, mathKernels, stringKernels, dateKernels,
		strLibKernels, urlKernels, jsonKernels, dateLibKernels, mathLibKernels} {
		for k, v := range m {
			kernels[k] = v
		}
	}
}
