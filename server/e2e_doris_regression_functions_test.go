package server_test

// Function cases ported from Apache Doris's regression suites
// query_p0/sql_functions (Apache License 2.0; see each .out's header for the
// suite path and commit). Each ported suite keeps Doris's DDL, data and
// queries; expected rows are Doris's own .out files, copied verbatim into
// testdata/doris_regression and compared as runDorisCases compares them
// (runFuncCases: rows of a query without ORDER BY as a set).
//
// Adapted, and why (per suite below as well):
//   - A .out case whose single row is the empty string is written by Doris as
//     an empty line before the blank separator; readDorisOut reads it as no
//     row, so these suites are read by readDorisFuncOut, which tells the two
//     apart (header, blank, blank = one empty row).
//   - Cases repeating one name (qt_sql) are numbered in suite order, as
//     Doris writes them to the .out (runFuncCases).
//   - BOOLEAN results are compared as true/false (see runFuncCases).

import (
	"database/sql"
	"sort"
	"strings"
	"testing"
)

// funcCase is one qt_ query of a ported function suite; boolean marks a
// query whose result columns are BOOLEAN; a case with a skip reason keeps
// its place in the numbering but is not run.
type funcCase struct {
	name, query string
	boolean     bool
	skip        string
}

// funcLines runs q and renders its rows as Doris's .out does: columns
// tab-separated, NULL as \N, and DATETIME columns (only those: a string
// that reads like a datetime stays as it is, as in Doris's .out) as Java's
// LocalDateTime prints them.
func funcLines(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rs, err := db.Query(q)
	if err != nil {
		t.Errorf("%s: %v", q, err)
		return nil
	}
	defer rs.Close()
	cts, err := rs.ColumnTypes()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rs.Next() {
		vals := make([]sql.NullString, len(cts))
		ptrs := make([]any, len(cts))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		cells := make([]string, len(cts))
		for i, v := range vals {
			c := v.String
			switch m := dorisDateTime.FindStringSubmatch(c); {
			case !v.Valid:
				c = `\N`
			case m != nil && (cts[i].DatabaseTypeName() == "DATETIME" || cts[i].DatabaseTypeName() == "TIMESTAMP"):
				c = m[1] + "T" + m[2]
				if m[3] != ":00" || m[4] != "" {
					c += m[3] + m[4]
				}
			}
			cells[i] = c
		}
		out = append(out, strings.Join(cells, "\t"))
	}
	if err := rs.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

// runFuncCases numbers repeats of a name in the order given (as Doris writes
// them to the .out) and compares like runDorisCases. BOOLEAN cells print as
// the regression framework's JDBC client shows them (true/false): over the
// MySQL protocol Doris and dorisgo both send BOOLEAN as TINYINT(1), which
// JDBC reads as a Java Boolean and the Go driver as 1/0.
func runFuncCases(t *testing.T, db *sql.DB, out *dorisOut, cases []funcCase) {
	t.Helper()
	seen := map[string]int{}
	for _, c := range cases {
		k := seen[c.name]
		seen[c.name]++
		if c.skip != "" {
			continue
		}
		got := funcLines(t, db, c.query)
		if c.boolean {
			for i, l := range got {
				cells := strings.Split(l, "\t")
				for j, v := range cells {
					switch v {
					case "1":
						cells[j] = "true"
					case "0":
						cells[j] = "false"
					}
				}
				got[i] = strings.Join(cells, "\t")
			}
		}
		want := append([]string(nil), out.expected(t, c.name, k)...)
		if !strings.Contains(strings.ToUpper(c.query), "ORDER BY") {
			sort.Strings(got)
			sort.Strings(want)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s#%d: %s\n--- got:\n%s\n--- want (Doris .out):\n%s", c.name, k, c.query, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// query_p0/sql_functions/string_functions/test_string_function.groovy.
//
// Adapted, and why:
//   - The only stored version of Doris's .out (commit 09b45f2) predates the
//     suite's current text: it holds the suite's first 79 qt_sql cases (elt
//     … substring), before initcap, not_null_or_empty, unhex_null, the
//     named sql_instr/sql_locate cases and so on were added. The queries
//     below are the suite's own lines for exactly those cases, in order;
//     the later cases have no expected rows to compare with and are not
//     ported.
//   - set batch_size = 4096 is dropped (a Doris execution knob).
func TestE2EDorisRegressionStringFunction(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	const q = "sql"
	runFuncCases(t, db, readDorisOut(t, "test_string_function.out"), []funcCase{
		{q, `select elt(0, "hello", "doris");`, false, ""},
		{q, `select elt(1, "hello", "doris");`, false, ""},
		{q, `select elt(2, "hello", "doris");`, false, ""},
		{q, `select elt(3, "hello", "doris");`, false, ""},
		{q, `select append_trailing_char_if_absent('a','c');`, false, ""},
		{q, `select append_trailing_char_if_absent('ac','c');`, false, ""},
		{q, `select ascii('1');`, false, ""},
		{q, `select ascii('a');`, false, ""},
		{q, `select ascii('A');`, false, ""},
		{q, `select ascii('!');`, false, ""},
		{q, `select bit_length("abc");`, false, ""},
		{q, `select char_length("abc");`, false, ""},
		{q, `select concat("a", "b");`, false, ""},
		{q, `select concat("a", "b", "c");`, false, ""},
		{q, `select concat("a", null, "c");`, false, ""},
		{q, `select concat_ws("or", "d", "is");`, false, ""},
		{q, `select concat_ws(NULL, "d", "is");`, false, ""},
		{q, `select concat_ws("or", "d", NULL,"is");`, false, ""},
		{q, `select concat_ws("or", ["d", "is"]);`, false, ""},
		{q, `select concat_ws(NULL, ["d", "is"]);`, false, ""},
		{q, `select concat_ws("or", ["d", NULL,"is"]);`, false, ""},
		{q, `select concat_ws("or", ["d", "","is"]);`, false, ""},
		{q, `select ends_with("Hello doris", "doris");`, true, ""},
		{q, `select ends_with("Hello doris", "Hello");`, true, ""},
		{q, `select find_in_set("b", "a,b,c");`, false, ""},
		{q, `select find_in_set("d", "a,b,c");`, false, ""},
		{q, `select find_in_set(null, "a,b,c");`, false, ""},
		{q, `select find_in_set("a", null);`, false, ""},
		{q, `select hex('1');`, false, ""},
		{q, `select hex('12');`, false, ""},
		{q, `select hex('@');`, false, ""},
		{q, `select hex('A');`, false, ""},
		{q, `select hex(12);`, false, ""},
		{q, `select hex(-1);`, false, ""},
		{q, `select hex('hello,doris')`, false, ""},
		{q, `select unhex('@');`, false, ""},
		{q, `select unhex('68656C6C6F2C646F726973');`, false, ""},
		{q, `select unhex('41');`, false, ""},
		{q, `select unhex('4142');`, false, ""},
		{q, `select instr("abc", "b");`, false, ""},
		{q, `select instr("abc", "d");`, false, ""},
		{q, `select instr("abc", null);`, false, ""},
		{q, `select instr(null, "a");`, false, ""},
		{q, `SELECT lcase("AbC123");`, false, ""},
		{q, `SELECT lower("AbC123");`, false, ""},
		{q, `select left("Hello doris",5);`, false, ""},
		{q, `select right("Hello doris",5);`, false, ""},
		{q, `select length("abc");`, false, ""},
		{q, `SELECT LOCATE('bar', 'foobarbar');`, false, ""},
		{q, `SELECT LOCATE('xbar', 'foobar');`, false, ""},
		{q, `SELECT lpad("hi", 5, "xy");`, false, ""},
		{q, `SELECT lpad("hi", 1, "xy");`, false, ""},
		{q, `SELECT rpad("hi", 5, "xy");`, false, ""},
		{q, `SELECT rpad("hi", 1, "xy");`, false, ""},
		{q, `SELECT ltrim('   ab d');`, false, ""},
		{q, `select money_format(17014116);`, false, ""},
		{q, `select money_format(1123.456);`, false, ""},
		{q, `select money_format(1123.4);`, false, ""},
		{q, `select null_or_empty(null);`, true, ""},
		{q, `select null_or_empty("");`, true, ""},
		{q, `select null_or_empty("a");`, true, ""},
		{q, `SELECT repeat("a", 3);`, false, ""},
		{q, `SELECT repeat("a", -1);`, false, ""},
		{q, `SELECT repeat("a", 0);`, false, ""},
		{q, `SELECT repeat("a",null);`, false, ""},
		{q, `SELECT repeat(null,1);`, false, ""},
		{q, `select replace("https://doris.apache.org:9090", ":9090", "");`, false, ""},
		{q, `SELECT REVERSE('hello');`, false, ""},
		{q, `select split_part('hello world', ' ', 1)`, false, ""},
		{q, `select split_part('hello world', ' ', 2)`, false, ""},
		{q, `select starts_with("hello world","hello");`, true, ""},
		{q, `select starts_with("hello world","world");`, true, ""},
		{q, `select starts_with("hello world",null);`, true, ""},
		{q, `select strleft("Hello doris", 5);`, false, ""},
		{q, `select strright("Hello doris", 5);`, false, ""},
		{q, `select substring('abc1', 2);`, false, ""},
		{q, `select substring('abc1', -2);`, false, ""},
		{q, `select substring('abc1', 5);`, false, ""},
		{q, `select substring('abc1def', 2, 2);`, false, ""},
	})
}

// query_p0/sql_functions/string_functions/test_find_in_set.groovy:
// find_in_set over a nullable VARCHAR column, as a predicate and projected.
func TestE2EDorisRegressionFindInSet(t *testing.T) {
	s := newServer(t)
	root := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, root, "CREATE DATABASE d")
	db := openDB(t, s.MySQLAddr(), "d", true)
	const tb = "test_find_in_set"
	execAll(t, db,
		"DROP TABLE IF EXISTS "+tb,
		`CREATE TABLE IF NOT EXISTS `+tb+` (
			timea varchar(30)  NULL,
			creatr varchar(30) NULL
		) DISTRIBUTED BY HASH(timea) BUCKETS 5 properties("replication_num" = "1");`,
		`INSERT INTO `+tb+` VALUES  ('1 ','a'),('2  ','b'), ('1,2,3','d'),(null,'c');`)
	runFuncCases(t, db, readDorisOut(t, "test_find_in_set.out"), []funcCase{
		{"sql", `select * from ` + tb + ` where find_in_set("1", timea) > 0;`, false, ""},
		{"sql", `select * from ` + tb + ` where find_in_set("1 ", timea) > 0;`, false, ""},
		{"sql", `select *, find_in_set("1 ", timea) from ` + tb + ` order by 1;`, false, ""},
	})
}

// query_p0/sql_functions/math_functions/test_least_greatest.groovy: LEAST
// and GREATEST over integer, decimal, datetime, date and string literals,
// then over a table's INT, DOUBLE, DECIMALV3, DATEV2, DATETIMEV2 and
// STRING columns (alone, twice, and with a literal). The queries are the
// suite's, generated by the same nesting as its lines.
//
// Adapted, and why:
//   - LEAST/GREATEST('2021-01-01 01:01:01', v4) (2 cases) are not compared:
//     the Doris that wrote the .out typed a string literal with a
//     DATETIMEV2 column as VARCHAR (its rows print 2021-01-01 01:01:01,
//     where its DATETIME columns print 2021-01-01T01:01:01); dorisgo casts
//     the literal to DATETIME. The values are the same, only the result
//     type (and so the .out's text) differs.
func TestE2EDorisRegressionLeastGreatest(t *testing.T) {
	s := newServer(t)
	root := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, root, "CREATE DATABASE d")
	db := openDB(t, s.MySQLAddr(), "d", true)
	consts := []string{"(1)", "(1,2,3)", "(1111,2222,3333)", "(1111111,2222222,3333333)", "(1.1,1.2,1.3)", "(1.1,10,2)",
		"('2020-01-01 01:01:01', '2020-01-02 01:01:01', '2020-01-03 01:01:01')", "('2020-01-01', '2020-01-02', '2020-01-03')", "('aaa', 'bbb', 'ccc')"}
	var cases []funcCase
	for _, fn := range []string{"LEAST", "GREATEST"} {
		for _, a := range consts {
			cases = append(cases, funcCase{name: "select", query: "SELECT " + fn + a})
		}
	}
	execAll(t, db,
		"drop table if exists test_least_greatest;",
		`create table test_least_greatest(
			k1 INT,
			v1 DOUBLE,
			v2 DECIMALV3,
			v3 DATEV2,
			v4 DATETIMEV2,
			v5 STRING
		) distributed by hash (k1) buckets 1
		properties ("replication_num"="1");`,
		`insert into test_least_greatest values
			(1, 1.1, 1.111111, '2020-01-01', '2020-01-01 01:01:01', 'aaa'),
			(2, 2.2, 2.222222, '2020-02-01', '2020-02-01 01:01:01', 'bbb'),
			(3, 3.3, 3.333333, '2020-03-01', '2020-03-01 01:01:01', 'ccc')`)
	const from = " FROM test_least_greatest order by k1"
	cols := []string{"k1", "v1", "v2", "v3", "v4", "v5"}
	lits := []string{"100", "100.100", "100.00001", "'2021-01-01'", "'2021-01-01 01:01:01'", "'zzz'"}
	for _, fn := range []string{"LEAST", "GREATEST"} {
		for _, a := range consts {
			cases = append(cases, funcCase{name: "select", query: "SELECT " + fn + a + from})
		}
		for _, c := range cols {
			cases = append(cases, funcCase{name: "select", query: "SELECT " + fn + "(" + c + ")" + from})
		}
		for _, c := range cols {
			cases = append(cases, funcCase{name: "select", query: "SELECT " + fn + "(" + c + ", " + c + ")" + from})
		}
		for i, c := range cols {
			fc := funcCase{name: "select", query: "SELECT " + fn + "(" + lits[i] + ", " + c + ")" + from}
			if c == "v4" {
				fc.skip = "string literal with DATETIMEV2: Doris typed it VARCHAR, dorisgo DATETIME (same value)"
			}
			cases = append(cases, fc)
		}
	}
	runFuncCases(t, db, readDorisOut(t, "test_least_greatest.out"), cases)
}

// query_p0/sql_functions/datetime_functions/test_timestampdiff.groovy:
// TIMESTAMPDIFF(YEAR/MONTH) over DATE and string arguments in every
// combination, on either side of the anniversary.
//
// Adapted, and why:
//   - The fifth case (timediff(now(), now() -1) and its casts to VARCHAR) is
//     not run, for two reasons: dorisgo's parser refuses unquoted non-ASCII
//     aliases (延迟时长1; MySQL and Doris accept them), and the .out's
//     second column ('00:00:01', quoted) is the TIME-to-VARCHAR text of the
//     Doris that wrote it, where dorisgo gives 00:00:01 (with the aliases
//     back-quoted, dorisgo's first and third columns are Doris's).
func TestE2EDorisRegressionTimestampdiff(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	runFuncCases(t, db, readDorisOut(t, "test_timestampdiff.out"), []funcCase{
		{name: "select", query: `SELECT TIMESTAMPDIFF(YEAR,DATE('1981-09-11'),'2022-04-28') AS ` + "`date-str`" + `,
                        TIMESTAMPDIFF(YEAR,'1981-09-11','2022-04-28') AS ` + "`str-str`" + `,
                        TIMESTAMPDIFF(YEAR,DATE('1981-09-11'),DATE('2022-04-28')) AS ` + "`date-date`" + `,
                        TIMESTAMPDIFF(YEAR,'1981-09-11',DATE('2022-04-28')) AS ` + "`str-date`"},
		{name: "select", query: `SELECT TIMESTAMPDIFF(YEAR,DATE('1981-09-11'),'2022-04-28') AS ` + "`date-str`" + `,
                        TIMESTAMPDIFF(YEAR,'1981-09-11','2022-04-28') AS ` + "`str-str`" + `,
                        TIMESTAMPDIFF(YEAR,DATE('1981-04-11'),DATE('2022-04-28')) AS ` + "`date-date`" + `,
                        TIMESTAMPDIFF(YEAR,'1981-04-11',DATE('2022-04-28')) AS ` + "`str-date`"},
		{name: "select", query: `SELECT TIMESTAMPDIFF(MONTH,DATE('2020-04-27'),'2022-04-28') AS ` + "`date-str`" + `,
                        TIMESTAMPDIFF(MONTH,'2020-04-27','2022-04-28') AS ` + "`str-str`" + `,
                        TIMESTAMPDIFF(MONTH,DATE('2020-04-27'),DATE('2022-04-28')) AS ` + "`date-date`" + `,
                        TIMESTAMPDIFF(MONTH,'2020-04-27',DATE('2022-04-28')) AS ` + "`str-date`"},
		{name: "select", query: `SELECT TIMESTAMPDIFF(MONTH,DATE('2020-04-29'),'2022-04-28') AS ` + "`date-str`" + `,
                        TIMESTAMPDIFF(MONTH,'2020-04-29','2022-04-28') AS ` + "`str-str`" + `,
                        TIMESTAMPDIFF(MONTH,DATE('2020-04-29'),DATE('2022-04-28')) AS ` + "`date-date`" + `,
                        TIMESTAMPDIFF(MONTH,'2020-04-29',DATE('2022-04-28')) AS ` + "`str-date`"},
		{name: "select", query: "select  timediff(now(), now() -1) as 延迟时长1,\n                     cast(timediff(now(), now() -1) as varchar(50)) as 延迟时长2,\n                     replace(cast(timediff(now(), now() -1) as varchar(50)),'''','') as 延迟时长; ",
			skip: "unquoted non-ASCII aliases; Doris's quoted TIME-to-VARCHAR text"},
	})
}

// query_p0/sql_functions/conditional_functions/test_conditional_function.groovy:
// CASE (simple and searched), IF, COALESCE, IFNULL, NULLIF, is_null_pred /
// is_not_null_pred over a nullable INT column and over constants, IF and
// IFNULL around date_format/month_ceil, and IF whose taken branch is
// nullable.
//
// Adapted, and why:
//   - The .out (commit 0696b50) records the suite's first part twice (its
//     Doris ran it under two planners); the part is ported once, against the
//     first of each pair of repeated names. The .out's later cases (a
//     DECIMALV3(76, 6) table under enable_decimal256, ARRAY columns,
//     array_agg, array_cum_sum, width_bucket, avg_weighted and a 200-row
//     random table) need DECIMAL256 or ARRAY, which dorisgo does not have,
//     and are not ported.
//   - The if(… month_ceil(…) …) case is not run: dorisgo has no
//     month_ceil (Doris's date_floor/date_ceil family).
//   - ifnull(user_id, '9999') is not run: the .out's 99990101 is the Doris
//     of that commit coercing INT and the string literal '9999' to a DATE
//     (9999-01-01, printed as an integer); dorisgo keeps the value 9999, as
//     MySQL does. The 999 case next to it agrees.
//   - set batch_size = 4096 is dropped (a Doris execution knob).
func TestE2EDorisRegressionConditionalFunction(t *testing.T) {
	s := newServer(t)
	root := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, root, "CREATE DATABASE d")
	db := openDB(t, s.MySQLAddr(), "d", true)
	const tb = "test_conditional_function"
	execAll(t, db,
		"DROP TABLE IF EXISTS "+tb+";",
		`CREATE TABLE IF NOT EXISTS `+tb+` (
			user_id INT
		) DISTRIBUTED BY HASH(user_id) BUCKETS 5 properties("replication_num" = "1");`,
		"INSERT INTO "+tb+" VALUES (1), (2), (3), (4);",
		"INSERT INTO "+tb+" VALUES (null), (null), (null), (null);")
	const q = "sql"
	runFuncCases(t, db, readDorisOut(t, "test_conditional_function.out"), []funcCase{
		{name: q, query: "select user_id, case user_id when 1 then 'user_id = 1' when 2 then 'user_id = 2' else 'user_id not exist' end test_case from " + tb + " order by user_id;"},
		{name: q, query: "select user_id, case when user_id = 1 then 'user_id = 1' when user_id = 2 then 'user_id = 2' else 'user_id not exist' end test_case from " + tb + " order by user_id;"},
		{name: q, query: `select user_id, if(user_id = 1, "true", "false") test_if from ` + tb + ` order by user_id;`},
		{name: q, query: "select coalesce(NULL, '1111', '0000');"},
		{name: q, query: "select ifnull(1,0);"},
		{name: q, query: "select ifnull(null,10);"},
		{name: q, query: "select ifnull(1,user_id) from " + tb + " order by user_id;"},
		{name: q, query: "select ifnull(user_id,1) from " + tb + " order by user_id;"},
		{name: q, query: "select ifnull(null,user_id) from " + tb + " order by user_id;"},
		{name: q, query: "select ifnull(user_id,null) from " + tb + " order by user_id;"},
		{name: q, query: "select nullif(1,1);"},
		{name: q, query: "select nullif(1,0);"},
		{name: q, query: "select nullif(1,user_id) from " + tb + " order by user_id;"},
		{name: q, query: "select nullif(user_id,1) from " + tb + " order by user_id;"},
		{name: q, query: "select nullif(null,user_id) from " + tb + " order by user_id;"},
		{name: q, query: "select nullif(user_id,null) from " + tb + " order by user_id;"},
		{name: q, query: "select nullif(1,1);"},
		{name: q, query: "select nullif(1,0);"},
		{name: q, query: "select is_null_pred(user_id) from " + tb + " order by user_id", boolean: true},
		{name: q, query: "select is_not_null_pred(user_id) from " + tb + " order by user_id", boolean: true},
		{name: q, query: "select if(date_format(CONCAT_WS('', '9999-07', '-26'), '%Y-%m')= DATE_FORMAT( curdate(), '%Y-%m'),\n\t        curdate(),\n\t        DATE_FORMAT(DATE_SUB(month_ceil ( CONCAT_WS('', '9999-07', '-26')), 1), '%Y-%m-%d'));", skip: "month_ceil: dorisgo has no date_ceil/month_ceil family"},
		{name: q, query: "select ifnull(date_format(CONCAT_WS('', '9999-07', '-00'), '%Y-%m'),3);"},
		{name: q, query: "select ifnull(date_format(CONCAT_WS('', '9999-07', '-01'), '%Y-%m'),3);"},
		{name: q, query: "select ifnull(date_format(CONCAT_WS('', '9999-07', '-00'), '%Y-%m'),date_format(CONCAT_WS('', '9999-07', '-00'), '%Y-%m'));"},
		{name: q, query: "select ifnull(date_format(CONCAT_WS('', '9999-07', '-00'), '%Y-%m'),date_format(CONCAT_WS('', '9999-07', '-26'), '%Y-%m'));"},
		{name: q, query: "select ifnull( user_id, '9999') r from " + tb + " order by r",
			skip: "Doris typed ifnull(INT, '9999') as DATE (99990101); dorisgo as the string's value 9999"},
		{name: q, query: "select ifnull( user_id, 999) r from " + tb + " order by r"},
		{name: "if_true_then_nullable", query: `select IF(true, DAYOFWEEK("2022-12-06 17:48:46"), 1) + 1;`},
		{name: "if_true_else_nullable", query: `select IF(true, 1, DAYOFWEEK("2022-12-06 17:48:46")) + 1;`},
		{name: "if_false_then_nullable", query: `select IF(false, DAYOFWEEK("2022-12-06 17:48:46"), 1) + 1;`},
		{name: "if_false_else_nullable", query: `select IF(false, 1, DAYOFWEEK("2022-12-06 17:48:46")) + 1;`},
	})
}
