package op

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/dorisgo/dorisgo/sql/eval"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

func arrowNewRecord(sc *arrow.Schema, cols []arrow.Array, rows int64) arrow.Record {
	return array.NewRecord(sc, cols, rows)
}

// Filter keeps the rows for which every conjunct is TRUE.
type Filter struct {
	child Operator
	pred  expr.Expr
	env   *Env
}

var _ Operator = (*Filter)(nil)

// NewFilter ANDs conjuncts into one predicate over child's columns (a
// column's two bounds fused into one BETWEEN).
func NewFilter(env *Env, child Operator, conjuncts []expr.Expr) (*Filter, error) {
	conjuncts = expr.FuseRanges(conjuncts)
	pred := conjuncts[0]
	for _, c := range conjuncts[1:] {
		p, err := expr.NewCall("and", pred, c)
		if err != nil {
			return nil, err
		}
		pred = p
	}
	return &Filter{child: child, pred: pred, env: env}, nil
}

func (f *Filter) Schema() *arrow.Schema { return f.child.Schema() }

func (f *Filter) Next(ctx context.Context) (arrow.Record, error) {
	for {
		rec, err := f.child.Next(ctx)
		if err != nil {
			return nil, err
		}
		sel, err := eval.EvalPredicate(f.env.Eval, f.pred, rec, f.env.Mem)
		if err != nil {
			rec.Release()
			return nil, err
		}
		out, err := eval.Filter(rec, sel, f.env.Mem)
		sel.Release()
		rec.Release()
		if err != nil {
			return nil, err
		}
		if out.NumRows() == 0 {
			out.Release()
			continue
		}
		return out, nil
	}
}

func (f *Filter) Close() { f.child.Close() }

// Project computes one output column per expression.
type Project struct {
	child  Operator
	exprs  []expr.Expr
	schema *arrow.Schema
	env    *Env
	shared *SharedExprs // set when expressions share a subexpression
}

var _ Operator = (*Project)(nil)

// NewProject evaluates exprs over child's batches; out names the results.
func NewProject(env *Env, child Operator, exprs []expr.Expr, out []types.Column) *Project {
	p := &Project{child: child, exprs: exprs, schema: types.ArrowSchema(out), env: env}
	if sh := NewSharedExprs(exprs, child.Schema().NumFields()); sh.Shared() > 0 {
		p.shared = sh
	}
	return p
}

func (p *Project) Schema() *arrow.Schema { return p.schema }

func (p *Project) Next(ctx context.Context) (arrow.Record, error) {
	rec, err := p.child.Next(ctx)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	if p.shared != nil {
		cols, err := p.shared.Eval(p.env, rec)
		if err != nil {
			return nil, err
		}
		out := array.NewRecord(p.schema, cols, rec.NumRows())
		ReleaseAll(cols)
		return out, nil
	}
	cols := make([]arrow.Array, len(p.exprs))
	for i, e := range p.exprs {
		a, err := eval.Eval(p.env.Eval, e, rec, p.env.Mem)
		if err != nil {
			for _, c := range cols[:i] {
				c.Release()
			}
			return nil, err
		}
		cols[i] = a
	}
	out := array.NewRecord(p.schema, cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}

func (p *Project) Close() { p.child.Close() }

// Limit skips offset rows, then passes at most count rows (count < 0: all).
type Limit struct {
	child         Operator
	offset, count int64
	done          bool
}

var _ Operator = (*Limit)(nil)

// NewLimit returns a LIMIT count OFFSET offset operator.
func NewLimit(child Operator, offset, count int64) *Limit {
	return &Limit{child: child, offset: offset, count: count}
}

func (l *Limit) Schema() *arrow.Schema { return l.child.Schema() }

func (l *Limit) Next(ctx context.Context) (arrow.Record, error) {
	for {
		if l.done || l.count == 0 {
			// Stop pulling as soon as the limit is met so upstream work ends.
			l.done = true
			return nil, io.EOF
		}
		rec, err := l.child.Next(ctx)
		if err != nil {
			return nil, err
		}
		n := rec.NumRows()
		if l.offset >= n {
			l.offset -= n
			rec.Release()
			continue
		}
		start := l.offset
		l.offset = 0
		end := n
		if l.count >= 0 && end-start > l.count {
			end = start + l.count
		}
		if l.count >= 0 {
			l.count -= end - start
		}
		if start == 0 && end == n {
			return rec, nil
		}
		out := rec.NewSlice(start, end)
		rec.Release()
		return out, nil
	}
}

func (l *Limit) Close() { l.child.Close() }

// Values returns constant rows as one batch.
type Values struct {
	rows   [][]expr.Expr
	schema *arrow.Schema
	env    *Env
	done   bool
}

var _ Operator = (*Values)(nil)

// NewValues builds a constant relation; each row's expressions must be constant.
func NewValues(env *Env, rows [][]expr.Expr, out []types.Column) *Values {
	return &Values{rows: rows, schema: types.ArrowSchema(out), env: env}
}

func (v *Values) Schema() *arrow.Schema { return v.schema }

func (v *Values) Next(ctx context.Context) (arrow.Record, error) {
	if v.done {
		return nil, io.EOF
	}
	v.done = true
	if v.schema.NumFields() == 0 {
		// SELECT without FROM: rows with no columns, counted.
		return array.NewRecord(v.schema, nil, int64(len(v.rows))), nil
	}
	one := array.NewRecord(arrow.NewSchema(nil, nil), nil, 1)
	defer one.Release()
	b := array.NewRecordBuilder(v.env.Mem, v.schema)
	defer b.Release()
	for _, row := range v.rows {
		for i, e := range row {
			a, err := eval.Eval(v.env.Eval, e, one, v.env.Mem)
			if err != nil {
				return nil, err
			}
			types.AppendDatum(b.Field(i), types.DatumAt(a, 0, e.Type()))
			a.Release()
		}
	}
	return b.NewRecord(), nil
}

func (v *Values) Close() {}
