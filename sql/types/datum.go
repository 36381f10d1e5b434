package types

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// Datum is one scalar value of a known SQL type: a literal, a prepared
// statement parameter, a zone-map bound. Columnar code never uses it per
// row on a hot path; it is for constants and slow edges.
//
// Representation by kind: Boolean/integers in I (Boolean 0/1), Date in I as
// days since epoch, DateTime in I as microseconds since epoch, Float/Double in
// F, Decimal/LargeInt in Dec (scaled by T.Scale), strings in S.
type Datum struct {
	T    T              `json:"t"`
	Null bool           `json:"n,omitempty"`
	I    int64          `json:"i,omitempty"`
	F    float64        `json:"f,omitempty"`
	S    string         `json:"s,omitempty"`
	Dec  decimal128.Num `json:"-"`
	DecS string         `json:"d,omitempty"` // Dec as text, for serialization
	// FS is a float that JSON cannot carry (±Inf, NaN) as text, for
	// serialization; F is 0 meanwhile.
	FS string `json:"fs,omitempty"`
}

// NullDatum is an untyped NULL.
func NullDatum(t T) Datum { return Datum{T: t, Null: true} }

// IntDatum is a BIGINT value.
func IntDatum(v int64) Datum { return Datum{T: BigIntT, I: v} }

// FloatDatum is a DOUBLE value.
func FloatDatum(v float64) Datum { return Datum{T: DoubleT, F: v} }

// StringDatum is a VARCHAR value.
func StringDatum(s string) Datum { return Datum{T: VarcharT(len(s)), S: s} }

// BoolDatum is a BOOLEAN value.
func BoolDatum(b bool) Datum {
	if b {
		return Datum{T: BoolT, I: 1}
	}
	return Datum{T: BoolT}
}

// DecimalDatum is a DECIMAL(p,s) value.
func DecimalDatum(n decimal128.Num, p, s int) Datum {
	return Datum{T: DecimalT(p, s), Dec: n}
}

// Prepare fills the serializable mirrors of Dec and of a float JSON has
// no number for (a comparison with '1e999' folds to +Inf); call before
// encoding.
func (d *Datum) Prepare() {
	if d.T.Kind == Decimal || d.T.Kind == LargeInt {
		d.DecS = d.Dec.BigInt().String()
	}
	if math.IsInf(d.F, 0) || math.IsNaN(d.F) {
		d.FS, d.F = strconv.FormatFloat(d.F, 'g', -1, 64), 0
	}
}

// Restore rebuilds Dec and F from their serialized mirrors after decoding.
func (d *Datum) Restore() {
	if d.DecS != "" {
		if bi, ok := new(big.Int).SetString(d.DecS, 10); ok {
			d.Dec = decimal128.FromBigInt(bi)
		}
	}
	if d.FS != "" {
		d.F, _ = strconv.ParseFloat(d.FS, 64)
		d.FS = ""
	}
}

// String formats the value as the MySQL text protocol sends it ("NULL" for NULL).
func (d Datum) String() string {
	if d.Null {
		return "NULL"
	}
	switch d.T.Kind {
	case Boolean, TinyInt, SmallInt, Int, BigInt:
		return strconv.FormatInt(d.I, 10)
	case LargeInt:
		return d.Dec.BigInt().String()
	case Float:
		return FormatFloat(d.F, 32)
	case Double:
		return FormatFloat(d.F, 64)
	case Decimal:
		return FormatDecimal(d.Dec, d.T.Scale)
	case Char, Varchar, String, JSON, Array, Map, Struct:
		return d.S
	case Date:
		return FormatDate(int32(d.I))
	case DateTime:
		return FormatDateTime(d.I, d.T.Scale)
	}
	return "NULL"
}

// FormatFloat renders a float the way MySQL's text protocol does: the
// shortest representation that round-trips, exponent form for very large or
// small magnitudes.
func FormatFloat(f float64, bits int) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "NULL"
	}
	if f == 0 {
		return "0"
	}
	abs := math.Abs(f)
	if abs >= 1e15 || abs < 1e-4 {
		s := strconv.FormatFloat(f, 'e', -1, bits)
		// MySQL prints 1e20 as "1e20", Go as "1e+20".
		return strings.Replace(s, "e+", "e", 1)
	}
	return strconv.FormatFloat(f, 'f', -1, bits)
}

