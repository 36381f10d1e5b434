package optest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// SliceOp replays prepared batches.
type SliceOp struct {
	Sc     *arrow.Schema
	Recs   []arrow.Record
	i      int
	Closed bool
}

func (s *SliceOp) Schema() *arrow.Schema { return s.Sc }
func (s *SliceOp) Next(ctx context.Context) (arrow.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.i >= len(s.Recs) {
		return nil, io.EOF
	}
	r := s.Recs[s.i]
	s.Recs[s.i] = nil
	s.i++
	return r, nil
}
func (s *SliceOp) Close() {
	for _, r := range s.Recs[s.i:] {
		if r != nil {
			r.Release()
		}
	}
	s.Recs = nil
	s.Closed = true
}

// Row values: nil, int64, float64, string.
type Row []any

func Cols(specs ...any) []types.Column {
	var out []types.Column
	for i := 0; i < len(specs); i += 2 {
		out = append(out, types.Column{Name: specs[i].(string), Type: specs[i+1].(types.T), Nullable: true})
	}
	return out
}

// NewSource splits rows into batches of batch rows.
func NewSource(mem memory.Allocator, cs []types.Column, rows []Row, batch int) *SliceOp {
	sc := types.ArrowSchema(cs)
	s := &SliceOp{Sc: sc}
	for start := 0; start < len(rows); start += batch {
		end := min(start+batch, len(rows))
		s.Recs = append(s.Recs, buildRecord(mem, sc, cs, rows[start:end]))
	}
	return s
}

func buildRecord(mem memory.Allocator, sc *arrow.Schema, cs []types.Column, rows []Row) arrow.Record {
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

func FmtRow(r Row) string {
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

// Drain collects op's output as formatted rows, checking batch sizes.
func Drain(t testing.TB, o op.Operator) []string {
	t.Helper()
	var out []string
	err := op.Drain(context.Background(), o, func(rec arrow.Record) error {
		if rec.NumRows() == 0 || rec.NumRows() > op.MaxBatchRows {
			t.Fatalf("batch of %d rows", rec.NumRows())
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			parts := make([]string, rec.NumCols())
			for c := range parts {
				f := rec.Schema().Field(c)
				d := types.DatumAt(rec.Column(c), i, TypeOf(f.Type))
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

func TypeOf(dt arrow.DataType) types.T {
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

func Sorted(s []string) []string {
	s = append([]string(nil), s...)
	sort.Strings(s)
	return s
}

func EqualRows(t testing.TB, got, want []string) {
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

func ColRef(i int, t types.T) *expr.ColRef {
	return &expr.ColRef{Index: i, Name: fmt.Sprintf("c%d", i), T: t, Null: true}
}

func Env(mem memory.Allocator) *op.Env { return &op.Env{Mem: mem, Eval: &expr.Context{}} }

func Checked(t testing.TB) (*memory.CheckedAllocator, func()) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	return mem, func() { mem.AssertSize(t, 0) }
}

// randInts returns n values in [0, k) with NULL at probability pNull.
func RandVal(r *rand.Rand, k int, pNull float64) any {
	if r.Float64() < pNull {
		return nil
	}
	return int64(r.Intn(k))
}

func Producers(mem memory.Allocator, rows []Row, n, batch int) ([]op.Operator, []*SliceOp) {
	cs := Cols("k", types.BigIntT, "v", types.BigIntT)
	var ops []op.Operator
	var srcs []*SliceOp
	for p := range n {
		var part []Row
		for i := p; i < len(rows); i += n {
			part = append(part, rows[i])
		}
		s := NewSource(mem, cs, part, batch)
		ops, srcs = append(ops, s), append(srcs, s)
	}
	return ops, srcs
}

var ErrBoom = errors.New("boom")

func RandRows(r *rand.Rand, n, keys int, pNull float64) []Row {
	out := make([]Row, n)
	for i := range out {
		out[i] = Row{RandVal(r, keys, pNull), RandVal(r, 100, pNull)}
	}
	return out
}

func cmpVals(x, y any) int {
	switch a := x.(type) {
	case int64:
		b := y.(int64)
		return map[bool]int{true: -1, false: 1}[a < b] * map[bool]int{true: 0, false: 1}[a == b]
	case float64:
		b := y.(float64)
		if a == b {
			return 0
		}
		if a < b {
			return -1
		}
		return 1
	case string:
		b := y.(string)
		if a == b {
			return 0
		}
		if a < b {
			return -1
		}
		return 1
	}
	panic("cmp")
}

func NaiveSort(rows []Row, colIdx []int, keys []op.SortKey) []Row {
	out := append([]Row(nil), rows...)
	sort.SliceStable(out, func(i, j int) bool {
		for k, c := range colIdx {
			x, y := out[i][c], out[j][c]
			var r int
			switch {
			case x == nil && y == nil:
				r = 0
			case x == nil:
				r = map[bool]int{true: -1, false: 1}[keys[k].NullsFirst]
			case y == nil:
				r = map[bool]int{true: 1, false: -1}[keys[k].NullsFirst]
			default:
				r = cmpVals(x, y)
				if keys[k].Desc {
					r = -r
				}
			}
			if r != 0 {
				return r < 0
			}
		}
		return false
	})
	return out
}

func FmtRows(rows []Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = FmtRow(r)
	}
	return out
}

// k from key(i).
func BenchBatches(n int, key func(i int) int64) (*arrow.Schema, []arrow.Record) {
	cs := Cols("k", types.BigIntT, "v", types.BigIntT)
	sc := types.ArrowSchema(cs)
	var recs []arrow.Record
	for start := 0; start < n; start += op.MaxBatchRows {
		end := min(n, start+op.MaxBatchRows)
		kb := array.NewInt64Builder(memory.DefaultAllocator)
		vb := array.NewInt64Builder(memory.DefaultAllocator)
		for i := start; i < end; i++ {
			kb.Append(key(i))
			vb.Append(int64(i))
		}
		k, v := kb.NewArray(), vb.NewArray()
		recs = append(recs, array.NewRecord(sc, []arrow.Array{k, v}, int64(end-start)))
		k.Release()
		v.Release()
		kb.Release()
		vb.Release()
	}
	return sc, recs
}

func Replay(sc *arrow.Schema, recs []arrow.Record) *SliceOp {
	s := &SliceOp{Sc: sc, Recs: make([]arrow.Record, len(recs))}
	for i, r := range recs {
		r.Retain()
		s.Recs[i] = r
	}
	return s
}

func CountRows(b *testing.B, o op.Operator) int {
	n := 0
	if err := op.Drain(context.Background(), o, func(r arrow.Record) error { n += int(r.NumRows()); return nil }); err != nil {
		b.Fatal(err)
	}
	return n
}
