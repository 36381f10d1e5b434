package scan

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Numbers is Doris's numbers table-valued function as a source: one BIGINT
// column holding 0 .. count-1, in batches of at most MaxBatchRows. The
// planner runs it in a single instance, so it always generates the whole range.
type Numbers struct {
	env    *op.Env
	schema *arrow.Schema
	next   int64
	count  int64
}

var _ op.Operator = (*Numbers)(nil)

// NewTableFunc builds the source for spec; out is the node's output shape.
func NewTableFunc(env *op.Env, spec *fragment.TableFuncSpec, out []types.Column) (op.Operator, error) {
	if spec == nil || spec.Fn != "numbers" || len(out) != 1 || out[0].Type.Kind != types.BigInt {
		return nil, sqlerr.Assertf("unsupported table function %+v", spec)
	}
	return &Numbers{env: env, schema: types.ArrowSchema(out), count: spec.Count}, nil
}

func (n *Numbers) Schema() *arrow.Schema { return n.schema }

func (n *Numbers) Next(ctx context.Context) (arrow.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if n.next >= n.count {
		return nil, io.EOF
	}
	rows := min(n.count-n.next, op.MaxBatchRows)
	b := array.NewInt64Builder(n.env.Mem)
	defer b.Release()
	b.Reserve(int(rows))
	for i := int64(0); i < rows; i++ {
		b.UnsafeAppend(n.next + i)
	}
	n.next += rows
	col := b.NewArray()
	defer col.Release()
	return array.NewRecord(n.schema, []arrow.Array{col}, rows), nil
}

func (n *Numbers) Close() {}
