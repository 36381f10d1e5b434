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
	done     bool
	emitted  int
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
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := a.child.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		err = a.addBatch(rec)
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

func (a *HashAgg) addBatch(rec arrow.Record) error {
	rows := int(rec.NumRows())
	if a.table != nil {
		keys, err := op.EvalCols(a.env, a.spec.Groups, rec)
		if err != nil {
			return err
		}
		before := a.table.len()
		a.gids, a.newRows = a.table.insert(keys, a.gids, a.newRows)
		if len(a.newRows) > 0 {
			kp, err := op.TakeCols(a.env.Mem, keys, a.newRows)
			if err != nil {
				op.ReleaseAll(keys)
				return err
			}
			a.keyParts = append(a.keyParts, kp...)
			a.resize(before + len(a.newRows))
		}
		op.ReleaseAll(keys)
	} else {
		a.gids = op.GrowInt32(a.gids, rows)
		clear(a.gids)
	}
	var all []arrow.Array
	if a.args != nil {
		var err error
		if all, err = a.args.Eval(a.env, rec); err != nil {
			return err
		}
		defer op.ReleaseAll(all)
	}
	for i, f := range a.fns {
		var args []arrow.Array
		if all != nil {
			n := len(a.spec.Aggs[i].Args)
			args, all = all[:n:n], all[n:]
			for _, x := range args {
				x.Retain()
			}
		} else {
			var err error
			if args, err = op.EvalCols(a.env, a.spec.Aggs[i].Args, rec); err != nil {
				return err
			}
		}
		if a.spec.Phase.Merges() {
			f.merge(a.gids, args)
		} else {
			f.update(a.gids, args)
		}
		op.ReleaseAll(args)
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
