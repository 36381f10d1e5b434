package types

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The load path hashes Arrow columns and the planner hashes constants: the
// two must pick the same bucket for the same value, across integer widths.
func TestHashColumnsMatchesDatums(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	cases := []struct {
		typ  T
		vals []Datum
	}{
		{IntT, []Datum{{T: IntT, I: 5}, {T: IntT, I: -7}, NullDatum(IntT)}},
		{BigIntT, []Datum{{T: BigIntT, I: 5}, {T: BigIntT, I: 1 << 40}}},
		{VarcharT(10), []Datum{StringDatum("a"), StringDatum(""), NullDatum(VarcharT(10))}},
		{DateT, []Datum{{T: DateT, I: 19000}}},
		{DecimalT(10, 2), []Datum{DecimalDatum(decimal128.FromI64(12345), 10, 2)}},
		{DoubleT, []Datum{FloatDatum(1.5), FloatDatum(math.Copysign(0, -1))}},
	}
	for _, c := range cases {
		b := array.NewBuilder(mem, c.typ.Arrow())
		for _, d := range c.vals {
			d.T = c.typ
			AppendDatum(b, d)
		}
		arr := b.NewArray()
		b.Release()
		hs := make([]uint64, arr.Len())
		HashColumns([]arrow.Array{arr}, hs)
		for i, d := range c.vals {
			d.T = c.typ
			if want := HashDatums([]Datum{d}); hs[i] != want {
				t.Errorf("%v row %d: column hash %x, datum hash %x", c.typ, i, hs[i], want)
			}
		}
		arr.Release()
	}
	// -0 and 0 are equal in SQL, so they must meet in one bucket.
	if HashDatums([]Datum{FloatDatum(0)}) != HashDatums([]Datum{FloatDatum(math.Copysign(0, -1))}) {
		t.Error("-0.0 and 0.0 hash differently")
	}
	// INT 5 and BIGINT 5 land in the same bucket.
	if HashDatums([]Datum{{T: IntT, I: 5}}) != HashDatums([]Datum{{T: BigIntT, I: 5}}) {
		t.Error("INT and BIGINT hash differently")
	}
}

func TestParseDateTime(t *testing.T) {
	cases := []struct {
		in   string
		ok   bool
		want string
	}{
		{"2024-01-02", true, "2024-01-02 00:00:00"},
		{"2024-02-29 23:59:59", true, "2024-02-29 23:59:59"},
		{"20240102", true, "2024-01-02 00:00:00"},
		{"2023-02-29", false, ""},
		{"2024-13-01", false, ""},
		{"abc", false, ""},
		{"2024-01-02T03:04:05.5", true, "2024-01-02 03:04:05"},
	}
	for _, c := range cases {
		us, ok := ParseDateTime(c.in)
		if ok != c.ok {
			t.Errorf("%q: ok=%v want %v", c.in, ok, c.ok)
			continue
		}
		if ok && FormatDateTime(us, 0) != c.want {
			t.Errorf("%q: got %s want %s", c.in, FormatDateTime(us, 0), c.want)
		}
	}
}

func TestParseDecimal(t *testing.T) {
	cases := []struct {
		in          string
		prec, scale int
		ok, fits    bool
		want        string
	}{
		{"1.25", 10, 2, true, true, "1.25"},
		{"1.255", 10, 2, true, true, "1.26"},
		{"-1.255", 10, 2, true, true, "-1.26"},
		{"123456789", 5, 0, true, false, ""},
		{"1e3", 10, 1, true, true, "1000.0"},
		{"x1", 10, 1, false, false, ""},
		{"99999999999999999999999999999999999999", 38, 0, true, true, "99999999999999999999999999999999999999"},
	}
	for _, c := range cases {
		n, ok, fits := ParseDecimal(c.in, c.prec, c.scale)
		if ok != c.ok || fits != c.fits {
			t.Errorf("%q: ok=%v fits=%v", c.in, ok, fits)
			continue
		}
		if ok && fits && FormatDecimal(n, c.scale) != c.want {
			t.Errorf("%q: got %s want %s", c.in, FormatDecimal(n, c.scale), c.want)
		}
	}
}

func TestCompare(t *testing.T) {
	if Compare(Datum{T: IntT, I: 3}, DecimalDatum(decimal128.FromI64(250), 10, 2)) <= 0 {
		t.Error("3 should be > 2.50")
	}
	if Compare(Datum{T: DateT, I: 1}, Datum{T: DateTimeT, I: 86400 * 1e6}) != 0 {
		t.Error("DATE 1970-01-02 should equal DATETIME 1970-01-02 00:00:00")
	}
	if Compare(NullDatum(IntT), Datum{T: IntT, I: -100}) >= 0 {
		t.Error("NULL sorts first")
	}
}

func TestParseFastPathsAgree(t *testing.T) {
	for _, s := range []string{"0", "1", "-1", "1.5", "1.25", "1.255", "-1.255", "0.005", "123456.78", "99999999.99", ".5", "5.", "+3.14159", "00012.3400"} {
		for _, scale := range []int{0, 2, 4} {
			fast, ok := parseDecimalFast(s, scale)
			if !ok {
				continue
			}
			slow, okS, _ := ParseDecimal(" "+s, 38, scale) // the space forces the slow path
			if !okS || decimal128.FromI64(fast) != slow {
				t.Errorf("%q scale %d: fast %d slow %s", s, scale, fast, FormatDecimal(slow, scale))
			}
		}
	}
	for _, s := range []string{"1970-01-01", "2000-02-29", "1900-02-28", "0001-01-01", "9999-12-31", "2024-06-15"} {
		d, ok := parseISODate(s)
		us, ok2 := ParseDateTime(s + " 00:00:00")
		if !ok || !ok2 || int64(d)*86400*1e6 != us {
			t.Errorf("%s: fast %d slow %d", s, d, us/86400e6)
		}
	}
	for _, s := range []string{"2023-02-29", "2024-13-01", "2024-00-10", "2024-04-31"} {
		if _, ok := parseISODate(s); ok {
			t.Errorf("%s accepted", s)
		}
	}
}
