package eval

import (
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// TestExplicitCast: CAST follows Doris 2.x (a value that does not convert
// is NULL and warns); the implicit conversion keeps MySQL's prefixes.
func TestExplicitCast(t *testing.T) {
	tiny := types.T{Kind: types.TinyInt}
	d52 := types.T{Kind: types.Decimal, Precision: 5, Scale: 2}
	cases := []struct {
		in       types.Datum
		to       types.T
		want     string // "NULL" for NULL
		warnings int
		implicit string // the implicit conversion's value ("" = not checked)
	}{
		{types.StringDatum("abc"), types.IntT, "NULL", 1, "0"},
		{types.StringDatum("12x"), types.IntT, "NULL", 1, "12"},
		{types.StringDatum(" 12 "), types.IntT, "12", 0, "12"},
		{types.StringDatum("-7"), types.BigIntT, "-7", 0, ""},
		{types.StringDatum("12.7"), types.IntT, "12", 0, ""},
		{types.StringDatum("1e3"), types.IntT, "NULL", 1, "1"},
		{types.StringDatum(""), types.IntT, "NULL", 1, "0"},
		{types.StringDatum("3000000000"), types.IntT, "NULL", 1, "2147483647"},
		{types.StringDatum("300"), tiny, "NULL", 1, ""},
		{types.IntDatum(300), tiny, "NULL", 1, "127"},
		{types.IntDatum(-5), tiny, "-5", 0, ""},
		{types.FloatDatum(1e30), types.BigIntT, "NULL", 1, ""},
		{types.StringDatum("1.5e2"), types.DoubleT, "150", 0, ""},
		{types.StringDatum("1.5x"), types.DoubleT, "NULL", 1, "1.5"},
		{types.StringDatum("abc"), d52, "NULL", 1, "0.00"},
		{types.StringDatum("12.345"), d52, "12.35", 0, ""},
		{types.StringDatum("123456"), d52, "NULL", 1, "999.99"},
		{types.StringDatum("2024-02-30"), types.DateT, "NULL", 1, "NULL"},
		{types.StringDatum("2024-02-03"), types.DateT, "2024-02-03", 0, ""},
		{types.StringDatum("nope"), types.DateTimeT, "NULL", 1, ""},
		{types.StringDatum("yes"), types.BoolT, "1", 0, ""},
		{types.StringDatum("maybe"), types.BoolT, "NULL", 1, ""},
		{types.StringDatum("x"), types.StringT, "x", 0, ""},
		{types.StringDatum("abcdef"), types.VarcharT(3), "abc", 1, "abc"},
	}
	for _, c := range cases {
		w := &expr.Warnings{}
		ctx := &expr.Context{Now: time.Now(), Warn: w}
		x := expr.NewExplicitCast(expr.Lit(c.in), c.to)
		got, err := EvalConst(ctx, x)
		if err != nil {
			t.Fatalf("CAST(%s AS %s): %v", c.in, c.to, err)
		}
		if s := datumText(got); s != c.want {
			t.Errorf("CAST(%s AS %s) = %s, want %s", c.in, c.to, s, c.want)
		}
		if int(w.Count()) != c.warnings {
			t.Errorf("CAST(%s AS %s): %d warnings %v, want %d", c.in, c.to, w.Count(), w.List(), c.warnings)
		}
		if c.implicit != "" {
			got, err := EvalConst(&expr.Context{}, expr.NewCast(expr.Lit(c.in), c.to))
			if err != nil {
				t.Fatal(err)
			}
			if s := datumText(got); s != c.implicit {
				t.Errorf("implicit %s → %s = %s, want %s", c.in, c.to, s, c.implicit)
			}
		}
	}
}

// TestExplicitCastColumn: over a column, only the bad rows become NULL,
// each with its warning.
func TestExplicitCastColumn(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	b := array.NewStringBuilder(mem)
	b.AppendValues([]string{"1", "abc", "", "42"}, []bool{true, true, false, true})
	col := b.NewArray()
	b.Release()
	defer col.Release()
	rec := array.NewRecord(types.ArrowSchema([]types.Column{{Name: "s", Type: types.StringT, Nullable: true}}), []arrow.Array{col}, 4)
	defer rec.Release()
	w := &expr.Warnings{}
	x := expr.NewExplicitCast(&expr.ColRef{Index: 0, Name: "s", T: types.StringT, Null: true}, types.IntT)
	out, err := Eval(&expr.Context{Warn: w}, x, rec, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	var got []string
	for i := 0; i < out.Len(); i++ {
		got = append(got, datumText(types.DatumAt(out, i, types.IntT)))
	}
	if want := "1,NULL,NULL,42"; join(got) != want {
		t.Errorf("got %s, want %s", join(got), want)
	}
	if w.Count() != 1 || w.List()[0].Message != "Truncated incorrect INTEGER value: 'abc'" || w.List()[0].Code != 1292 {
		t.Errorf("warnings %d %v", w.Count(), w.List())
	}
	if !x.Nullable() {
		t.Error("CAST(string AS INT) must be nullable")
	}
	if expr.NewExplicitCast(expr.Lit(types.IntDatum(1)), types.BigIntT).Nullable() {
		t.Error("CAST(1 AS BIGINT) cannot fail")
	}
}

func datumText(d types.Datum) string {
	if d.Null {
		return "NULL"
	}
	if d.T.Kind == types.Boolean {
		if d.I != 0 {
			return "1"
		}
		return "0"
	}
	return d.String()
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ","
		}
		out += x
	}
	return out
}