// FormatDecimal renders a scaled decimal with exactly scale fraction digits.
func FormatDecimal(n decimal128.Num, scale int) string {
	s := n.BigInt().String()
	if scale <= 0 {
		return s
	}
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	for len(s) <= scale {
		s = "0" + s
	}
	s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	if neg {
		s = "-" + s
	}
	return s
}

var epoch = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)

// FormatDate renders days since epoch as YYYY-MM-DD.
func FormatDate(days int32) string {
	t := epoch.AddDate(0, 0, int(days))
	return fmt.Sprintf("%04d-%02d-%02d", t.Year(), int(t.Month()), t.Day())
}

// FormatDateTime renders microseconds since epoch as YYYY-MM-DD HH:MM:SS[.ffffff].
func FormatDateTime(us int64, scale int) string {
	t := time.UnixMicro(us).UTC()
	s := fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d", t.Year(), int(t.Month()), t.Day(), t.Hour(), t.Minute(), t.Second())
	if scale > 0 {
		frac := fmt.Sprintf("%06d", t.Nanosecond()/1000)
		s += "." + frac[:scale]
	}
	return s
}

// DaysFromCivil converts a calendar date to days since epoch.
func DaysFromCivil(y, m, d int) int32 {
	return int32(time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Sub(epoch).Hours() / 24)
}

// CivilFromDays converts days since epoch to year, month, day.
func CivilFromDays(days int32) (y, m, d int) {
	t := epoch.AddDate(0, 0, int(days))
	return t.Year(), int(t.Month()), t.Day()
}

