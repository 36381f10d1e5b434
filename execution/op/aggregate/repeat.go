package aggregate

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/sql/types"
)

// RepeatSpec configures a Repeat (grouping sets).
type RepeatSpec struct {
	Keys   []int   // input column positions of the grouping keys
	Sets   [][]int // per set, the indexes into Keys it keeps
	IDs    []int64 // per set, its grouping id
	Output []types.Column
}

// Repeat emits every input batch once per grouping set: the input columns,
// then one column per key (the input array itself, or an all-NULL array
// when the set rolls the key up), then the set's grouping id. No row is
// copied: outputs share the input's arrays, and the NULL and id arrays are
// built once per batch length and reused.
type Repeat struct {
	child  op.Operator
	spec   RepeatSpec
	schema *arrow.Schema
	env    *op.Env
	keep   [][]bool // keep[s][i]: set s keeps key i

	cur  arrow.Record // the batch being repeated (nil: pull the next)
	next int          // the set cur is emitted for next

	// Per batch length n: nulls[i] is key i's all-NULL array, ids[s] set
	// s's grouping id array.
	n     int64
	nulls []arrow.Array
	ids   []arrow.Array
}

var _ op.Operator = (*Repeat)(nil)

// NewRepeat repeats child's batches per grouping set.
func NewRepeat(env *op.Env, child op.Operator, spec RepeatSpec) *Repeat {
	keep := make([][]bool, len(spec.Sets))
	for s, set := range spec.Sets {
		keep[s] = make([]bool, len(spec.Keys))
		for _, k := range set {
			keep[s][k] = true
		}
	}
	return &Repeat{child: child, spec: spec, schema: types.ArrowSchema(spec.Output), env: env, keep: keep}
}

func (r *Repeat) Schema() *arrow.Schema { return r.schema }

func (r *Repeat) Next(ctx context.Context) (arrow.Record, error) {
	if r.cur == nil {
		rec, err := r.child.Next(ctx)
		if err != nil {
			return nil, err
		}
		r.cur, r.next = rec, 0
		r.prepare(rec.NumRows())
	}
	s := r.next
	in := r.cur
	width := int(in.NumCols())
	cols := make([]arrow.Array, 0, width+len(r.spec.Keys)+1)
	cols = append(cols, in.Columns()...)
	for i, k := range r.spec.Keys {
		if r.keep[s][i] {
			cols = append(cols, in.Column(k))
		} else {
			cols = append(cols, r.nulls[i])
		}
	}
	cols = append(cols, r.ids[s])
	out := array.NewRecord(r.schema, cols, in.NumRows())
	r.next++
	if r.next == len(r.spec.Sets) {
		r.cur.Release()
		r.cur = nil
	}
	return out, nil
}

// prepare makes the NULL and grouping id arrays for batches of n rows.
func (r *Repeat) prepare(n int64) {
	if n == r.n && r.ids != nil {
		return
	}
	r.release()
	r.n = n
	base := len(r.schema.Fields()) - len(r.spec.Keys) - 1
	r.nulls = make([]arrow.Array, len(r.spec.Keys))
	for i := range r.spec.Keys {
		r.nulls[i] = array.MakeArrayOfNull(r.env.Mem, r.schema.Field(base+i).Type, int(n))
	}
	r.ids = make([]arrow.Array, len(r.spec.IDs))
	b := array.NewInt64Builder(r.env.Mem)
	defer b.Release()
	for s, id := range r.spec.IDs {
		b.Reserve(int(n))
		for range n {
			b.UnsafeAppend(id)
		}
		r.ids[s] = b.NewArray()
	}
}

func (r *Repeat) release() {
	for _, a := range r.nulls {
		a.Release()
	}
	for _, a := range r.ids {
		a.Release()
	}
	r.nulls, r.ids = nil, nil
}

func (r *Repeat) Close() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	r.release()
	r.child.Close()
}
