package eval

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// castOpts selects CAST semantics. Lenient (the zero value) is MySQL's
// CAST and implicit conversion: numeric prefixes of strings, clamping out
// of range values, NULL for bad dates. Strict is the load path: any value
// that would be mangled is an error naming the column and row.
//
// Explicit is the SQL CAST (Doris 2.x, non-strict): a value that does not
// convert, an invalid string ('abc', '12x') or a number out of the
// target's range, is NULL, and warns (SHOW WARNINGS) through warn.
type castOpts struct {
	strict   bool
	explicit bool
	warn     *expr.Warnings
	column   string
	row0     int // row number (1-based) of element 0, for messages
}

// The warnings of a failed explicit cast: MySQL's codes, with the texts
// MySQL gives CAST (no column, no row).
var (
	warnTruncated  = int(sqlerr.TruncatedWrongValue.Code) // 1292
	warnOutOfRange = int(sqlerr.WarnDataOutOfRange.Code)  // 1264
)

// failed records that row i's value v did not convert to kind (INTEGER,
// DECIMAL, ...); over: it is a number out of range.
func (o castOpts) failed(kind, v string, over bool) {
	if over {
		o.warn.Add(warnOutOfRange, "Out of range value for "+kind+": '"+v+"'")
		return
	}
	switch kind {
	case "DATE", "DATETIME":
		o.warn.Add(warnTruncated, "Incorrect "+strings.ToLower(kind)+" value: '"+v+"'")
	default:
		o.warn.Add(warnTruncated, "Truncated incorrect "+kind+" value: '"+v+"'")
	}
}

// warnKind names a target type in warnings, as MySQL does.
func warnKind(t types.T) string {
	switch {
	case t.IsInteger() && t.Kind != types.LargeInt:
		return "INTEGER"
	case t.Kind == types.LargeInt:
		return "LARGEINT"
	case t.Kind == types.Decimal:
		return "DECIMAL"
	case t.IsFloat():
		return "DOUBLE"
	case t.Kind == types.Date:
		return "DATE"
	case t.IsTemporal():
		return "DATETIME"
	case t.Kind == types.Boolean:
		return "BOOLEAN"
	}
	return strings.ToUpper(t.String())
}

// CastStrict converts arr for storage into a column of type to: bad
// strings (1366), bad dates (1292), out of range numbers (1264) and too
// long strings (1406) are errors naming column and row firstRow+i (1-based).
func CastStrict(arr arrow.Array, from, to types.T, column string, firstRow int, mem memory.Allocator) (arrow.Array, error) {
	ev := &evaluator{mem: mem, n: arr.Len()}
	v, err := ev.cast(vec{arr: arr}, from, to, castOpts{strict: true, column: column, row0: firstRow})
	if err != nil {
		return nil, err
	}
	return ev.materialize(v, to), nil
}

// CastDatum converts one value (strict selects CastStrict's rules, with
// row 1 in messages).
func CastDatum(d types.Datum, to types.T, strict bool, column string) (types.Datum, error) {
	ev := &evaluator{mem: memory.DefaultAllocator, n: 1}
	src := ev.constVec(d)
	defer src.release()
	v, err := ev.cast(src, d.T, to, castOpts{strict: strict, column: column, row0: 1})
	if err != nil {
		return types.Datum{}, err
	}
	defer v.release()
	return types.DatumAt(v.arr, 0, to), nil
}

func (o castOpts) errOutOfRange(i int) error {
	return sqlerr.WarnDataOutOfRange.New(o.column, o.row0+i)
}

func (o castOpts) errValue(kind, val string, i int) error {
	return sqlerr.IncorrectValue.New(kind, val, o.column, o.row0+i)
}

