package types

import "testing"

func TestParseDateTimeScaleRounds(t *testing.T) {
	cases := []struct {
		in    string
		scale int
		want  string // FormatDateTime at scale; "" for a refused value
	}{
		{"2024-01-02 03:04:05.123456", 6, "2024-01-02 03:04:05.123456"},
		{"2024-01-02 03:04:05.1234565", 6, "2024-01-02 03:04:05.123457"},
		{"2024-01-02 03:04:05.1234564", 6, "2024-01-02 03:04:05.123456"},
		{"2024-01-02 03:04:05.9999996", 6, "2024-01-02 03:04:06.000000"},
		{"2024-01-02 03:04:05.123456", 3, "2024-01-02 03:04:05.123"},
		{"2024-01-02 03:04:05.1235", 3, "2024-01-02 03:04:05.124"},
		{"2024-01-02 03:04:05.1234999", 3, "2024-01-02 03:04:05.123"}, // from the text, not from .123500
		{"2024-12-31 23:59:59.9995", 3, "2025-01-01 00:00:00.000"},
		{"2024-02-28 23:59:59.5", 0, "2024-02-29 00:00:00"},
		{"2024-01-02 03:04:05.4", 0, "2024-01-02 03:04:05"},
		{"2024-01-02 03:04:05", 2, "2024-01-02 03:04:05.00"},
		{"9999-12-31 23:59:59.9999996", 6, ""},
		{"2024-01-02 03:04:05.12a", 6, ""},
		{"2023-02-29 00:00:00.5", 0, ""},
	}
	for _, c := range cases {
		us, ok := ParseDateTimeScale(c.in, c.scale)
		got := ""
		if ok {
			got = FormatDateTime(us, c.scale)
		}
		if got != c.want {
			t.Errorf("ParseDateTimeScale(%q, %d) = %q, want %q", c.in, c.scale, got, c.want)
		}
	}
}

func TestRoundTruncMicros(t *testing.T) {
	base, _ := ParseDateTime("1969-12-31 23:59:59.987654") // negative micros
	for _, c := range []struct {
		scale       int
		round, trnc string
	}{
		{6, "1969-12-31 23:59:59.987654", "1969-12-31 23:59:59.987654"},
		{3, "1969-12-31 23:59:59.988", "1969-12-31 23:59:59.987"},
		{0, "1970-01-01 00:00:00", "1969-12-31 23:59:59"},
	} {
		if got := FormatDateTime(RoundMicros(base, c.scale), c.scale); got != c.round {
			t.Errorf("RoundMicros scale %d = %q, want %q", c.scale, got, c.round)
		}
		if got := FormatDateTime(TruncMicros(base, c.scale), c.scale); got != c.trnc {
			t.Errorf("TruncMicros scale %d = %q, want %q", c.scale, got, c.trnc)
		}
	}
	if got := FormatDateTime(RoundMicros(base, 1), 1); got != "1970-01-01 00:00:00.0" {
		t.Errorf("RoundMicros scale 1 = %q", got)
	}
}

func TestDateTimeSameFamilyByScale(t *testing.T) {
	d3, d6 := T{Kind: DateTime, Scale: 3}, T{Kind: DateTime, Scale: 6}
	if d3.SameFamily(d6) || !d6.SameFamily(d6) || !DateTimeT.SameFamily(T{Kind: DateTime}) {
		t.Fatal("DATETIME(p) families differ by scale only")
	}
}