// ParseDate parses 'YYYY-MM-DD' (also 'YYYYMMDD' and a trailing time part,
// which DATE truncates as MySQL does). ok is false for malformed or
// out-of-range dates (month 13, Feb 30, year > 9999).
func ParseDate(s string) (days int32, ok bool) {
	us, ok := ParseDateTime(s)
	if !ok {
		return 0, false
	}
	return int32(floorDiv(us, 86400*1e6)), true
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// ParseDateTime parses 'YYYY-MM-DD[ HH:MM:SS[.ffffff]]' (also with 'T', and
// compact 'YYYYMMDD[HHMMSS]') into microseconds since epoch; digits past
// the sixth round half up, as Doris parses into DATETIME(6).
func ParseDateTime(s string) (us int64, ok bool) { return ParseDateTimeScale(s, 6) }

// ParseDateTimeScale parses as ParseDateTime into DATETIME(scale): the
// fraction is rounded half up to scale digits from the text itself (not
// from a rounded microsecond value), carrying into the seconds as Doris's
// DateV2Value::from_date_str does ('…05.9996' as DATETIME(3) is '…06.000').
func ParseDateTimeScale(s string, scale int) (us int64, ok bool) {
	if len(s) == 10 && s[4] == '-' && s[7] == '-' {
		if d, ok := parseISODate(s); ok {
			return int64(d) * 86400 * 1e6, true
		}
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	var y, mo, d, h, mi, sec, micro int
	datePart, timePart := s, ""
	if i := strings.IndexAny(s, " T"); i >= 0 {
		datePart, timePart = s[:i], strings.TrimSpace(s[i+1:])
	}
	if strings.ContainsAny(datePart, "-/") {
		sep := "-"
		if strings.Contains(datePart, "/") {
			sep = "/"
		}
		parts := strings.Split(datePart, sep)
		if len(parts) != 3 {
			return 0, false
		}
		var err1, err2, err3 error
		y, err1 = strconv.Atoi(parts[0])
		mo, err2 = strconv.Atoi(parts[1])
		d, err3 = strconv.Atoi(parts[2])
		if err1 != nil || err2 != nil || err3 != nil {
			return 0, false
		}
		if len(parts[0]) == 2 { // two-digit years as MySQL: 70-99 → 19xx
			if y < 70 {
				y += 2000
			} else {
				y += 1900
			}
		}
	} else {
		if len(datePart) != 8 && len(datePart) != 14 {
			return 0, false
		}
		for _, c := range datePart {
			if c < '0' || c > '9' {
				return 0, false
			}
		}
		y, _ = strconv.Atoi(datePart[0:4])
		mo, _ = strconv.Atoi(datePart[4:6])
		d, _ = strconv.Atoi(datePart[6:8])
		if len(datePart) == 14 {
			h, _ = strconv.Atoi(datePart[8:10])
			mi, _ = strconv.Atoi(datePart[10:12])
			sec, _ = strconv.Atoi(datePart[12:14])
		}
	}
	if timePart != "" {
		frac := ""
		if i := strings.IndexByte(timePart, '.'); i >= 0 {
			timePart, frac = timePart[:i], timePart[i+1:]
		}
		parts := strings.Split(timePart, ":")
		if len(parts) > 3 {
			return 0, false
		}
		vals := [3]int{}
		for i, p := range parts {
			v, err := strconv.Atoi(p)
			if err != nil {
				return 0, false
			}
			vals[i] = v
		}
		h, mi, sec = vals[0], vals[1], vals[2]
		if frac != "" {
			for _, c := range frac {
				if c < '0' || c > '9' {
					return 0, false
				}
			}
			if scale < 0 || scale > 6 {
				scale = 6
			}
			up := len(frac) > scale && frac[scale] >= '5'
			if len(frac) > scale {
				frac = frac[:scale]
			}
			for len(frac) < 6 {
				frac += "0"
			}
			v, _ := strconv.Atoi(frac)
			micro = v
			if up {
				micro += pow10[6-scale]
			}
		}
	}
	if y < 0 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59 || h < 0 || mi < 0 || sec < 0 {
		return 0, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, 0, time.UTC)
	if t.Day() != d { // Feb 30 normalised to Mar 2
		return 0, false
	}
	us = t.UnixMicro() + int64(micro) // micro may be 1e6 after rounding: a carry
	if us > maxDateTimeMicros {
		return 0, false
	}
	return us, true
}

var pow10 = [...]int{1, 10, 100, 1000, 10000, 100000, 1000000}

// maxDateTimeMicros is 9999-12-31 23:59:59.999999.
var maxDateTimeMicros = time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC).UnixMicro()

// RoundMicros rounds microseconds since epoch half up to scale fractional
// digits (0..6), as Doris casts DATETIME(6) to a smaller scale.
func RoundMicros(us int64, scale int) int64 {
	if scale < 0 || scale >= 6 {
		return us
	}
	unit := int64(pow10[6-scale])
	q := floorDiv(us, unit)
	if us-q*unit >= unit/2 {
		q++
	}
	return q * unit
}

// TruncMicros drops the fractional digits past scale (now(3)).
func TruncMicros(us int64, scale int) int64 {
	if scale < 0 || scale >= 6 {
		return us
	}
	unit := int64(pow10[6-scale])
	return floorDiv(us, unit) * unit
}

// ParseDecimal parses an exact decimal literal into a Num scaled to scale,
// rounding half away from zero beyond scale as MySQL does. ok is false for
// malformed text; fits is false when the value needs more than prec digits.
func ParseDecimal(s string, prec, scale int) (n decimal128.Num, ok, fits bool) {
	if v, done := parseDecimalFast(s, scale); done {
		n = decimal128.FromI64(v)
		return n, true, prec <= 0 || prec > MaxDecimalPrecision || n.FitsInPrecision(int32(prec))
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return n, false, false
	}
	// Exponent forms go through big.Float-free manual shifting.
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil {
			return n, false, false
		}
		mant, exp = s[:i], e
	}
	neg := false
	if mant != "" && (mant[0] == '-' || mant[0] == '+') {
		neg = mant[0] == '-'
		mant = mant[1:]
	}
	intPart, frac := mant, ""
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		intPart, frac = mant[:i], mant[i+1:]
	}
	if intPart == "" && frac == "" {
		return n, false, false
	}
	for _, c := range intPart + frac {
		if c < '0' || c > '9' {
			return n, false, false
		}
	}
	digits := intPart + frac
	pointPos := len(intPart) + exp // digits before the decimal point
	// Want digits[0 : pointPos+scale] as the scaled integer, rounding on the next digit.
	want := pointPos + scale
	var keep string
	roundUp := false
	switch {
	case want <= 0:
		keep = "0"
		roundUp = want == 0 && len(digits) > 0 && digits[0] >= '5'
	case want >= len(digits):
		keep = digits + strings.Repeat("0", want-len(digits))
	default:
		keep = digits[:want]
		roundUp = digits[want] >= '5'
	}
	keep = strings.TrimLeft(keep, "0")
	if keep == "" {
		keep = "0"
	}
	if len(keep) > LargeIntPrecision {
		return n, true, false
	}
	bi, okb := new(big.Int).SetString(keep, 10)
	if !okb {
		return n, false, false
	}
	if roundUp {
		bi.Add(bi, big.NewInt(1))
	}
	if neg {
		bi.Neg(bi)
	}
	if bi.Cmp(maxInt128) > 0 || bi.Cmp(minInt128) < 0 {
		return n, true, false
	}
	v := decimal128.FromBigInt(bi)
	if prec > MaxDecimalPrecision {
		return v, true, true // LARGEINT: the int128 bound was the check
	}
	return v, true, prec <= 0 || v.FitsInPrecision(int32(prec))
}

