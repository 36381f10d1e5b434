package server_test

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

// typeCols are the typed columns of the round-trip table, one per SQL type.
var typeCols = []string{"c_tiny", "c_small", "c_int", "c_big", "c_large", "c_bool", "c_float", "c_double",
	"c_dec", "c_dec38", "c_char", "c_varchar", "c_string", "c_date", "c_dt"}

const typesDDL = `CREATE TABLE types_t (
  id INT NOT NULL,
  c_tiny TINYINT, c_small SMALLINT, c_int INT, c_big BIGINT, c_large LARGEINT, c_bool BOOLEAN,
  c_float FLOAT, c_double DOUBLE, c_dec DECIMAL(12,2), c_dec38 DECIMAL(38,10),
  c_char CHAR(8), c_varchar VARCHAR(16), c_string STRING, c_date DATE, c_dt DATETIME,
  nn INT NOT NULL
) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 3 PROPERTIES ("replication_num" = "1")`

// typeRow is one row three ways: SQL literals, Go arguments of a prepared
// INSERT, and the text a client must read back ("NULL" for NULL).
type typeRow struct {
	lit  []string
	args []any
	want []string
}

const tricky = "it's \"q\" \\ back\ttab\nnl héllo 世界 😀 Ωmega"

func typeRows() []typeRow {
	null := func() typeRow {
		r := typeRow{}
		for range typeCols {
			r.lit = append(r.lit, "NULL")
			r.args = append(r.args, nil)
			r.want = append(r.want, "NULL")
		}
		return r
	}
	sqlQuote := func(s string) string {
		s = strings.ReplaceAll(s, `\`, `\\`)
		s = strings.ReplaceAll(s, "'", `\'`)
		s = strings.ReplaceAll(s, "\n", `\n`)
		s = strings.ReplaceAll(s, "\t", `\t`)
		return "'" + s + "'"
	}
	return []typeRow{
		{ // minimums
			lit: []string{"-128", "-32768", "-2147483648", "-9223372036854775808", "-99999999999999999999999999999999999999",
				"false", "-3.4028235e38", "-1.7976931348623157e308", "-9999999999.99", "-9999999999999999999999999999.9999999999",
				"'a'", "''", sqlQuote(tricky), "'0001-01-01'", "'0001-01-01 00:00:00'"},
			args: []any{int8(math.MinInt8), int16(math.MinInt16), int32(math.MinInt32), int64(math.MinInt64),
				"-99999999999999999999999999999999999999", false, float32(-math.MaxFloat32), -math.MaxFloat64,
				"-9999999999.99", "-9999999999999999999999999999.9999999999", "a", "", tricky, "0001-01-01", "0001-01-01 00:00:00"},
			want: []string{"-128", "-32768", "-2147483648", "-9223372036854775808", "-99999999999999999999999999999999999999",
				"0", "-3.4028235e+38", "-1.7976931348623157e+308", "-9999999999.99", "-9999999999999999999999999999.9999999999",
				"a", "", tricky, "0001-01-01", "0001-01-01 00:00:00"},
		},
		{ // maximums
			lit: []string{"127", "32767", "2147483647", "9223372036854775807", "99999999999999999999999999999999999999",
				"true", "3.4028235e38", "1.7976931348623157e308", "9999999999.99", "9999999999999999999999999999.9999999999",
				"'abcdefgh'", "'0123456789abcdef'", "'😀😀'", "'9999-12-31'", "'9999-12-31 23:59:59'"},
			args: []any{int8(math.MaxInt8), int16(math.MaxInt16), int32(math.MaxInt32), int64(math.MaxInt64),
				"99999999999999999999999999999999999999", true, float32(math.MaxFloat32), math.MaxFloat64,
				"9999999999.99", "9999999999999999999999999999.9999999999", "abcdefgh", "0123456789abcdef", "😀😀",
				"9999-12-31", "9999-12-31 23:59:59"},
			want: []string{"127", "32767", "2147483647", "9223372036854775807", "99999999999999999999999999999999999999",
				"1", "3.4028235e+38", "1.7976931348623157e+308", "9999999999.99", "9999999999999999999999999999.9999999999",
				"abcdefgh", "0123456789abcdef", "😀😀", "9999-12-31", "9999-12-31 23:59:59"},
		},
		null(),
		{ // ordinary values; the prepared form passes dates as time.Time
			lit: []string{"0", "-1", "42", "1234567890123", "-12345678901234567890123", "1", "0.1", "0.1",
				"0.01", "0.0000000001", "'x y'", "'héllo'", "'世界'", "'2024-02-29'", "'2024-02-29 12:34:56'"},
			args: []any{int8(0), int16(-1), int32(42), int64(1234567890123), "-12345678901234567890123", true,
				float32(0.1), 0.1, "0.01", "0.0000000001", "x y", "héllo", "世界",
				time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), time.Date(2024, 2, 29, 12, 34, 56, 0, time.UTC)},
			want: []string{"0", "-1", "42", "1234567890123", "-12345678901234567890123", "1", "0.1", "0.1",
				"0.01", "0.0000000001", "x y", "héllo", "世界", "2024-02-29", "2024-02-29 12:34:56"},
		},
	}
}

