package expr

import (
	"errors"
	"reflect"
	"testing"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

var (
	k     = &ColRef{Index: 0, Table: "t", Name: "k", T: types.IntT}
	v     = &ColRef{Index: 1, Table: "t", Name: "v", T: types.DecimalT(12, 2), Null: true}
	nm    = &ColRef{Index: 2, Name: "name", T: types.VarcharT(32), Null: true}
	dtCol = &ColRef{Index: 3, Table: "t", Name: "dtCol", T: types.DateT}
)

func mustCall(t *testing.T, fn string, args ...Expr) Expr {
	t.Helper()
	e, err := NewCall(fn, args...)
	if err != nil {
		t.Fatalf("%s: %v", fn, err)
	}
	return e
}

func dec(s string, p, sc int) Expr {
	n, _, _ := types.ParseDecimal(s, p, sc)
	return Lit(types.DecimalDatum(n, p, sc))
}

func TestTyping(t *testing.T) {
	i := Lit(types.IntDatum(2))
	cases := []struct {
		e    Expr
		want string
		null bool
	}{
		{mustCall(t, "add", k, i), "BIGINT", false},
		{mustCall(t, "add", k, v), "DECIMAL(13,2)", true},
		{mustCall(t, "multiply", v, v), "DECIMAL(24,4)", true},
		{mustCall(t, "divide", k, i), "DECIMAL(14,4)", true},
		{mustCall(t, "divide", v, dec("1.5", 2, 1)), "DECIMAL(17,6)", true},
		{mustCall(t, "int_divide", k, i), "BIGINT", true},
		{mustCall(t, "add", k, Lit(types.FloatDatum(1))), "DOUBLE", false},
		{mustCall(t, "add", k, nm), "DOUBLE", true},
		{mustCall(t, "eq", k, v), "BOOLEAN", true},
		{mustCall(t, "null_safe_eq", k, v), "BOOLEAN", false},
		{mustCall(t, "coalesce", v, k), "DECIMAL(12,2)", false},
		{mustCall(t, "if", mustCall(t, "gt", k, i), k, nm), "STRING", true},
		{mustCall(t, "year", dtCol), "BIGINT", false},
		{mustCall(t, "year", nm), "BIGINT", true},
		{mustCall(t, "date_add", dtCol, i, Lit(types.StringDatum("DAY"))), "DATE", true},
		{mustCall(t, "date_add", dtCol, i, Lit(types.StringDatum("HOUR"))), "DATETIME", true},
		{mustCall(t, "ceil", v), "DECIMAL(11,0)", true},
		{mustCall(t, "round", v, Lit(types.IntDatum(1))), "DECIMAL(12,1)", true},
		{mustCall(t, "abs", k), "BIGINT", false},
		{mustCall(t, "greatest", k, v), "DECIMAL(12,2)", true},
		{mustCall(t, "concat", nm, k), "STRING", true},
	}
	for _, c := range cases {
		if c.e.Type().String() != c.want || c.e.Nullable() != c.null {
			t.Errorf("%s: %s nullable=%v, want %s nullable=%v", c.e, c.e.Type(), c.e.Nullable(), c.want, c.null)
		}
	}
	// date = string literal compares as DATE, or DATETIME with a time part
	e := mustCall(t, "eq", dtCol, Lit(types.StringDatum("2024-01-01")))
	if e.String() != "`t`.`dtCol` = CAST('2024-01-01' AS DATE)" {
		t.Errorf("date cmp: %s", e)
	}
	e = mustCall(t, "lt", dtCol, Lit(types.StringDatum("2024-01-01 10:00:00")))
	if e.(*Call).Args[0].Type().Kind != types.DateTime {
		t.Errorf("datetime cmp: %s", e)
	}
}

func TestErrors(t *testing.T) {
	if _, err := NewCall("nosuch", k); !errors.Is(err, sqlerr.SPDoesNotExist.Match()) {
		t.Errorf("unknown: %v", err)
	}
	if _, err := NewCall("abs", k, k); !errors.Is(err, sqlerr.WrongParamCount.Match()) {
		t.Errorf("count: %v", err)
	}
	if _, err := NewCall("CEILING", v); err != nil {
		t.Errorf("alias: %v", err)
	}
}

func TestString(t *testing.T) {
	five := Lit(types.IntDatum(5))
	a := mustCall(t, "add", k, mustCall(t, "multiply", v, five))
	cases := []struct {
		e    Expr
		want string
	}{
		{mustCall(t, "eq", k, five), "`t`.`k` = 5"},
		{mustCall(t, "gt", a, five), "CAST(`t`.`k` AS DECIMAL(10,0)) + `t`.`v` * 5 > 5.00"},
		{mustCall(t, "multiply", mustCall(t, "add", k, five), five), "(CAST(`t`.`k` AS BIGINT) + 5) * 5"},
		{mustCall(t, "and", mustCall(t, "or", Lit(types.BoolDatum(true)), Lit(types.BoolDatum(false))), mustCall(t, "is_null", nm)), "(TRUE OR FALSE) AND `name` IS NULL"},
		{mustCall(t, "abs", mustCall(t, "negate", k)), "abs(-CAST(`t`.`k` AS BIGINT))"},
		{mustCall(t, "like", nm, Lit(types.StringDatum("a'%"))), "`name` LIKE 'a\\'%'"},
		{mustCall(t, "in", nm, Lit(types.StringDatum("x")), Lit(types.StringDatum("y"))), "`name` IN ('x', 'y')"},
		{mustCall(t, "between", k, five, Lit(types.IntDatum(9))), "`t`.`k` BETWEEN 5 AND 9"},
		{mustCall(t, "date_add", dtCol, five, Lit(types.StringDatum("DAY"))), "date_add(`t`.`dtCol`, INTERVAL 5 DAY)"},
		// SUBDATE(d, 31): two arguments, no unit (printing it used to panic).
		{mustCall(t, "date_sub", dtCol, five), "date_sub(`t`.`dtCol`, 5)"},
		{NewCast(k, types.DoubleT), "CAST(`t`.`k` AS DOUBLE)"},
	}
	for _, c := range cases {
		if got := c.e.String(); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
	cs, _ := NewCase(k, []When{{Cond: five, Then: Lit(types.StringDatum("five"))}}, nil)
	if cs.String() != "CASE CAST(`t`.`k` AS BIGINT) WHEN 5 THEN 'five' END" {
		t.Errorf("case: %s", cs)
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	big, _, _ := types.ParseDecimal("-12345678901234567890123456789.123456789", 38, 9)
	c, _ := NewCase(nil, []When{
		{Cond: mustCall(t, "gt", v, Lit(types.DecimalDatum(big, 38, 9))), Then: nm},
		{Cond: mustCall(t, "is_null", k), Then: Lit(types.StringDatum("it's"))},
	}, Lit(types.NullDatum(types.StringT)))
	e := mustCall(t, "and",
		mustCall(t, "eq", mustCall(t, "add", k, Lit(types.FloatDatum(0.1))), Lit(types.FloatDatum(1.1))),
		mustCall(t, "like", c, Lit(types.StringDatum("%x%"))),
		mustCall(t, "lt", dtCol, Lit(types.Datum{T: types.DateT, I: 19000})),
		mustCall(t, "eq", &Param{Index: 0, T: types.BigIntT}, Lit(types.IntDatum(-1))),
	)
	b, err := Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(e, back) {
		t.Errorf("round trip differs:\n%s\n%s", e, back)
	}
	if back.String() != e.String() {
		t.Errorf("strings differ")
	}
	bound, err := Bind(back, []types.Datum{types.IntDatum(7)})
	if err != nil || IsConst(bound) {
		t.Fatalf("bind: %v", err)
	}
	hasParam := false
	Walk(bound, func(x Expr) bool {
		_, ok := x.(*Param)
		hasParam = hasParam || ok
		return true
	})
	if hasParam {
		t.Error("Bind left a Param")
	}
}

func TestRewriteImmutable(t *testing.T) {
	e := mustCall(t, "add", k, Lit(types.IntDatum(1)))
	before := e.String()
	out, err := Rewrite(e, func(x Expr) (Expr, error) {
		if c, ok := x.(*Const); ok && c.Val.I == 1 {
			return Lit(types.IntDatum(2)), nil
		}
		return x, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if e.String() != before || out.String() != "CAST(`t`.`k` AS BIGINT) + 2" {
		t.Errorf("rewrite: %s / %s", e, out)
	}
}

// An expression deeper than encoding/json's nesting limit (10,000) round
// trips: a left-deep OR of 10,001 comparisons, and a CASE with an operand
// whose ELSE nests another.
func TestMarshalDeep(t *testing.T) {
	e := mustCall(t, "eq", k, Lit(types.IntDatum(0)))
	for i := 1; i <= 10000; i++ {
		e = mustCall(t, "or", e, mustCall(t, "eq", k, Lit(types.IntDatum(int64(i)))))
	}
	inner, _ := NewCase(k, []When{{Cond: Lit(types.IntDatum(1)), Then: nm}}, nil)
	c, _ := NewCase(k, []When{{Cond: Lit(types.IntDatum(2)), Then: nm}}, inner)
	for _, x := range []Expr{e, c} {
		b, err := Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Unmarshal(b)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(x, back) {
			t.Errorf("round trip differs: %.200s", back)
		}
	}
}
