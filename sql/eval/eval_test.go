package eval

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

var tctx = &expr.Context{Now: time.Date(2024, 3, 15, 10, 20, 30, 0, time.UTC)}

func i(v int64) expr.Expr    { return expr.Lit(types.IntDatum(v)) }
func f(v float64) expr.Expr  { return expr.Lit(types.FloatDatum(v)) }
func s(v string) expr.Expr   { return expr.Lit(types.StringDatum(v)) }
func null() expr.Expr        { return expr.Lit(types.NullDatum(types.NullT)) }
func b(v bool) expr.Expr     { return expr.Lit(types.BoolDatum(v)) }
func dec(v string) expr.Expr { return expr.Lit(decDatum(v)) }

func decDatum(v string) types.Datum {
	sc := 0
	if j := strings.IndexByte(v, '.'); j >= 0 {
		sc = len(v) - j - 1
	}
	p := len(strings.NewReplacer("-", "", ".", "").Replace(v))
	n, _, _ := types.ParseDecimal(v, p, sc)
	return types.DecimalDatum(n, p, sc)
}

func call(t *testing.T, fn string, args ...expr.Expr) expr.Expr {
	t.Helper()
	e, err := expr.NewCall(fn, args...)
	if err != nil {
		t.Fatalf("NewCall(%s): %v", fn, err)
	}
	return e
}

// constCase evaluates a constant expression both folded and as a column
// over a 3-row batch, and checks the text value and the result type.
type constCase struct {
	e    expr.Expr
	want string
	typ  string // "" = don't check
}

func checkConst(t *testing.T, cases []constCase) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	rec := emptyRec(mem, 3)
	defer rec.Release()
	for _, c := range cases {
		d, err := EvalConst(tctx, c.e)
		if err != nil {
			t.Errorf("%s: %v", c.e, err)
			continue
		}
		if got := d.String(); got != c.want {
			t.Errorf("%s = %q, want %q", c.e, got, c.want)
		}
		if c.typ != "" && c.e.Type().String() != c.typ {
			t.Errorf("%s: type %s, want %s", c.e, c.e.Type(), c.typ)
		}
		arr, err := Eval(tctx, c.e, rec, mem)
		if err != nil {
			t.Errorf("%s: %v", c.e, err)
			continue
		}
		if arr.Len() != 3 {
			t.Errorf("%s: len %d", c.e, arr.Len())
		}
		if got := types.DatumAt(arr, 2, c.e.Type()).String(); got != c.want {
			t.Errorf("%s over batch = %q, want %q", c.e, got, c.want)
		}
		arr.Release()
	}
}

func emptyRec(mem memory.Allocator, n int) arrow.Record {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	for k := 0; k < n; k++ {
		b.Append(int64(k))
	}
	col := b.NewArray()
	defer col.Release()
	sch := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	return array.NewRecord(sch, []arrow.Array{col}, int64(n))
}

