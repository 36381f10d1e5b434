package build

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/eval"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// ParamDepthStride separates the parameter numbers of nested Apply levels
// (planner/physical uses the same stride).
const ParamDepthStride = 10000

// Apply evaluates a subquery for every row of its outer input (correlated
// scalar, EXISTS and IN subqueries). The subquery's remote inputs are read
// once and replayed from memory for every row; its operators are rebuilt
// per row with the outer row's values as parameters. A subquery that reads
// no parameter is evaluated once.
type Apply struct {
	env     *op.Env
	outer   op.Operator
	spec    *fragment.ApplySpec
	out     []types.Column
	schema  *arrow.Schema
	src     *Sources
	replays map[fragment.NodeID]*replayExchange
	depth   int
	corr    bool
	// cached result rows of an uncorrelated subquery
	cached []arrow.Record
	have   bool
}

var _ op.Operator = (*Apply)(nil)

// NewApply builds the Apply of node n over outer.
func NewApply(env *op.Env, outer op.Operator, n *fragment.Node, src *Sources) (*Apply, error) {
	a := &Apply{env: env, outer: outer, spec: n.Apply, out: n.Output, schema: types.ArrowSchema(n.Output), src: src,
		replays: map[fragment.NodeID]*replayExchange{}, depth: env.Depth}
	lo, hi := a.depth*ParamDepthStride, (a.depth+1)*ParamDepthStride
	fragment.Walk(n.Apply.Sub, func(x *fragment.Node) {
		if x.Kind == fragment.KindExchange {
			a.replays[x.ID] = &replayExchange{src: src, node: x}
		}
		forEachExpr(x, func(e expr.Expr) {
			expr.Walk(e, func(y expr.Expr) bool {
				if p, ok := y.(*expr.Param); ok && p.Index >= lo && p.Index < hi {
					a.corr = true
				}
				return true
			})
		})
	})
	return a, nil
}

func (a *Apply) Schema() *arrow.Schema { return a.schema }

func (a *Apply) Close() {
	a.outer.Close()
	for _, r := range a.replays {
		r.close()
	}
	for _, r := range a.cached {
		r.Release()
	}
}

func (a *Apply) Next(ctx context.Context) (arrow.Record, error) {
	rec, err := a.outer.Next(ctx)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	n := int(rec.NumRows())
	var probe arrow.Array
	if a.spec.Probe.Expr != nil {
		if probe, err = eval.Eval(a.env.Eval, a.spec.Probe.Expr, rec, a.env.Mem); err != nil {
			return nil, err
		}
		defer probe.Release()
	}
	resT := a.out[len(a.out)-1]
	b := array.NewBuilder(a.env.Mem, resT.Type.Arrow())
	defer b.Release()
	outerTypes := a.out[:len(a.out)-1]
	for i := 0; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rows, err := a.subRows(ctx, rec, i, outerTypes)
		if err != nil {
			return nil, err
		}
		d, err := a.result(rows, probe, i, resT.Type)
		if a.corr {
			for _, r := range rows {
				r.Release()
			}
		}
		if err != nil {
			return nil, err
		}
		types.AppendDatum(b, d)
	}
	col := b.NewArray()
	cols := append(append([]arrow.Array{}, rec.Columns()...), col)
	out := array.NewRecord(a.schema, cols, int64(n))
	col.Release()
	return out, nil
}

// subRows runs the subquery for outer row i (or returns the cached rows).
func (a *Apply) subRows(ctx context.Context, rec arrow.Record, i int, outerTypes []types.Column) ([]arrow.Record, error) {
	if !a.corr && a.have {
		return a.cached, nil
	}
	params := map[int]types.Datum{}
	if a.env.Eval != nil {
		for k, v := range a.env.Eval.Params {
			params[k] = v
		}
	}
	if a.corr {
		for c := range outerTypes {
			params[a.depth*ParamDepthStride+c] = types.DatumAt(rec.Column(c), i, outerTypes[c].Type)
		}
	}
	now := a.env.Eval
	ectx := &expr.Context{Params: params}
	if now != nil {
		ectx.Now, ectx.Sets, ectx.Ctx = now.Now, now.Sets, now.Ctx
	}
	env := &op.Env{Mem: a.env.Mem, Eval: ectx, Tracker: a.env.Tracker, Spill: a.env.Spill, Depth: a.depth + 1}
	src := &Sources{Store: a.src.Store, Tablets: a.src.Tablets, Exchange: func(n *fragment.Node) (op.Operator, error) {
		r, ok := a.replays[n.ID]
		if !ok {
			return nil, sqlerr.Assertf("apply: unknown exchange %d", n.ID)
		}
		return r.open(ctx)
	}}
	o, err := Build(env, a.spec.Sub, src)
	if err != nil {
		return nil, err
	}
	defer o.Close()
	var rows []arrow.Record
	for {
		r, err := o.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			for _, x := range rows {
				x.Release()
			}
			return nil, err
		}
		rows = append(rows, r)
		// EXISTS needs one row, a scalar subquery two to fail.
		if a.spec.Kind == fragment.ApplyExists || (a.spec.Kind == fragment.ApplyScalar && applyRowCount(rows) > 1) {
			break
		}
	}
	if !a.corr {
		a.cached, a.have = rows, true
	}
	return rows, nil
}

