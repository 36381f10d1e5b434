package expr

import (
	"strings"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// keep marks an argument that NewCall passes through without a cast.
var keep = types.T{Kind: 255}

// resolver decides argument conversions (keep = none) and the result type.
type resolver func(args []Expr) (argTo []types.T, ret types.T, err error)

// fnDef is one registry entry.
type fnDef struct {
	min, max int // argument count; max -1 = variadic
	resolve  resolver
	// null computes nullability; nil means "any argument nullable".
	null func(args []Expr) bool
}

func always(args []Expr) bool { return true }
func never(args []Expr) bool  { return false }
func allNullable(args []Expr) bool {
	for _, a := range args {
		if !a.Nullable() {
			return false
		}
	}
	return true
}

// aliases maps alternative spellings to the registry name.
var aliases = map[string]string{
	"ceiling": "ceil", "pow": "power", "lcase": "lower", "ucase": "upper",
	"substr": "substring", "mid": "substring", "character_length": "char_length",
	"dayofmonth": "day", "adddate": "date_add", "subdate": "date_sub",
	"curdate": "current_date", "current_timestamp": "now", "localtime": "now",
	"localtimestamp": "now", "div": "int_divide", "%": "mod",
}

// CanonicalName resolves an alias to the registry name (lower-case).
func CanonicalName(fn string) string {
	fn = strings.ToLower(fn)
	if a, ok := aliases[fn]; ok {
		return a
	}
	return fn
}

// NewCall resolves fn, inserts MySQL's implicit casts and computes the
// result type and nullability.
func NewCall(fn string, args ...Expr) (Expr, error) {
	name := CanonicalName(fn)
	if name == "concat_ws" && len(args) == 2 && args[1].Type().Kind == types.Array {
		// Doris's concat_ws(sep, array) joins the elements, NULLs skipped.
		name, args = "array_join", []Expr{args[1], args[0]}
	}
	def, ok := registry[name]
	if !ok {
		return nil, sqlerr.SPDoesNotExist.New(fn)
	}
	if len(args) < def.min || (def.max >= 0 && len(args) > def.max) {
		return nil, sqlerr.WrongParamCount.New(fn)
	}
	to, ret, err := def.resolve(args)
	if err != nil {
		return nil, err
	}
	cast := make([]Expr, len(args))
	for i, a := range args {
		cast[i] = a
		if i < len(to) && to[i] != keep {
			cast[i] = implicitCast(a, to[i])
		}
	}
	null := def.null
	if null == nil {
		null = anyNullable
	}
	return &Call{Fn: name, Args: cast, T: ret, Null: null(cast)}, nil
}

func anyNullable(args []Expr) bool {
	for _, a := range args {
		if a.Nullable() {
			return true
		}
	}
	return false
}

func sqlerrWrongArgs(fn string) error { return sqlerr.WrongArguments.New(fn) }

// NewCase builds a CASE. A simple CASE compares the operand with each WHEN
// value in their common comparison type; a searched CASE takes WHEN
// conditions as booleans. The result aggregates THEN/ELSE types.
func NewCase(operand Expr, whens []When, els Expr) (Expr, error) {
	if len(whens) == 0 {
		return nil, sqlerr.ParseError.New("CASE without WHEN")
	}
	thenTs := make([]types.T, 0, len(whens)+1)
	for _, w := range whens {
		thenTs = append(thenTs, w.Then.Type())
	}
	if els != nil {
		thenTs = append(thenTs, els.Type())
	}
	rt := AggregateType(thenTs...)
	out := &Case{T: rt, Whens: make([]When, len(whens))}
	if operand != nil {
		ct := operand.Type()
		for _, w := range whens {
			ct = CompareType(ct, w.Cond.Type())
		}
		out.Operand = implicitCast(operand, ct)
		for i, w := range whens {
			out.Whens[i].Cond = implicitCast(w.Cond, ct)
		}
	} else {
		for i, w := range whens {
			out.Whens[i].Cond = implicitCast(w.Cond, types.BoolT)
		}
	}
	for i, w := range whens {
		out.Whens[i].Then = implicitCast(w.Then, rt)
	}
	if els != nil {
		out.Else = implicitCast(els, rt)
	}
	return out, nil
}

// ---- resolver helpers ----

// fixed casts every argument to ts (the last type repeats for variadics).
func fixed(ret types.T, ts ...types.T) resolver {
	return func(args []Expr) ([]types.T, types.T, error) {
		to := make([]types.T, len(args))
		for i := range args {
			if i < len(ts) {
				to[i] = ts[i]
			} else {
				to[i] = ts[len(ts)-1]
			}
		}
		return to, ret, nil
	}
}

// numClass maps a numeric operand to the physical class kernels accept:
// BIGINT, LARGEINT, DECIMAL (own scale) or DOUBLE.
func numClass(t types.T) types.T {
	switch {
	case t.Kind == types.LargeInt, t.Kind == types.Decimal:
		return t
	case isIntLike(t), t.Kind == types.Null:
		return types.BigIntT
	}
	return types.DoubleT
}

// asDecimal is t as a DECIMAL operand (integers become DECIMAL(n,0)).
func asDecimal(t types.T) types.T {
	if t.Kind == types.Decimal || t.Kind == types.LargeInt {
		return t
	}
	p, s := DecimalDigits(t)
	return types.DecimalT(p, s)
}

func arith(fn string) resolver {
	return func(args []Expr) ([]types.T, types.T, error) {
		rt := ArithType(fn, args[0].Type(), args[1].Type())
		switch rt.Kind {
		case types.Decimal:
			return []types.T{asDecimal(args[0].Type()), asDecimal(args[1].Type())}, rt, nil
		case types.LargeInt:
			return []types.T{types.LargeIntT, types.LargeIntT}, rt, nil
		}
		return []types.T{rt, rt}, rt, nil
	}
}

func intDivide(args []Expr) ([]types.T, types.T, error) {
	a, b := args[0].Type(), args[1].Type()
	switch {
	case (isIntLike(a) || a.Kind == types.Null) && (isIntLike(b) || b.Kind == types.Null):
		return []types.T{types.BigIntT, types.BigIntT}, types.BigIntT, nil
	case isExact(a) && isExact(b):
		return []types.T{asDecimal(a), asDecimal(b)}, types.BigIntT, nil
	}
	return []types.T{types.DoubleT, types.DoubleT}, types.BigIntT, nil
}

func unaryNum(args []Expr) ([]types.T, types.T, error) {
	t := numClass(args[0].Type())
	return []types.T{t}, t, nil
}

// ceilFloor returns BIGINT for integers, DECIMAL(p-s+1,0) for decimals and
// DOUBLE otherwise, as MySQL.
func ceilFloor(args []Expr) ([]types.T, types.T, error) {
	t := numClass(args[0].Type())
	if t.Kind == types.Decimal {
		return []types.T{t}, decimalT(t.Precision-t.Scale+1, 0), nil
	}
	return []types.T{t}, t, nil
}

// roundTrunc: ROUND/TRUNCATE keep integers, give decimals the scale of a
// constant second argument, and compute floats as DOUBLE.
func roundTrunc(args []Expr) ([]types.T, types.T, error) {
	t := numClass(args[0].Type())
	to := []types.T{t, types.BigIntT}[:len(args)]
	if t.Kind != types.Decimal {
		return to, t, nil
	}
	d := 0
	if len(args) == 2 {
		c, ok := args[1].(*Const)
		if !ok || c.Val.Null {
			return to, t, nil
		}
		d = int(c.Val.I)
		if c.Val.T.IsFloat() {
			d = int(c.Val.F)
		}
	}
	d = maxInt(0, minInt(d, MaxDecimalScale))
	return to, decimalT(t.Precision-t.Scale+d+1, d), nil
}

func signFn(args []Expr) ([]types.T, types.T, error) {
	return []types.T{numClass(args[0].Type())}, types.BigIntT, nil
}

// compare casts all arguments to their common comparison type. A date
// compared with a string constant holding a time part compares as DATETIME.
func compare(ret types.T) resolver {
	return func(args []Expr) ([]types.T, types.T, error) {
		for _, a := range args {
			if a.Type().IsOpaque() {
				return nil, types.T{}, sqlerr.ObjectMisuse.New()
			}
		}
		ct := args[0].Type()
		for _, a := range args[1:] {
			ct = CompareType(ct, a.Type())
		}
		if ct.Kind == types.Date {
			for _, a := range args {
				if c, ok := a.(*Const); ok && c.Val.T.IsString() && !c.Val.Null {
					if _, isDate := dateOnly(c.Val.S); !isDate {
						ct = types.DateTimeT
					}
				}
			}
		}
		if ct.Kind == types.BigInt {
			ct = narrowIntCompare(args, ct)
		}
		to := make([]types.T, len(args))
		for i := range to {
			to[i] = ct
		}
		if ret.Kind == types.Null { // GREATEST/LEAST return the compared type
			return to, ct, nil
		}
		return to, ret, nil
	}
}

// narrowIntCompare keeps a narrow integer column uncast when every other
// argument is an integer literal that fits its type: `k = 5` on an INT k
// compares as INT instead of widening the whole column to BIGINT.
func narrowIntCompare(args []Expr, ct types.T) types.T {
	w := types.T{}
	for _, a := range args {
		if _, ok := a.(*Const); ok {
			continue
		}
		t := a.Type()
		if !t.IsInteger() || t.Kind == types.LargeInt {
			return ct
		}
		if t.Kind > w.Kind {
			w = t
		}
	}
	if w.Kind == types.Null {
		return ct
	}
	for _, a := range args {
		if c, ok := a.(*Const); ok && !c.Val.Null {
			if !isIntLike(c.Val.T) {
				return ct
			}
			if _, fits := convertIntConst(c.Val.I, w); !fits {
				return ct
			}
		}
	}
	return w
}

// dateOnly reports whether s is a date literal without a (non-zero) time part.
func dateOnly(s string) (int32, bool) {
	us, ok := types.ParseDateTime(s)
	if !ok {
		return 0, true // unparsable: NULL either way
	}
	const day = 86400 * 1000000
	if us%day != 0 {
		return 0, false
	}
	return int32(us / day), true
}

func aggregate(args []Expr) ([]types.T, types.T, error) {
	ts := make([]types.T, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	rt := AggregateType(ts...)
	if rt.Kind == types.Null {
		rt = types.BigIntT
	}
	to := make([]types.T, len(args))
	for i := range to {
		to[i] = rt
	}
	return to, rt, nil
}

func ifFn(args []Expr) ([]types.T, types.T, error) {
	rt := AggregateType(args[1].Type(), args[2].Type())
	if rt.Kind == types.Null {
		rt = types.BigIntT
	}
	return []types.T{types.BoolT, rt, rt}, rt, nil
}

// nullifFn keeps both arguments; eval compares them in CompareType. A
// NULL first argument takes the second's type (the result is NULL).
func nullifFn(args []Expr) ([]types.T, types.T, error) {
	if t := args[0].Type(); t.Kind == types.Null {
		if t = args[1].Type(); t.Kind == types.Null {
			t = types.BigIntT
		}
		return []types.T{t, keep}, t, nil
	}
	return []types.T{keep, keep}, args[0].Type(), nil
}

func isNullFn(args []Expr) ([]types.T, types.T, error) {
	return []types.T{keep}, types.BoolT, nil
}

// temporalArg is the type date-part functions read: DATE stays DATE,
// anything else is parsed as DATETIME.
func temporalArg(t types.T) types.T {
	if t.IsTemporal() {
		return t
	}
	return types.DateTimeT
}

func datePart(ret types.T) resolver {
	return func(args []Expr) ([]types.T, types.T, error) {
		return []types.T{temporalArg(args[0].Type())}, ret, nil
	}
}

func nullUnlessTemporal(args []Expr) bool {
	for _, a := range args {
		if a.Nullable() || !a.Type().IsTemporal() {
			return true
		}
	}
	return false
}

// Interval units accepted by date_add/date_sub as a constant third argument.
var dateUnits = map[string]bool{
	"MICROSECOND": false, "SECOND": false, "MINUTE": false, "HOUR": false,
	"DAY": true, "WEEK": true, "MONTH": true, "QUARTER": true, "YEAR": true,
}

// dateAdd: date_add(d, n, 'UNIT'); a DATE stays DATE for day-or-larger units.
func dateAdd(args []Expr) ([]types.T, types.T, error) {
	unit := "DAY"
	if len(args) == 3 {
		c, ok := args[2].(*Const)
		if !ok || !c.Val.T.IsString() {
			return nil, types.T{}, sqlerr.WrongArguments.New("date_add")
		}
		unit = strings.ToUpper(c.Val.S)
	}
	dayish, ok := dateUnits[unit]
	if !ok {
		return nil, types.T{}, sqlerr.NotSupportedYet.New("INTERVAL unit " + unit)
	}
	t := temporalArg(args[0].Type())
	if t.Kind == types.Date && !dayish {
		t = types.DateTimeT
	}
	to := []types.T{t, types.BigIntT, keep}[:len(args)]
	return to, t, nil
}

func strToDate(args []Expr) ([]types.T, types.T, error) {
	rt := types.DateTimeT
	if c, ok := args[1].(*Const); ok && c.Val.T.IsString() && !FormatHasTime(c.Val.S) {
		rt = types.DateT
	}
	return []types.T{types.StringT, types.StringT}, rt, nil
}

// FormatHasTime reports whether a DATE_FORMAT/STR_TO_DATE format has
// time-of-day specifiers.
func FormatHasTime(f string) bool {
	for i := 0; i+1 < len(f); i++ {
		if f[i] == '%' {
			switch f[i+1] {
			case 'H', 'h', 'I', 'i', 'k', 'l', 'S', 's', 'f', 'p', 'r', 'T':
				return true
			}
			i++
		}
	}
	return false
}

func fromUnixtime(args []Expr) ([]types.T, types.T, error) {
	if len(args) == 2 {
		return []types.T{types.BigIntT, types.StringT}, types.StringT, nil
	}
	return []types.T{types.BigIntT}, types.DateTimeT, nil
}

func unixTimestamp(args []Expr) ([]types.T, types.T, error) {
	if len(args) == 0 {
		return nil, types.BigIntT, nil
	}
	if len(args) == 2 { // unix_timestamp(string, format), Doris
		return []types.T{types.StringT, types.StringT}, types.BigIntT, nil
	}
	return []types.T{temporalArg(args[0].Type())}, types.BigIntT, nil
}

func dateFormat(args []Expr) ([]types.T, types.T, error) {
	return []types.T{temporalArg(args[0].Type()), types.StringT}, types.StringT, nil
}

var (
	str  = types.StringT
	i64  = types.BigIntT
	f64  = types.DoubleT
	bl   = types.BoolT
	date = types.DateT
	dt   = types.DateTimeT
)

var registry = map[string]fnDef{
	// arithmetic
	"add":        {2, 2, arith("add"), nil},
	"subtract":   {2, 2, arith("subtract"), nil},
	"multiply":   {2, 2, arith("multiply"), nil},
	"divide":     {2, 2, arith("divide"), always},
	"mod":        {2, 2, arith("mod"), always},
	"int_divide": {2, 2, intDivide, always},
	"negate":     {1, 1, unaryNum, nil},
	// comparison and logic
	"eq":           {2, 2, compare(bl), nil},
	"ne":           {2, 2, compare(bl), nil},
	"lt":           {2, 2, compare(bl), nil},
	"le":           {2, 2, compare(bl), nil},
	"gt":           {2, 2, compare(bl), nil},
	"ge":           {2, 2, compare(bl), nil},
	"null_safe_eq": {2, 2, compare(bl), never},
	"in":           {2, -1, compare(bl), nil},
	"not_in":       {2, -1, compare(bl), nil},
	"between":      {3, 3, compare(bl), nil},
	"and":          {2, -1, fixed(bl, bl), nil},
	"or":           {2, -1, fixed(bl, bl), nil},
	"xor":          {2, 2, fixed(bl, bl), nil},
	"not":          {1, 1, fixed(bl, bl), nil},
	"is_null":      {1, 1, isNullFn, never},
	"is_not_null":  {1, 1, isNullFn, never},
	"is_true":      {1, 1, fixed(bl, bl), never},
	"is_false":     {1, 1, fixed(bl, bl), never},
	"like":         {2, 3, fixed(bl, str), nil},
	"not_like":     {2, 3, fixed(bl, str), nil},
	"regexp":       {2, 2, fixed(bl, str), always},
	// bit operations (64-bit two's complement)
	"bitand":      {2, 2, fixed(i64, i64), nil},
	"bitor":       {2, 2, fixed(i64, i64), nil},
	"bitxor":      {2, 2, fixed(i64, i64), nil},
	"bitnot":      {1, 1, fixed(i64, i64), nil},
	"shift_left":  {2, 2, fixed(i64, i64), nil},
	"shift_right": {2, 2, fixed(i64, i64), nil},
	// math
	"abs":      {1, 1, unaryNum, nil},
	"ceil":     {1, 1, ceilFloor, nil},
	"floor":    {1, 1, ceilFloor, nil},
	"round":    {1, 2, roundTrunc, nil},
	"truncate": {2, 2, roundTrunc, nil},
	"sign":     {1, 1, signFn, nil},
	"sqrt":     {1, 1, fixed(f64, f64), always},
	"power":    {2, 2, fixed(f64, f64), always},
	"exp":      {1, 1, fixed(f64, f64), always},
	"ln":       {1, 1, fixed(f64, f64), always},
	"log":      {1, 2, fixed(f64, f64), always},
	"log2":     {1, 1, fixed(f64, f64), always},
	"log10":    {1, 1, fixed(f64, f64), always},
	"pi":       {0, 0, fixed(f64, f64), never},
	// conditionals
	"greatest": {1, -1, compare(types.NullT), nil},
	"least":    {1, -1, compare(types.NullT), nil},
	"coalesce": {1, -1, aggregate, allNullable},
	"ifnull":   {2, 2, aggregate, allNullable},
	"nullif":   {2, 2, nullifFn, always},
	"if":       {3, 3, ifFn, func(a []Expr) bool { return a[1].Nullable() || a[2].Nullable() }},
	// strings
	"concat":      {1, -1, fixed(str, str), nil},
	"concat_ws":   {2, -1, fixed(str, str), func(a []Expr) bool { return a[0].Nullable() }},
	"length":      {1, 1, fixed(i64, str), nil},
	"char_length": {1, 1, fixed(i64, str), nil},
	"lower":       {1, 1, fixed(str, str), nil},
	"upper":       {1, 1, fixed(str, str), nil},
	"substring":   {2, 3, fixed(str, str, i64, i64), nil},
	"left":        {2, 2, fixed(str, str, i64), nil},
	"right":       {2, 2, fixed(str, str, i64), nil},
	"trim":        {1, 2, fixed(str, str), nil},
	"ltrim":       {1, 2, fixed(str, str), nil},
	"rtrim":       {1, 2, fixed(str, str), nil},
	"replace":     {3, 3, fixed(str, str), nil},
	"instr":       {2, 2, fixed(i64, str), nil},
	"locate":      {2, 3, fixed(i64, str, str, i64), nil},
	"lpad":        {3, 3, fixed(str, str, i64, str), nil},
	"rpad":        {3, 3, fixed(str, str, i64, str), nil},
	"reverse":     {1, 1, fixed(str, str), nil},
	"repeat":      {2, 2, fixed(str, str, i64), nil},
	"space":       {1, 1, fixed(str, i64), nil},
	"ascii":       {1, 1, fixed(i64, str), nil},
	"strcmp":      {2, 2, fixed(i64, str), nil},
	"md5":         {1, 1, fixed(str, str), nil},
	// dates
	"year":           {1, 1, datePart(i64), nullUnlessTemporal},
	"month":          {1, 1, datePart(i64), nullUnlessTemporal},
	"day":            {1, 1, datePart(i64), nullUnlessTemporal},
	"dayofweek":      {1, 1, datePart(i64), nullUnlessTemporal},
	"dayofyear":      {1, 1, datePart(i64), nullUnlessTemporal},
	"weekday":        {1, 1, datePart(i64), nullUnlessTemporal},
	"quarter":        {1, 1, datePart(i64), nullUnlessTemporal},
	"hour":           {1, 1, fixed(i64, dt), nullUnlessTemporal},
	"minute":         {1, 1, fixed(i64, dt), nullUnlessTemporal},
	"second":         {1, 1, fixed(i64, dt), nullUnlessTemporal},
	"date":           {1, 1, fixed(date, date), nullUnlessTemporal},
	"last_day":       {1, 1, datePart(date), nullUnlessTemporal},
	"to_days":        {1, 1, datePart(i64), nullUnlessTemporal},
	"from_days":      {1, 1, fixed(date, i64), nil},
	"datediff":       {2, 2, fixed(i64, date, date), nullUnlessTemporal},
	"date_add":       {2, 3, dateAdd, nullUnlessTemporal},
	"date_sub":       {2, 3, dateAdd, nullUnlessTemporal},
	"date_format":    {2, 2, dateFormat, always},
	"str_to_date":    {2, 2, strToDate, always},
	"unix_timestamp": {0, 2, unixTimestamp, nil},
	"from_unixtime":  {1, 2, fromUnixtime, always},
	"current_date":   {0, 0, fixed(date, date), never},
	"now":            {0, 1, nowFsp, never},
}

// nowFsp types now([fsp]) / current_timestamp([fsp]) as DATETIME(fsp), fsp a
// constant 0..6 as in Doris (anything else is refused).
func nowFsp(args []Expr) ([]types.T, types.T, error) {
	if len(args) == 0 {
		return nil, types.DateTimeT, nil
	}
	c, ok := args[0].(*Const)
	if !ok || c.Val.Null || !c.Val.T.IsInteger() || c.Val.I < 0 || c.Val.I > 6 {
		return nil, types.T{}, sqlerr.Doris.New("The precision of now() must be a constant between 0 and 6")
	}
	return []types.T{types.BigIntT}, types.T{Kind: types.DateTime, Scale: int(c.Val.I)}, nil
}
