package difftest

import "strings"

// fnCase is one way to call a dorisgo function that DuckDB computes alike:
// the dorisgo and DuckDB formats (fmt verbs, explicit indexes allowed when
// DuckDB's spelling repeats an argument), the result type, and the
// arguments' drawer. name is the dorisgo registry name or alias the call
// exercises; probe is text the dorisgo call contains (TestFunctionTable
// checks that the default run generates each one).
type fnCase struct {
	name    string
	ret     typ
	d, q    string
	args    func(g *gen, al string, d int) []ex
	inexact bool // floating point results, rounding may differ
	probe   string
}

// tys draws one argument of each type: columns, nested expressions,
// constants and NULL (typed for DuckDB, whose overloads need a type).
func tys(ts ...typ) func(g *gen, al string, d int) []ex {
	return func(g *gen, al string, d int) []ex {
		out := make([]ex, len(ts))
		for i, t := range ts {
			out[i] = g.arg(t, al, d)
		}
		return out
	}
}

var duckType = map[typ]string{tInt: "INTEGER", tBig: "BIGINT", tStr: "VARCHAR", tDate: "DATE", tDec: "DECIMAL(12,2)", tDbl: "DOUBLE", tBool: "BOOLEAN"}

func nullOf(t typ) ex {
	return ex{d: "NULL", q: "CAST(NULL AS " + duckType[t] + ")", t: t, exact: true}
}

// arg draws a function argument of type t: 6% NULL, 10% a constant, else
// an expression over al's columns.
func (g *gen) arg(t typ, al string, d int) ex {
	switch {
	case g.p(6):
		return nullOf(t)
	case g.p(10) && t != tBool:
		c := g.constant(t)
		c.t = t
		if t == tDate {
			// DuckDB needs the type to choose an overload.
			c.q = "DATE " + c.q
		}
		return c
	}
	e := g.value(t, al, d)
	if t == tDate {
		// d - INTERVAL n MONTH is a TIMESTAMP in DuckDB: date + n needs a DATE.
		e.q = "CAST(" + e.q + " AS DATE)"
	}
	return e
}

// small non-negative integer argument (repeat counts, shifts, digits).
func smallInt(g *gen, al string, d int) ex {
	if g.p(8) {
		return nullOf(tInt)
	}
	return mk(tInt, "(ABS(%s) %% 4)", g.value(tInt, al, 0))
}

func strArg(g *gen, al string, d int) []ex { return []ex{g.arg(tStr, al, d)} }

// scalarFns are the scalar calls generated into expressions (value). A
// function may have several entries (argument types, arities).
var scalarFns []fnCase

