package op

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// sliceOp replays prepared batches.
type sliceOp struct {
	sc     *arrow.Schema
	recs   []arrow.Record
	i      int
	closed bool
}

func (s *sliceOp) Schema() *arrow.Schema { return s.sc }
func (s *sliceOp) Next(ctx context.Context) (arrow.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.i >= len(s.recs) {
		return nil, io.EOF
	}
	r := s.recs[s.i]
	s.recs[s.i] = nil
	s.i++
	return r, nil
}
func (s *sliceOp) Close() {
	for _, r := range s.recs[s.i:] {
		if r != nil {
			r.Release()
		}
	}
	s.recs = nil
	s.closed = true
}

// row values: nil, int64, float64, string.
type row []any

func cols(specs ...any) []types.Column {
	var out []types.Column
	for i := 0; i < len(specs); i += 2 {
		out = append(out, types.Column{Name: specs[i].(string), Type: specs[i+1].(types.T), Nullable: true})
	}
	return out
}

// newSource splits rows into batches of batch rows.
func newSource(mem memory.Allocator, cs []types.Column, rows []row, batch int) *sliceOp {
	sc := types.ArrowSchema(cs)
	s := &sliceOp{sc: sc}
	for start := 0; start < len(rows); start += batch {
		end := min(start+batch, len(rows))
		s.recs = append(s.recs, buildRecord(mem, sc, cs, rows[start:end]))
	}
	return s
}

func buildRecord(mem memory.Allocator, sc *arrow.Schema, cs []types.Column, rows []row) arrow.Record {
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	for _, r := range rows {
		for i, v := range r {
			types.AppendDatum(b.Field(i), toDatum(v, cs[i].Type))
		}
	}
	return b.NewRecord()
}

func toDatum(v any, t types.T) types.Datum {
	if v == nil {
		return types.NullDatum(t)
	}
	d := types.Datum{T: t}
	switch x := v.(type) {
	case int:
		d.I = int64(x)
	case int64:
		d.I = x
	case float64:
		d.F = x
	case string:
		d.S = x
	case types.Datum:
		return x
	default:
		panic(fmt.Sprintf("toDatum %T", v))
	}
	return d
}

func fmtRow(r row) string {
	parts := make([]string, len(r))
	for i, v := range r {
		if v == nil {
			parts[i] = "NULL"
		} else {
			parts[i] = fmt.Sprint(v)
		}
	}
	return strings.Join(parts, "|")
}

// drain collects op's output as formatted rows, checking batch sizes.
func drain(t testing.TB, o Operator) []string {
	t.Helper()
	var out []string
	err := Drain(context.Background(), o, func(rec arrow.Record) error {
		if rec.NumRows() == 0 || rec.NumRows() > maxBatchRows {
			t.Fatalf("batch of %d rows", rec.NumRows())
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			parts := make([]string, rec.NumCols())
			for c := range parts {
				f := rec.Schema().Field(c)
				d := types.DatumAt(rec.Column(c), i, typeOf(f.Type))
				parts[c] = d.String()
			}
			out = append(out, strings.Join(parts, "|"))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func typeOf(dt arrow.DataType) types.T {
	switch dt.ID() {
	case arrow.INT64:
		return types.BigIntT
	case arrow.INT32:
		return types.IntT
	case arrow.FLOAT64:
		return types.DoubleT
	case arrow.STRING:
		return types.StringT
	case arrow.BOOL:
		return types.BoolT
	case arrow.DECIMAL128:
		d := dt.(*arrow.Decimal128Type)
		return types.DecimalT(int(d.Precision), int(d.Scale))
	case arrow.NULL:
		return types.NullT
	}
	panic(dt.String())
}

func sorted(s []string) []string {
	s = append([]string(nil), s...)
	sort.Strings(s)
	return s
}

func equalRows(t testing.TB, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d\ngot:  %v\nwant: %v", len(got), len(want), head(got), head(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("row %d: got %q want %q\ngot:  %v\nwant: %v", i, got[i], want[i], head(got), head(want))
		}
	}
}

func head(s []string) []string {
	if len(s) > 20 {
		return s[:20]
	}
	return s
}

func colRef(i int, t types.T) *expr.ColRef {
	return &expr.ColRef{Index: i, Name: fmt.Sprintf("c%d", i), T: t, Null: true}
}

func testEnv(mem memory.Allocator) *Env { return &Env{Mem: mem, Eval: &expr.Context{}} }

func checked(t testing.TB) (*memory.CheckedAllocator, func()) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	return mem, func() { mem.AssertSize(t, 0) }
}

// randInts returns n values in [0, k) with NULL at probability pNull.
func randVal(r *rand.Rand, k int, pNull float64) any {
	if r.Float64() < pNull {
		return nil
	}
	return int64(r.Intn(k))
}