// parseDecimalFast handles the common plain form [-+]digits[.digits] whose
// scaled value fits 18 digits, without allocating (bulk loads parse
// millions of these). done is false when the slow path must decide.
func parseDecimalFast(s string, scale int) (int64, bool) {
	if len(s) == 0 || len(s) > 40 {
		return 0, false
	}
	i, neg := 0, false
	if s[0] == '-' || s[0] == '+' {
		neg, i = s[0] == '-', 1
	}
	var v int64
	digits, frac, seenDot, any := 0, 0, false, false
	roundUp := false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.' && !seenDot:
			seenDot = true
		case c >= '0' && c <= '9':
			any = true
			if seenDot {
				if frac == scale {
					// The first dropped digit rounds half away from zero.
					if frac == scale && !roundUp && c >= '5' {
						roundUp = true
					}
					frac++
					continue
				}
				if frac > scale {
					continue
				}
				frac++
			}
			if v == 0 && c == '0' && !seenDot {
				continue
			}
			digits++
			if digits > 17 {
				return 0, false
			}
			v = v*10 + int64(c-'0')
		default:
			return 0, false
		}
	}
	if !any {
		return 0, false
	}
	if frac > scale {
		frac = scale
	}
	for ; frac < scale; frac++ {
		digits++
		if digits > 17 {
			return 0, false
		}
		v *= 10
	}
	if roundUp {
		v++
	}
	if neg {
		v = -v
	}
	return v, true
}

// LargeIntPrecision is LARGEINT's digit count: it holds ±(2^127-1).
const LargeIntPrecision = 39

var (
	maxInt128 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1))
	minInt128 = new(big.Int).Neg(maxInt128)
)

// DatumAt reads row i of an Arrow array of SQL type t as a Datum. It is the
// slow path for edges (wire binary protocol, zone maps, tests).
func DatumAt(arr arrow.Array, i int, t T) Datum {
	if arr.IsNull(i) {
		return NullDatum(t)
	}
	d := Datum{T: t}
	if t.IsNested() {
		d.S = nestedDatumText(arr, i, t)
		return d
	}
	switch a := arr.(type) {
	case *array.Boolean:
		if a.Value(i) {
			d.I = 1
		}
	case *array.Int8:
		d.I = int64(a.Value(i))
	case *array.Int16:
		d.I = int64(a.Value(i))
	case *array.Int32:
		d.I = int64(a.Value(i))
	case *array.Int64:
		d.I = a.Value(i)
	case *array.Float32:
		d.F = float64(a.Value(i))
	case *array.Float64:
		d.F = a.Value(i)
	case *array.Decimal128:
		d.Dec = a.Value(i)
	case *array.String:
		d.S = a.Value(i)
	case *array.Date32:
		d.I = int64(a.Value(i))
	case *array.Timestamp:
		d.I = int64(a.Value(i))
	case *array.Null:
		d.Null = true
	}
	return d
}