func TestArithmetic(t *testing.T) {
	checkConst(t, []constCase{
		{call(t, "add", i(1), i(2)), "3", "BIGINT"},
		{call(t, "subtract", i(1), i(5)), "-4", "BIGINT"},
		{call(t, "multiply", i(7), i(6)), "42", "BIGINT"},
		{call(t, "divide", i(7), i(2)), "3.5000", "DECIMAL(23,4)"},
		{call(t, "divide", i(1), i(3)), "0.3333", ""},
		{call(t, "divide", i(2), i(3)), "0.6667", ""},
		{call(t, "divide", i(1), i(0)), "NULL", ""},
		{call(t, "int_divide", i(7), i(2)), "3", "BIGINT"},
		{call(t, "int_divide", i(-7), i(2)), "-3", ""},
		{call(t, "int_divide", i(7), i(0)), "NULL", ""},
		{call(t, "mod", i(7), i(3)), "1", "BIGINT"},
		{call(t, "mod", i(-7), i(3)), "-1", ""},
		{call(t, "mod", i(7), i(0)), "NULL", ""},
		{call(t, "add", dec("1.25"), i(2)), "3.25", "DECIMAL(22,2)"},
		{call(t, "add", dec("1.25"), dec("0.005")), "1.255", "DECIMAL(5,3)"},
		{call(t, "multiply", dec("1.25"), dec("0.5")), "0.625", "DECIMAL(5,3)"},
		{call(t, "subtract", dec("1.00"), dec("2.5")), "-1.50", ""},
		{call(t, "divide", dec("10.00"), i(4)), "2.500000", "DECIMAL(8,6)"},
		{call(t, "divide", dec("1.0"), dec("3")), "0.33333", ""},
		{call(t, "mod", dec("7.5"), i(2)), "1.5", ""},
		{call(t, "add", f(1.5), i(1)), "2.5", "DOUBLE"},
		{call(t, "add", s("1.5"), i(1)), "2.5", "DOUBLE"},
		{call(t, "add", s("12abc"), i(1)), "13", "DOUBLE"},
		{call(t, "divide", f(1), f(0)), "NULL", ""},
		{call(t, "add", null(), i(1)), "NULL", ""},
		{call(t, "negate", i(5)), "-5", "BIGINT"},
		{call(t, "negate", dec("1.5")), "-1.5", ""},
		{call(t, "bitand", i(12), i(10)), "8", ""},
		{call(t, "shift_left", i(1), i(4)), "16", ""},
	})
}

func TestOverflow(t *testing.T) {
	for _, e := range []expr.Expr{
		call(t, "add", i(9223372036854775807), i(1)),
		call(t, "subtract", i(-9223372036854775808), i(1)),
		call(t, "multiply", i(4611686018427387904), i(2)),
		call(t, "negate", i(-9223372036854775808)),
		call(t, "int_divide", i(-9223372036854775808), i(-1)),
	} {
		_, err := EvalConst(tctx, e)
		if !errors.Is(err, sqlerr.DataOutOfRange.Match()) {
			t.Errorf("%s: err %v, want 1690", e, err)
		}
	}
	_, err := EvalConst(tctx, call(t, "add", i(9223372036854775807), i(1)))
	if err == nil || !strings.Contains(err.Error(), "BIGINT value is out of range in '(9223372036854775807 + 1)'") {
		t.Errorf("message: %v", err)
	}
}

func TestComparisonAndLogic(t *testing.T) {
	checkConst(t, []constCase{
		{call(t, "eq", i(1), dec("1.0")), "1", "BOOLEAN"},
		{call(t, "lt", i(1), dec("1.5")), "1", ""},
		{call(t, "eq", s("abc"), i(0)), "1", ""},
		{call(t, "eq", s("1e1"), i(10)), "1", ""},
		{call(t, "lt", s("a"), s("b")), "1", ""},
		{call(t, "gt", s("a"), s("B")), "1", ""},
		{call(t, "eq", expr.Lit(types.Datum{T: types.DateT, I: 19797}), s("2024-03-15")), "1", ""},
		{call(t, "lt", expr.Lit(types.Datum{T: types.DateT, I: 19797}), s("2024-03-15 00:00:01")), "1", ""},
		{call(t, "eq", null(), i(1)), "NULL", ""},
		{call(t, "null_safe_eq", null(), null()), "1", ""},
		{call(t, "null_safe_eq", null(), i(1)), "0", ""},
		{call(t, "and", b(false), null()), "0", ""},
		{call(t, "and", b(true), null()), "NULL", ""},
		{call(t, "or", b(true), null()), "1", ""},
		{call(t, "or", b(false), null()), "NULL", ""},
		{call(t, "not", i(0)), "1", ""},
		{call(t, "xor", b(true), b(true)), "0", ""},
		{call(t, "in", i(2), i(1), i(2)), "1", ""},
		{call(t, "in", i(3), i(1), null()), "NULL", ""},
		{call(t, "in", i(1), i(1), null()), "1", ""},
		{call(t, "not_in", i(3), i(1), null()), "NULL", ""},
		{call(t, "not_in", i(3), i(1), i(2)), "1", ""},
		{call(t, "between", i(2), i(1), i(3)), "1", ""},
		{call(t, "between", i(5), i(1), i(3)), "0", ""},
		{call(t, "is_null", null()), "1", ""},
		{call(t, "is_not_null", i(1)), "1", ""},
		{call(t, "is_true", null()), "0", ""},
		{call(t, "like", s("abcd"), s("a%d")), "1", ""},
		{call(t, "like", s("abcd"), s("a_c%")), "1", ""},
		{call(t, "like", s("a%"), s("a\\%")), "1", ""},
		{call(t, "like", s("ab"), s("a\\%")), "0", ""},
		{call(t, "not_like", s("abc"), s("%x%")), "1", ""},
		{call(t, "regexp", s("abc123"), s("[0-9]+$")), "1", ""},
	})
}

