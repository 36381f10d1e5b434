package difftest

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// Table is one test table: the same columns on both engines, laid out
// differently on dorisgo (distribution column, bucket count, colocation,
// partitioning).
type Table struct {
	Name  string
	Doris string // CREATE TABLE for dorisgo
	Duck  string // CREATE TABLE for DuckDB
	Rows  int
}

// columns holds every table's columns with their SQL types; every table has
// all of them, so any column can be joined with its namesake elsewhere. v
// and n are s and m in another length and scale, for joins of mixed types.
var columns = []struct{ name, sqlType string }{
	{"id", "INT NOT NULL"}, {"k", "INT"}, {"b", "BIGINT"}, {"s", "VARCHAR(16)"},
	{"d", "DATE"}, {"m", "DECIMAL(12,2)"}, {"f", "DOUBLE"}, {"v", "VARCHAR(40)"}, {"n", "DECIMAL(18,4)"},
}

// colList is the column order of the INSERTs (tables differ in physical
// order because Doris wants the key column first).
const colList = "id, k, b, s, d, m, f, v, n"

func table(name, key, layout string, rows int) Table {
	var dcols, qcols []string
	for _, c := range columns {
		def := c.name + " " + c.sqlType
		qcols = append(qcols, def)
		if c.name == key {
			dcols = append([]string{def}, dcols...)
		} else {
			dcols = append(dcols, def)
		}
	}
	return Table{
		Name:  name,
		Doris: fmt.Sprintf("CREATE TABLE %s (%s) DUPLICATE KEY(%s) %s", name, strings.Join(dcols, ", "), key, layout),
		Duck:  fmt.Sprintf("CREATE TABLE %s (%s)", name, strings.Join(qcols, ", ")),
		Rows:  rows,
	}
}

// Tables returns the test schema: ta and tb share a colocate group on k
// (4 buckets); tc is hashed on a VARCHAR, td range-partitioned on d and
// hashed on a BIGINT, te a small dimension on k with another bucket count,
// tf hashed on a DECIMAL, tg big (bigTable: its tablets scan as several
// batches; queries use it where their output stays small).
func Tables() []Table {
	const one = `"replication_num" = "1"`
	return []Table{
		table("ta", "k", `DISTRIBUTED BY HASH(k) BUCKETS 4 PROPERTIES(`+one+`, "colocate_with" = "g1")`, 400),
		table("tb", "k", `DISTRIBUTED BY HASH(k) BUCKETS 4 PROPERTIES(`+one+`, "colocate_with" = "g1")`, 300),
		table("tc", "s", `DISTRIBUTED BY HASH(s) BUCKETS 3 PROPERTIES(`+one+`)`, 250),
		table("td", "d", `PARTITION BY RANGE(d) (PARTITION p2023h1 VALUES LESS THAN ("2023-07-01"), `+
			`PARTITION p2023h2 VALUES LESS THAN ("2024-01-01"), PARTITION pmax VALUES LESS THAN MAXVALUE) `+
			`DISTRIBUTED BY HASH(b) BUCKETS 5 PROPERTIES(`+one+`)`, 350),
		table("te", "k", `DISTRIBUTED BY HASH(k) BUCKETS 7 PROPERTIES(`+one+`)`, 60),
		table("tf", "m", `DISTRIBUTED BY HASH(m) BUCKETS 6 PROPERTIES(`+one+`)`, 200),
		// more rows per tablet than an operator's 4096-row batch.
		table(bigTable, "k", `DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES(`+one+`)`, 9000),
	}
}

// words are the VARCHAR values: lower-case ASCII only, so that byte order,
// MySQL's and DuckDB's collations and LIKE's case rules all agree.
const bigTable = "tg"

var words = []string{"", "a", "ab", "abc", "b", "ba", "bab", "c", "ca", "cab", "dog", "do",
	"x", "xy", "xyz", "zed", "zz", "mo", "moo", "mm"}

var day0 = time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)

