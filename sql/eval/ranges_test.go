package eval

import (
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// TestFusedRanges checks that a column's two bounds fused into one BETWEEN
// (expr.FuseRanges, the one-pass between kernel) select exactly the rows
// the two comparisons and their AND do: every integer-coded width, dates,
// datetimes and decimals (with values past 64 bits), strict and inclusive
// bounds at the types' extremes, empty ranges, NULL rows, sliced arrays.
func TestFusedRanges(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewSource(5))
	type kind struct {
		t        types.T
		lo, hi   int64 // the physical range of values and bounds
		fuseLtGt bool
	}
	kinds := []kind{
		{types.TinyIntT, math.MinInt8, math.MaxInt8, true},
		{types.SmallIntT, math.MinInt16, math.MaxInt16, true},
		{types.IntT, math.MinInt32, math.MaxInt32, true},
		{types.BigIntT, math.MinInt64, math.MaxInt64, true},
		{types.DateT, math.MinInt32, math.MaxInt32, true},
		{types.DateTimeT, math.MinInt64, math.MaxInt64, true},
		{types.DecimalT(38, 2), math.MinInt64, math.MaxInt64, false},
	}
	datum := func(k kind, v int64, wide bool) types.Datum {
		d := types.Datum{T: k.t, I: v}
		if k.t.Kind == types.Decimal {
			d = types.Datum{T: k.t, Dec: decimal128.FromI64(v)}
			if wide { // beyond int64, either sign
				d.Dec = decimal128.New(int64(v>>62)|1, uint64(v))
			}
		}
		return d
	}
	// pick is a value near an edge of the type or of a small window.
	pick := func(k kind) int64 {
		switch r.Intn(5) {
		case 0:
			return k.lo + int64(r.Intn(3))
		case 1:
			return k.hi - int64(r.Intn(3))
		default:
			return int64(r.Intn(21)) - 10
		}
	}
	for _, k := range kinds {
		col := &expr.ColRef{Index: 0, Name: "x", T: k.t, Null: true}
		nFused := 0
		b := array.NewBuilder(mem, k.t.Arrow())
		const n = 300
		for i := 0; i < n; i++ {
			if r.Intn(10) == 0 {
				b.AppendNull()
				continue
			}
			types.AppendDatum(b, datum(k, pick(k), r.Intn(8) == 0))
		}
		full := b.NewArray()
		b.Release()
		for _, off := range []int{0, 5, 64} {
			arr := array.NewSlice(full, int64(off), int64(n))
			rec := array.NewRecord(arrow.NewSchema([]arrow.Field{{Name: "x", Type: arr.DataType(), Nullable: true}}, nil),
				[]arrow.Array{arr}, int64(arr.Len()))
			arr.Release()
			for trial := 0; trial < 60; trial++ {
				lowFn, highFn := "ge", "le"
				if k.fuseLtGt && r.Intn(2) == 0 {
					lowFn = "gt"
				}
				if k.fuseLtGt && r.Intn(2) == 0 {
					highFn = "lt"
				}
				lo, hi := expr.Lit(datum(k, pick(k), false)), expr.Lit(datum(k, pick(k), false))
				conj := []expr.Expr{call(t, lowFn, col, lo), call(t, highFn, col, hi)}
				if r.Intn(2) == 0 { // constant first, other order
					flip := map[string]string{"ge": "le", "gt": "lt", "le": "ge", "lt": "gt"}
					conj = []expr.Expr{call(t, flip[highFn], hi, col), call(t, flip[lowFn], lo, col)}
				}
				fused := expr.FuseRanges(conj)
				// A strict bound at the type's edge stays two conjuncts.
				if len(fused) == 1 {
					nFused++
					if c, ok := fused[0].(*expr.Call); !ok || c.Fn != "between" {
						t.Fatalf("%s: fused to %s", k.t, fused[0])
					}
				}
				want := evalBools(t, mem, call(t, "and", conj[0], conj[1]), rec)
				got := evalBools(t, mem, andAll(t, fused), rec)
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("%s offset %d: %s AND %s row %d (%s): fused %s, want %s", k.t, off, conj[0], conj[1], i,
							types.DatumAt(rec.Column(0), i, k.t), got[i], want[i])
					}
				}
			}
			rec.Release()
		}
		full.Release()
		if nFused < 100 {
			t.Errorf("%s: only %d of 180 pairs fused", k.t, nFused)
		}
	}
}

func andAll(t *testing.T, cs []expr.Expr) expr.Expr {
	e := cs[0]
	for _, c := range cs[1:] {
		e = call(t, "and", e, c)
	}
	return e
}

func evalBools(t *testing.T, mem memory.Allocator, e expr.Expr, rec arrow.Record) []string {
	arr, err := Eval(tctx, e, rec, mem)
	if err != nil {
		t.Fatalf("%s: %v", e, err)
	}
	defer arr.Release()
	out := make([]string, arr.Len())
	for i := range out {
		out[i] = types.DatumAt(arr, i, types.BoolT).String()
	}
	return out
}

// TestFuseRangesShape checks which conjuncts fuse: one column's lower and
// upper bound (in place of the first), not two bounds on one side, not
// a bound on another column or of another type.
func TestFuseRangesShape(t *testing.T) {
	a := &expr.ColRef{Index: 0, Name: "a", T: types.IntT}
	c := &expr.ColRef{Index: 1, Name: "c", T: types.IntT}
	s := &expr.ColRef{Index: 2, Name: "s", T: types.VarcharT(4)}
	lit := func(v int64) expr.Expr { return expr.Lit(types.Datum{T: types.IntT, I: v}) }
	cases := []struct {
		in   []expr.Expr
		want string
	}{
		{[]expr.Expr{call(t, "ge", a, lit(5)), call(t, "eq", c, lit(1)), call(t, "le", a, lit(7))},
			"a BETWEEN 5 AND 7 | c = 1"},
		{[]expr.Expr{call(t, "gt", a, lit(5)), call(t, "lt", a, lit(7))}, "a BETWEEN 6 AND 6"},
		{[]expr.Expr{call(t, "ge", a, lit(5)), call(t, "ge", a, lit(6))}, "a >= 5 | a >= 6"},
		{[]expr.Expr{call(t, "ge", a, lit(5)), call(t, "le", c, lit(6))}, "a >= 5 | c <= 6"},
		{[]expr.Expr{call(t, "ge", s, expr.Lit(types.StringDatum("a"))), call(t, "le", s, expr.Lit(types.StringDatum("b")))},
			"s >= 'a' | s <= 'b'"},
		{[]expr.Expr{call(t, "gt", a, lit(math.MaxInt32)), call(t, "le", a, lit(0))}, "a > 2147483647 | a <= 0"},
	}
	for _, tc := range cases {
		var got []string
		for _, e := range expr.FuseRanges(tc.in) {
			got = append(got, strings.ReplaceAll(e.String(), "`", ""))
		}
		if g := strings.Join(got, " | "); g != tc.want {
			t.Errorf("FuseRanges = %q, want %q", g, tc.want)
		}
	}
}