func TestConditionals(t *testing.T) {
	cs, err := expr.NewCase(nil, []expr.When{{Cond: b(false), Then: i(1)}, {Cond: b(true), Then: dec("2.5")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	simple, _ := expr.NewCase(i(2), []expr.When{{Cond: i(1), Then: s("one")}, {Cond: i(2), Then: s("two")}}, s("many"))
	noElse, _ := expr.NewCase(i(9), []expr.When{{Cond: i(1), Then: i(1)}}, nil)
	checkConst(t, []constCase{
		{cs, "2.5", "DECIMAL(20,1)"},
		{simple, "two", ""},
		{noElse, "NULL", ""},
		{call(t, "coalesce", null(), i(2), i(3)), "2", "BIGINT"},
		{call(t, "ifnull", null(), s("x")), "x", ""},
		{call(t, "nullif", i(1), i(1)), "NULL", ""},
		{call(t, "nullif", i(1), i(2)), "1", ""},
		{call(t, "if", b(true), i(1), s("a")), "1", "STRING"},
		{call(t, "if", null(), i(1), i(2)), "2", ""},
		{call(t, "greatest", i(1), i(5), i(3)), "5", ""},
		{call(t, "least", i(4), dec("2.5")), "2.5", ""},
		{call(t, "greatest", i(1), null()), "NULL", ""},
	})
}

func TestFunctions(t *testing.T) {
	checkConst(t, []constCase{
		{call(t, "abs", i(-3)), "3", "BIGINT"},
		{call(t, "ceil", dec("1.2")), "2", ""},
		{call(t, "floor", dec("-1.2")), "-2", ""},
		{call(t, "ceil", f(1.2)), "2", ""},
		{call(t, "round", dec("2.567"), i(2)), "2.57", "DECIMAL(4,2)"},
		{call(t, "round", dec("2.5")), "3", ""},
		{call(t, "round", dec("-2.5")), "-3", ""},
		{call(t, "round", i(1234), i(-2)), "1200", ""},
		{call(t, "truncate", dec("2.567"), i(1)), "2.5", ""},
		{call(t, "round", f(2.567), i(2)), "2.57", ""},
		{call(t, "sign", dec("-0.5")), "-1", ""},
		{call(t, "sqrt", i(16)), "4", "DOUBLE"},
		{call(t, "sqrt", i(-1)), "NULL", ""},
		{call(t, "power", i(2), i(10)), "1024", ""},
		{call(t, "log", i(2), i(8)), "3", ""},
		{call(t, "ln", i(0)), "NULL", ""},
		{call(t, "concat", s("a"), i(1), s("b")), "a1b", ""},
		{call(t, "concat", s("a"), null()), "NULL", ""},
		{call(t, "concat_ws", s(","), s("a"), null(), s("b")), "a,b", ""},
		{call(t, "length", s("héllo")), "6", "BIGINT"},
		{call(t, "char_length", s("héllo")), "5", ""},
		{call(t, "upper", s("abc")), "ABC", ""},
		{call(t, "substring", s("hello"), i(2), i(3)), "ell", ""},
		{call(t, "substring", s("hello"), i(-3)), "llo", ""},
		{call(t, "left", s("hello"), i(2)), "he", ""},
		{call(t, "right", s("hello"), i(2)), "lo", ""},
		{call(t, "trim", s("  x  ")), "x", ""},
		{call(t, "replace", s("aXbX"), s("X"), s("-")), "a-b-", ""},
		{call(t, "instr", s("foobar"), s("bar")), "4", ""},
		{call(t, "locate", s("o"), s("foo"), i(3)), "3", ""},
		{call(t, "lpad", s("hi"), i(5), s("ab")), "abahi", ""},
		{call(t, "rpad", s("hi"), i(1), s("ab")), "h", ""},
		{call(t, "reverse", s("abc")), "cba", ""},
		{call(t, "repeat", s("ab"), i(3)), "ababab", ""},
		{call(t, "ascii", s("A")), "65", ""},
		{call(t, "strcmp", s("a"), s("b")), "-1", ""},
		{call(t, "md5", s("a")), "0cc175b9c0f1b6a831c399e269772661", ""},
	})
}

func TestDates(t *testing.T) {
	d := s("2024-02-29 13:45:10")
	checkConst(t, []constCase{
		{call(t, "year", d), "2024", "BIGINT"},
		{call(t, "month", d), "2", ""},
		{call(t, "day", d), "29", ""},
		{call(t, "hour", d), "13", ""},
		{call(t, "minute", d), "45", ""},
		{call(t, "second", d), "10", ""},
		{call(t, "dayofweek", d), "5", ""},
		{call(t, "weekday", d), "3", ""},
		{call(t, "dayofyear", d), "60", ""},
		{call(t, "quarter", d), "1", ""},
		{call(t, "date", d), "2024-02-29", "DATE"},
		{call(t, "last_day", s("2023-02-10")), "2023-02-28", ""},
		{call(t, "to_days", s("2024-01-01")), "739251", ""},
		{call(t, "from_days", i(739251)), "2024-01-01", ""},
		{call(t, "datediff", s("2024-03-01"), s("2024-02-01")), "29", ""},
		{call(t, "date_add", expr.NewCast(s("2024-01-31"), types.DateT), i(1), s("MONTH")), "2024-02-29", "DATE"},
		{call(t, "date_sub", expr.NewCast(s("2024-03-01"), types.DateT), i(1), s("DAY")), "2024-02-29", ""},
		{call(t, "date_add", d, i(2), s("HOUR")), "2024-02-29 15:45:10", "DATETIME"},
		{call(t, "date_format", d, s("%Y/%m/%d %H:%i:%s %W %M %p")), "2024/02/29 13:45:10 Thursday February PM", ""},
		{call(t, "str_to_date", s("29/02/2024"), s("%d/%m/%Y")), "2024-02-29", "DATE"},
		{call(t, "str_to_date", s("2024-02-30"), s("%Y-%m-%d")), "NULL", ""},
		{call(t, "unix_timestamp", s("1970-01-02")), "86400", ""},
		{call(t, "from_unixtime", i(86400)), "1970-01-02 00:00:00", ""},
		{call(t, "now"), "2024-03-15 10:20:30", ""},
		{call(t, "current_date"), "2024-03-15", ""},
		{expr.NewCast(s("2024-13-01"), types.DateT), "NULL", ""},
	})
}

func TestCasts(t *testing.T) {
	checkConst(t, []constCase{
		{expr.NewCast(s("12abc"), types.BigIntT), "12", ""},
		{expr.NewCast(s("abc"), types.BigIntT), "0", ""},
		{expr.NewCast(s(" -7.9"), types.BigIntT), "-7", ""},
		{expr.NewCast(dec("2.5"), types.BigIntT), "3", ""},
		{expr.NewCast(dec("-2.5"), types.BigIntT), "-3", ""},
		{expr.NewCast(f(2.5), types.BigIntT), "3", ""},
		{expr.NewCast(s("1.005"), types.DecimalT(5, 2)), "1.01", ""},
		{expr.NewCast(f(0.1), types.DecimalT(10, 3)), "0.100", ""},
		{expr.NewCast(s("12345"), types.DecimalT(4, 1)), "999.9", ""},
		{expr.NewCast(i(42), types.StringT), "42", ""},
		{expr.NewCast(dec("-0.05"), types.StringT), "-0.05", ""},
		{expr.NewCast(i(20240315), types.DateT), "2024-03-15", ""},
		{expr.NewCast(s("2024-03-15 10:00:00"), types.DateTimeT), "2024-03-15 10:00:00", ""},
		{expr.NewCast(s("abc"), types.DoubleT), "0", ""},
		{expr.NewCast(s("abcdef"), types.VarcharT(3)), "abc", ""},
		{expr.NewCast(i(300), types.TinyIntT), "127", ""},
	})
}

func TestCastStrict(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"1", "2x"}, nil)
	arr := sb.NewArray()
	sb.Release()
	defer arr.Release()
	_, err := CastStrict(arr, types.StringT, types.IntT, "k", 1, mem)
	if !errors.Is(err, sqlerr.IncorrectValue.Match()) || !strings.Contains(err.Error(), "row 2") {
		t.Errorf("bad int: %v", err)
	}
	for _, c := range []struct {
		d    types.Datum
		to   types.T
		kind sqlerr.Kind
	}{
		{types.IntDatum(300), types.TinyIntT, sqlerr.WarnDataOutOfRange},
		{types.StringDatum("2024-02-30"), types.DateT, sqlerr.TruncatedWrongValue},
		{types.StringDatum("abcd"), types.VarcharT(3), sqlerr.DataTooLong},
		{types.StringDatum("1234.5"), types.DecimalT(4, 1), sqlerr.WarnDataOutOfRange},
		{types.StringDatum("x"), types.DecimalT(4, 1), sqlerr.IncorrectValue},
		{types.StringDatum("1e999"), types.DoubleT, sqlerr.WarnDataOutOfRange},
	} {
		if _, err := CastDatum(c.d, c.to, true, "c"); !errors.Is(err, c.kind.Match()) {
			t.Errorf("strict %v → %s: %v", c.d, c.to, err)
		}
	}
	good, err := CastDatum(types.StringDatum(" 12.5 "), types.DecimalT(5, 2), true, "c")
	if err != nil || good.String() != "12.50" {
		t.Errorf("strict good: %v %v", good, err)
	}
	r, err := CastDatum(types.StringDatum("1.5"), types.IntT, true, "c")
	if err != nil || r.String() != "2" {
		t.Errorf("strict 1.5 → INT: %v %v", r, err)
	}
}

// colRec builds a batch with nullable BIGINT a, b, DECIMAL(10,2) d and string s.
func colRec(mem memory.Allocator) arrow.Record {
	ab := array.NewInt64Builder(mem)
	ab.AppendValues([]int64{1, 2, 0, 9223372036854775807}, []bool{true, true, false, false})
	a := ab.NewArray()
	ab.AppendValues([]int64{10, 0, 5, 1}, []bool{true, true, true, true})
	bb := ab.NewArray()
	ab.Release()
	db := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 10, Scale: 2})
	db.AppendValues([]decimal128.Num{decimal128.FromI64(150), decimal128.FromI64(-5), decimal128.FromI64(0), decimal128.FromI64(1)}, []bool{true, true, true, false})
	d := db.NewArray()
	db.Release()
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"x", "", "yy", "z"}, []bool{true, true, false, true})
	st := sb.NewArray()
	sb.Release()
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: a.DataType(), Nullable: true}, {Name: "b", Type: bb.DataType()},
		{Name: "d", Type: d.DataType(), Nullable: true}, {Name: "s", Type: st.DataType(), Nullable: true},
	}, nil)
	rec := array.NewRecord(sch, []arrow.Array{a, bb, d, st}, 4)
	a.Release()
	bb.Release()
	d.Release()
	st.Release()
	return rec
}