// AppendDatum appends d to a builder of d.T's Arrow type (slow path).
func AppendDatum(b array.Builder, d Datum) {
	if d.Null {
		b.AppendNull()
		return
	}
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		bb.Append(d.I != 0)
	case *array.Int8Builder:
		bb.Append(int8(d.I))
	case *array.Int16Builder:
		bb.Append(int16(d.I))
	case *array.Int32Builder:
		bb.Append(int32(d.I))
	case *array.Int64Builder:
		bb.Append(d.I)
	case *array.Float32Builder:
		bb.Append(float32(d.F))
	case *array.Float64Builder:
		bb.Append(d.F)
	case *array.Decimal128Builder:
		bb.Append(d.Dec)
	case *array.StringBuilder:
		bb.Append(d.S)
	case *array.Date32Builder:
		bb.Append(arrow.Date32(d.I))
	case *array.TimestampBuilder:
		bb.Append(arrow.Timestamp(d.I))
	case *array.NullBuilder:
		bb.AppendNull()
	case *array.ListBuilder, *array.MapBuilder, *array.StructBuilder:
		if !d.T.IsNested() {
			b.AppendNull() // not a nested value: casts convert before this
			return
		}
		AppendNested(b, d.S, d.T)
	default:
		panic(fmt.Sprintf("types: AppendDatum to %T", b))
	}
}

// Compare orders two non-NULL datums of the same family (NULL sorts first).
// Numbers compare by value across integer, decimal and float kinds; strings
// byte-wise; dates and datetimes on a common microsecond scale.
func Compare(a, b Datum) int {
	if a.Null || b.Null {
		switch {
		case a.Null && b.Null:
			return 0
		case a.Null:
			return -1
		}
		return 1
	}
	if a.T.IsString() || b.T.IsString() {
		if a.T.IsString() && b.T.IsString() {
			return strings.Compare(a.S, b.S)
		}
	}
	if a.T.IsTemporal() && b.T.IsTemporal() {
		return cmpInt(temporalMicros(a), temporalMicros(b))
	}
	if isIntLike(a.T) && isIntLike(b.T) {
		return cmpInt(a.I, b.I)
	}
	if (a.T.Kind == Decimal || a.T.Kind == LargeInt || isIntLike(a.T)) && (b.T.Kind == Decimal || b.T.Kind == LargeInt || isIntLike(b.T)) {
		ad, as := asDec(a)
		bd, bs := asDec(b)
		for as < bs {
			ad, as = ad.IncreaseScaleBy(1), as+1
		}
		for bs < as {
			bd, bs = bd.IncreaseScaleBy(1), bs+1
		}
		return ad.Cmp(bd)
	}
	af, bf := a.Float(), b.Float()
	switch {
	case af < bf:
		return -1
	case af > bf:
		return 1
	}
	return 0
}

func isIntLike(t T) bool { return t.Kind >= Boolean && t.Kind <= BigInt }

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func temporalMicros(d Datum) int64 {
	if d.T.Kind == Date {
		return d.I * 86400 * 1e6
	}
	return d.I
}

func asDec(d Datum) (decimal128.Num, int) {
	if isIntLike(d.T) {
		return decimal128.FromI64(d.I), 0
	}
	return d.Dec, d.T.Scale
}

// Float returns the value as a float64 (strings parse their numeric prefix).
func (d Datum) Float() float64 {
	switch {
	case d.T.IsFloat():
		return d.F
	case d.T.Kind == Decimal || d.T.Kind == LargeInt:
		return d.Dec.ToFloat64(int32(d.T.Scale))
	case d.T.IsString():
		f, _ := strconv.ParseFloat(strings.TrimSpace(d.S), 64)
		return f
	}
	return float64(d.I)
}

var daysIn = [13]int{0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

// parseISODate parses exactly YYYY-MM-DD without allocating (the bulk-load
// form of DATE); anything else is left to the general parser.
func parseISODate(s string) (int32, bool) {
	num := func(a, b int) (int, bool) {
		v := 0
		for i := a; i < b; i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	y, ok1 := num(0, 4)
	m, ok2 := num(5, 7)
	d, ok3 := num(8, 10)
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 || d > daysIn[m] {
		return 0, false
	}
	leap := y%4 == 0 && (y%100 != 0 || y%400 == 0)
	if m == 2 && d == 29 && !leap {
		return 0, false
	}
	return daysFromCivil(y, m, d), true
}

// daysFromCivil is Howard Hinnant's days_from_civil: days since 1970-01-01
// of a proleptic Gregorian date.
func daysFromCivil(y, m, d int) int32 {
	if m <= 2 {
		y--
	}
	era := y
	if era < 0 {
		era -= 399
	}
	era /= 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int32(era*146097 + doe - 719468)
}
