package streamload

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/sql/types"
)

// TestTypedCSVMatchesCast checks that parsing CSV fields straight into
// typed columns accepts and stores exactly what the string-then-strict-cast
// path does (castRows), and reports each value it refuses with the fault
// Doris's rules give it (NULL, or filtered under strict_mode).
func TestTypedCSVMatchesCast(t *testing.T) {
	cases := []struct {
		t      types.T
		values []string
	}{
		{types.T{Kind: types.Int}, []string{"1", "-5", "007", "2147483647", "2147483648", "-2147483648", "-2147483649",
			"1.5", "1.4", "-2.5", " 3", "3 ", "+4", "abc", "", "1e3", "-", "--1", "99999999999999999999", `\N`}},
		{types.T{Kind: types.TinyInt}, []string{"127", "128", "-128", "-129", "0"}},
		{types.T{Kind: types.SmallInt}, []string{"32767", "32768", "-32768"}},
		{types.T{Kind: types.BigInt}, []string{"9223372036854775807", "9223372036854775808", "-9223372036854775808",
			"123456789012345678", "1234567890123456789", "-0"}},
		{types.T{Kind: types.Double}, []string{"1.5", "-0", "1e308", "1e309", "nan", "inf", " 2.5", "x", "0x10", "1_0"}},
		{types.T{Kind: types.Decimal, Precision: 10, Scale: 2}, []string{"1.5", "1.234", "1.235", "-2.25", "99999999.99",
			"100000000", "99999999.995", "abc", " 1.5", ".5", "1.", "+1", "1e2", ""}},
		{types.T{Kind: types.Decimal, Precision: 38, Scale: 10}, []string{"12345678901234567890.123", "-1.00000000005"}},
		{types.T{Kind: types.Date}, []string{"2024-01-01", "2024-02-29", "2023-02-29", "2024-13-01", "20240101",
			"2024/01/05", " 2024-01-01", "1969-12-31", "x", "2024-01-01 10:00:00"}},
		{types.T{Kind: types.DateTime}, []string{"2024-01-01 10:11:12", "2024-01-01", "2024-01-01 25:00:00",
			"2024-01-01T01:02:03.5", "1960-01-01 00:00:01"}},
		{types.T{Kind: types.Varchar, Length: 5}, []string{"abc", "abcde", "abcdef", "ünïcö", "ünïcöd", ""}},
		{types.T{Kind: types.Char, Length: 2}, []string{"ab", "abc"}},
		{types.T{Kind: types.String}, []string{"anything at all", ""}},
		{types.T{Kind: types.Boolean}, []string{"1", "0", "2", "x"}},
		{types.T{Kind: types.Float}, []string{"1.5", "1e39", "x"}},
		{types.T{Kind: types.LargeInt}, []string{"170141183460469231731687303715884105727", "1", "x"}},
	}
	for _, c := range cases {
		for _, nullable := range []bool{true, false} {
			for _, v := range c.values {
				checkTypedField(t, c.t, nullable, v)
			}
		}
	}
}

func checkTypedField(t *testing.T, typ types.T, nullable bool, v string) {
	t.Helper()
	for _, strict := range []bool{false, true} {
		checkTypedFieldMode(t, typ, nullable, v, strict)
	}
}

func checkTypedFieldMode(t *testing.T, typ types.T, nullable bool, v string, strict bool) {
	t.Helper()
	def := "7"
	tbl := &catalog.Table{Name: "t", Columns: []catalog.Column{
		{Column: types.Column{Name: "k", Type: types.T{Kind: types.Int}}},
		{Column: types.Column{Name: "c", Type: typ, Nullable: nullable}},
		{Column: types.Column{Name: "d", Type: types.T{Kind: types.Int}, Nullable: true}, Default: &def},
	}}
	h := http.Header{"Columns": {"k,c"}, "Column_separator": {","}}
	if strict {
		h.Set("strict_mode", "true")
	}
	p, err := newLoadParser(h, tbl)
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{"1," + v, "2," + v, "", "3," + v}
	body := strings.Join(lines, "\n") + "\n"
	got, err := p.parseChunk(csvChunk{data: []byte(body), first: 1}, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer got.src.Release()

	// The reference: the text, then the strict cast row by row (castRows).
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	for i := 0; i < 3; i++ {
		if v == `\N` {
			sb.AppendNull()
		} else {
			sb.Append(v)
		}
	}
	texts := sb.NewArray()
	sb.Release()
	defer texts.Release()
	bad := map[int]bool{}
	want, err := castRows(texts, types.StringT, typ, "c", func(i int) { bad[i] = true })
	if err != nil {
		t.Fatal(err)
	}
	defer want.Release()
	var wantFault fault
	switch {
	case v == `\N`:
		if !nullable {
			wantFault = faultNull
		}
	case len(bad) > 0 && strict:
		wantFault = faultStrict
	case len(bad) > 0 && !nullable:
		wantFault = faultNull
	case len(bad) > 0:
	case (typ.Kind == types.Char || typ.Kind == types.Varchar) && utf8.RuneCountInString(v) > typ.Length:
		wantFault = faultTooLong
	}
	name := fmt.Sprintf("%s %s %s strict=%v", typ, map[bool]string{true: "NULL", false: "NOT NULL"}[nullable],
		strings.ReplaceAll(v, " ", "␠"), strict)
	if !array.ApproxEqual(got.src.Column(1), want, array.WithNaNsEqual(true), array.WithAbsTolerance(0)) {
		t.Errorf("%s: got %v, want %v", name, got.src.Column(1), want)
	}
	if d := got.src.Column(2).(*array.Int32); d.NullN() != 0 || d.Value(0) != 7 || d.Value(2) != 7 {
		t.Errorf("%s: default column %v", name, d)
	}
	var faults []fault
	for _, f := range got.faults {
		if f.col == 1 {
			faults = append(faults, f.kind)
		}
	}
	if wantFault == faultNone && len(faults) > 0 || wantFault != faultNone && (len(faults) != 3 || faults[0] != wantFault) {
		t.Errorf("%s: faults %v, want %v on each row", name, faults, wantFault)
	}
}