// cast converts a (of type from) to type to.
func (ev *evaluator) cast(a vec, from, to types.T, o castOpts) (vec, error) {
	if from.Kind == types.Null || a.arr.DataType().ID() == arrow.NULL {
		if a.scalar {
			return ev.nullVec(to), nil
		}
		b := array.NewBuilder(ev.mem, to.Arrow())
		defer b.Release()
		b.AppendNulls(a.arr.Len())
		return vec{arr: b.NewArray(), owned: true}, nil
	}
	if a.nullScalar() {
		return ev.nullVec(to), nil
	}
	if from == to && !(to.IsString() && to.Length > 0 && (o.strict || from.Length > to.Length)) {
		a.arr.Retain()
		return vec{arr: a.arr, scalar: a.scalar, owned: true}, nil
	}
	switch {
	case to.Kind == types.Boolean:
		return ev.castToBool(a, from, o)
	case to.IsInteger() && to.Kind != types.LargeInt:
		return ev.castToInt(a, from, to, o)
	case to.IsFloat():
		return ev.castToFloat(a, from, to, o)
	case to.Kind == types.Decimal || to.Kind == types.LargeInt:
		return ev.castToDecimal(a, from, to, o)
	case to.IsNested():
		return ev.castToNested(a, from, to, o)
	case to.Kind == types.JSON:
		return ev.castToJSON(a, from, o)
	case to.IsString():
		return ev.castToString(a, from, to, o)
	case to.IsTemporal():
		return ev.castToTemporal(a, from, to, o)
	}
	// No conversion exists (a string into a BITMAP or HLL column, say):
	// Doris's words, naming both types.
	return vec{}, sqlerr.Doris.New(fmt.Sprintf("can not cast from origin type %s to target type=%s", from, to))
}

// castValidity is the result's validity: a's, writable when an explicit
// cast may clear rows that do not convert.
func (ev *evaluator) castValidity(m int, a vec, o castOpts) *memory.Buffer {
	if o.explicit {
		return ev.validityMut(m, a)
	}
	return ev.validity(m, a)
}

// intsOf reads any integer or boolean array as int64s (no copy for Int64).
func intsOf(arr arrow.Array) []int64 {
	switch a := arr.(type) {
	case *array.Int64:
		return a.Int64Values()
	case *array.Int32:
		return widen(a.Int32Values())
	case *array.Int16:
		return widen(a.Int16Values())
	case *array.Int8:
		return widen(a.Int8Values())
	case *array.Boolean:
		out := make([]int64, a.Len())
		for i := range out {
			if a.Value(i) {
				out[i] = 1
			}
		}
		return out
	case *array.Date32:
		out := make([]int64, a.Len())
		for i, d := range a.Date32Values() {
			y, m, dd := civil(int32(d))
			out[i] = int64(y*10000 + m*100 + dd)
		}
		return out
	case *array.Timestamp:
		out := make([]int64, a.Len())
		for i, t := range a.TimestampValues() {
			y, m, d, h, mi, s, _ := civilTime(int64(t))
			out[i] = int64(y*10000+m*100+d)*1000000 + int64(h*10000+mi*100+s)
		}
		return out
	}
	return nil
}

func widen[E int8 | int16 | int32](v []E) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}

func isIntArrow(arr arrow.Array) bool {
	switch arr.(type) {
	case *array.Int64, *array.Int32, *array.Int16, *array.Int8, *array.Boolean, *array.Date32, *array.Timestamp:
		return true
	}
	return false
}