// value draws one column's SQL literal: ~10% NULL, a hot value for skew,
// otherwise uniform over a domain that overlaps between tables. b, m, f and
// n take k's integral values now and then (and m, f and n each other's), so
// that equi joins across types (k = b, k = f, m = f, m = n) match rows.
func value(r *rand.Rand, col string, id int) string {
	if col == "id" {
		return strconv.Itoa(id)
	}
	if r.IntN(10) == 0 {
		return "NULL"
	}
	hot := r.IntN(7) == 0
	switch col {
	case "k":
		if hot {
			return "7"
		}
		return strconv.Itoa(r.IntN(40) - 5)
	case "b":
		if hot {
			return "10000000003"
		}
		if r.IntN(4) == 0 {
			return strconv.Itoa(r.IntN(40) - 5)
		}
		return strconv.FormatInt(10000000000+int64(r.IntN(60))-10, 10)
	case "s":
		if hot {
			return "'ab'"
		}
		return "'" + words[r.IntN(len(words))] + "'"
	case "d":
		if hot {
			return "'2023-06-30'"
		}
		return "'" + day0.AddDate(0, 0, r.IntN(800)).Format("2006-01-02") + "'"
	case "m":
		if hot {
			return "12.50"
		}
		if r.IntN(4) == 0 {
			return cents((r.IntN(40) - 5) * 100)
		}
		return cents(r.IntN(4000) - 1500)
	case "f":
		if hot {
			return "0.5"
		}
		switch r.IntN(10) {
		case 0, 1:
			return strconv.Itoa(r.IntN(40) - 5)
		case 2:
			// -0.0 and 0.0 are equal: they must meet in joins and groups.
			// A literal -0.0 is the DECIMAL 0 negated, so cast a string.
			return pickStr(r, "CAST('-0' AS DOUBLE)", "0.0", "12.5")
		}
		// multiples of 1/8: sums are exact in binary floating point,
		// whatever order the engines add them in.
		return strconv.FormatFloat(float64(r.IntN(1600)-800)/8, 'f', -1, 64)
	case "v":
		if r.IntN(5) == 0 {
			// longer than s's VARCHAR(16) can hold.
			return "'" + strings.Repeat(words[r.IntN(len(words))], 6) + "-long'"
		}
		return "'" + words[r.IntN(len(words))] + "'"
	case "n":
		switch r.IntN(4) {
		case 0:
			return strconv.Itoa(r.IntN(40) - 5)
		case 1:
			return fmt.Sprintf("%s%02d", cents(r.IntN(4000)-1500), r.IntN(100))
		}
		if hot {
			return "12.50"
		}
		return cents(r.IntN(4000) - 1500)
	}
	panic("difftest: unknown column " + col)
}

func pickStr(r *rand.Rand, xs ...string) string { return xs[r.IntN(len(xs))] }

func cents(c int) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

// Inserts returns the multi-row INSERT statements that fill t, the same
// text for both engines, deterministic in seed. Every 10th row repeats an
// earlier row's values (with a new id), so that whole-row duplicates exist.
func Inserts(seed int64, t Table, batch int) []string {
	h := uint64(seed)
	for _, c := range t.Name {
		h = h*31 + uint64(c)
	}
	r := rand.New(rand.NewPCG(uint64(seed), h))
	// ids overlap partly between tables so that joins on id match some rows.
	base := 1 + r.IntN(100)
	var rows [][]string
	for i := 0; i < t.Rows; i++ {
		id := base + i
		var row []string
		if i > 0 && i%10 == 0 {
			prev := rows[r.IntN(len(rows))]
			row = append([]string{strconv.Itoa(id)}, prev[1:]...)
		} else {
			for _, c := range columns {
				row = append(row, value(r, c.name, id))
			}
		}
		rows = append(rows, row)
	}
	var out []string
	for lo := 0; lo < len(rows); lo += batch {
		hi := min(lo+batch, len(rows))
		var b strings.Builder
		fmt.Fprintf(&b, "INSERT INTO %s (%s) VALUES ", t.Name, colList)
		for i, row := range rows[lo:hi] {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(" + strings.Join(row, ", ") + ")")
		}
		out = append(out, b.String())
	}
	return out
}