var (
	colA = &expr.ColRef{Index: 0, Table: "t", Name: "a", T: types.BigIntT, Null: true}
	colB = &expr.ColRef{Index: 1, Table: "t", Name: "b", T: types.BigIntT}
	colD = &expr.ColRef{Index: 2, Table: "t", Name: "d", T: types.DecimalT(10, 2), Null: true}
	colS = &expr.ColRef{Index: 3, Table: "t", Name: "s", T: types.VarcharT(8), Null: true}
)

func TestColumns(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	rec := colRec(mem)
	defer rec.Release()
	cases := []struct {
		e    expr.Expr
		want string
	}{
		// the overflowing a+1 sits in a NULL row: no error
		{call(t, "add", colA, i(1)), "2 3 NULL NULL"},
		{call(t, "divide", colA, colB), "0.1000 NULL NULL NULL"},
		{call(t, "mod", colB, colA), "0 0 NULL NULL"},
		{call(t, "multiply", colD, colB), "15.00 0.00 0.00 NULL"},
		{call(t, "add", colD, dec("0.001")), "1.501 -0.049 0.001 NULL"},
		{call(t, "gt", colD, i(0)), "1 0 0 NULL"},
		{call(t, "or", call(t, "gt", colA, i(1)), call(t, "eq", colB, i(5))), "0 1 1 NULL"},
		{call(t, "coalesce", colA, colB), "1 2 5 1"},
		{call(t, "concat", colS, s("!")), "x! ! NULL z!"},
		{call(t, "in", colB, i(0), i(10)), "1 1 0 0"},
		{call(t, "is_null", colA), "0 0 1 1"},
		{call(t, "if", call(t, "is_null", colA), colB, colA), "1 2 5 1"},
		{call(t, "null_safe_eq", colA, null()), "0 0 1 1"},
		{call(t, "length", colS), "1 0 NULL 1"},
	}
	for _, c := range cases {
		arr, err := Eval(tctx, c.e, rec, mem)
		if err != nil {
			t.Errorf("%s: %v", c.e, err)
			continue
		}
		var got []string
		for k := 0; k < arr.Len(); k++ {
			got = append(got, types.DatumAt(arr, k, c.e.Type()).String())
		}
		arr.Release()
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%s = %q, want %q", c.e, g, c.want)
		}
	}
	// Overflow in a valid row is an error.
	if _, err := Eval(tctx, call(t, "add", colB, i(9223372036854775807)), rec, mem); !errors.Is(err, sqlerr.DataOutOfRange.Match()) {
		t.Errorf("want overflow, got %v", err)
	}
}