// intRange is the value range of an integer kind.
func intRange(k types.Kind) (int64, int64) {
	switch k {
	case types.TinyInt:
		return math.MinInt8, math.MaxInt8
	case types.SmallInt:
		return math.MinInt16, math.MaxInt16
	case types.Int:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

func (ev *evaluator) castToInt(a vec, from, to types.T, o castOpts) (vec, error) {
	m := a.arr.Len()
	buf, out := fixedBuf[int64](ev.mem, m)
	valid := ev.castValidity(m, a, o)
	bm, _ := bitmapOf(a)
	off := a.arr.Data().Offset()
	ok := func(i int) bool { return bm == nil || bitutil.BitIsSet(bm, off+i) }
	lo, hi := intRange(to.Kind)
	// fail makes row i NULL (explicit CAST).
	fail := func(i int, over bool) {
		bitutil.ClearBit(valid.Bytes(), i)
		o.failed(warnKind(to), types.DatumAt(a.arr, i, from).String(), over)
	}
	// clamp applies range rules: error (strict), NULL (explicit) or
	// saturate (implicit).
	var err error
	clamp := func(i int, v int64, over int) int64 {
		switch {
		case over > 0 || v > hi:
			if o.strict && err == nil {
				err = o.errOutOfRange(i)
			}
			if o.explicit {
				fail(i, true)
				return 0
			}
			return hi
		case over < 0 || v < lo:
			if o.strict && err == nil {
				err = o.errOutOfRange(i)
			}
			if o.explicit {
				fail(i, true)
				return 0
			}
			return lo
		}
		return v
	}
	switch src := a.arr.(type) {
	case *array.Float32, *array.Float64:
		fs := floatsOf(a.arr)
		for i, f := range fs {
			if !ok(i) {
				continue
			}
			r := math.Round(f)
			switch {
			case math.IsNaN(r) && o.explicit:
				fail(i, false)
			case math.IsNaN(r):
				out[i] = 0
			case r >= 9223372036854775807.0:
				out[i] = clamp(i, 0, 1)
			case r < -9223372036854775808.0:
				out[i] = clamp(i, 0, -1)
			default:
				out[i] = clamp(i, int64(r), 0)
			}
		}
	case *array.Decimal128:
		scale := decScale(src)
		for i, d := range src.Values() {
			if !ok(i) {
				continue
			}
			r := scaleDown(d, scale, true)
			if v, fits := small(r); fits {
				out[i] = clamp(i, v, 0)
			} else {
				out[i] = clamp(i, 0, r.Sign())
			}
		}
	case *array.String:
		for i := 0; i < m; i++ {
			if !ok(i) {
				continue
			}
			s := src.Value(i)
			if o.strict {
				d, okp, fits := types.ParseDecimal(s, 38, 0)
				if !okp {
					if err == nil {
						err = o.errValue("integer", s, i)
					}
					continue
				}
				if v, f := small(d); f && fits {
					out[i] = clamp(i, v, 0)
				} else {
					out[i] = clamp(i, 0, d.Sign())
				}
				continue
			}
			if o.explicit {
				v, over, good := parseDorisInt(s)
				if !good {
					fail(i, false)
					continue
				}
				out[i] = clamp(i, v, over)
				continue
			}
			v, over := parseIntPrefix(s)
			out[i] = clamp(i, v, over)
		}
	default:
		if !isIntArrow(a.arr) {
			buf.Release()
			return vec{}, sqlerr.Assertf("eval: cast %s to %s", from, to)
		}
		for i, v := range intsOf(a.arr) {
			out[i] = v
			if ok(i) && (v < lo || v > hi) {
				out[i] = clamp(i, v, 0)
			}
		}
	}
	if err != nil {
		buf.Release()
		if valid != nil {
			valid.Release()
		}
		return vec{}, err
	}
	res := ev.fixedVec(types.BigIntT, m, valid, buf, []vec{a})
	if to.Kind == types.BigInt {
		return res, nil
	}
	defer res.release()
	return ev.narrow(res, to), nil
}

// narrow converts in-range int64 values to a smaller integer kind.
func (ev *evaluator) narrow(v vec, to types.T) vec {
	src := i64s(v)
	m := len(src)
	valid := ev.validity(m, vec{arr: v.arr})
	var vals *memory.Buffer
	switch to.Kind {
	case types.TinyInt:
		b, out := fixedBuf[int8](ev.mem, m)
		for i, x := range src {
			out[i] = int8(x)
		}
		vals = b
	case types.SmallInt:
		b, out := fixedBuf[int16](ev.mem, m)
		for i, x := range src {
			out[i] = int16(x)
		}
		vals = b
	default:
		b, out := fixedBuf[int32](ev.mem, m)
		for i, x := range src {
			out[i] = int32(x)
		}
		vals = b
	}
	return ev.fixedVec(to, m, valid, vals, []vec{v})
}

func decScale(a *array.Decimal128) int {
	return int(a.DataType().(*arrow.Decimal128Type).Scale)
}

func floatsOf(arr arrow.Array) []float64 {
	switch a := arr.(type) {
	case *array.Float64:
		return a.Float64Values()
	case *array.Float32:
		out := make([]float64, a.Len())
		for i, f := range a.Float32Values() {
			out[i] = float64(f)
		}
		return out
	}
	return nil
}

// parseIntPrefix reads MySQL's leading integer of s ('12abc' → 12,
// 'abc' → 0); over is ±1 when the digits overflow int64.
func parseIntPrefix(s string) (v int64, over int) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	var u uint64
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		d := uint64(s[i] - '0')
		if u > (math.MaxUint64-d)/10 {
			over = 1
			continue
		}
		u = u*10 + d
	}
	if neg {
		if over != 0 || u > 1<<63 {
			return math.MinInt64, -1
		}
		return -int64(u), 0
	}
	if over != 0 || u > math.MaxInt64 {
		return math.MaxInt64, 1
	}
	return int64(u), 0
}