// TestE2ETypesLargeIntRange stores LARGEINT's extremes, ±(2^127-1) as in
// Doris (a 128-bit integer, 39 digits), and rejects 2^127.
func TestE2ETypesLargeIntRange(t *testing.T) {
	s := newServer(t)
	root := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, root, "CREATE DATABASE ldb")
	mustExec(t, root, "CREATE TABLE ldb.l (id INT NOT NULL, v LARGEINT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES (\"replication_num\" = \"1\")")
	const maxLI, minLI = "170141183460469231731687303715884105727", "-170141183460469231731687303715884105727"
	for pi, p := range protocols {
		d := openDB(t, s.MySQLAddr(), "ldb", p.interpolate)
		base := 10 * pi
		if _, err := d.Exec(fmt.Sprintf("INSERT INTO l VALUES (%d, %s), (%d, %s)", base+1, maxLI, base+2, minLI)); err != nil {
			t.Errorf("%s: literal LARGEINT extremes: %v", p.name, err)
		}
		if _, err := d.Exec("INSERT INTO l VALUES (?, ?), (?, ?)", base+3, maxLI, base+4, minLI); err != nil {
			t.Errorf("%s: prepared LARGEINT extremes: %v", p.name, err)
		}
		_, err := d.Exec("INSERT INTO l VALUES (?, ?)", base+5, "170141183460469231731687303715884105728")
		wantCode(t, err, 1264, p.name+": LARGEINT 2^127")
		_, err = d.Exec("INSERT INTO l VALUES (?, 170141183460469231731687303715884105728)", base+6)
		wantCode(t, err, 1264, p.name+": LARGEINT literal 2^127")
	}
	got := map[string]string{}
	for _, r := range queryStrings(t, root, "SELECT id, v FROM ldb.l") {
		got[r[0]] = r[1]
	}
	want := map[string]string{"1": maxLI, "2": minLI, "3": maxLI, "4": minLI, "11": maxLI, "12": minLI, "13": maxLI, "14": minLI}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("LARGEINT rows = %v, want %v", got, want)
	}
}

// sameValue compares one read-back value with the expectation; FLOAT and
// DOUBLE are compared as numbers since text and binary rows format them
// differently (both exact).
func sameValue(col, got, want string) bool {
	if got == want {
		return true
	}
	if got == "NULL" || want == "NULL" {
		return false
	}
	bits := 0
	switch col {
	case "c_float":
		bits = 32
	case "c_double":
		bits = 64
	default:
		return false
	}
	g, err1 := strconv.ParseFloat(got, bits)
	w, err2 := strconv.ParseFloat(want, bits)
	return err1 == nil && err2 == nil && g == w
}

// TestE2ETypesRoundTrip stores every type through literal SQL and through
// prepared statements (binary and interpolated), then reads every row back
// exactly under both protocols.
func TestE2ETypesRoundTrip(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE tdb")
	text := openDB(t, s.MySQLAddr(), "tdb", true)
	mustExec(t, text, typesDDL)
	rows := typeRows()
	want := map[int][]string{}
	insertCols := "id, " + strings.Join(typeCols, ", ") + ", nn"
	for i, r := range rows {
		id := 1 + i
		stmt := fmt.Sprintf("INSERT INTO types_t (%s) VALUES (%d, %s, 0)", insertCols, id, strings.Join(r.lit, ", "))
		if _, err := text.Exec(stmt); err != nil {
			t.Errorf("literal row %d: %v\n%s", id, err, stmt)
		}
		want[id] = r.want
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(typeCols)+2), ", ")
	for pi, p := range protocols {
		d := openDB(t, s.MySQLAddr(), "tdb", p.interpolate)
		for i, r := range rows {
			id := 10*(pi+1) + 1 + i
			args := append(append([]any{id}, r.args...), 0)
			if _, err := d.Exec("INSERT INTO types_t ("+insertCols+") VALUES ("+marks+")", args...); err != nil {
				t.Errorf("%s prepared row %d: %v", p.name, id, err)
			}
			want[id] = r.want
		}
	}
	// One multi-row prepared statement too (parameters of several rows).
	d := openDB(t, s.MySQLAddr(), "tdb", false)
	multi := "(" + marks + "), (" + marks + ")"
	args := append(append(append([]any{41}, rows[0].args...), 0), append(append([]any{42}, rows[1].args...), 0)...)
	if _, err := d.Exec("INSERT INTO types_t ("+insertCols+") VALUES "+multi, args...); err != nil {
		t.Errorf("multi-row prepared insert: %v", err)
	}
	want[41], want[42] = rows[0].want, rows[1].want

	for _, p := range protocols {
		d := openDB(t, s.MySQLAddr(), "tdb", p.interpolate)
		// An argument makes go-sql-driver prepare (binary rows) unless it interpolates.
		got := queryStrings(t, d, "SELECT id, "+strings.Join(typeCols, ", ")+" FROM types_t WHERE id > ?", 0)
		seen := map[string]bool{}
		for _, g := range got {
			id, _ := strconv.Atoi(g[0])
			if seen[g[0]] {
				t.Errorf("%s: id %d read twice", p.name, id)
			}
			seen[g[0]] = true
			w, ok := want[id]
			if !ok {
				t.Errorf("%s: unexpected row %v", p.name, g)
				continue
			}
			for c, col := range typeCols {
				if !sameValue(col, g[c+1], w[c]) {
					t.Errorf("%s: row %d %s = %q, want %q", p.name, id, col, g[c+1], w[c])
				}
			}
		}
		for id := range want {
			if !seen[fmt.Sprint(id)] {
				t.Errorf("%s: row %d missing", p.name, id)
			}
		}
	}
}

