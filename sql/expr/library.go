package expr

import (
	"strings"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// The Doris 2.x scalar library beyond the MySQL core of registry.go:
// regular expressions, URLs, JSON (as text), the Doris date family and
// the rest of the math set. Kernels live in sql/eval under the same names.

func init() {
	for k, v := range libAliases {
		aliases[k] = v
	}
	for k, v := range library {
		registry[k] = v
	}
}

var libAliases = map[string]string{
	"nvl": "ifnull", "to_date": "date", "random": "rand", "curtime": "current_time",
	"sysdate": "now", "sha": "sha1", "json_extract_string": "get_json_string",
	"fmod": "mod_double", "strleft": "left", "strright": "right",
	"is_null_pred": "is_null", "is_not_null_pred": "is_not_null",
}

var i32 = types.IntT

// hexArg: HEX of an integer prints the number, of anything else its bytes.
func hexArg(args []Expr) ([]types.T, types.T, error) {
	if t := args[0].Type(); t.IsNumeric() {
		return []types.T{i64}, str, nil
	}
	return []types.T{str}, str, nil
}

// timeUnit reads a constant unit argument (TIMESTAMPDIFF, DATE_TRUNC).
func timeUnit(e Expr) (string, bool) {
	c, ok := e.(*Const)
	if !ok || !c.Val.T.IsString() || c.Val.Null {
		return "", false
	}
	return strings.ToUpper(c.Val.S), true
}

var truncUnits = map[string]bool{
	"SECOND": false, "MINUTE": false, "HOUR": false,
	"DAY": true, "WEEK": true, "MONTH": true, "QUARTER": true, "YEAR": true,
}

// dateTrunc takes both orders: Doris 2.1's date_trunc(dt, 'unit') and
// date_trunc('unit', dt) of later releases; the call is normalised to
// (dt, unit). A DATE stays DATE (Doris 2.1 returns the argument's type).
func dateTrunc(args []Expr) ([]types.T, types.T, error) {
	u, ok := timeUnit(args[1])
	if _, known := truncUnits[u]; !known {
		if u2, ok2 := timeUnit(args[0]); ok2 {
			if _, known := truncUnits[u2]; known {
				args[0], args[1] = args[1], args[0]
				u, ok = u2, true
			}
		}
	}
	if !ok {
		return nil, types.T{}, sqlerr.Doris.New("the second parameter of date_trunc function must be a string constant")
	}
	if _, known := truncUnits[u]; !known {
		return nil, types.T{}, sqlerr.Doris.New("date_trunc function time unit param only support argument is year|quarter|month|week|day|hour|minute|second")
	}
	t := temporalArg(args[0].Type())
	return []types.T{t, keep}, t, nil
}

// dateFloor: date_floor/date_ceil(dt, INTERVAL n unit), which the binder
// passes as (dt, n, 'UNIT'); a DATE stays DATE for day-or-larger units.
func dateFloor(args []Expr) ([]types.T, types.T, error) {
	u, ok := timeUnit(args[2])
	dayish, known := dateUnits[u]
	if !ok || !known || u == "MICROSECOND" {
		return nil, types.T{}, sqlerr.WrongArguments.New("date_floor")
	}
	t := temporalArg(args[0].Type())
	if t.Kind == types.Date && !dayish {
		t = dt
	}
	return []types.T{t, i64, keep}, t, nil
}

// timestampDiff: timestampdiff(unit, a, b) with a constant unit (the
// binder writes TIMESTAMPDIFF's bare unit keyword as a string).
func timestampDiff(args []Expr) ([]types.T, types.T, error) {
	u, ok := timeUnit(args[0])
	if _, known := dateUnits[u]; !ok || !known {
		return nil, types.T{}, sqlerr.WrongArguments.New("timestampdiff")
	}
	return []types.T{keep, dt, dt}, i64, nil
}

func timestampAdd(args []Expr) ([]types.T, types.T, error) {
	u, ok := timeUnit(args[0])
	dayish, known := dateUnits[u]
	if !ok || !known {
		return nil, types.T{}, sqlerr.WrongArguments.New("timestampadd")
	}
	t := temporalArg(args[2].Type())
	if t.Kind == types.Date && !dayish {
		t = dt
	}
	return []types.T{keep, i64, t}, t, nil
}

// unitAdd: years_add(d, n) and friends keep a DATE a DATE for day units.
func unitAdd(dayish bool) resolver {
	return func(args []Expr) ([]types.T, types.T, error) {
		t := temporalArg(args[0].Type())
		if t.Kind == types.Date && !dayish {
			t = dt
		}
		return []types.T{t, i64}, t, nil
	}
}

// unitDiff: years_diff(a, b) and friends compare as DATETIME.
func unitDiff(args []Expr) ([]types.T, types.T, error) {
	return []types.T{dt, dt}, i64, nil
}

func convertTz(args []Expr) ([]types.T, types.T, error) {
	return []types.T{dt, str, str}, dt, nil
}

// numSame casts pmod's arguments to one class: BIGINT when both are
// integers, DOUBLE otherwise.
func numSame(args []Expr) ([]types.T, types.T, error) {
	t := numClass(args[0].Type())
	for _, a := range args[1:] {
		if u := numClass(a.Type()); u.Kind == types.Double || u.Kind == types.Decimal && t.Kind != types.Double {
			t = u
		}
	}
	if t.Kind == types.Decimal || t.Kind == types.LargeInt {
		if len(args) > 1 {
			t = f64
		}
	}
	to := make([]types.T, len(args))
	for i := range to {
		to[i] = t
	}
	return to, t, nil
}

func eltFn(args []Expr) ([]types.T, types.T, error) {
	to := make([]types.T, len(args))
	to[0] = i64
	for i := 1; i < len(to); i++ {
		to[i] = str
	}
	return to, str, nil
}

// fieldFn compares as strings unless every argument is numeric (MySQL).
func fieldFn(args []Expr) ([]types.T, types.T, error) {
	ct := str
	allNum := true
	for _, a := range args {
		if t := a.Type(); !t.IsNumeric() && t.Kind != types.Null {
			allNum = false
		}
	}
	if allNum {
		ct = f64
	}
	to := make([]types.T, len(args))
	for i := range to {
		to[i] = ct
	}
	return to, i64, nil
}

// jsonVals: json_object/json_array keep their arguments' types so that
// numbers and booleans stay JSON numbers and booleans.
func jsonVals(args []Expr) ([]types.T, types.T, error) {
	to := make([]types.T, len(args))
	for i := range to {
		to[i] = keep
	}
	return to, str, nil
}

func jsonObject(args []Expr) ([]types.T, types.T, error) {
	if len(args)%2 != 0 {
		return nil, types.T{}, sqlerr.WrongParamCount.New("json_object")
	}
	return jsonVals(args)
}

func randFn(args []Expr) ([]types.T, types.T, error) {
	return []types.T{i64}[:len(args)], f64, nil
}

func weekFn(args []Expr) ([]types.T, types.T, error) {
	return []types.T{temporalArg(args[0].Type()), i64}[:len(args)], i64, nil
}

var library = map[string]fnDef{
	// strings
	"regexp_extract":        {3, 3, fixed(str, str, str, i64), always},
	"regexp_extract_all":    {2, 2, fixed(str, str), always},
	"regexp_replace":        {3, 3, fixed(str, str), always},
	"regexp_replace_one":    {3, 3, fixed(str, str), always},
	"split_part":            {3, 3, fixed(str, str, str, i64), always},
	"substring_index":       {3, 3, fixed(str, str, str, i64), nil},
	"starts_with":           {2, 2, fixed(bl, str), nil},
	"ends_with":             {2, 2, fixed(bl, str), nil},
	"null_or_empty":         {1, 1, fixed(bl, str), never},
	"not_null_or_empty":     {1, 1, fixed(bl, str), never},
	"hex":                   {1, 1, hexArg, nil},
	"unhex":                 {1, 1, fixed(str, str), always},
	"to_base64":             {1, 1, fixed(str, str), nil},
	"from_base64":           {1, 1, fixed(str, str), always},
	"sha1":                  {1, 1, fixed(str, str), nil},
	"sha2":                  {2, 2, fixed(str, str, i64), always},
	"crc32":                 {1, 1, fixed(i64, str), nil},
	"elt":                   {2, -1, eltFn, always},
	"field":                 {2, -1, fieldFn, never},
	"find_in_set":           {2, 2, fixed(i64, str), nil},
	"bit_length":            {1, 1, fixed(i64, str), nil},
	"money_format":          {1, 1, fixed(str, str), nil},
	"char":                  {1, -1, fixed(str, i64), always},
	"parse_url":             {2, 3, fixed(str, str), always},
	"protocol":              {1, 1, fixed(str, str), always},
	"domain":                {1, 1, fixed(str, str), always},
	"domain_without_www":    {1, 1, fixed(str, str), always},
	"extract_url_parameter": {2, 2, fixed(str, str), always},
	// JSON, as text
	"json_extract":     {2, -1, fixed(str, str), always},
	"get_json_string":  {2, 2, fixed(str, str), always},
	"get_json_int":     {2, 2, fixed(i32, str), always},
	"get_json_bigint":  {2, 2, fixed(i64, str), always},
	"get_json_double":  {2, 2, fixed(f64, str), always},
	"json_object":      {0, -1, jsonObject, never},
	"json_array":       {0, -1, jsonVals, never},
	"json_quote":       {1, 1, fixed(str, str), nil},
	"json_unquote":     {1, 1, fixed(str, str), always},
	"json_contains":    {2, 3, fixed(bl, str), always},
	"json_length":      {1, 2, fixed(i32, str), always},
	"json_keys":        {1, 2, fixed(str, str), always},
	"json_valid":       {1, 1, fixed(i32, str), nil},
	"json_type":        {1, 2, fixed(str, str), always},
	"json_exists_path": {2, 2, fixed(bl, str), always},
	// dates
	"date_trunc":        {2, 2, dateTrunc, nullUnlessTemporal},
	"date_floor":        {3, 3, dateFloor, always},
	"date_ceil":         {3, 3, dateFloor, always},
	"timestampdiff":     {3, 3, timestampDiff, always},
	"timestampadd":      {3, 3, timestampAdd, always},
	"timediff":          {2, 2, fixed(str, dt, dt), always},
	"convert_tz":        {3, 3, convertTz, always},
	"years_add":         {2, 2, unitAdd(true), always},
	"years_sub":         {2, 2, unitAdd(true), always},
	"months_add":        {2, 2, unitAdd(true), always},
	"months_sub":        {2, 2, unitAdd(true), always},
	"weeks_add":         {2, 2, unitAdd(true), always},
	"weeks_sub":         {2, 2, unitAdd(true), always},
	"days_add":          {2, 2, unitAdd(true), always},
	"days_sub":          {2, 2, unitAdd(true), always},
	"hours_add":         {2, 2, unitAdd(false), always},
	"hours_sub":         {2, 2, unitAdd(false), always},
	"minutes_add":       {2, 2, unitAdd(false), always},
	"minutes_sub":       {2, 2, unitAdd(false), always},
	"seconds_add":       {2, 2, unitAdd(false), always},
	"seconds_sub":       {2, 2, unitAdd(false), always},
	"years_diff":        {2, 2, unitDiff, always},
	"months_diff":       {2, 2, unitDiff, always},
	"weeks_diff":        {2, 2, unitDiff, always},
	"days_diff":         {2, 2, unitDiff, always},
	"hours_diff":        {2, 2, unitDiff, always},
	"minutes_diff":      {2, 2, unitDiff, always},
	"seconds_diff":      {2, 2, unitDiff, always},
	"week":              {1, 2, weekFn, nullUnlessTemporal},
	"weekofyear":        {1, 1, datePart(i64), nullUnlessTemporal},
	"yearweek":          {1, 2, weekFn, nullUnlessTemporal},
	"next_day":          {2, 2, fixed(date, date, str), always},
	"dayname":           {1, 1, datePart(str), nullUnlessTemporal},
	"monthname":         {1, 1, datePart(str), nullUnlessTemporal},
	"makedate":          {2, 2, fixed(date, i64), always},
	"microsecond":       {1, 1, fixed(i64, dt), nullUnlessTemporal},
	"to_monday":         {1, 1, datePart(date), nullUnlessTemporal},
	"utc_timestamp":     {0, 1, fixed(dt, i64), never},
	"current_time":      {0, 1, fixed(str, i64), never},
	"from_unixtime_tz":  {2, 3, fromUnixtimeTz, always},
	"unix_timestamp_tz": {2, 3, unixTimestampTz, nil},
	// math
	"sin":        {1, 1, fixed(f64, f64), nil},
	"cos":        {1, 1, fixed(f64, f64), nil},
	"tan":        {1, 1, fixed(f64, f64), nil},
	"asin":       {1, 1, fixed(f64, f64), always},
	"acos":       {1, 1, fixed(f64, f64), always},
	"atan":       {1, 2, fixed(f64, f64), nil},
	"atan2":      {2, 2, fixed(f64, f64), nil},
	"cot":        {1, 1, fixed(f64, f64), always},
	"degrees":    {1, 1, fixed(f64, f64), nil},
	"radians":    {1, 1, fixed(f64, f64), nil},
	"e":          {0, 0, fixed(f64, f64), never},
	"cbrt":       {1, 1, fixed(f64, f64), nil},
	"mod_double": {2, 2, fixed(f64, f64), always},
	"pmod":       {2, 2, numSame, always},
	"positive":   {1, 1, unaryNum, nil},
	"negative":   {1, 1, unaryNum, nil},
	"conv":       {3, 3, fixed(str, str, i64, i64), always},
	"bin":        {1, 1, fixed(str, i64), nil},
	"oct":        {1, 1, fixed(str, i64), nil},
	"rand":       {0, 1, randFn, never},

	// Doris: NULL when the trailing character is not one byte.
	"append_trailing_char_if_absent": {2, 2, fixed(str, str), always},
}

// fromUnixtimeTz is from_unixtime in a session time zone other than UTC:
// the binder puts the zone first, from_unixtime_tz(zone, n[, format]).
func fromUnixtimeTz(args []Expr) ([]types.T, types.T, error) {
	to, ret, err := fromUnixtime(args[1:])
	return append([]types.T{str}, to...), ret, err
}

// unixTimestampTz: unix_timestamp_tz(zone, datetime).
func unixTimestampTz(args []Expr) ([]types.T, types.T, error) {
	to, ret, err := unixTimestamp(args[1:])
	return append([]types.T{str}, to...), ret, err
}

// ZoneFuncs maps a function whose result depends on the session time zone
// to its variant taking the zone as first argument. The binder rewrites a
// call when the zone is not UTC, so the zone travels with the plan to the
// backends as a constant (as date_add's unit does).
var ZoneFuncs = map[string]string{"from_unixtime": "from_unixtime_tz", "unix_timestamp": "unix_timestamp_tz"}

// Internal reports names only the binder writes (not user-callable
// spellings a golden test must call).
func Internal(fn string) bool {
	return fn == "from_unixtime_tz" || fn == "unix_timestamp_tz" || fn == "mod_double"
}

// FunctionNames lists every scalar function name a user can call:
// registry names and aliases, internal names left out.
func FunctionNames() []string {
	var out []string
	for k := range registry {
		if !Internal(k) {
			out = append(out, k)
		}
	}
	for k := range aliases {
		if _, ok := registry[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}
