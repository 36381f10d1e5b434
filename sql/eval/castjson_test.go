package eval

import (
	"testing"

	"github.com/dorisgo/dorisgo/sql/types"
)

func TestCastToJSON(t *testing.T) {
	cases := []struct {
		in   types.Datum
		want string // "NULL" for NULL
	}{
		{types.StringDatum(`{ "b" : [1, 2.50, "x y"], "a": null }`), `{"b":[1,2.50,"x y"],"a":null}`},
		{types.StringDatum(" 7 "), "7"},
		{types.StringDatum(`"s"`), `"s"`},
		{types.StringDatum("{bad"), "NULL"},
		{types.StringDatum(""), "NULL"},
		{types.StringDatum("1 2"), "NULL"},
		{types.IntDatum(42), "42"},
		{types.Datum{T: types.BoolT, I: 1}, "true"},
		{types.NullDatum(types.StringT), "NULL"},
	}
	for _, c := range cases {
		got, err := CastDatum(c.in, types.JSONT, false, "j")
		if err != nil {
			t.Fatalf("CAST(%v AS JSON): %v", c.in, err)
		}
		if got.String() != c.want {
			t.Errorf("CAST(%v AS JSON) = %s, want %s", c.in, got.String(), c.want)
		}
	}
	// Loads and INSERT refuse invalid JSON (1366) instead of storing NULL.
	if _, err := CastDatum(types.StringDatum("{bad"), types.JSONT, true, "j"); err == nil {
		t.Fatal("strict CAST('{bad' AS JSON) succeeded")
	}
	// JSON reads back as its text.
	got, err := CastDatum(types.Datum{T: types.JSONT, S: `{"a":1}`}, types.StringT, false, "s")
	if err != nil || got.String() != `{"a":1}` {
		t.Fatalf("CAST(json AS STRING) = %v, %v", got, err)
	}
}

func TestCastBooleanStrictSpellings(t *testing.T) {
	for in, want := range map[string]string{"true": "1", "FALSE": "0", "1": "1", "0": "0", "yes": "1"} {
		got, err := CastDatum(types.StringDatum(in), types.BoolT, true, "b")
		if err != nil || got.String() != want {
			t.Errorf("strict '%s' → BOOLEAN = %v, %v; want %s", in, got, err, want)
		}
	}
	if _, err := CastDatum(types.StringDatum("maybe"), types.BoolT, true, "b"); err == nil {
		t.Error("strict 'maybe' → BOOLEAN succeeded")
	}
}

func TestCastDateTimeScaleRounds(t *testing.T) {
	d3 := types.T{Kind: types.DateTime, Scale: 3}
	got, err := CastDatum(types.StringDatum("2024-01-02 03:04:05.9996"), d3, true, "d")
	if err != nil || got.String() != "2024-01-02 03:04:06.000" {
		t.Fatalf("'…05.9996' → DATETIME(3) = %v, %v", got, err)
	}
	us, _ := types.ParseDateTime("2024-01-02 03:04:05.987654")
	got, err = CastDatum(types.Datum{T: types.T{Kind: types.DateTime, Scale: 6}, I: us}, types.DateTimeT, true, "d")
	if err != nil || got.String() != "2024-01-02 03:04:06" {
		t.Fatalf("DATETIME(6) → DATETIME = %v, %v", got, err)
	}
}