func init() {
	scalarFns = []fnCase{
		// math
		{name: "ceil", ret: tDec, d: "CEIL(%s)", q: "ceil(%s)", args: tys(tDec)},
		{name: "ceiling", ret: tDbl, d: "CEILING(%s)", q: "ceiling(%s)", args: tys(tDbl)},
		{name: "floor", ret: tDec, d: "FLOOR(%s)", q: "floor(%s)", args: tys(tDec)},
		{name: "floor", ret: tDbl, d: "FLOOR(%s)", q: "floor(%s)", args: tys(tDbl)},
		// m's ties (x.x5) round away from zero in both; f (k/8) has no tie at 3 digits.
		{name: "round", ret: tDec, d: "ROUND(%s, 1)", q: "round(%s, 1)", args: tys(tDec)},
		{name: "round", ret: tDec, d: "ROUND(%s)", q: "round(%s)", args: tys(tDec)},
		{name: "round", ret: tDbl, d: "ROUND(%s, 3)", q: "round(%s, 3)", args: tys(tDbl)},
		{name: "truncate", ret: tDec, d: "TRUNCATE(%s, 1)", q: "trunc(%s, 1)", args: tys(tDec)},
		{name: "sign", ret: tInt, d: "SIGN(%s)", q: "sign(%s)", args: func(g *gen, al string, d int) []ex {
			return []ex{g.arg(pick(g, []typ{tInt, tDec, tDbl}), al, d)}
		}},
		{name: "sqrt", ret: tDbl, d: "SQRT(ABS(%s))", q: "sqrt(abs(%s))", args: tys(tDbl), inexact: true},
		{name: "power", ret: tDbl, d: "POWER(%s, 2)", q: "power(%s, 2)", args: tys(tDbl), inexact: true},
		{name: "pow", ret: tDbl, d: "POW(%s, 3)", q: "pow(%s, 3)", args: tys(tInt), inexact: true},
		{name: "exp", ret: tDbl, d: "EXP(%s %% 5)", q: "exp(%s %% 5)", args: tys(tInt), inexact: true},
		{name: "ln", ret: tDbl, d: "LN(ABS(%s) + 1)", q: "ln(abs(%s) + 1)", args: tys(tDbl), inexact: true},
		// MySQL's one-argument LOG is the natural logarithm, DuckDB's log10.
		{name: "log", ret: tDbl, d: "LOG(ABS(%s) + 1)", q: "ln(abs(%s) + 1)", args: tys(tDbl), inexact: true},
		{name: "log", ret: tDbl, d: "LOG(2, ABS(%s) + 1)", q: "log(2, abs(%s) + 1)", args: tys(tDbl), inexact: true},
		{name: "log2", ret: tDbl, d: "LOG2(ABS(%s) + 1)", q: "log2(abs(%s) + 1)", args: tys(tInt), inexact: true},
		{name: "log10", ret: tDbl, d: "LOG10(ABS(%s) + 1)", q: "log10(abs(%s) + 1)", args: tys(tDbl), inexact: true},
		{name: "pi", ret: tDbl, d: "(PI() * %s)", q: "(pi() * %s)", args: tys(tInt), inexact: true},
		{name: "e", ret: tDbl, d: "(E() + %s)", q: "(exp(1) + %s)", args: tys(tInt), inexact: true},
		{name: "sin", ret: tDbl, d: "SIN(%s)", q: "sin(%s)", args: tys(tDbl), inexact: true},
		{name: "cos", ret: tDbl, d: "COS(%s)", q: "cos(%s)", args: tys(tDbl), inexact: true},
		{name: "tan", ret: tDbl, d: "TAN(%s)", q: "tan(%s)", args: tys(tInt), inexact: true},
		{name: "asin", ret: tDbl, d: "ASIN((%s %% 10) / 10)", q: "asin((%s %% 10) / 10)", args: tys(tInt), inexact: true},
		{name: "acos", ret: tDbl, d: "ACOS((%s %% 10) / 10)", q: "acos((%s %% 10) / 10)", args: tys(tInt), inexact: true},
		{name: "atan", ret: tDbl, d: "ATAN(%s)", q: "atan(%s)", args: tys(tDbl), inexact: true},
		{name: "atan2", ret: tDbl, d: "ATAN2(%s, %s)", q: "atan2(%s, %s)", args: tys(tDbl, tInt), inexact: true},
		// f is a multiple of 1/8: f + 1/16 is never 0.
		{name: "cot", ret: tDbl, d: "COT(%s + 0.0625)", q: "cot(%s + 0.0625)", args: tys(tDbl), inexact: true},
		{name: "degrees", ret: tDbl, d: "DEGREES(%s)", q: "degrees(%s)", args: tys(tDbl), inexact: true},
		{name: "radians", ret: tDbl, d: "RADIANS(%s)", q: "radians(%s)", args: tys(tDbl), inexact: true},
		{name: "cbrt", ret: tDbl, d: "CBRT(%s)", q: "cbrt(%s)", args: tys(tDbl), inexact: true},
		{name: "pmod", ret: tInt, d: "PMOD(%s, 3)", q: "(((%s %% 3) + 3) %% 3)", args: tys(tInt)},
		{name: "fmod", ret: tDbl, d: "FMOD(%s, 3)", q: "(%s %% 3)", args: tys(tDbl)},
		{name: "mod", ret: tInt, d: "MOD(%s, 5)", q: "(%s %% 5)", args: tys(tInt)},
		{name: "positive", ret: tDec, d: "POSITIVE(%s)", q: "(+%s)", args: tys(tDec)},
		{name: "negative", ret: tInt, d: "NEGATIVE(%s)", q: "(-%s)", args: tys(tInt)},
		{name: "bin", ret: tStr, d: "BIN(%s)", q: "bin(CAST(%s AS BIGINT))", args: tys(tInt)},
		{name: "hex", ret: tStr, d: "HEX(%s)", q: "hex(CAST(%s AS BIGINT))", args: tys(tInt)},
		{name: "hex", ret: tStr, d: "HEX(%s)", q: "upper(hex(%s))", args: strArg},
		{name: "unhex", ret: tStr, d: "UNHEX(HEX(%s))", q: "CAST(unhex(hex(%s)) AS VARCHAR)", args: strArg},
		// operators
		{name: "int_divide", ret: tInt, d: "(%s DIV 3)", q: "(%s // 3)", args: tys(tInt), probe: " DIV "},
		{name: "bitand", ret: tInt, d: "(%s & 6)", q: "(%s & 6)", args: tys(tInt), probe: " & "},
		{name: "bitor", ret: tInt, d: "(%s | 9)", q: "(%s | 9)", args: tys(tInt), probe: " | "},
		{name: "bitxor", ret: tInt, d: "(%s ^ 5)", q: "xor(%s, 5)", args: tys(tInt), probe: " ^ "},
		{name: "bitnot", ret: tBig, d: "(~%s)", q: "(~CAST(%s AS BIGINT))", args: tys(tInt), probe: "(~"},
		// DuckDB refuses to shift a negative number left.
		{name: "shift_left", ret: tBig, d: "(ABS(%s) << 2)", q: "(CAST(abs(%s) AS BIGINT) << 2)", args: tys(tInt), probe: " << "},
		// MySQL shifts a negative number right as unsigned, DuckDB keeps the sign.
		{name: "shift_right", ret: tBig, d: "(ABS(%s) >> 1)", q: "(CAST(abs(%s) AS BIGINT) >> 1)", args: tys(tInt), probe: " >> "},
		// conditionals
		{name: "greatest", ret: tInt, d: "GREATEST(%s, %s, 3)", q: "CASE WHEN %[1]s IS NULL OR %[2]s IS NULL THEN NULL ELSE greatest(%[1]s, %[2]s, 3) END", args: tys(tInt, tInt)},
		{name: "least", ret: tStr, d: "LEAST(%s, %s)", q: "CASE WHEN %[1]s IS NULL OR %[2]s IS NULL THEN NULL ELSE least(%[1]s, %[2]s) END", args: tys(tStr, tStr)},
		{name: "least", ret: tDate, d: "LEAST(%s, %s)", q: "CASE WHEN %[1]s IS NULL OR %[2]s IS NULL THEN NULL ELSE least(%[1]s, %[2]s) END", args: tys(tDate, tDate)},
		{name: "ifnull", ret: tInt, d: "IFNULL(%s, %s)", q: "ifnull(%s, %s)", args: tys(tInt, tInt)},
		{name: "nvl", ret: tStr, d: "NVL(%s, %s)", q: "ifnull(%s, %s)", args: tys(tStr, tStr)},
		{name: "if", ret: tInt, d: "IF(%s, %s, %s)", q: "if(%s, %s, %s)", args: tys(tBool, tInt, tInt)},
		{name: "nullif", ret: tStr, d: "NULLIF(%s, %s)", q: "nullif(%s, %s)", args: tys(tStr, tStr)},
		// strings
		{name: "concat_ws", ret: tStr, d: "CONCAT_WS('-', %s, %s)", q: "concat_ws('-', %s, %s)", args: tys(tStr, tStr)},
		{name: "char_length", ret: tInt, d: "CHAR_LENGTH(%s)", q: "length(%s)", args: strArg},
		{name: "character_length", ret: tInt, d: "CHARACTER_LENGTH(%s)", q: "length(%s)", args: strArg},
		{name: "lcase", ret: tStr, d: "LCASE(%s)", q: "lower(%s)", args: strArg},
		{name: "ucase", ret: tStr, d: "UCASE(%s)", q: "upper(%s)", args: strArg},
		{name: "substr", ret: tStr, d: "SUBSTR(%s, 2)", q: "substr(%s, 2)", args: strArg},
		{name: "mid", ret: tStr, d: "MID(%s, 1, 2)", q: "substring(%s, 1, 2)", args: strArg},
		{name: "ltrim", ret: tStr, d: "LTRIM(CONCAT('  ', %s))", q: "ltrim('  ' || %s)", args: strArg},
		{name: "rtrim", ret: tStr, d: "CONCAT(RTRIM(CONCAT(%s, '  ')), '|')", q: "(rtrim(%s || '  ') || '|')", args: strArg},
		// one character: Doris removes the string repeatedly, DuckDB any of its characters.
		{name: "trim", ret: tStr, d: "TRIM(BOTH 'a' FROM %s)", q: "trim(%s, 'a')", args: strArg},
		{name: "instr", ret: tInt, d: "INSTR(%s, 'b')", q: "instr(%s, 'b')", args: strArg},
		{name: "locate", ret: tInt, d: "LOCATE('a', %s)", q: "instr(%s, 'a')", args: strArg},
		{name: "rpad", ret: tStr, d: "RPAD(%s, 4, 'xy')", q: "rpad(%s, 4, 'xy')", args: strArg},
		{name: "repeat", ret: tStr, d: "REPEAT(%s, %s)", q: "repeat(%s, %s)", args: func(g *gen, al string, d int) []ex {
			return []ex{g.arg(tStr, al, d), smallInt(g, al, d)}
		}},
		// trailing blanks are trimmed by the comparison: count them.
		{name: "space", ret: tInt, d: "LENGTH(SPACE(%s))", q: "length(repeat(' ', %s))", args: func(g *gen, al string, d int) []ex {
			return []ex{smallInt(g, al, d)}
		}},
		{name: "ascii", ret: tInt, d: "ASCII(%s)", q: "ascii(%s)", args: strArg},
		{name: "strcmp", ret: tInt, d: "STRCMP(%s, %s)", q: "CASE WHEN %[1]s < %[2]s THEN -1 WHEN %[1]s > %[2]s THEN 1 WHEN %[1]s = %[2]s THEN 0 END", args: tys(tStr, tStr)},
		{name: "md5", ret: tStr, d: "MD5(%s)", q: "md5(%s)", args: strArg},
		{name: "sha1", ret: tStr, d: "SHA1(%s)", q: "sha1(%s)", args: strArg},
		{name: "sha", ret: tStr, d: "SHA(%s)", q: "sha1(%s)", args: strArg},
		{name: "sha2", ret: tStr, d: "SHA2(%s, 256)", q: "sha256(%s)", args: strArg},
		{name: "to_base64", ret: tStr, d: "TO_BASE64(%s)", q: "to_base64(CAST(%s AS BLOB))", args: strArg},
		{name: "from_base64", ret: tStr, d: "FROM_BASE64(TO_BASE64(%s))", q: "CAST(from_base64(to_base64(CAST(%s AS BLOB))) AS VARCHAR)", args: strArg},
		{name: "regexp", ret: tBool, d: "(%s REGEXP '^(ab|x)')", q: "regexp_matches(%s, '^(ab|x)')", args: strArg, probe: " REGEXP "},
		{name: "regexp_extract", ret: tStr, d: "REGEXP_EXTRACT(%s, '([a-c]+)(o*)', 1)", q: "regexp_extract(%s, '([a-c]+)(o*)', 1)", args: strArg},
		{name: "regexp_replace", ret: tStr, d: "REGEXP_REPLACE(%s, '[ab]', 'Q')", q: "regexp_replace(%s, '[ab]', 'Q', 'g')", args: strArg},
		{name: "regexp_replace_one", ret: tStr, d: "REGEXP_REPLACE_ONE(%s, '[ab]', 'Q')", q: "regexp_replace(%s, '[ab]', 'Q')", args: strArg},
		{name: "starts_with", ret: tBool, d: "STARTS_WITH(%s, 'a')", q: "starts_with(%s, 'a')", args: strArg},
		{name: "ends_with", ret: tBool, d: "ENDS_WITH(%s, 'b')", q: "ends_with(%s, 'b')", args: strArg},
		{name: "null_or_empty", ret: tBool, d: "NULL_OR_EMPTY(%s)", q: "(%[1]s IS NULL OR %[1]s = '')", args: strArg},
		{name: "not_null_or_empty", ret: tBool, d: "NOT_NULL_OR_EMPTY(%s)", q: "(%[1]s IS NOT NULL AND %[1]s <> '')", args: strArg},
		{name: "elt", ret: tStr, d: "ELT(%s, 'one', 'two', %s)", q: "CASE %s WHEN 1 THEN 'one' WHEN 2 THEN 'two' WHEN 3 THEN %s END", args: func(g *gen, al string, d int) []ex {
			return []ex{smallInt(g, al, d), g.arg(tStr, al, d)}
		}},
		{name: "field", ret: tInt, d: "FIELD(%s, 'a', 'ab', 'dog')", q: "CASE WHEN %[1]s = 'a' THEN 1 WHEN %[1]s = 'ab' THEN 2 WHEN %[1]s = 'dog' THEN 3 ELSE 0 END", args: strArg},
		{name: "find_in_set", ret: tInt, d: "FIND_IN_SET(%s, 'a,ab,x,zz')", q: "CASE WHEN %[1]s IS NOT NULL THEN coalesce(list_position(['a', 'ab', 'x', 'zz'], %[1]s), 0) END", args: strArg},
		{name: "char", ret: tStr, d: "CHAR(65 + %s)", q: "chr(65 + %s)", args: func(g *gen, al string, d int) []ex {
			return []ex{smallInt(g, al, d)}
		}},
		// Doris's split_part is NULL past the last part, DuckDB's ''.
		{name: "split_part", ret: tStr, d: "SPLIT_PART(%s, 'a', 2)", q: "CASE WHEN len(string_split(%[1]s, 'a')) >= 2 THEN split_part(%[1]s, 'a', 2) END", args: strArg},
		// JSON built from columns, read back by path.
		{name: "json_object", ret: tInt, d: "GET_JSON_INT(JSON_OBJECT('x', %s), '$.x')", q: "CAST(json_extract(json_object('x', %s), '$.x') AS INTEGER)", args: tys(tInt), probe: "JSON_OBJECT("},
		{name: "get_json_int", ret: tInt, d: "GET_JSON_INT(CONCAT('{\"a\": ', %s, '}'), '$.a')", q: "CAST(json_extract('{\"a\": ' || %s || '}', '$.a') AS INTEGER)", args: tys(tInt)},
		{name: "get_json_bigint", ret: tBig, d: "GET_JSON_BIGINT(CONCAT('{\"a\": ', %s, '}'), '$.a')", q: "CAST(json_extract('{\"a\": ' || %s || '}', '$.a') AS BIGINT)", args: tys(tBig)},
		{name: "get_json_double", ret: tDbl, d: "GET_JSON_DOUBLE(CONCAT('{\"a\": ', %s, '}'), '$.a')", q: "CAST(json_extract('{\"a\": ' || %s || '}', '$.a') AS DOUBLE)", args: tys(tDbl)},
		{name: "get_json_string", ret: tStr, d: "GET_JSON_STRING(JSON_OBJECT('s', %s), '$.s')", q: "json_extract_string(json_object('s', %s), '$.s')", args: strArg},
		{name: "json_extract_string", ret: tStr, d: "JSON_EXTRACT_STRING(JSON_ARRAY(%s, 'z'), '$[1]')", q: "json_extract_string(json_array(%s, 'z'), '$[1]')", args: strArg},
		{name: "json_extract", ret: tStr, d: "JSON_EXTRACT(JSON_OBJECT('s', %s), '$.s')", q: "CAST(json_extract(json_object('s', %s), '$.s') AS VARCHAR)", args: strArg},
		{name: "json_array", ret: tInt, d: "JSON_LENGTH(JSON_ARRAY(%s, %s))", q: "CAST(json_array_length(json_array(%s, %s)) AS BIGINT)", args: tys(tInt, tStr)},
		{name: "json_length", ret: tInt, d: "JSON_LENGTH(CONCAT('[', %s, ', 1]'))", q: "CAST(json_array_length('[' || %s || ', 1]') AS BIGINT)", args: tys(tInt)},
		{name: "json_quote", ret: tStr, d: "JSON_QUOTE(%s)", q: "CAST(to_json(%s) AS VARCHAR)", args: strArg},
		{name: "json_unquote", ret: tStr, d: "JSON_UNQUOTE(JSON_QUOTE(%s))", q: "json_extract_string(to_json(%s), '$')", args: strArg},
		{name: "json_valid", ret: tInt, d: "JSON_VALID(%s)", q: "CAST(json_valid(%s) AS INTEGER)", args: strArg},
		{name: "json_contains", ret: tBool, d: "JSON_CONTAINS('[1, 2, 7, 12]', CAST(%s AS VARCHAR))", q: "json_contains('[1, 2, 7, 12]', CAST(%s AS VARCHAR))", args: tys(tInt)},
		{name: "json_exists_path", ret: tBool, d: "JSON_EXISTS_PATH(JSON_OBJECT(COALESCE(%s, 'x'), 1), '$.ab')", q: "json_exists(json_object(coalesce(%s, 'x'), 1), '$.ab')", args: strArg},
		// dates
		{name: "dayofmonth", ret: tInt, d: "DAYOFMONTH(%s)", q: "day(%s)", args: tys(tDate)},
		{name: "dayofweek", ret: tInt, d: "DAYOFWEEK(%s)", q: "(dayofweek(%s) + 1)", args: tys(tDate)},
		{name: "dayofyear", ret: tInt, d: "DAYOFYEAR(%s)", q: "dayofyear(%s)", args: tys(tDate)},
		{name: "weekday", ret: tInt, d: "WEEKDAY(%s)", q: "(isodow(%s) - 1)", args: tys(tDate)},
		{name: "hour", ret: tInt, d: "HOUR(%s)", q: "hour(CAST(%s AS TIMESTAMP))", args: tys(tDate)},
		{name: "minute", ret: tInt, d: "MINUTE(%s)", q: "minute(CAST(%s AS TIMESTAMP))", args: tys(tDate)},
		{name: "second", ret: tInt, d: "SECOND(%s)", q: "second(CAST(%s AS TIMESTAMP))", args: tys(tDate)},
		{name: "microsecond", ret: tInt, d: "MICROSECOND(%s)", q: "(microsecond(CAST(%s AS TIMESTAMP)) %% 1000000)", args: tys(tDate)},
		{name: "date", ret: tDate, d: "DATE(%s)", q: "CAST(%s AS DATE)", args: tys(tDate)},
		{name: "to_date", ret: tDate, d: "TO_DATE(%s)", q: "CAST(%s AS DATE)", args: tys(tDate)},
		{name: "to_days", ret: tInt, d: "TO_DAYS(%s)", q: "((%s - DATE '1970-01-01') + 719528)", args: tys(tDate)},
		{name: "from_days", ret: tDate, d: "FROM_DAYS(738886 + %s)", q: "(DATE '1970-01-01' + CAST(738886 + %s - 719528 AS INTEGER))", args: tys(tInt)},
		{name: "date_add", ret: tDate, d: "DATE_ADD(%s, INTERVAL 3 DAY)", q: "(%s + INTERVAL 3 DAY)", args: tys(tDate)},
		{name: "date_add", ret: tDate, d: "DATE_ADD(%s, %s)", q: "(%s + CAST(%s AS INTEGER))", args: tys(tDate, tInt)},
		{name: "date_sub", ret: tDate, d: "DATE_SUB(%s, INTERVAL 2 MONTH)", q: "(%s - INTERVAL 2 MONTH)", args: tys(tDate)},
		{name: "adddate", ret: tDate, d: "ADDDATE(%s, 10)", q: "(%s + 10)", args: tys(tDate)},
		{name: "subdate", ret: tDate, d: "SUBDATE(%s, 31)", q: "(%s - 31)", args: tys(tDate)},
		{name: "date_format", ret: tStr, d: "DATE_FORMAT(%s, '%%Y/%%m/%%d %%j')", q: "strftime(%s, '%%Y/%%m/%%d %%j')", args: tys(tDate)},
		{name: "date_format", ret: tStr, d: "DATE_FORMAT(%s, '%%b %%e, %%W %%y')", q: "strftime(%s, '%%b %%-d, %%A %%y')", args: tys(tDate)},
		{name: "str_to_date", ret: tDate, d: "STR_TO_DATE(%s, '%%Y-%%m-%%d')", q: "CAST(try_strptime(%s, '%%Y-%%m-%%d') AS DATE)", args: func(g *gen, al string, d int) []ex {
			if g.p(30) {
				return []ex{g.arg(tStr, al, d)}
			}
			return []ex{mk(tStr, "CAST(%s AS VARCHAR)", g.arg(tDate, al, d))}
		}},
		{name: "unix_timestamp", ret: tBig, d: "UNIX_TIMESTAMP(%s)", q: "CAST(epoch(CAST(%s AS TIMESTAMP)) AS BIGINT)", args: tys(tDate)},
		{name: "from_unixtime", ret: tStr, d: "FROM_UNIXTIME(1672531200 + %s * 3607)", q: "CAST(make_timestamp(CAST(1672531200 + %s * 3607 AS BIGINT) * 1000000) AS VARCHAR)", args: tys(tInt)},
		{name: "date_trunc", ret: tDate, d: "DATE_TRUNC(%s, 'month')", q: "CAST(date_trunc('month', %s) AS DATE)", args: tys(tDate)},
		{name: "date_trunc", ret: tDate, d: "DATE_TRUNC(%s, 'week')", q: "CAST(date_trunc('week', %s) AS DATE)", args: tys(tDate)},
		{name: "date_trunc", ret: tDate, d: "DATE_TRUNC('year', %s)", q: "CAST(date_trunc('year', %s) AS DATE)", args: tys(tDate)},
		{name: "to_monday", ret: tDate, d: "TO_MONDAY(%s)", q: "CAST(date_trunc('week', %s) AS DATE)", args: tys(tDate)},
		// DuckDB's date_sub counts whole days between two dates, as MySQL's
		// TIMESTAMPDIFF; whole months differ at month ends (mysqlMonths).
		{name: "timestampdiff", ret: tInt, d: "TIMESTAMPDIFF(MONTH, %s, %s)", q: mysqlMonths("%[1]s", "%[2]s"), args: tys(tDate, tDate)},
		{name: "timestampdiff", ret: tInt, d: "TIMESTAMPDIFF(DAY, %s, %s)", q: "date_sub('day', %s, %s)", args: tys(tDate, tDate)},
		{name: "timestampadd", ret: tDate, d: "TIMESTAMPADD(MONTH, %s, %s)", q: "CAST(%[2]s + to_months(CAST(%[1]s AS INTEGER)) AS DATE)", args: tys(tInt, tDate)},
		{name: "years_add", ret: tDate, d: "YEARS_ADD(%s, 1)", q: "CAST(%s + INTERVAL 1 YEAR AS DATE)", args: tys(tDate)},
		{name: "years_sub", ret: tDate, d: "YEARS_SUB(%s, 1)", q: "CAST(%s - INTERVAL 1 YEAR AS DATE)", args: tys(tDate)},
		{name: "months_add", ret: tDate, d: "MONTHS_ADD(%s, %s)", q: "CAST(%s + to_months(CAST(%s AS INTEGER)) AS DATE)", args: tys(tDate, tInt)},
		{name: "months_sub", ret: tDate, d: "MONTHS_SUB(%s, 5)", q: "CAST(%s - INTERVAL 5 MONTH AS DATE)", args: tys(tDate)},
		{name: "weeks_add", ret: tDate, d: "WEEKS_ADD(%s, 2)", q: "CAST(%s + INTERVAL 14 DAY AS DATE)", args: tys(tDate)},
		{name: "weeks_sub", ret: tDate, d: "WEEKS_SUB(%s, 3)", q: "CAST(%s - INTERVAL 21 DAY AS DATE)", args: tys(tDate)},
		{name: "days_add", ret: tDate, d: "DAYS_ADD(%s, %s)", q: "(%s + CAST(%s AS INTEGER))", args: tys(tDate, tInt)},
		{name: "days_sub", ret: tDate, d: "DAYS_SUB(%s, 7)", q: "(%s - 7)", args: tys(tDate)},
		{name: "hours_add", ret: tStr, d: "CAST(HOURS_ADD(%s, 5) AS VARCHAR)", q: "CAST(CAST(%s AS TIMESTAMP) + INTERVAL 5 HOUR AS VARCHAR)", args: tys(tDate)},
		{name: "hours_sub", ret: tStr, d: "CAST(HOURS_SUB(%s, 30) AS VARCHAR)", q: "CAST(CAST(%s AS TIMESTAMP) - INTERVAL 30 HOUR AS VARCHAR)", args: tys(tDate)},
		{name: "minutes_add", ret: tStr, d: "CAST(MINUTES_ADD(%s, 90) AS VARCHAR)", q: "CAST(CAST(%s AS TIMESTAMP) + INTERVAL 90 MINUTE AS VARCHAR)", args: tys(tDate)},
		{name: "minutes_sub", ret: tStr, d: "CAST(MINUTES_SUB(%s, 1) AS VARCHAR)", q: "CAST(CAST(%s AS TIMESTAMP) - INTERVAL 1 MINUTE AS VARCHAR)", args: tys(tDate)},
		{name: "seconds_add", ret: tStr, d: "CAST(SECONDS_ADD(%s, 61) AS VARCHAR)", q: "CAST(CAST(%s AS TIMESTAMP) + INTERVAL 61 SECOND AS VARCHAR)", args: tys(tDate)},
		{name: "seconds_sub", ret: tStr, d: "CAST(SECONDS_SUB(%s, 1) AS VARCHAR)", q: "CAST(CAST(%s AS TIMESTAMP) - INTERVAL 1 SECOND AS VARCHAR)", args: tys(tDate)},
		{name: "years_diff", ret: tInt, d: "YEARS_DIFF(%s, %s)", q: "CAST(trunc(" + mysqlMonths("%[2]s", "%[1]s") + " / 12.0) AS BIGINT)", args: tys(tDate, tDate)},
		{name: "months_diff", ret: tInt, d: "MONTHS_DIFF(%s, %s)", q: mysqlMonths("%[2]s", "%[1]s"), args: tys(tDate, tDate)},
		{name: "weeks_diff", ret: tInt, d: "WEEKS_DIFF(%s, %s)", q: "date_sub('week', %[2]s, %[1]s)", args: tys(tDate, tDate)},
		{name: "days_diff", ret: tInt, d: "DAYS_DIFF(%s, %s)", q: "date_sub('day', %[2]s, %[1]s)", args: tys(tDate, tDate)},
		{name: "hours_diff", ret: tInt, d: "HOURS_DIFF(%s, %s)", q: "date_sub('hour', CAST(%[2]s AS TIMESTAMP), CAST(%[1]s AS TIMESTAMP))", args: tys(tDate, tDate)},
		{name: "minutes_diff", ret: tBig, d: "MINUTES_DIFF(%s, %s)", q: "date_sub('minute', CAST(%[2]s AS TIMESTAMP), CAST(%[1]s AS TIMESTAMP))", args: tys(tDate, tDate)},
		{name: "seconds_diff", ret: tBig, d: "SECONDS_DIFF(%s, %s)", q: "date_sub('second', CAST(%[2]s AS TIMESTAMP), CAST(%[1]s AS TIMESTAMP))", args: tys(tDate, tDate)},
		// MySQL's mode 3 is ISO 8601, DuckDB's week.
		{name: "week", ret: tInt, d: "WEEK(%s, 3)", q: "week(%s)", args: tys(tDate)},
		{name: "weekofyear", ret: tInt, d: "WEEKOFYEAR(%s)", q: "weekofyear(%s)", args: tys(tDate)},
		{name: "yearweek", ret: tInt, d: "YEARWEEK(%s, 3)", q: "yearweek(%s)", args: tys(tDate)},
		{name: "next_day", ret: tDate, d: "NEXT_DAY(%s, 'MONDAY')", q: "(%[1]s + CAST(((1 - isodow(%[1]s) + 6) %% 7) + 1 AS INTEGER))", args: tys(tDate)},
		{name: "next_day", ret: tDate, d: "NEXT_DAY(%s, 'FRIDAY')", q: "(%[1]s + CAST(((5 - isodow(%[1]s) + 6) %% 7) + 1 AS INTEGER))", args: tys(tDate)},
		{name: "dayname", ret: tStr, d: "DAYNAME(%s)", q: "dayname(%s)", args: tys(tDate)},
		{name: "monthname", ret: tStr, d: "MONTHNAME(%s)", q: "monthname(%s)", args: tys(tDate)},
		{name: "makedate", ret: tDate, d: "MAKEDATE(2023, 1 + ABS(%s))", q: "(make_date(2023, 1, 1) + CAST(abs(%s) AS INTEGER))", args: tys(tInt)},
		{name: "current_date", ret: tBool, d: "(CURRENT_DATE() > %s)", q: "(current_date > %s)", args: tys(tDate)},
		{name: "curdate", ret: tBool, d: "(CURDATE() > %s)", q: "(current_date > %s)", args: tys(tDate)},
	}
}