func TestPredicateFilter(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	rec := colRec(mem)
	defer rec.Release()
	sel, err := EvalPredicate(tctx, call(t, "ge", colA, i(1)), rec, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer sel.Release()
	if sel.NullN() != 0 || !sel.Value(0) || !sel.Value(1) || sel.Value(2) || sel.Value(3) {
		t.Fatalf("selection %v", sel)
	}
	out, err := Filter(rec, sel, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	if out.NumRows() != 2 {
		t.Fatalf("filtered %d rows", out.NumRows())
	}
	// Empty batch.
	empty := rec.NewSlice(0, 0)
	defer empty.Release()
	arr, err := Eval(tctx, call(t, "add", colA, colB), empty, mem)
	if err != nil || arr.Len() != 0 {
		t.Fatalf("empty: %v", err)
	}
	arr.Release()
	// A sliced batch (offset) keeps row alignment.
	sl := rec.NewSlice(1, 3)
	defer sl.Release()
	arr, err = Eval(tctx, call(t, "add", colA, colB), sl, mem)
	if err != nil {
		t.Fatal(err)
	}
	if arr.Len() != 2 || types.DatumAt(arr, 0, types.BigIntT).String() != "2" || !arr.IsNull(1) {
		t.Errorf("slice: %v", arr)
	}
	arr.Release()
}

func TestFold(t *testing.T) {
	e := call(t, "gt", colA, call(t, "add", i(1), i(2)))
	got, err := Fold(e, tctx)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != "`t`.`a` > 3" {
		t.Errorf("fold: %s", got)
	}
	if _, err := Fold(call(t, "add", i(9223372036854775807), i(1)), tctx); err == nil {
		t.Error("constant overflow should fail while folding")
	}
}
