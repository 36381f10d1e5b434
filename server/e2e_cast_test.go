package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestE2ECastDoris: an explicit CAST follows Doris 2.x: a string that is
// not a number (or date) and a number out of the target's range become
// NULL, each with a warning SHOW WARNINGS lists (1292 / 1264) and
// @@warning_count counts; the result column is nullable. The implicit
// conversions of comparisons and arithmetic keep MySQL's numeric prefixes.
func TestE2ECastDoris(t *testing.T) {
	s := newServer(t)
	setup := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, setup, "CREATE DATABASE c")
	mustExec(t, setup, `CREATE TABLE c.t (k INT, s VARCHAR(20)) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, setup, "INSERT INTO c.t VALUES (1, '10'), (2, 'abc'), (3, '12x'), (4, NULL), (5, ' 7 ')")
	waitBackendsAlive(t, setup, 3)
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			ctx := context.Background()
			conn, err := openDB(t, s.MySQLAddr(), "", p.interpolate).Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			for _, tc := range []struct {
				q        string
				want     string
				warnings []string // SHOW WARNINGS rows, "level|code|message"
			}{
				{"SELECT CAST('abc' AS INT)", "NULL", []string{"Warning|1292|Truncated incorrect INTEGER value: 'abc'"}},
				{"SELECT CAST('12x' AS INT)", "NULL", []string{"Warning|1292|Truncated incorrect INTEGER value: '12x'"}},
				{"SELECT CAST(' 12 ' AS INT), CAST('12.9' AS BIGINT)", "12|12", nil},
				{"SELECT CAST('abc' AS DECIMAL(5,2))", "NULL", []string{"Warning|1292|Truncated incorrect DECIMAL value: 'abc'"}},
				{"SELECT CAST('1234.5' AS DECIMAL(5,2))", "NULL", []string{"Warning|1264|Out of range value for DECIMAL: '1234.5'"}},
				{"SELECT CAST('1.5e1' AS DOUBLE), CAST('1.5x' AS DOUBLE)", "15|NULL", []string{"Warning|1292|Truncated incorrect DOUBLE value: '1.5x'"}},
				{"SELECT CAST('2024-02-30' AS DATE)", "NULL", []string{"Warning|1292|Incorrect date value: '2024-02-30'"}},
				{"SELECT CAST('soon' AS DATETIME)", "NULL", []string{"Warning|1292|Incorrect datetime value: 'soon'"}},
				{"SELECT CAST(300 AS TINYINT), CAST(-5 AS TINYINT)", "NULL|-5", []string{"Warning|1264|Out of range value for INTEGER: '300'"}},
				{"SELECT CAST('3000000000' AS INT)", "NULL", []string{"Warning|1264|Out of range value for INTEGER: '3000000000'"}},
				{"SELECT CAST('abcdef' AS CHAR(3)), CAST('ab' AS VARCHAR(3))", "abc|ab", []string{"Warning|1292|Truncated incorrect CHAR(3) value: 'abcdef'"}},
				{"SELECT CONVERT('x1', SIGNED)", "NULL", []string{"Warning|1292|Truncated incorrect INTEGER value: 'x1'"}},
				// A failing CAST is NULL wherever it sits.
				{"SELECT k, COALESCE(CAST('abc' AS INT), k) FROM c.t WHERE k = 1 GROUP BY k", "1|1", []string{"Warning|1292|Truncated incorrect INTEGER value: 'abc'"}},
				// Implicit conversions stay MySQL's.
				{"SELECT '12x' + 1, '12x' = 12", "13|1", nil},
				// A column: the bad rows only, one warning each.
				{"SELECT k, CAST(s AS INT) FROM c.t ORDER BY k", "1|10,2|NULL,3|NULL,4|NULL,5|7",
					[]string{"Warning|1292|Truncated incorrect INTEGER value: 'abc'", "Warning|1292|Truncated incorrect INTEGER value: '12x'"}},
				{"SELECT count(*) FROM c.t WHERE CAST(s AS INT) IS NULL", "3",
					[]string{"Warning|1292|Truncated incorrect INTEGER value: 'abc'", "Warning|1292|Truncated incorrect INTEGER value: '12x'"}},
			} {
				got := queryStrings(t, conn, tc.q)
				var rows []string
				for _, r := range got {
					rows = append(rows, strings.Join(r, "|"))
				}
				if g := strings.Join(rows, ","); g != tc.want {
					t.Errorf("%s = %s, want %s", tc.q, g, tc.want)
				}
				var warns []string
				for _, r := range queryStrings(t, conn, "SHOW WARNINGS") {
					warns = append(warns, strings.Join(r, "|"))
				}
				if fmt.Sprint(sortStrings(warns)) != fmt.Sprint(sortStrings(tc.warnings)) {
					t.Errorf("%s: SHOW WARNINGS %q, want %q", tc.q, warns, tc.warnings)
				}
				if n := queryStrings(t, conn, "SELECT @@warning_count"); n[0][0] != fmt.Sprint(len(tc.warnings)) {
					t.Errorf("%s: @@warning_count %s, want %d", tc.q, n[0][0], len(tc.warnings))
				}
			}
			// The column of a cast that can fail is nullable; one that
			// cannot is not.
			rs, err := conn.QueryContext(ctx, "SELECT CAST('1' AS INT) AS a, CAST(1 AS BIGINT) AS b, CAST(k AS TINYINT), CAST('7' AS LARGEINT) FROM c.t WHERE k = 1")
			if err != nil {
				t.Fatal(err)
			}
			cts, err := rs.ColumnTypes()
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range []struct {
				name, typ string
				null      bool
			}{{"a", "INT", true}, {"b", "BIGINT", false}, {"CAST(k AS TINYINT)", "TINYINT", true}, {"CAST('7' AS LARGEINT)", "", true}} {
				if n, ok := cts[i].Nullable(); !ok || n != want.null {
					t.Errorf("column %s nullable = %v (%v), want %v", cts[i].Name(), n, ok, want.null)
				}
				if cts[i].Name() != want.name || want.typ != "" && cts[i].DatabaseTypeName() != want.typ {
					t.Errorf("column %d: %s %s, want %s %s", i, cts[i].Name(), cts[i].DatabaseTypeName(), want.name, want.typ)
				}
			}
			for rs.Next() {
			}
			rs.Close()
			// max_error_count bounds the rows SHOW WARNINGS keeps, not the count.
			mustExec(t, conn, "SET max_error_count = 1")
			queryStrings(t, conn, "SELECT CAST('a' AS INT), CAST('b' AS INT)")
			if got := queryStrings(t, conn, "SHOW WARNINGS"); len(got) != 1 || got[0][2] != "Truncated incorrect INTEGER value: 'a'" {
				t.Errorf("SHOW WARNINGS under max_error_count = 1: %q", got)
			}
			if n := queryStrings(t, conn, "SELECT @@warning_count"); n[0][0] != "2" {
				t.Errorf("@@warning_count under max_error_count = 1: %s, want 2", n[0][0])
			}
			mustExec(t, conn, "SET max_error_count = 64")
			// INSERT … SELECT with a failing cast loads NULL and warns.
			mustExec(t, conn, "CREATE TABLE IF NOT EXISTS c.u (k INT, v INT) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES (\"replication_num\" = \"1\")")
			mustExec(t, conn, "TRUNCATE TABLE c.u")
			mustExec(t, conn, "INSERT INTO c.u SELECT k, CAST(s AS INT) FROM c.t")
			if n := queryStrings(t, conn, "SELECT @@warning_count"); n[0][0] != "2" {
				t.Errorf("INSERT … SELECT: @@warning_count %s, want 2", n[0][0])
			}
			if got := queryStrings(t, conn, "SELECT count(*) FROM c.u WHERE v IS NULL"); got[0][0] != "3" {
				t.Errorf("loaded NULLs: %v, want 3", got)
			}
		})
	}
}

func sortStrings(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}