// parseDorisInt is Doris's string → integer conversion: surrounding
// whitespace, a sign, digits and at most a fraction ('12.7' is 12);
// anything else ('abc', '12x', '1e3', the empty string) does not convert
// (good false).
// over is ±1 when the digits overflow int64.
func parseDorisInt(s string) (v int64, over int, good bool) {
	t := trimSpace(s)
	i := 0
	if i < len(t) && (t[i] == '-' || t[i] == '+') {
		i++
	}
	start := i
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == start {
		return 0, 0, false
	}
	if i < len(t) {
		if t[i] != '.' {
			return 0, 0, false
		}
		for j := i + 1; j < len(t); j++ {
			if t[j] < '0' || t[j] > '9' {
				return 0, 0, false
			}
		}
	}
	v, over = parseIntPrefix(t[:i])
	return v, over, true
}

// isNumberText reports whether all of s (after trimming whitespace) is a
// decimal number, with an optional exponent: the strings Doris's CAST to
// DOUBLE and DECIMAL accepts.
func isNumberText(s string) bool {
	t := trimSpace(s)
	return t != "" && floatPrefix(t) == t
}

// floatPrefix is the longest prefix of s that is a number ('1.5e3x' → '1.5e3').
func floatPrefix(s string) string {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	start := i
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	digits := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			digits++
		}
	}
	if digits == 0 {
		return ""
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '-' || s[j] == '+') {
			j++
		}
		k := j
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k > j {
			i = k
		}
	}
	return s[start:i]
}

// parseFloatPrefix is MySQL's string → DOUBLE conversion.
func parseFloatPrefix(s string) float64 {
	p := floatPrefix(s)
	if p == "" {
		return 0
	}
	f, err := strconv.ParseFloat(p, 64)
	if err != nil { // out of range: ParseFloat returns ±Inf
		return f
	}
	return f
}

func (ev *evaluator) castToFloat(a vec, from, to types.T, o castOpts) (vec, error) {
	m := a.arr.Len()
	buf, out := fixedBuf[float64](ev.mem, m)
	valid := ev.castValidity(m, a, o)
	bm, _ := bitmapOf(a)
	off := a.arr.Data().Offset()
	switch src := a.arr.(type) {
	case *array.Float64, *array.Float32:
		copy(out, floatsOf(a.arr))
	case *array.Decimal128:
		s := decScale(src)
		for i, d := range src.Values() {
			out[i] = decToFloat(d, s)
		}
	case *array.String:
		for i := 0; i < m; i++ {
			if bm != nil && !bitutil.BitIsSet(bm, off+i) {
				continue
			}
			s := src.Value(i)
			if o.strict {
				f, err := strconv.ParseFloat(trimSpace(s), 64)
				if err != nil {
					buf.Release()
					if valid != nil {
						valid.Release()
					}
					if math.IsInf(f, 0) {
						return vec{}, o.errOutOfRange(i)
					}
					return vec{}, o.errValue("double", s, i)
				}
				out[i] = f
				continue
			}
			if o.explicit {
				f, err := strconv.ParseFloat(trimSpace(s), 64)
				if !isNumberText(s) || err != nil {
					bitutil.ClearBit(valid.Bytes(), i)
					o.failed("DOUBLE", s, isNumberText(s))
					continue
				}
				out[i] = f
				continue
			}
			out[i] = parseFloatPrefix(s)
		}
	default:
		if !isIntArrow(a.arr) {
			buf.Release()
			return vec{}, sqlerr.Assertf("eval: cast %s to %s", from, to)
		}
		if i64, ok := a.arr.(*array.Int64); ok {
			for i, v := range i64.Int64Values() {
				out[i] = float64(v)
			}
		} else {
			for i, v := range intsOf(a.arr) {
				out[i] = float64(v)
			}
		}
	}
	res := ev.fixedVec(types.DoubleT, m, valid, buf, []vec{a})
	if to.Kind == types.Double {
		return res, nil
	}
	defer res.release()
	fb, fo := fixedBuf[float32](ev.mem, m)
	for i, f := range f64s(res) {
		fo[i] = float32(f)
	}
	return ev.fixedVec(types.FloatT, m, ev.validity(m, vec{arr: res.arr}), fb, []vec{a}), nil
}

