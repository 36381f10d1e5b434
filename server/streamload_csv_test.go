package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// TestTypedCSVMatchesCast checks that parsing CSV fields straight into
// typed columns accepts, stores and rejects (with the same message and row
// number) exactly what the string-then-strict-cast path does.
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
	def := "7"
	tbl := &catalog.Table{Name: "t", Columns: []catalog.Column{
		{Column: types.Column{Name: "k", Type: types.T{Kind: types.Int}}},
		{Column: types.Column{Name: "c", Type: typ, Nullable: nullable}},
		{Column: types.Column{Name: "d", Type: types.T{Kind: types.Int}, Nullable: true}, Default: &def},
	}}
	p, err := newLoadParser(http.Header{"Columns": {"k,c"}, "Column_separator": {","}}, tbl)
	if err != nil {
		t.Fatal(err)
	}
	// Three good rows first, so row numbers in messages are checked too.
	lines := []string{"1," + v, "2," + v, "", "3," + v}
	body := strings.Join(lines, "\n") + "\n"

	got, gotErr := p.parseChunk(csvChunk{data: []byte(body), first: 1}, 3)
	// The reference: string columns, then the strict cast.
	sb := [3]*array.StringBuilder{}
	for i := range sb {
		sb[i] = array.NewStringBuilder(memory.DefaultAllocator)
	}
	for i := 1; i <= 3; i++ {
		sb[0].Append(string(rune('0' + i)))
		if v == `\N` {
			sb[1].AppendNull()
		} else {
			sb[1].Append(v)
		}
		sb[2].Append(def)
	}
	var arrs []arrow.Array
	for _, b := range sb {
		arrs = append(arrs, b.NewArray())
	}
	raw := array.NewRecord(types.ArrowSchema(p.from), arrs, 3)
	want, wantErr := toStorage(raw, p.from, p.to, 1)
	name := typ.String() + " " + map[bool]string{true: "NULL", false: "NOT NULL"}[nullable] + " " + strings.ReplaceAll(v, " ", "␠")
	switch {
	case gotErr != nil || wantErr != nil:
		if gotErr == nil || wantErr == nil || sqlerr.As(gotErr).Message != sqlerr.As(wantErr).Message {
			t.Errorf("%s: error %v, want %v", name, gotErr, wantErr)
		}
	case !array.RecordApproxEqual(got, want, array.WithNaNsEqual(true), array.WithAbsTolerance(0)):
		t.Errorf("%s: got %v, want %v", name, got, want)
	}
}
