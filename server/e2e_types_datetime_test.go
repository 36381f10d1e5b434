package server_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The DATETIME(p) / DATETIMEV2(p) / DATEV2 round trips of issue 15: the
// fraction is kept to exactly p digits, rounded half up as Doris parses
// and casts, in storage, over both protocols and through stream load.

const dtDDL = `CREATE TABLE dt (id INT, d0 DATETIME, d3 DATETIME(3), d6 DATETIMEV2(6), dd DATEV2)
DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 3 PROPERTIES ("replication_num" = "1")`

// queryBoth runs q over the text protocol and, with a dummy argument that
// makes go-sql-driver prepare it, over the binary protocol; both must give
// want exactly.
func queryBoth(t *testing.T, addr, db, q string, want [][]string) {
	t.Helper()
	for _, p := range protocols {
		d := openDB(t, addr, db, p.interpolate)
		var got [][]string
		var err error
		if p.interpolate {
			got, err = queryStringsErr(d, q)
		} else {
			// A parameter that changes nothing makes the driver prepare.
			got, err = queryStringsErr(d, strings.Replace(q, "/*?*/0", "?", 1), 0)
		}
		if err != nil {
			t.Errorf("%s: %s: %v", p.name, q, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %s\n got %q\nwant %q", p.name, q, got, want)
		}
	}
}

func TestE2ETypesDateTimePrecision(t *testing.T) {
	s := newServer(t)
	addr := s.MySQLAddr()
	root := openDB(t, addr, "", true)
	mustExec(t, root, "CREATE DATABASE dtdb")
	d := openDB(t, addr, "dtdb", true)
	mustExec(t, d, dtDDL)

	// Literals: 7 digits round into 6, 4 into 3, and carries reach the second.
	mustExec(t, d, `INSERT INTO dt VALUES
		(1, '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05.123456', '2024-01-02'),
		(2, '2024-01-02 03:04:05.5', '2024-01-02 03:04:05.9996', '2024-01-02 03:04:05.9999996', '2024-01-02 10:00:00'),
		(3, '2024-12-31 23:59:59.4', '2024-12-31 23:59:59.9994', '2024-12-31 23:59:59.1', '2024-12-31'),
		(4, NULL, NULL, NULL, NULL)`)
	// Prepared parameters (binary protocol: time.Time with nanoseconds, and strings).
	bin := openDB(t, addr, "dtdb", false)
	ts := time.Date(2023, 6, 7, 8, 9, 10, 987654000, time.UTC)
	mustExec(t, bin, "INSERT INTO dt VALUES (?, ?, ?, ?, ?)", 5, ts, ts, ts, ts)
	mustExec(t, bin, "INSERT INTO dt VALUES (?, ?, ?, ?, ?)", 6, "2023-06-07 08:09:10.5", "2023-06-07 08:09:10.0005", "2023-06-07 08:09:10.000001", "2023-06-07")
	// INSERT … SELECT narrows DATETIME(6) into (3) and (0) by rounding.
	mustExec(t, d, "INSERT INTO dt SELECT id + 10, d6, d6, d6, d6 FROM dt WHERE id IN (1, 2, 5)")

	want := [][]string{
		{"1", "2024-01-02 03:04:05", "2024-01-02 03:04:05.123", "2024-01-02 03:04:05.123456", "2024-01-02"},
		{"2", "2024-01-02 03:04:06", "2024-01-02 03:04:06.000", "2024-01-02 03:04:06.000000", "2024-01-02"},
		{"3", "2024-12-31 23:59:59", "2024-12-31 23:59:59.999", "2024-12-31 23:59:59.100000", "2024-12-31"},
		{"4", "NULL", "NULL", "NULL", "NULL"},
		{"5", "2023-06-07 08:09:11", "2023-06-07 08:09:10.988", "2023-06-07 08:09:10.987654", "2023-06-07"},
		{"6", "2023-06-07 08:09:11", "2023-06-07 08:09:10.001", "2023-06-07 08:09:10.000001", "2023-06-07"},
		{"11", "2024-01-02 03:04:05", "2024-01-02 03:04:05.123", "2024-01-02 03:04:05.123456", "2024-01-02"},
		{"12", "2024-01-02 03:04:06", "2024-01-02 03:04:06.000", "2024-01-02 03:04:06.000000", "2024-01-02"},
		{"15", "2023-06-07 08:09:11", "2023-06-07 08:09:10.988", "2023-06-07 08:09:10.987654", "2023-06-07"},
	}
	queryBoth(t, addr, "dtdb", "SELECT id, d0, d3, d6, dd FROM dt WHERE id > /*?*/0 ORDER BY id", want)

	// The stored value is the rounded one: comparisons, GROUP BY, ORDER BY and
	// microsecond() see exactly p digits.
	queryBoth(t, addr, "dtdb", "SELECT d3, count(*), max(microsecond(d3)) FROM dt WHERE id > /*?*/0 AND d3 IS NOT NULL GROUP BY d3 ORDER BY d3 DESC", [][]string{
		{"2024-12-31 23:59:59.999", "1", "999000"},
		{"2024-01-02 03:04:06.000", "2", "0"},
		{"2024-01-02 03:04:05.123", "2", "123000"},
		{"2023-06-07 08:09:10.988", "2", "988000"},
		{"2023-06-07 08:09:10.001", "1", "1000"},
	})
	queryBoth(t, addr, "dtdb", "SELECT id FROM dt WHERE d6 > '2024-01-02 03:04:05.12345' AND d3 = '2024-01-02 03:04:05.123' AND id > /*?*/0 ORDER BY id",
		[][]string{{"1"}, {"11"}})
	queryBoth(t, addr, "dtdb", "SELECT id FROM dt WHERE d6 = '2023-06-07 08:09:10.000001' AND id > /*?*/0", [][]string{{"6"}})

	// CAST to and from strings, with Doris's rounding.
	queryBoth(t, addr, "dtdb", `SELECT CAST('2024-01-02 03:04:05.123456' AS DATETIME(3)), CAST('2024-01-02 03:04:05.9996' AS DATETIME(3)),
		CAST('2024-01-02 03:04:05.5' AS DATETIME), CAST('2024-01-02 03:04:05.12' AS DATETIMEV2(6)), CAST('2024-01-02 03:04:05' AS DATETIME(2)),
		CAST(CAST('2024-01-02 03:04:05.987654' AS DATETIME(6)) AS DATETIME(2)), CAST('2024-01-02 23:59:59' AS DATEV2), /*?*/0`, [][]string{{
		"2024-01-02 03:04:05.123", "2024-01-02 03:04:06.000", "2024-01-02 03:04:06", "2024-01-02 03:04:05.120000", "2024-01-02 03:04:05.00",
		"2024-01-02 03:04:05.99", "2024-01-02", "0"}})
	queryBoth(t, addr, "dtdb", "SELECT CAST(d6 AS STRING), CAST(d3 AS VARCHAR(30)), CAST(d0 AS STRING), CAST(d6 AS DATE), CAST(dd AS DATETIME(3)) FROM dt WHERE id = 1 + /*?*/0", [][]string{{
		"2024-01-02 03:04:05.123456", "2024-01-02 03:04:05.123", "2024-01-02 03:04:05", "2024-01-02", "2024-01-02 00:00:00.000"}})

	// now(p) / current_timestamp(p) keep p digits.
	queryBoth(t, addr, "dtdb", "SELECT length(CAST(now(6) AS STRING)), length(CAST(current_timestamp(3) AS STRING)), length(CAST(now() AS STRING)), /*?*/0",
		[][]string{{"26", "23", "19", "0"}})
	for _, p := range protocols {
		db := openDB(t, addr, "dtdb", p.interpolate)
		var n6 string
		if err := db.QueryRow("SELECT now(6), ?", 0).Scan(&n6, new(int)); err != nil {
			t.Fatalf("%s: now(6): %v", p.name, err)
		}
		if len(n6) != 26 || n6[19] != '.' {
			t.Errorf("%s: now(6) = %q, want 6 fractional digits", p.name, n6)
		}
	}
	wantCode(t, func() error { _, err := queryStringsErr(d, "SELECT now(7)"); return err }(), 1105, "now(7)")

	// DESC and SHOW CREATE TABLE spell the precision (Doris prints datetime(p)).
	desc := queryStrings(t, d, "DESC dt")
	var types []string
	for _, r := range desc {
		types = append(types, r[0]+" "+r[1])
	}
	if got := strings.Join(types, ", "); got != "id INT, d0 DATETIME, d3 DATETIME(3), d6 DATETIME(6), dd DATE" {
		t.Errorf("DESC dt: %s", got)
	}
	sc := queryStrings(t, d, "SHOW CREATE TABLE dt")[0][1]
	for _, w := range []string{"`d0` datetime NULL", "`d3` datetime(3) NULL", "`d6` datetime(6) NULL", "`dd` date NULL"} {
		if !strings.Contains(sc, w) {
			t.Errorf("SHOW CREATE TABLE lacks %q:\n%s", w, sc)
		}
	}
}

// TestE2ETypesDateTimeStreamLoad loads fractional datetimes from CSV and
// JSON: each column rounds to its own precision; a bad value is NULL
// (non-strict) as in Doris.
func TestE2ETypesDateTimeStreamLoad(t *testing.T) {
	s := newServer(t)
	addr := s.MySQLAddr()
	root := openDB(t, addr, "", true)
	mustExec(t, root, "CREATE DATABASE dtsl")
	d := openDB(t, addr, "dtsl", true)
	mustExec(t, d, dtDDL)
	csv := "1,2024-01-02 03:04:05.123456,2024-01-02 03:04:05.123456,2024-01-02 03:04:05.123456,2024-01-02\n" +
		"2,2024-01-02 03:04:05.5,2024-01-02 03:04:05.9996,2024-01-02 03:04:05.9999996,2024-01-02 10:00:00\n" +
		"3,\\N,not a date,2024-02-30 00:00:00,2024-01-02\n"
	r := mustStreamLoad(t, s.HTTPAddr(), "dtsl", "dt", map[string]string{"column_separator": ","}, []byte(csv))
	if r.NumberLoadedRows != 3 {
		t.Fatalf("CSV load: %+v", r)
	}
	js := `[{"id": 11, "d0": "2024-01-02 03:04:05.123456", "d3": "2024-01-02 03:04:05.123456", "d6": "2024-01-02 03:04:05.123456", "dd": "2024-01-02"},
		{"id": 12, "d0": "2024-01-02 03:04:05.5", "d3": "2024-01-02 03:04:05.9996", "d6": "2024-01-02 03:04:05.9999996", "dd": "2024-01-02 10:00:00"}]`
	r = mustStreamLoad(t, s.HTTPAddr(), "dtsl", "dt", map[string]string{"format": "json", "strip_outer_array": "true"}, []byte(js))
	if r.NumberLoadedRows != 2 {
		t.Fatalf("JSON load: %+v", r)
	}
	row1 := []string{"2024-01-02 03:04:05", "2024-01-02 03:04:05.123", "2024-01-02 03:04:05.123456", "2024-01-02"}
	row2 := []string{"2024-01-02 03:04:06", "2024-01-02 03:04:06.000", "2024-01-02 03:04:06.000000", "2024-01-02"}
	want := [][]string{
		append([]string{"1"}, row1...), append([]string{"2"}, row2...),
		{"3", "NULL", "NULL", "NULL", "2024-01-02"},
		append([]string{"11"}, row1...), append([]string{"12"}, row2...),
	}
	queryBoth(t, addr, "dtsl", "SELECT id, d0, d3, d6, dd FROM dt WHERE id > /*?*/0 ORDER BY id", want)
	if t.Failed() {
		t.Log(fmt.Sprint(queryStrings(t, d, "SELECT * FROM dt ORDER BY id")))
	}
}
