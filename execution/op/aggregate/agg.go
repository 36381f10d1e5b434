package aggregate

import (
	"context"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// AggCall is one aggregate function of an aggregation node.
type AggCall struct {
	// Fn is count, sum, avg, min, max, any_value or group_concat.
	Fn string
	// Args: in update phases the arguments over the input columns (none for
	// COUNT(*)); in merge phases column references to this call's partial
	// state columns (AggStateTypes order).
	Args []expr.Expr
	// ArgType is the type of the (first) original argument; it decides the
	// result and state types in every phase. Ignored for COUNT.
	ArgType types.T
	// Distinct aggregates each distinct argument tuple once (update
	// finalize phase only).
	Distinct bool
	// Separator of GROUP_CONCAT; nil means ",".
	Separator *string
}

// HashAggSpec describes an aggregation node.
type HashAggSpec struct {
	Phase fragment.AggPhase
	// Groups are the GROUP BY keys over the input columns (in merge phases:
	// references to the key columns of the partial rows).
	Groups []expr.Expr
	Aggs   []AggCall
	// Output is the group keys, then per call its result (finalize phases) or
	// its state columns (serialize phases).
	Output []types.Column
	// Mem is charged with the hash table and states; nil is unlimited.
	Mem *op.MemTracker
}

// HashAgg groups its whole input in a hash table, then emits one row per
// group. Without GROUP BY keys it always emits exactly one row, even for an
// empty input (COUNT 0, other functions NULL).
type HashAgg struct {
	env    *op.Env
	child  op.Operator
	spec   HashAggSpec
	schema *arrow.Schema
	fns    []aggFunc
	table  *groupTable
	mem    op.MemCharge

	// args evaluates the update phase's arguments when some share a
	// subexpression (nil: each call's own, op.EvalCols).
	args     *op.SharedExprs
	keyParts []arrow.Array // key values of new groups, in group order
	keys     []arrow.Array // keyParts concatenated, once input is done
	gids     []int32
	newRows  []int32
	// inPlace: the keys and arguments may be computed for rows a filter
	// below dropped (see addSelected), as none warns.
	inPlace bool
	done    bool
	emitted int
}

var _ op.Operator = (*HashAgg)(nil)

// NewHashAgg returns an aggregation over child.
func NewHashAgg(env *op.Env, child op.Operator, spec HashAggSpec) (*HashAgg, error) {
	a := &HashAgg{env: env, child: child, spec: spec, schema: types.ArrowSchema(spec.Output),
		mem: op.MemCharge{Tracker: spec.Mem.Child("HashAgg")}}
	width := len(spec.Groups)
	for _, c := range spec.Aggs {
		if c.Distinct && spec.Phase != fragment.AggUpdateFinalize {
			return nil, sqlerr.NotSupportedYet.New(strings.ToUpper(c.Fn) + "(DISTINCT) in phase " + spec.Phase.String())
		}
		f, err := newAggFunc(c)
		if err != nil {
			return nil, err
		}
		if c.Distinct {
			f = &distinctAgg{inner: f, mem: env.Mem, seen: map[string]struct{}{}}
		}
		a.fns = append(a.fns, f)
		if spec.Phase.Finalizes() {
			width++
		} else {
			st, err := AggStateTypes(c.Fn, c.ArgType, false)
			if err != nil {
				return nil, err
			}
			width += len(st)
		}
	}
	if width != len(spec.Output) {
		return nil, sqlerr.Assertf("aggregate: %d output columns for %d keys and %d functions", len(spec.Output), len(spec.Groups), len(spec.Aggs))
	}
	if !spec.Phase.Merges() {
		shareSums(a.fns, spec.Aggs)
		a.inPlace = quiet(spec)
	}
	if len(spec.Groups) > 0 {
		a.table = newGroupTable()
	} else {
		a.resize(1)
	}
	if !spec.Phase.Merges() {
		var args []expr.Expr
		for _, c := range spec.Aggs {
			args = append(args, c.Args...)
		}
		if sh := op.NewSharedExprs(args, child.Schema().NumFields()); sh.Shared() > 0 {
			a.args = sh
		}
	}
	return a, nil
}

// quiet: no group key or argument holds an explicit CAST, the one
// expression that warns (SHOW WARNINGS) on a value it cannot convert
// rather than failing; computing it for rows a filter dropped would warn
// about rows the statement never reads.
func quiet(spec HashAggSpec) bool {
	ok := true
	check := func(e expr.Expr) bool {
		if c, isCast := e.(*expr.Cast); isCast && c.Explicit {
			ok = false
		}
		return ok
	}
	for _, g := range spec.Groups {
		expr.Walk(g, check)
	}
	for _, c := range spec.Aggs {
		for _, x := range c.Args {
			expr.Walk(x, check)
		}
	}
	return ok
}

func (a *HashAgg) Schema() *arrow.Schema { return a.schema }

func (a *HashAgg) groups() int {
	if a.table == nil {
		return 1
	}
	return a.table.len()
}

func (a *HashAgg) resize(n int) {
	for _, f := range a.fns {
		f.resize(n)
	}
}

func (a *HashAgg) Next(ctx context.Context) (arrow.Record, error) {
	if !a.done {
		if err := a.consume(ctx); err != nil {
			return nil, err
		}
		a.done = true
	}
	n := a.groups()
	if a.emitted >= n {
		return nil, io.EOF
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	from := a.emitted
	to := min(n, from+op.MaxBatchRows)
	a.emitted = to
	cols := make([]arrow.Array, 0, a.schema.NumFields())
	for _, k := range a.keys {
		cols = append(cols, array.NewSlice(k, int64(from), int64(to)))
	}
	for _, f := range a.fns {
		if a.spec.Phase.Finalizes() {
			cols = append(cols, f.finalize(a.env.Mem, from, to))
		} else {
			cols = append(cols, f.serialize(a.env.Mem, from, to)...)
		}
	}
	return op.NewRecord(a.schema, cols, to-from), nil
}

func (a *HashAgg) consume(ctx context.Context) error {
	var charged int64
	// A filter below reading raw rows hands over its batches uncopied.
	selector, _ := a.child.(op.Selector)
	if selector != nil && (!selector.CanSelect() || a.spec.Phase.Merges()) {
		selector = nil
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		var rec arrow.Record
		var sel []int32
		var err error
		if selector != nil {
			rec, sel, err = selector.NextSelected(ctx)
		} else {
			rec, err = a.child.Next(ctx)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		err = a.addSelected(rec, sel)
		rec.Release()
		if err != nil {
			return err
		}
		size := a.memBytes()
		if err := a.mem.Add(size - charged); err != nil {
			return err
		}
		charged = size
	}
	if a.table != nil {
		if len(a.keyParts) == 0 {
			return nil
		}
		for c := range a.spec.Groups {
			parts := make([]arrow.Array, len(a.keyParts)/len(a.spec.Groups))
			for i := range parts {
				parts[i] = a.keyParts[i*len(a.spec.Groups)+c]
			}
			k, err := op.ConcatArrays(a.env.Mem, parts)
			if err != nil {
				return err
			}
			a.keys = append(a.keys, k)
		}
		op.ReleaseAll(a.keyParts)
		a.keyParts = nil
	}
	return nil
}

func (a *HashAgg) memBytes() int64 {
	var n int64
	if a.table != nil {
		n += a.table.memBytes()
	}
	for _, f := range a.fns {
		n += f.memBytes()
	}
	for _, k := range a.keyParts {
		n += op.ArrayBytes(k)
	}
	return n
}

// addSelected adds rows sel of rec (sel nil: all). When most rows pass,
// the group keys and arguments are computed over the whole batch and the
// functions read the passing rows in place; otherwise, or when computing
// them failed (perhaps on a row that did not pass: 1/x where x = 0 is
// filtered out), the passing rows are copied out first.
func (a *HashAgg) addSelected(rec arrow.Record, sel []int32) error {
	if sel == nil {
		return a.addBatch(rec)
	}
	if a.inPlace && 2*len(sel) >= int(rec.NumRows()) {
		if in, err := a.prepare(rec, sel); err == nil {
			return a.apply(in, sel)
		}
	}
	cols, err := op.TakeCols(a.env.Mem, rec.Columns(), sel)
	if err != nil {
		return err
	}
	taken := op.NewRecord(rec.Schema(), cols, len(sel))
	defer taken.Release()
	return a.addBatch(taken)
}

// addBatch folds every row of rec into the groups.
func (a *HashAgg) addBatch(rec arrow.Record) error {
	in, err := a.prepare(rec, nil)
	if err != nil {
		return err
	}
	return a.apply(in, nil)
}

// prepared is a batch's group keys (the selected rows') and each
// function's arguments (every row), computed before anything changes.
type prepared struct {
	keys []arrow.Array
	args [][]arrow.Array
	all  []arrow.Array // what args are views of (SharedExprs), if any
	rows int
}

func (p *prepared) release() {
	op.ReleaseAll(p.keys)
	if p.all != nil {
		op.ReleaseAll(p.all)
		return
	}
	for _, x := range p.args {
		op.ReleaseAll(x)
	}
}

func (a *HashAgg) prepare(rec arrow.Record, sel []int32) (*prepared, error) {
	p := &prepared{rows: int(rec.NumRows())}
	if sel != nil {
		p.rows = len(sel)
	}
	if a.args != nil {
		all, err := a.args.Eval(a.env, rec)
		if err != nil {
			return nil, err
		}
		p.all = all
		for i := range a.fns {
			n := len(a.spec.Aggs[i].Args)
			p.args, all = append(p.args, all[:n:n]), all[n:]
		}
	} else {
		for i := range a.fns {
			args, err := op.EvalCols(a.env, a.spec.Aggs[i].Args, rec)
			if err != nil {
				p.release()
				return nil, err
			}
			p.args = append(p.args, args)
		}
	}
	if a.table != nil {
		keys, err := op.EvalCols(a.env, a.spec.Groups, rec)
		if err == nil && sel != nil {
			all := keys
			keys, err = op.TakeCols(a.env.Mem, all, sel)
			op.ReleaseAll(all)
		}
		if err != nil {
			p.release()
			return nil, err
		}
		p.keys = keys
	}
	return p, nil
}

// apply folds a prepared batch into the groups: rows sel of its arguments
// (sel nil: every row).
func (a *HashAgg) apply(p *prepared, sel []int32) error {
	defer p.release()
	if a.table != nil {
		before := a.table.len()
		a.gids, a.newRows = a.table.insert(p.keys, a.gids, a.newRows)
		if len(a.newRows) > 0 {
			kp, err := op.TakeCols(a.env.Mem, p.keys, a.newRows)
			if err != nil {
				return err
			}
			a.keyParts = append(a.keyParts, kp...)
			a.resize(before + len(a.newRows))
		}
	} else {
		a.gids = op.GrowInt32(a.gids, p.rows)
		clear(a.gids)
	}
	for i, f := range a.fns {
		args := p.args[i]
		switch su, ok := f.(selUpdater); {
		case a.spec.Phase.Merges():
			f.merge(a.gids, args)
		case sel == nil:
			f.update(a.gids, args)
		case ok:
			su.updateSel(a.gids, args, sel)
		default:
			taken, err := op.TakeCols(a.env.Mem, args, sel)
			if err != nil {
				return err
			}
			f.update(a.gids, taken)
			op.ReleaseAll(taken)
		}
	}
	return nil
}

func (a *HashAgg) Close() {
	op.ReleaseAll(a.keyParts)
	a.keyParts = nil
	op.ReleaseAll(a.keys)
	a.keys = nil
	a.mem.ReleaseAll()
	a.child.Close()
}
