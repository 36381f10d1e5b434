package expr

import (
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/dorisgo/dorisgo/sql/types"
)

// Long IN lists of constants encode as one run of values and decode to the
// same expression, whatever the items' type; lists that do not fit a run
// (a NULL, mixed types, a column) encode node by node, also exactly.
func TestMarshalConstRuns(t *testing.T) {
	list := func(n int, item func(i int) Expr) []Expr {
		out := make([]Expr, n)
		for i := range out {
			out[i] = item(i)
		}
		return out
	}
	lit := func(d types.Datum) func(int) Expr { return func(int) Expr { return Lit(d) } }
	cases := []struct {
		name   string
		probe  Expr
		items  []Expr
		packed bool
	}{
		{"bigint", NewCast(k, types.BigIntT), list(40, func(i int) Expr { return Lit(types.IntDatum(int64(i*7 - 100))) }), true},
		{"double", &ColRef{Index: 0, Name: "d", T: types.DoubleT}, list(40, func(i int) Expr { return Lit(types.FloatDatum(float64(i) / 3)) }), true},
		{"string literals", nm, list(40, func(i int) Expr { return Lit(types.StringDatum(fmt.Sprintf("s%d'\"é", i*i))) }), true},
		{"empty strings", nm, list(20, lit(types.StringDatum(""))), true},
		{"decimal", v, list(40, func(i int) Expr { return dec(fmt.Sprintf("%d.%02d", i-20, i), 12, 2) }), true},
		{"date", dtCol, list(20, func(i int) Expr { return Lit(types.Datum{T: types.DateT, I: int64(19000 + i)}) }), true},
		{"with a NULL", NewCast(k, types.BigIntT), append(list(20, lit(types.IntDatum(1))), Lit(types.NullDatum(types.BigIntT))), false},
		{"mixed types", NewCast(k, types.BigIntT), append(list(20, lit(types.IntDatum(1))), Lit(types.FloatDatum(2))), false},
		{"a column", NewCast(k, types.BigIntT), append(list(20, lit(types.IntDatum(1))), NewCast(k, types.BigIntT)), false},
		{"short", NewCast(k, types.BigIntT), list(3, lit(types.IntDatum(1))), false},
	}
	for _, c := range cases {
		e := &Call{Fn: "in", Args: append([]Expr{c.probe}, c.items...), T: types.BoolT, Null: true}
		b, err := Marshal(e)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		back, err := Unmarshal(b)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !reflect.DeepEqual(e, back) {
			t.Errorf("%s: round trip differs:\n%.300s\n%.300s", c.name, e, back)
		}
		if packed := packRun(c.items) != nil; packed != c.packed {
			t.Errorf("%s: packed=%v, want %v", c.name, packed, c.packed)
		}
	}
	// 100,000 integers: about 6 bytes each, not a node of 40.
	e := &Call{Fn: "in", Args: append([]Expr{NewCast(k, types.BigIntT)}, list(100000, func(i int) Expr { return Lit(types.IntDatum(int64(i))) })...), T: types.BoolT}
	b, err := Marshal(e)
	if err != nil || len(b) > 1_000_000 {
		t.Errorf("100,000-item IN list: %d bytes, %v", len(b), err)
	}
}

// Floats JSON has no number for encode too: a comparison with '1e999'
// folds to +Inf, and the plan carrying it once failed to encode ("json:
// unsupported value: +Inf").
func TestMarshalNonFinite(t *testing.T) {
	d := &ColRef{Index: 0, Name: "d", T: types.DoubleT}
	for _, f := range []float64{math.Inf(1), math.Inf(-1), math.NaN()} {
		items := []Expr{Lit(types.FloatDatum(f)), Lit(types.FloatDatum(1.5))}
		for i := 0; i < 20; i++ {
			items = append(items, Lit(types.FloatDatum(f)))
		}
		for _, e := range []Expr{&Call{Fn: "eq", Args: []Expr{d, Lit(types.FloatDatum(f))}, T: types.BoolT, Null: true},
			&Call{Fn: "in", Args: append([]Expr{d}, items...), T: types.BoolT, Null: true}} {
			b, err := Marshal(e)
			if err != nil {
				t.Fatalf("%v: %v", f, err)
			}
			back, err := Unmarshal(b)
			if err != nil {
				t.Fatalf("%v: %v", f, err)
			}
			if got := back.(*Call).Args[1].(*Const).Val; got.F != f && !(math.IsNaN(f) && math.IsNaN(got.F)) || got.FS != "" {
				t.Errorf("%v came back as %+v", f, got)
			}
		}
	}
}
