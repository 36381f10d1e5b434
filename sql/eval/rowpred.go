package eval

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// RowPredicate is a boolean expression over a table's columns, compiled
// from its JSON (expr.Marshal) against the table's schema: storage
// evaluates delete conditions with it. Column references are resolved by
// name, so a condition written before columns were added or reordered
// still reads the columns it named.
type RowPredicate struct {
	e    expr.Expr
	cols []int // schema columns read; e's ColRef.Index indexes this list
	sch  *arrow.Schema
	ctx  *expr.Context
}

// CompileRowPredicate decodes a boolean expression whose ColRefs name
// columns of schema.
func CompileRowPredicate(b []byte, schema []types.Column) (*RowPredicate, error) {
	e, err := expr.Unmarshal(b)
	if err != nil {
		return nil, err
	}
	if e.Type().Kind != types.Boolean {
		return nil, sqlerr.Assertf("eval: row predicate %s is %s, not BOOLEAN", e, e.Type())
	}
	p := &RowPredicate{ctx: &expr.Context{Sets: &expr.InSets{}}}
	var read []types.Column
	e, err = expr.Rewrite(e, func(x expr.Expr) (expr.Expr, error) {
		ref, ok := x.(*expr.ColRef)
		if !ok {
			return x, nil
		}
		ord := -1
		for i, c := range schema {
			if strings.EqualFold(c.Name, ref.Name) {
				ord = i
				break
			}
		}
		if ord < 0 {
			return nil, sqlerr.BadField.New(ref.Name, "delete condition")
		}
		if schema[ord].Type.Arrow().ID() != ref.T.Arrow().ID() {
			return nil, sqlerr.Assertf("eval: column %s is %s, the condition reads it as %s", ref.Name, schema[ord].Type, ref.T)
		}
		pos := -1
		for i, c := range p.cols {
			if c == ord {
				pos = i
			}
		}
		if pos < 0 {
			pos = len(p.cols)
			p.cols = append(p.cols, ord)
			read = append(read, schema[ord])
		}
		r := *ref
		r.Index = pos
		return &r, nil
	})
	if err != nil {
		return nil, err
	}
	p.e = e
	p.sch = types.ArrowSchema(read)
	return p, nil
}

// Columns lists the schema columns the predicate reads.
func (p *RowPredicate) Columns() []int { return p.cols }

// Matches evaluates the predicate over cols (one array per Columns entry,
// n rows each): true where it is TRUE, false where FALSE or NULL.
func (p *RowPredicate) Matches(cols []arrow.Array, n int) (*array.Boolean, error) {
	if len(cols) != len(p.cols) {
		return nil, sqlerr.Assertf("eval: row predicate over %d columns got %d", len(p.cols), len(cols))
	}
	rec := array.NewRecord(p.sch, cols, int64(n))
	defer rec.Release()
	return EvalPredicate(p.ctx, p.e, rec, memory.DefaultAllocator)
}