func applyRowCount(rs []arrow.Record) int64 {
	var n int64
	for _, r := range rs {
		n += r.NumRows()
	}
	return n
}

func (a *Apply) result(rows []arrow.Record, probe arrow.Array, i int, t types.T) (types.Datum, error) {
	switch a.spec.Kind {
	case fragment.ApplyScalar:
		switch applyRowCount(rows) {
		case 0:
			return types.NullDatum(t), nil
		case 1:
			for _, r := range rows {
				if r.NumRows() == 1 {
					return types.DatumAt(r.Column(0), 0, t), nil
				}
			}
		}
		return types.Datum{}, sqlerr.SubqueryNo1Row.New()
	case fragment.ApplyExists:
		return types.BoolDatum(applyRowCount(rows) > 0), nil
	}
	// IN: TRUE on a match; NULL if no match but a NULL took part; else FALSE.
	if applyRowCount(rows) == 0 {
		return types.BoolDatum(false), nil
	}
	pt := a.spec.Probe.Expr.Type()
	pv := types.DatumAt(probe, i, pt)
	if pv.Null {
		return types.NullDatum(types.BoolT), nil
	}
	sawNull := false
	for _, r := range rows {
		st := a.subType()
		eq, err := expr.NewCall("eq", expr.Lit(pv), &expr.ColRef{Index: 0, T: st, Null: true})
		if err != nil {
			return types.Datum{}, err
		}
		res, err := eval.Eval(a.env.Eval, eq, r, a.env.Mem)
		if err != nil {
			return types.Datum{}, err
		}
		bs := res.(*array.Boolean)
		for k := 0; k < bs.Len(); k++ {
			if bs.IsNull(k) {
				sawNull = true
			} else if bs.Value(k) {
				res.Release()
				return types.BoolDatum(true), nil
			}
		}
		res.Release()
	}
	if sawNull {
		return types.NullDatum(types.BoolT), nil
	}
	return types.BoolDatum(false), nil
}

func (a *Apply) subType() types.T {
	if len(a.spec.Sub.Output) > 0 {
		return a.spec.Sub.Output[0].Type
	}
	return types.NullT
}

// replayExchange materializes an exchange's stream on first use and serves copies
// of it afterwards.
type replayExchange struct {
	src  *Sources
	node *fragment.Node
	recs []arrow.Record
	done bool
}

func (r *replayExchange) open(ctx context.Context) (op.Operator, error) {
	if !r.done {
		o, err := r.src.Exchange(r.node)
		if err != nil {
			return nil, err
		}
		err = op.Drain(ctx, o, func(rec arrow.Record) error {
			rec.Retain()
			r.recs = append(r.recs, rec)
			return nil
		})
		o.Close()
		if err != nil {
			return nil, err
		}
		r.done = true
	}
	return &memSource{recs: r.recs, schema: types.ArrowSchema(r.node.Output)}, nil
}

func (r *replayExchange) close() {
	for _, rec := range r.recs {
		rec.Release()
	}
	r.recs = nil
}

// memSource replays records held in memory.
type memSource struct {
	recs   []arrow.Record
	schema *arrow.Schema
	i      int
}

func (m *memSource) Schema() *arrow.Schema { return m.schema }

func (m *memSource) Next(ctx context.Context) (arrow.Record, error) {
	if m.i >= len(m.recs) {
		return nil, io.EOF
	}
	r := m.recs[m.i]
	m.i++
	r.Retain()
	return r, nil
}

func (m *memSource) Close() {}

// forEachExpr calls fn on every expression a node holds.
func forEachExpr(n *fragment.Node, fn func(expr.Expr)) {
	all := func(es []fragment.Ex) {
		for _, e := range es {
			if e.Expr != nil {
				fn(e.Expr)
			}
		}
	}
	if n.Scan != nil {
		all(n.Scan.Conjuncts)
	}
	if n.Filter != nil {
		all(n.Filter.Conjuncts)
	}
	if n.Project != nil {
		all(n.Project.Exprs)
	}
	if n.Values != nil {
		for _, r := range n.Values.Rows {
			all(r)
		}
	}
	if n.Join != nil {
		all(n.Join.LeftKeys)
		all(n.Join.RightKeys)
		all(n.Join.Other)
	}
	if n.Agg != nil {
		all(n.Agg.Groups)
		for _, c := range n.Agg.Aggs {
			all(c.Args)
		}
	}
	if n.Sort != nil {
		for _, k := range n.Sort.Keys {
			fn(k.Expr.Expr)
		}
	}
	if n.Window != nil {
		all(n.Window.PartitionBy)
		for _, k := range n.Window.OrderBy {
			fn(k.Expr.Expr)
		}
		for _, c := range n.Window.Calls {
			all(c.Args)
		}
	}
	if n.Apply != nil && n.Apply.Probe.Expr != nil {
		fn(n.Apply.Probe.Expr)
	}
}