// TestE2ETypesRejectBadValues checks that bad values get MySQL's errors and
// that nothing of a failed statement is stored, for literal SQL and for
// prepared parameters.
func TestE2ETypesRejectBadValues(t *testing.T) {
	s := newServer(t)
	root := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, root, "CREATE DATABASE bdb")
	text := openDB(t, s.MySQLAddr(), "bdb", true)
	mustExec(t, text, typesDDL)
	bin := openDB(t, s.MySQLAddr(), "bdb", false)

	cases := []struct {
		name  string
		col   string
		lit   string
		arg   any
		code  uint16
		param bool // also try the value as a prepared parameter
	}{
		{"tinyint 300", "c_tiny", "300", 300, 1264, true},
		{"tinyint -129", "c_tiny", "-129", -129, 1264, true},
		{"smallint 32768", "c_small", "32768", 32768, 1264, true},
		{"int 2^31", "c_int", "2147483648", int64(2147483648), 1264, true},
		{"bigint 2^63", "c_big", "9223372036854775808", "9223372036854775808", 1264, true},
		{"decimal too wide", "c_dec", "12345678901.5", "12345678901.5", 1264, true},
		{"int 'abc'", "c_int", "'abc'", "abc", 1366, true},
		{"date month 13", "c_date", "'2024-13-01'", "2024-13-01", 1292, true},
		{"date feb 30", "c_date", "'2023-02-30'", "2023-02-30", 1292, true},
		{"datetime hour 25", "c_dt", "'2024-01-01 25:00:00'", "2024-01-01 25:00:00", 1292, true},
		{"varchar too long", "c_varchar", "'0123456789abcdefX'", "0123456789abcdefX", 1406, true},
		{"char too long", "c_char", "'abcdefghi'", "abcdefghi", 1406, true},
		{"NULL into NOT NULL", "nn", "NULL", nil, 1048, true},
	}
	nextID := 100
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// A good row first and the bad one second: the whole statement must fail.
			good := nextID
			nextID += 10
			cols := "id, nn"
			vals := func(v string) string {
				if c.col == "nn" {
					return v
				}
				return "0, " + v
			}
			if c.col != "nn" {
				cols += ", " + c.col
			}
			stmt := fmt.Sprintf("INSERT INTO types_t (%s) VALUES (%d, %s), (%d, %s)", cols, good, vals("1"), good+1, vals(c.lit))
			if c.col == "nn" {
				stmt = fmt.Sprintf("INSERT INTO types_t (id, nn) VALUES (%d, 1), (%d, NULL)", good, good+1)
			}
			_, err := text.Exec(stmt)
			wantCode(t, err, c.code, stmt)
			if c.param {
				q := fmt.Sprintf("INSERT INTO types_t (%s) VALUES (?, ?, ?), (?, ?, ?)", cols)
				args := []any{good + 2, 0, 1, good + 3, 0, c.arg}
				if c.col == "nn" {
					q = "INSERT INTO types_t (id, nn) VALUES (?, ?), (?, ?)"
					args = []any{good + 2, 1, good + 3, nil}
				}
				for _, p := range protocols {
					d := bin
					if p.interpolate {
						d = text
					}
					_, err := d.Exec(q, args...)
					wantCode(t, err, c.code, p.name+" "+q+fmt.Sprint(args))
				}
			}
			if n := queryInts(t, text, "SELECT id FROM types_t WHERE id >= ? AND id < ?", good, good+10); len(n) != 0 {
				t.Fatalf("failed statements stored rows %v", n)
			}
		})
	}
	// The connection pool still works and the table is empty.
	if ids := queryInts(t, bin, "SELECT id FROM types_t WHERE id > ?", -1); len(ids) != 0 {
		t.Fatalf("rows stored by failed statements: %v", ids)
	}
}