// predFns are boolean calls (pred draws them).
var predFns []fnCase

func init() {
	predFns = []fnCase{
		{name: "xor", ret: tBool, d: "((%s) XOR (%s))", q: "((%s) <> (%s))", args: tys(tBool, tBool), probe: " XOR "},
		{name: "is_true", ret: tBool, d: "((%s) IS TRUE)", q: "((%s) IS TRUE)", args: tys(tBool), probe: "IS TRUE"},
		{name: "is_false", ret: tBool, d: "((%s) IS FALSE)", q: "((%s) IS FALSE)", args: tys(tBool), probe: "IS FALSE"},
	}
}

// aggFns are the aggregates aggregate draws besides COUNT/SUM/AVG/MIN/MAX.
// The statistics are doubles: compared with the tolerance, never ordered.
// ndv and percentile_approx are approximate: the query checks them
// against the exact answer and outputs the verdict (DuckDB: TRUE).
var aggFns []fnCase

func init() {
	aggFns = []fnCase{
		{name: "stddev", ret: tDbl, d: "STDDEV(%s)", q: "stddev_pop(%s)", args: numArg, inexact: true},
		{name: "stddev_pop", ret: tDbl, d: "STDDEV_POP(%s)", q: "stddev_pop(%s)", args: numArg, inexact: true},
		{name: "std", ret: tDbl, d: "STD(%s)", q: "stddev_pop(%s)", args: numArg, inexact: true},
		{name: "stddev_samp", ret: tDbl, d: "STDDEV_SAMP(%s)", q: "stddev_samp(%s)", args: numArg, inexact: true},
		{name: "variance", ret: tDbl, d: "VARIANCE(%s)", q: "var_pop(%s)", args: numArg, inexact: true},
		{name: "var_pop", ret: tDbl, d: "VAR_POP(%s)", q: "var_pop(%s)", args: numArg, inexact: true},
		{name: "variance_pop", ret: tDbl, d: "VARIANCE_POP(%s)", q: "var_pop(%s)", args: numArg, inexact: true},
		{name: "var_samp", ret: tDbl, d: "VAR_SAMP(%s)", q: "var_samp(%s)", args: numArg, inexact: true},
		{name: "variance_samp", ret: tDbl, d: "VARIANCE_SAMP(%s)", q: "var_samp(%s)", args: numArg, inexact: true},
		// Doris's corr is 0 where a variance is 0 (one row, a constant), DuckDB's NaN.
		{name: "corr", ret: tDbl, d: "CORR(%s, %s)", q: "CASE WHEN isnan(corr(%[1]s, %[2]s)) THEN 0 ELSE corr(%[1]s, %[2]s) END", args: numArgs2, inexact: true},
		{name: "covar", ret: tDbl, d: "COVAR(%s, %s)", q: "covar_pop(%s, %s)", args: numArgs2, inexact: true},
		{name: "covar_pop", ret: tDbl, d: "COVAR_POP(%s, %s)", q: "covar_pop(%s, %s)", args: numArgs2, inexact: true},
		{name: "covar_samp", ret: tDbl, d: "COVAR_SAMP(%s, %s)", q: "covar_samp(%s, %s)", args: numArgs2, inexact: true},
		{name: "percentile", ret: tDbl, d: "PERCENTILE(%s, 0.25)", q: "quantile_cont(%s, 0.25)", args: numArg, inexact: true},
		{name: "percentile", ret: tDbl, d: "PERCENTILE(%s, 0.9)", q: "quantile_cont(%s, 0.9)", args: numArg, inexact: true},
		{name: "median", ret: tDbl, d: "MEDIAN(%s)", q: "quantile_cont(%s, 0.5)", args: numArg, inexact: true},
		{name: "percentile_approx", ret: tBool, d: "(PERCENTILE_APPROX(%[1]s, 0.5) BETWEEN MIN(%[1]s) AND MAX(%[1]s) OR COUNT(%[1]s) = 0)", q: "(COUNT(%[1]s) >= 0)", args: numArg},
		{name: "ndv", ret: tBool, d: "(ABS(NDV(%[1]s) - COUNT(DISTINCT %[1]s)) <= 2 + COUNT(DISTINCT %[1]s) / 20)", q: "(COUNT(%[1]s) >= 0)", args: anyArg},
		{name: "approx_count_distinct", ret: tBool, d: "(ABS(APPROX_COUNT_DISTINCT(%[1]s) - COUNT(DISTINCT %[1]s)) <= 2 + COUNT(DISTINCT %[1]s) / 20)", q: "(COUNT(%[1]s) >= 0)", args: anyArg},
		{name: "group_bit_and", ret: tInt, d: "GROUP_BIT_AND(%s)", q: "bit_and(%s)", args: tys(tInt)},
		{name: "group_bit_or", ret: tInt, d: "GROUP_BIT_OR(%s)", q: "bit_or(%s)", args: tys(tInt)},
		{name: "group_bit_xor", ret: tBig, d: "GROUP_BIT_XOR(%s)", q: "bit_xor(%s)", args: tys(tBig)},
		// id is unique: the row with the greatest id is one row.
		{name: "max_by", ret: tStr, d: "MAX_BY(%s, id)", q: "arg_max_null(%s, id)", args: strArg, probe: "MAX_BY("},
		{name: "min_by", ret: tInt, d: "MIN_BY(%s, id)", q: "arg_min_null(%s, id)", args: tys(tInt), probe: "MIN_BY("},
		// the length does not depend on the order of the parts.
		{name: "group_concat", ret: tInt, d: "LENGTH(GROUP_CONCAT(%s))", q: "length(string_agg(%s, ','))", args: strArg, probe: "GROUP_CONCAT("},
	}
}