func trimSpace(s string) string {
	i, j := 0, len(s)
	for i < j && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	for j > i && (s[j-1] == ' ' || s[j-1] == '\t' || s[j-1] == '\n' || s[j-1] == '\r') {
		j--
	}
	return s[i:j]
}

func (ev *evaluator) castToDecimal(a vec, from, to types.T, o castOpts) (vec, error) {
	m := a.arr.Len()
	p, s := to.Precision, to.Scale
	if to.Kind == types.LargeInt {
		// LARGEINT is a 128-bit integer: 39 digits, bounded by ±(2^127-1).
		p, s = types.LargeIntPrecision, 0
	}
	buf, out := fixedBuf[num](ev.mem, m)
	valid := ev.castValidity(m, a, o)
	bm, _ := bitmapOf(a)
	off := a.arr.Data().Offset()
	ok := func(i int) bool { return bm == nil || bitutil.BitIsSet(bm, off+i) }
	// fail makes row i NULL (explicit CAST).
	fail := func(i int, over bool) {
		bitutil.ClearBit(valid.Bytes(), i)
		o.failed(warnKind(to), types.DatumAt(a.arr, i, from).String(), over)
	}
	var err error
	maxv := decMaxAt(p)
	// fit saturates, reports (strict) or nulls (explicit) a value with
	// more than p digits.
	fit := func(i int, v num, good bool, sign int) num {
		if good && decFits(v, p) {
			return v
		}
		if o.strict && err == nil {
			err = o.errOutOfRange(i)
		}
		if o.explicit {
			fail(i, true)
			return num{}
		}
		if !good {
			if sign < 0 {
				return maxv.Negate()
			}
			return maxv
		}
		if v.Sign() < 0 {
			return maxv.Negate()
		}
		return maxv
	}
	switch src := a.arr.(type) {
	case *array.Decimal128:
		ss := decScale(src)
		for i, d := range src.Values() {
			if !ok(i) {
				continue
			}
			r, good := rescale(d, ss, s)
			out[i] = fit(i, r, good, d.Sign())
		}
	case *array.Float32, *array.Float64:
		for i, f := range floatsOf(a.arr) {
			if !ok(i) {
				continue
			}
			// A double at or past ±2^127 does not fit LARGEINT, although its
			// shortest text may parse below the bound.
			if math.IsNaN(f) || math.IsInf(f, 0) || p > types.MaxDecimalPrecision && math.Abs(f) >= 0x1p127 {
				out[i] = fit(i, num{}, false, int(math.Copysign(1, f)))
				continue
			}
			d, okp, fits := types.ParseDecimal(strconv.FormatFloat(f, 'g', -1, 64), p, s)
			out[i] = fit(i, d, okp && fits, int(math.Copysign(1, f)))
		}
	case *array.String:
		for i := 0; i < m; i++ {
			if !ok(i) {
				continue
			}
			str := src.Value(i)
			txt := floatPrefix(str)
			if o.strict {
				txt = trimSpace(str)
			}
			if o.explicit {
				if !isNumberText(str) {
					fail(i, false)
					continue
				}
				txt = trimSpace(str)
			}
			if txt == "" && !o.strict {
				txt = "0"
			}
			d, okp, fits := types.ParseDecimal(txt, p, s)
			if !okp {
				if o.strict && err == nil {
					err = o.errValue("decimal", str, i)
				}
				if o.explicit {
					fail(i, false)
				}
				continue
			}
			out[i] = fit(i, d, fits, d.Sign())
		}
	default:
		if !isIntArrow(a.arr) {
			buf.Release()
			return vec{}, sqlerr.Assertf("eval: cast %s to %s", from, to)
		}
		for i, v := range intsOf(a.arr) {
			if !ok(i) {
				continue
			}
			r, good := scaleUp(decimal128.FromI64(v), s)
			out[i] = fit(i, r, good, int(sign64(v)))
		}
	}
	if err != nil {
		buf.Release()
		if valid != nil {
			valid.Release()
		}
		return vec{}, err
	}
	return ev.fixedVec(to, m, valid, buf, []vec{a}), nil
}

