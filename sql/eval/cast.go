package eval

import (
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// castOpts selects CAST semantics. Lenient (the zero value) is MySQL's
// CAST and implicit conversion: numeric prefixes of strings, clamping out
// of range values, NULL for bad dates. Strict is the load path: any value
// that would be mangled is an error naming the column and row.
type castOpts struct {
	strict bool
	column string
	row0   int // row number (1-based) of element 0, for messages
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
		return ev.castToBool(a, from)
	case to.IsInteger() && to.Kind != types.LargeInt:
		return ev.castToInt(a, from, to, o)
	case to.IsFloat():
		return ev.castToFloat(a, from, to, o)
	case to.Kind == types.Decimal || to.Kind == types.LargeInt:
		return ev.castToDecimal(a, from, to, o)
	case to.IsString():
		return ev.castToString(a, from, to, o)
	case to.IsTemporal():
		return ev.castToTemporal(a, from, to, o)
	}
	return vec{}, sqlerr.Assertf("eval: no cast from %s to %s", from, to)
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
	valid := ev.validity(m, a)
	bm, _ := bitmapOf(a)
	off := a.arr.Data().Offset()
	ok := func(i int) bool { return bm == nil || bitutil.BitIsSet(bm, off+i) }
	lo, hi := intRange(to.Kind)
	// clamp applies range rules: error (strict) or saturate (CAST).
	var err error
	clamp := func(i int, v int64, over int) int64 {
		switch {
		case over > 0 || v > hi:
			if o.strict && err == nil {
				err = o.errOutOfRange(i)
			}
			return hi
		case over < 0 || v < lo:
			if o.strict && err == nil {
				err = o.errOutOfRange(i)
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
	valid := ev.validity(m, a)
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
	valid := ev.validity(m, a)
	bm, _ := bitmapOf(a)
	off := a.arr.Data().Offset()
	ok := func(i int) bool { return bm == nil || bitutil.BitIsSet(bm, off+i) }
	var err error
	maxv := decMaxAt(p)
	// fit saturates or reports a value with more than p digits.
	fit := func(i int, v num, good bool, sign int) num {
		if good && decFits(v, p) {
			return v
		}
		if o.strict && err == nil {
			err = o.errOutOfRange(i)
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
			if txt == "" && !o.strict {
				txt = "0"
			}
			d, okp, fits := types.ParseDecimal(txt, p, s)
			if !okp {
				if o.strict && err == nil {
					err = o.errValue("decimal", str, i)
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

func (ev *evaluator) castToBool(a vec, from types.T) (vec, error) {
	m := a.arr.Len()
	buf, out := boolBuf(ev.mem, m)
	valid := ev.validity(m, a)
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
			set(i, parseFloatPrefix(src.Value(i)) != 0)
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
			s = types.DatumAt(a.arr, i, from).String()
		}
		if to.Length > 0 && (to.Kind != types.String) {
			if n := utf8.RuneCountInString(s); n > to.Length {
				if o.strict {
					return vec{}, sqlerr.DataTooLong.New(o.column, o.row0+i)
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
	var err error
	for i := 0; i < m && err == nil; i++ {
		if !bitutil.BitIsSet(vb, i) {
			continue
		}
		switch src := a.arr.(type) {
		case *array.Date32:
			err = put(i, int64(src.Value(i))*usPerDay, true)
		case *array.Timestamp:
			err = put(i, int64(src.Value(i)), true)
		case *array.String:
			us, ok := types.ParseDateTime(src.Value(i))
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