func numArg(g *gen, al string, d int) []ex {
	return []ex{g.value(pick(g, []typ{tInt, tBig, tDec, tDbl}), al, min(d, 1))}
}

func numArgs2(g *gen, al string, d int) []ex { return append(numArg(g, al, d), numArg(g, al, d)...) }

func anyArg(g *gen, al string, d int) []ex {
	return []ex{g.value(pick(g, []typ{tInt, tStr, tDate, tDec, tDbl}), al, min(d, 1))}
}

// call renders one case.
func (g *gen) call(c fnCase, al string, d int) ex {
	args := c.args(g, al, d)
	e := mk2(c.ret, c.d, c.q, args...)
	if c.inexact {
		e.exact = false
	}
	return e
}

// scalarCall draws a function call of type t, if the table has one.
func (g *gen) scalarCall(t typ, al string, d int) (ex, bool) {
	var cs []fnCase
	for _, c := range scalarFns {
		if c.ret == t {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return ex{}, false
	}
	return g.call(pick(g, cs), al, d), true
}

// aggCall draws one of aggFns over al; TLP cannot re-aggregate them.
func (g *gen) aggCall(al string) ex {
	c := pick(g, aggFns)
	// max_by/min_by read "id": qualify it.
	c.d = strings.ReplaceAll(c.d, ", id)", ", "+al+"id)")
	c.q = strings.ReplaceAll(c.q, ", id)", ", "+al+"id)")
	e := g.call(c, al, 1)
	e.agg = "-"
	return e
}

// fnProbe is the text a generated call of c contains.
func (c fnCase) fnProbe() string {
	if c.probe != "" {
		return c.probe
	}
	return strings.ToUpper(c.name) + "("
}

// syntaxFns are registry names the generator calls through SQL syntax
// (operators, CASE-like keywords) or through the base generator of
// expr.go and query.go, with the text that shows the call.
var syntaxFns = map[string]string{
	"add": " + ", "subtract": " - ", "multiply": " * ", "divide": " / ", "mod": " % ", "negate": "(-",
	"eq": " = ", "ne": " <> ", "lt": " < ", "le": " <= ", "gt": " > ", "ge": " >= ", "null_safe_eq": " <=> ",
	"in": " IN (", "not_in": " NOT IN (", "between": " BETWEEN ", "and": " AND ", "or": " OR ", "not": "NOT (",
	"is_null": " IS NULL", "is_not_null": " IS NOT NULL", "like": " LIKE ", "not_like": " NOT LIKE ",
	"abs": "ABS(", "coalesce": "COALESCE(", "nullif": "NULLIF(", "concat": "CONCAT(", "length": "LENGTH(",
	"lower": "LOWER(", "upper": "UPPER(", "substring": "SUBSTRING(", "left": "LEFT(", "right": "RIGHT(",
	"trim": "TRIM(", "replace": "REPLACE(", "lpad": "LPAD(", "reverse": "REVERSE(", "year": "YEAR(",
	"month": "MONTH(", "day": "DAY(", "quarter": "QUARTER(", "last_day": "LAST_DAY(", "datediff": "DATEDIFF(",
	"count": "COUNT(", "sum": "SUM(", "avg": "AVG(", "min": "MIN(", "max": "MAX(",
	"div": " DIV ", "%": " % ",
}

// leftOut are the dorisgo functions the generator does not call, each
// with the reason. TestFunctionTable fails on a registry name that is in
// neither this map nor the tables above.
// nestedReason leaves out the ARRAY, MAP and STRUCT functions.
const nestedReason = "ARRAY/MAP/STRUCT: the generator has no nested values; checked by server/testdata/functions/nested.test and the ported Doris array suite"

var leftOut = map[string]string{
	"now": "nondeterministic (the current time)", "current_timestamp": "nondeterministic", "localtime": "nondeterministic",
	"localtimestamp": "nondeterministic", "sysdate": "nondeterministic", "utc_timestamp": "nondeterministic",
	"current_time": "nondeterministic", "curtime": "nondeterministic", "rand": "nondeterministic", "random": "nondeterministic",
	"any_value": "nondeterministic: any row of the group", "any": "nondeterministic: any row of the group",
	"regexp_extract_all": "Doris renders the matches as text ['a','b']; DuckDB returns a LIST",
	"substring_index":    "no DuckDB counterpart",
	// Checked against Doris's own expected rows instead
	// (server/e2e_doris_regression_functions_test.go).
	"append_trailing_char_if_absent": "Doris-only; checked by the ported Doris suite test_string_function",
	"money_format":                   "Doris-only; checked by the ported Doris suite test_string_function",
	"bit_length":                     "checked by the ported Doris suite test_string_function",
	"strleft":                        "Doris's alias of left, which is generated",
	"strright":                       "Doris's alias of right, which is generated",
	"is_null_pred":                   "Doris's function name for IS NULL, which is generated",
	"is_not_null_pred":               "Doris's function name for IS NOT NULL, which is generated",
	"crc32":                          "no DuckDB counterpart",
	"parse_url":                      "no DuckDB counterpart (URL functions)",
	"protocol":                       "no DuckDB counterpart (URL functions)",
	"domain":                         "no DuckDB counterpart (URL functions)",
	"domain_without_www":             "no DuckDB counterpart (URL functions)",
	"extract_url_parameter":          "no DuckDB counterpart (URL functions)",
	"conv":                           "no DuckDB counterpart (base conversion)",
	"oct":                            "no DuckDB counterpart",
	"json_keys":                      "MySQL's JSON text rendering (spaces) differs from DuckDB's",
	"json_type":                      "type names differ (MySQL INTEGER/STRING, DuckDB BIGINT/VARCHAR)",
	"timediff":                       "a TIME text; DuckDB returns an INTERVAL",
	"convert_tz":                     "needs DuckDB's ICU time zones; zone semantics checked by the server's tests",
	"date_floor":                     "Doris's period origin (0001-01-01) differs from DuckDB's time_bucket origin",
	"date_ceil":                      "Doris's period origin (0001-01-01) differs from DuckDB's time_bucket origin",
	"topn":                           "Doris's JSON-looking text of the counts; ties ordered arbitrarily",
	"count_by_enum":                  "Doris's JSON-looking text",
	"collect_list":                   "an ARRAY in an undefined order",
	"array_agg":                      "an ARRAY in an undefined order",
	"collect_set":                    "an ARRAY in an undefined order",
	"histogram":                      "Doris's JSON text of equi-height buckets; checked by server/testdata/functions/aggregates.test",
	"hist":                           "Doris's alias of histogram",
	"array":                          nestedReason,
	"array_append":                   nestedReason,
	"array_avg":                      nestedReason,
	"array_cat":                      nestedReason,
	"array_compact":                  nestedReason,
	"array_concat":                   nestedReason,
	"array_contains":                 nestedReason,
	"array_distinct":                 nestedReason,
	"array_except":                   nestedReason,
	"array_intersect":                nestedReason,
	"array_join":                     nestedReason,
	"array_max":                      nestedReason,
	"array_min":                      nestedReason,
	"array_pop_back":                 nestedReason,
	"array_pop_front":                nestedReason,
	"array_popback":                  nestedReason,
	"array_popfront":                 nestedReason,
	"array_position":                 nestedReason,
	"array_push_back":                nestedReason,
	"array_push_front":               nestedReason,
	"array_pushback":                 nestedReason,
	"array_pushfront":                nestedReason,
	"array_remove":                   nestedReason,
	"array_reverse_sort":             nestedReason,
	"array_size":                     nestedReason,
	"array_slice":                    nestedReason,
	"array_sort":                     nestedReason,
	"array_sum":                      nestedReason,
	"array_union":                    nestedReason,
	"array_with_constant":            nestedReason,
	"arrays_overlap":                 nestedReason,
	"cardinality":                    nestedReason,
	"element_at":                     nestedReason,
	"map":                            nestedReason,
	"map_contains_key":               nestedReason,
	"map_contains_value":             nestedReason,
	"map_keys":                       nestedReason,
	"map_size":                       nestedReason,
	"map_values":                     nestedReason,
	"named_struct":                   nestedReason,
	"size":                           nestedReason,
	"struct":                         nestedReason,
	"struct_element":                 nestedReason,

	"bitmap_union": "BITMAP: no DuckDB counterpart", "bitmap_union_count": "BITMAP: no DuckDB counterpart",
	"bitmap_intersect": "BITMAP: no DuckDB counterpart", "group_bitmap_xor": "BITMAP: no DuckDB counterpart",
	"bitmap_union_int": "BITMAP: no DuckDB counterpart", "intersect_count": "BITMAP: no DuckDB counterpart",
	"hll_union_agg": "HLL: no DuckDB counterpart", "hll_union": "HLL: no DuckDB counterpart", "hll_raw_agg": "HLL: no DuckDB counterpart",
	"to_bitmap": "BITMAP: no DuckDB counterpart", "bitmap_hash": "BITMAP: no DuckDB counterpart",
	"bitmap_from_string": "BITMAP: no DuckDB counterpart", "bitmap_to_string": "BITMAP: no DuckDB counterpart",
	"bitmap_empty": "BITMAP: no DuckDB counterpart", "bitmap_count": "BITMAP: no DuckDB counterpart",
	"bitmap_min": "BITMAP: no DuckDB counterpart", "bitmap_max": "BITMAP: no DuckDB counterpart",
	"bitmap_and": "BITMAP: no DuckDB counterpart", "bitmap_or": "BITMAP: no DuckDB counterpart",
	"bitmap_xor": "BITMAP: no DuckDB counterpart", "bitmap_not": "BITMAP: no DuckDB counterpart",
	"bitmap_and_count": "BITMAP: no DuckDB counterpart", "bitmap_or_count": "BITMAP: no DuckDB counterpart",
	"bitmap_contains": "BITMAP: no DuckDB counterpart",
	"hll_hash":        "HLL: no DuckDB counterpart", "hll_empty": "HLL: no DuckDB counterpart", "hll_cardinality": "HLL: no DuckDB counterpart",
}

// coveredNames are the registry names the generator calls.
func coveredNames() map[string]string {
	out := map[string]string{}
	for n, p := range syntaxFns {
		out[n] = p
	}
	for _, cs := range [][]fnCase{scalarFns, predFns, aggFns} {
		for _, c := range cs {
			out[c.name] = c.fnProbe()
		}
	}
	return out
}

// funcQuery calls the next functions of the tables in turn (so that a
// default run calls every one), a select of scalar calls or an aggregate
// of aggregate calls, with NULL and constant arguments among the columns.
func (g *gen) funcQuery() Query {
	all := len(scalarFns) + len(predFns) + len(aggFns)
	s := spec{from: lit(pick(g, tableNames), tInt), where: g.where(""), classes: []string{"funcs"}}
	var aggs []fnCase
	for i := 0; i < 3; i++ {
		j := g.fnNext % all
		g.fnNext++
		switch {
		case j < len(scalarFns):
			s.outs = append(s.outs, g.call(scalarFns[j], "", 1))
		case j < len(scalarFns)+len(predFns):
			s.outs = append(s.outs, g.call(predFns[j-len(scalarFns)], "", 1))
		default:
			aggs = append(aggs, aggFns[j-len(scalarFns)-len(predFns)])
		}
	}
	if len(aggs) > 0 {
		s.classes = append(s.classes, "funcs/agg")
		// scalar calls become grouping keys (only exact ones: a key
		// must group alike on both engines).
		var keys []ex
		for _, o := range s.outs {
			if o.exact {
				keys = append(keys, o)
			}
		}
		s.outs, s.group = keys, keys
		for _, c := range aggs {
			e := g.call(c, "", 1)
			e.agg = "-"
			s.outs = append(s.outs, e)
		}
	}
	return g.finish(s)
}

// mysqlMonths is MySQL's TIMESTAMPDIFF(MONTH, a, b) of two dates in
// DuckDB's SQL: the month count less one when the last month is not whole
// (b's day before a's). DuckDB's date_sub('month') counts a month from a
// month's last day to another's as whole (2022-04-30 to 2023-02-28: 10,
// MySQL 9).
func mysqlMonths(a, b string) string {
	ma := "(year(" + a + ") * 12 + month(" + a + "))"
	mb := "(year(" + b + ") * 12 + month(" + b + "))"
	return "(" + mb + " - " + ma + " - CASE WHEN " + mb + " > " + ma + " AND day(" + b + ") < day(" + a + ") THEN 1 WHEN " +
		mb + " < " + ma + " AND day(" + b + ") > day(" + a + ") THEN -1 ELSE 0 END)"
}