func sign64(v int64) int64 {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

func (ev *evaluator) castToBool(a vec, from types.T, o castOpts) (vec, error) {
	m := a.arr.Len()
	buf, out := boolBuf(ev.mem, m)
	valid := ev.castValidity(m, a, o)
	set := func(i int, b bool) {
		if b {
			bitutil.SetBit(out, i)
		}
	}
	switch src := a.arr.(type) {
	case *array.Float32, *array.Float64:
		for i, f := range floatsOf(a.arr) {
			set(i, f != 0)
		}
	case *array.Decimal128:
		for i, d := range src.Values() {
			set(i, d.Sign() != 0)
		}
	case *array.String:
		for i := 0; i < m; i++ {
			if !o.explicit && !o.strict {
				set(i, parseFloatPrefix(src.Value(i)) != 0)
				continue
			}
			if src.IsNull(i) {
				continue
			}
			// Explicit casts and loads (INSERT, stream load) read Doris's
			// spellings: 'true' is 1 in a BOOLEAN column, not 0.
			b, good := parseDorisBool(src.Value(i))
			if !good && o.strict {
				buf.Release()
				if valid != nil {
					valid.Release()
				}
				return vec{}, o.errValue("boolean", src.Value(i), i)
			}
			if !good {
				bitutil.ClearBit(valid.Bytes(), i)
				o.failed("BOOLEAN", src.Value(i), false)
				continue
			}
			set(i, b)
		}
	default:
		if !isIntArrow(a.arr) {
			buf.Release()
			return vec{}, sqlerr.Assertf("eval: cast %s to BOOLEAN", from)
		}
		for i, v := range intsOf(a.arr) {
			set(i, v != 0)
		}
	}
	return ev.fixedVec(types.BoolT, m, valid, buf, []vec{a}), nil
}

// parseDorisBool is Doris's string → BOOLEAN: true/false, t/f, yes/no,
// on/off (any case), or a number (non-zero is true).
func parseDorisBool(s string) (bool, bool) {
	switch strings.ToLower(trimSpace(s)) {
	case "1", "t", "true", "yes", "on":
		return true, true
	case "0", "f", "false", "no", "off":
		return false, true
	}
	if !isNumberText(s) {
		return false, false
	}
	f, err := strconv.ParseFloat(trimSpace(s), 64)
	return f != 0, err == nil
}

func (ev *evaluator) castToString(a vec, from, to types.T, o castOpts) (vec, error) {
	m := a.arr.Len()
	b := array.NewStringBuilder(ev.mem)
	defer b.Release()
	b.Reserve(m)
	var scratch []byte
	for i := 0; i < m; i++ {
		if a.arr.IsNull(i) {
			b.AppendNull()
			continue
		}
		var s string
		switch src := a.arr.(type) {
		case *array.String:
			s = src.Value(i)
		case *array.Int64:
			scratch = strconv.AppendInt(scratch[:0], src.Value(i), 10)
			b.BinaryBuilder.Append(scratch)
			continue
		case *array.Boolean:
			s = "0"
			if src.Value(i) {
				s = "1"
			}
		default:
			if from.IsNested() {
				s = types.FormatNested(a.arr, i, from) // Doris's text, strings unescaped
				break
			}
			s = types.DatumAt(a.arr, i, from).String()
		}
		if to.Length > 0 && (to.Kind != types.String) {
			if n := utf8.RuneCountInString(s); n > to.Length {
				if o.strict {
					return vec{}, sqlerr.DataTooLong.New(o.column, o.row0+i)
				}
				if o.explicit {
					o.warn.Add(warnTruncated, "Truncated incorrect CHAR("+strconv.Itoa(to.Length)+") value: '"+s+"'")
				}
				s = truncRunes(s, to.Length)
			}
		}
		b.Append(s)
	}
	return vec{arr: b.NewArray(), scalar: a.scalar, owned: true}, nil
}

func truncRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

func (ev *evaluator) castToTemporal(a vec, from, to types.T, o castOpts) (vec, error) {
	m := a.arr.Len()
	valid := ev.validityMut(m, a)
	vb := valid.Bytes()
	isDate := to.Kind == types.Date
	var vals *memory.Buffer
	var d32 []arrow.Date32
	var ts []arrow.Timestamp
	if isDate {
		vals, d32 = fixedBuf[arrow.Date32](ev.mem, m)
	} else {
		vals, ts = fixedBuf[arrow.Timestamp](ev.mem, m)
	}
	put := func(i int, us int64, ok bool) error {
		if !ok {
			bitutil.ClearBit(vb, i)
			if o.explicit {
				o.failed(warnKind(to), types.DatumAt(a.arr, i, from).String(), false)
			}
			if o.strict {
				kind := "datetime"
				if isDate {
					kind = "date"
				}
				return sqlerr.TruncatedWrongValue.New(kind, types.DatumAt(a.arr, i, from).String(), o.column, o.row0+i)
			}
			return nil
		}
		if isDate {
			d32[i] = arrow.Date32(floorDiv(us, usPerDay))
		} else {
			ts[i] = arrow.Timestamp(us)
		}
		return nil
	}
	// CAST(x AS DATETIME(p)) and a DATETIME(p) column round to p digits;
	// the implicit casts of function arguments keep all six (Doris types a
	// string argument DATETIMEV2(6)).
	scale := 6
	if !isDate && (o.explicit || o.strict) {
		scale = to.Scale
	}
	var err error
	for i := 0; i < m && err == nil; i++ {
		if !bitutil.BitIsSet(vb, i) {
			continue
		}
		switch src := a.arr.(type) {
		case *array.Date32:
			err = put(i, int64(src.Value(i))*usPerDay, true)
		case *array.Timestamp:
			us := int64(src.Value(i))
			if scale < from.Scale {
				us = types.RoundMicros(us, scale) // DATETIME(6) → (3) rounds, as Doris
			}
			err = put(i, us, true)
		case *array.String:
			us, ok := types.ParseDateTimeScale(src.Value(i), scale)
			err = put(i, us, ok)
		default:
			// numbers as YYYYMMDD[HHMMSS]
			s := types.DatumAt(a.arr, i, from).String()
			if j := indexByte(s, '.'); j >= 0 {
				s = s[:j]
			}
			if len(s) == 6 || len(s) == 12 { // YYMMDD
				s = "20" + s
			}
			us, ok := types.ParseDateTime(s)
			err = put(i, us, ok)
		}
	}
	if err != nil {
		vals.Release()
		valid.Release()
		return vec{}, err
	}
	return ev.fixedVec(to, m, valid, vals, []vec{a}), nil
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// castVec is the cast used by kernels that compare values of mixed types.
func (ev *evaluator) castVec(a vec, from, to types.T) (vec, error) {
	if from == to || (from.IsString() && to.IsString()) {
		a.arr.Retain()
		return vec{arr: a.arr, scalar: a.scalar, owned: true}, nil
	}
	return ev.cast(a, from, to, castOpts{})
}
