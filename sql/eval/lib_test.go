package eval

import (
	"testing"
	"time"

	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

func dt(v string) expr.Expr {
	us, _ := types.ParseDateTime(v)
	return expr.Lit(types.Datum{T: types.DateTimeT, I: us})
}

func dd(v string) expr.Expr {
	days, _ := types.ParseDate(v)
	return expr.Lit(types.Datum{T: types.DateT, I: int64(days)})
}

// Expected values are MySQL 8's documented examples where MySQL has the
// function, Doris's documentation otherwise.
func TestDateLibrary(t *testing.T) {
	checkConst(t, []constCase{
		{call(t, "week", dd("2008-02-20")), "7", "BIGINT"},
		{call(t, "week", dd("2008-02-20"), i(0)), "7", ""},
		{call(t, "week", dd("2008-02-20"), i(1)), "8", ""},
		{call(t, "week", dd("2008-12-31"), i(1)), "53", ""},
		{call(t, "week", dd("2000-01-01"), i(0)), "0", ""},
		{call(t, "week", dd("2000-01-01"), i(2)), "52", ""},
		{call(t, "yearweek", dd("1987-01-01")), "198652", ""},
		{call(t, "yearweek", dd("2000-01-01"), i(3)), "199952", ""},
		{call(t, "weekofyear", dd("2008-02-20")), "8", ""},
		{call(t, "weekofyear", null()), "NULL", ""},
		{call(t, "timestampdiff", s("MONTH"), dd("2003-02-01"), dd("2003-05-01")), "3", "BIGINT"},
		{call(t, "timestampdiff", s("YEAR"), dd("2002-05-01"), dd("2001-01-01")), "-1", ""},
		{call(t, "timestampdiff", s("MINUTE"), dd("2003-02-01"), dt("2003-05-01 12:05:55")), "128885", ""},
		{call(t, "timestampdiff", s("MONTH"), dd("2003-01-31"), dd("2003-02-28")), "0", ""},
		{call(t, "timestampadd", s("MINUTE"), i(1), dd("2003-01-02")), "2003-01-02 00:01:00", "DATETIME"},
		{call(t, "timestampadd", s("WEEK"), i(1), dd("2003-01-02")), "2003-01-09", "DATE"},
		{call(t, "months_add", dd("2020-01-31"), i(1)), "2020-02-29", "DATE"},
		{call(t, "years_sub", dt("2020-02-29 10:00:00"), i(1)), "2019-02-28 10:00:00", "DATETIME"},
		{call(t, "hours_add", dd("2020-01-01"), i(25)), "2020-01-02 01:00:00", "DATETIME"},
		{call(t, "months_diff", dd("2020-12-25"), dd("2020-10-25")), "2", ""},
		{call(t, "days_diff", dt("2020-12-25 22:00:00"), dt("2020-12-24 22:00:01")), "0", ""},
		{call(t, "date_trunc", dt("2010-12-02 19:28:30"), s("hour")), "2010-12-02 19:00:00", "DATETIME"},
		{call(t, "date_trunc", s("week"), dt("2023-04-05 19:28:30")), "2023-04-03 00:00:00", ""},
		{call(t, "date_trunc", dt("2010-12-02 19:28:30"), s("quarter")), "2010-10-01 00:00:00", ""},
		{call(t, "date_trunc", dd("2010-12-02"), s("year")), "2010-01-01", "DATE"},
		{call(t, "convert_tz", dt("2004-01-01 12:00:00"), s("GMT"), s("MET")), "2004-01-01 13:00:00", ""},
		{call(t, "convert_tz", dt("2004-01-01 12:00:00"), s("+00:00"), s("+10:00")), "2004-01-01 22:00:00", ""},
		{call(t, "convert_tz", dt("2019-08-01 13:21:03"), s("Asia/Shanghai"), s("America/Los_Angeles")), "2019-07-31 22:21:03", ""},
		{call(t, "convert_tz", dt("2004-01-01 12:00:00"), s("Nowhere/City"), s("UTC")), "NULL", ""},
		{call(t, "from_unixtime_tz", s("Asia/Shanghai"), i(0)), "1970-01-01 08:00:00", "DATETIME"},
		{call(t, "from_unixtime_tz", s("+08:00"), i(0), s("%Y-%m-%d %H")), "1970-01-01 08", ""},
		{call(t, "unix_timestamp_tz", s("Asia/Shanghai"), dt("1970-01-01 08:00:01")), "1", ""},
		{call(t, "timediff", dt("2000-01-01 00:00:00"), dt("2000-01-01 00:00:00.000001")), "-00:00:00.000001", ""},
		{call(t, "timediff", dt("2008-12-31 23:59:59"), dt("2008-12-30 01:01:01")), "46:58:58", ""},
		{call(t, "next_day", dd("2020-01-31"), s("MONDAY")), "2020-02-03", ""},
		{call(t, "next_day", dd("2020-02-03"), s("MON")), "2020-02-10", ""},
		{call(t, "to_monday", dd("2022-09-11")), "2022-09-05", ""},
		{call(t, "makedate", i(2011), i(32)), "2011-02-01", ""},
		{call(t, "makedate", i(2011), i(0)), "NULL", ""},
		{call(t, "dayname", dd("2007-02-03")), "Saturday", ""},
		{call(t, "monthname", dd("2008-02-03")), "February", ""},
		{call(t, "microsecond", dt("2019-01-01 00:00:00.000123")), "123", ""},
	})
}

func TestStringLibrary(t *testing.T) {
	checkConst(t, []constCase{
		{call(t, "regexp_extract", s("AbCdE"), s("([[:lower:]]+)C([[:lower:]]+)"), i(1)), "b", ""},
		{call(t, "regexp_extract", s("abc"), s("x(y)"), i(1)), "", ""},
		{call(t, "regexp_extract", s("abc"), s("("), i(1)), "NULL", ""},
		{call(t, "regexp_extract_all", s("x=a3&x=18abc&x=2&y=3&x=4&x=17bcd"), s("x=([0-9]+)([a-z]+)")), "['18','17']", ""},
		{call(t, "regexp_replace", s("a b c"), s("(b)"), s(`<\1>`)), "a <b> c", ""},
		{call(t, "regexp_replace", s("a b c"), s(" "), s("$")), "a$b$c", ""},
		{call(t, "regexp_replace_one", s("a b c"), s(" "), s("-")), "a-b c", ""},
		{call(t, "split_part", s("a,b,c"), s(","), i(-1)), "c", ""},
		{call(t, "split_part", s("a,b,c"), s(","), i(4)), "NULL", ""},
		{call(t, "substring_index", s("www.apache.org"), s("."), i(-2)), "apache.org", ""},
		{call(t, "substring_index", s("www.apache.org"), s("."), i(2)), "www.apache", ""},
		{call(t, "hex", i(255)), "FF", ""},
		{call(t, "hex", i(-1)), "FFFFFFFFFFFFFFFF", ""},
		{call(t, "hex", s("abc")), "616263", ""},
		{call(t, "unhex", s("616263")), "abc", ""},
		{call(t, "conv", s("a"), i(16), i(2)), "1010", ""},
		{call(t, "conv", s("6E"), i(18), i(8)), "172", ""},
		{call(t, "conv", i(-17), i(10), i(-18)), "-H", ""},
		{call(t, "conv", s("-17"), i(10), i(18)), "2D3FGB0B9CG4BD1H", ""}, // unsigned, as MySQL
		{call(t, "crc32", s("MySQL")), "3259397556", ""},
		{call(t, "find_in_set", s("b"), s("a,b,c,d")), "2", ""},
		{call(t, "field", s("Bb"), s("Aa"), s("Bb"), s("Cc")), "2", ""},
		{call(t, "field", null(), s("a")), "0", ""},
		{call(t, "elt", i(1), s("Aa"), s("Bb")), "Aa", ""},
		{call(t, "char", i(77), i(121), i(83), i(81), i(76)), "MySQL", ""},
		{call(t, "domain", s("https://www.doris.apache.org:80/x?y=1")), "www.doris.apache.org", ""},
		{call(t, "domain_without_www", s("https://www.doris.apache.org/x")), "doris.apache.org", ""},
		{call(t, "parse_url", s("https://doris.apache.org:8080/docs?x=1&y=2#top"), s("QUERY"), s("y")), "2", ""},
		{call(t, "extract_url_parameter", s("http://a.com/p?k1=aa&k2=bb#f"), s("k2")), "bb", ""},
		{call(t, "null_or_empty", null()), "1", ""},
		{call(t, "not_null_or_empty", s("")), "0", ""},
	})
}

func TestJSONLibrary(t *testing.T) {
	doc := s(`{"k1":"v1", "k2":{"a":[1, 2, {"b": true}]}, "my.key":["e1","e2"], "n": 12345678901}`)
	checkConst(t, []constCase{
		{call(t, "json_extract", doc, s("$.k1")), `"v1"`, ""},
		{call(t, "json_extract", doc, s("$.k2.a")), `[1,2,{"b":true}]`, ""},
		{call(t, "json_extract", doc, s("$.k2.a[2].b")), `true`, ""},
		{call(t, "json_extract", doc, s(`$."my.key"[1]`)), `"e2"`, ""},
		{call(t, "json_extract", doc, s("$.k1"), s("$.nope"), s("$.n")), `["v1",12345678901]`, ""},
		{call(t, "json_extract", doc, s("$.nope")), "NULL", ""},
		{call(t, "json_extract", s("{bad"), s("$.k1")), "NULL", ""},
		{call(t, "json_extract", doc, s("$")), `{"k1":"v1","k2":{"a":[1,2,{"b":true}]},"my.key":["e1","e2"],"n":12345678901}`, ""},
		{call(t, "get_json_string", doc, s("$.k1")), "v1", ""},
		{call(t, "get_json_string", doc, s(`$."my.key"[0]`)), "e1", ""},
		{call(t, "get_json_string", doc, s("$.k2.a")), "[1,2,{\"b\":true}]", ""},
		{call(t, "get_json_int", doc, s("$.k2.a[1]")), "2", "INT"},
		{call(t, "get_json_int", doc, s("$.n")), "NULL", ""},
		{call(t, "get_json_bigint", doc, s("$.n")), "12345678901", "BIGINT"},
		{call(t, "get_json_double", s(`{"x":1.5}`), s("$.x")), "1.5", "DOUBLE"},
		{call(t, "get_json_double", doc, s("$.k1")), "NULL", ""},
		{call(t, "json_object", s("a"), i(1), s("b"), s("x"), s("c"), null()), `{"a":1,"b":"x","c":null}`, ""},
		{call(t, "json_array", i(1), s("a\"b"), null(), b(true)), `[1,"a\"b",null,true]`, ""},
		{call(t, "json_array"), `[]`, ""},
		{call(t, "json_quote", s(`a"b`)), `"a\"b"`, ""},
		{call(t, "json_unquote", s(`"a\tb"`)), "a\tb", ""},
		{call(t, "json_unquote", s(`abc`)), "abc", ""},
		{call(t, "json_contains", s(`{"a": 1, "b": 2, "c": {"d": 4}}`), s("1"), s("$.a")), "1", ""},
		{call(t, "json_contains", s(`{"a": 1, "b": 2, "c": {"d": 4}}`), s(`{"d": 4}`), s("$.c")), "1", ""},
		{call(t, "json_contains", s(`[1, 2, [3, 4]]`), s(`[1, 3]`)), "1", ""},
		{call(t, "json_contains", s(`[1, 2]`), s(`5`)), "0", ""},
		{call(t, "json_length", s(`[1, 2, {"a": 3}]`)), "3", "INT"},
		{call(t, "json_length", s(`{"a": 1, "b": {"c": 30}}`), s("$.b")), "1", ""},
		{call(t, "json_length", s(`"x"`)), "1", ""},
		{call(t, "json_keys", s(`{"a": 1, "b": {"c": 30}}`)), `["a","b"]`, ""},
		{call(t, "json_keys", s(`[1]`)), "NULL", ""},
		{call(t, "json_valid", s(`{"a": 1}`)), "1", ""},
		{call(t, "json_valid", s(`{a}`)), "0", ""},
		{call(t, "json_type", doc, s("$.k2")), "object", ""},
		{call(t, "json_type", doc, s("$.n")), "bigint", ""},
		{call(t, "json_exists_path", doc, s("$.k2.a[2]")), "1", ""},
		{call(t, "json_exists_path", doc, s("$.k2.a[3]")), "0", ""},
	})
}

func TestMathLibrary(t *testing.T) {
	checkConst(t, []constCase{
		{call(t, "pmod", i(-7), i(3)), "2", "BIGINT"},
		{call(t, "pmod", i(7), i(0)), "NULL", ""},
		{call(t, "pmod", f(-7.5), i(2)), "0.5", "DOUBLE"},
		{call(t, "mod_double", f(7.5), i(2)), "1.5", ""},
		{call(t, "negative", i(3)), "-3", "BIGINT"},
		{call(t, "positive", dec("-1.50")), "-1.50", ""},
		{call(t, "bin", i(12)), "1100", ""},
		{call(t, "oct", i(12)), "14", ""},
		{call(t, "degrees", f(0)), "0", ""},
		{call(t, "atan2", i(0), i(1)), "0", ""},
		{call(t, "cot", i(0)), "NULL", ""},
		{call(t, "asin", i(2)), "NULL", ""},
	})
}

func TestLoadZone(t *testing.T) {
	for _, c := range []struct {
		name string
		ok   bool
		off  int // seconds east of UTC at the Unix epoch
		utc  bool
	}{
		{"UTC", true, 0, true}, {"SYSTEM", true, 0, true}, {"+00:00", true, 0, true},
		{"+08:00", true, 8 * 3600, false}, {"-05:30", true, -(5*3600 + 30*60), false},
		{"+14:00", true, 14 * 3600, false}, {"-13:59", true, -(13*3600 + 59*60), false},
		{"Asia/Shanghai", true, 8 * 3600, false}, {"CST", true, 8 * 3600, false},
		{"+14:01", false, 0, false}, {"+8", false, 0, false}, {"08:00", false, 0, false},
		{"Mars/Base", false, 0, false}, {"", false, 0, false}, {"Local", false, 0, false},
	} {
		l, err := LoadZone(c.name)
		if (err == nil) != c.ok {
			t.Errorf("LoadZone(%q): %v, want ok=%v", c.name, err, c.ok)
			continue
		}
		if err != nil {
			if code := UnknownTimeZone.Code; err.Error() == "" || code != 1298 {
				t.Errorf("LoadZone(%q): %v", c.name, err)
			}
			continue
		}
		if _, off := time.Unix(0, 0).In(l).Zone(); off != c.off {
			t.Errorf("LoadZone(%q) offset %d, want %d", c.name, off, c.off)
		}
		if IsUTC(c.name) != c.utc {
			t.Errorf("IsUTC(%q) = %v", c.name, !c.utc)
		}
	}
}

func TestDateFloorCeil(t *testing.T) {
	checkConst(t, []constCase{
		{call(t, "date_floor", dt("0001-01-01 00:00:16"), i(5), s("SECOND")), "0001-01-01 00:00:15", "DATETIME"},
		{call(t, "date_ceil", dt("2023-07-13 22:28:18"), i(5), s("SECOND")), "2023-07-13 22:28:20", ""},
		{call(t, "date_ceil", dt("2023-07-13 22:28:20"), i(5), s("SECOND")), "2023-07-13 22:28:20", ""},
		{call(t, "date_floor", dt("2023-07-13 22:28:18"), i(1), s("HOUR")), "2023-07-13 22:00:00", ""},
		{call(t, "date_floor", dt("2023-07-13 22:28:18"), i(1), s("MONTH")), "2023-07-01 00:00:00", ""},
		{call(t, "date_ceil", dt("2023-07-13 22:28:18"), i(1), s("MONTH")), "2023-08-01 00:00:00", ""},
		{call(t, "date_ceil", dt("2023-07-01 00:00:00"), i(1), s("MONTH")), "2023-07-01 00:00:00", ""},
		{call(t, "date_floor", dt("2023-07-13 22:28:18"), i(1), s("YEAR")), "2023-01-01 00:00:00", ""},
		{call(t, "date_floor", dt("2023-07-13 22:28:18"), i(1), s("WEEK")), "2023-07-10 00:00:00", ""},
		{call(t, "date_floor", dd("2023-07-13"), i(1), s("DAY")), "2023-07-13", "DATE"},
		{call(t, "date_floor", dt("2023-07-13 22:28:18"), i(0), s("DAY")), "NULL", ""},
	})
}
