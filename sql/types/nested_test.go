package types

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestParseTypeNested(t *testing.T) {
	for in, want := range map[string]string{
		"ARRAY<INT>":                          "ARRAY<INT>",
		"array<int(11)>":                      "ARRAY<INT>",
		"ARRAY<ARRAY<VARCHAR(10)>>":           "ARRAY<ARRAY<VARCHAR(10)>>",
		"MAP<STRING, DECIMAL(10,2)>":          "MAP<STRING,DECIMAL(10,2)>",
		"STRUCT<a:INT, b:ARRAY<DATETIME(3)>>": "STRUCT<a:INT,b:ARRAY<DATETIME(3)>>",
	} {
		got, err := ParseType(in)
		if err != nil || got.String() != want {
			t.Errorf("ParseType(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"ARRAY", "ARRAY<>", "MAP<INT>", "STRUCT<INT>", "ARRAY<FOO>"} {
		if _, err := ParseType(bad); err == nil {
			t.Errorf("ParseType(%q) accepted", bad)
		}
	}
	if got := (StructOf([]Field{{"Ab", ArrayOf(IntT)}})).Lower(); got != "struct<Ab:array<int>>" {
		t.Errorf("Lower = %s", got)
	}
	st, _ := ParseType("STRUCT<a:INT, b:MAP<STRING,INT>>")
	if fs := st.Fields(); len(fs) != 2 || fs[1].Name != "b" || fs[1].T.Kind != Map {
		t.Errorf("Fields = %v", fs)
	}
}

// TestNestedTextRoundTrip: text → Arrow → Doris text, and the Datum text
// (escaped) parses back to the same value.
func TestNestedTextRoundTrip(t *testing.T) {
	cases := []struct{ typ, in, want string }{
		{"ARRAY<INT>", "[1, null,3]", "[1, null, 3]"},
		{"ARRAY<STRING>", `['a', "b\"c", null]`, `["a", "b"c", null]`},
		{"ARRAY<ARRAY<INT>>", "[[1], [], null]", "[[1], [], null]"},
		{"MAP<STRING,INT>", `{"k":1, 'z': null}`, `{"k":1, "z":null}`},
		{"STRUCT<a:INT,b:STRING>", `{"b":"x", "a":2}`, `{"a":2, "b":"x"}`},
		{"STRUCT<a:INT,b:STRING>", `{3, "y"}`, `{"a":3, "b":"y"}`},
		{"ARRAY<DATE>", `["2024-01-02"]`, `["2024-01-02"]`},
		{"ARRAY<DECIMAL(5,2)>", `[1.5, -2]`, `[1.50, -2.00]`},
	}
	for _, c := range cases {
		typ, err := ParseType(c.typ)
		if err != nil {
			t.Fatal(err)
		}
		b := array.NewBuilder(memory.DefaultAllocator, typ.Arrow())
		if !AppendNested(b, c.in, typ) {
			t.Errorf("%s %s: does not parse", c.typ, c.in)
			continue
		}
		arr := b.NewArray()
		if got := FormatNested(arr, 0, typ); got != c.want {
			t.Errorf("%s %s: %s, want %s", c.typ, c.in, got, c.want)
		}
		d := DatumAt(arr, 0, typ)
		b2 := array.NewBuilder(memory.DefaultAllocator, typ.Arrow())
		AppendDatum(b2, d)
		if got := FormatNested(b2.NewArray(), 0, typ); got != c.want {
			t.Errorf("%s %s: datum %q round trip gives %s", c.typ, c.in, d.S, got)
		}
	}
	for _, c := range [][2]string{{"ARRAY<INT>", "[1, x]"}, {"ARRAY<TINYINT>", "[300]"}, {"MAP<STRING,INT>", "{null:1}"},
		{"STRUCT<a:INT,b:INT>", "{1}"}, {"ARRAY<INT>", "[1"}, {"ARRAY<STRING>", `["a"] x`}, {"STRUCT<a:INT>", `{"z":1}`}} {
		tt, _ := ParseType(c[0])
		if _, err := ParseNested(c[1], tt); err == nil {
			t.Errorf("%s %s: accepted", c[0], c[1])
		}
	}
}
