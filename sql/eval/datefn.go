package eval

import (
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

const usPerDay = 86400 * 1000000

// toDaysEpoch is MySQL's TO_DAYS('1970-01-01').
const toDaysEpoch = 719528

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// civil converts days since 1970-01-01 to a proleptic Gregorian date
// (H. Hinnant's algorithm: no time.Time per row).
func civil(days int32) (y, m, d int) {
	z := int64(days) + 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	yy := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	dd := doy - (153*mp+2)/5 + 1
	mm := mp + 3
	if mm > 12 {
		mm -= 12
	}
	if mm <= 2 {
		yy++
	}
	return int(yy), int(mm), int(dd)
}

// daysFrom is civil's inverse.
func daysFrom(y, m, d int) int32 {
	yy := int64(y)
	if m <= 2 {
		yy--
	}
	era := floorDiv(yy, 400)
	yoe := yy - era*400
	mm := int64(m)
	if mm > 2 {
		mm -= 3
	} else {
		mm += 9
	}
	doy := (153*mm+2)/5 + int64(d) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int32(era*146097 + doe - 719468)
}

func civilTime(us int64) (y, m, d, h, mi, s, micro int) {
	days := floorDiv(us, usPerDay)
	rem := us - days*usPerDay
	y, m, d = civil(int32(days))
	sec := rem / 1000000
	return y, m, d, int(sec / 3600), int(sec / 60 % 60), int(sec % 60), int(rem % 1000000)
}

func daysInMonth(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// usOf reads a DATE or DATETIME column as microseconds.
type usOf struct {
	v   vec
	d32 []arrow.Date32
	ts  []arrow.Timestamp
}

func newUsOf(v vec) usOf {
	u := usOf{v: v}
	switch a := v.arr.(type) {
	case *array.Date32:
		u.d32 = a.Date32Values()
	case *array.Timestamp:
		u.ts = a.TimestampValues()
	}
	return u
}

func (u usOf) at(i int) int64 {
	j := u.v.idx(i)
	if u.d32 != nil {
		return int64(u.d32[j]) * usPerDay
	}
	return int64(u.ts[j])
}

// i64Fn maps each valid row's microsecond value to a BIGINT.
func i64Fn(f func(us int64) int64) kernel {
	return func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		m := ev.rows(args)
		u := newUsOf(args[0])
		if u.d32 == nil && u.ts == nil {
			return vec{}, sqlerr.Assertf("eval: %s of %s", c.Fn, args[0].arr.DataType())
		}
		buf, out := fixedBuf[int64](ev.mem, m)
		valid := ev.validity(m, args...)
		var vb []byte
		if valid != nil {
			vb = valid.Bytes()
		}
		for i := 0; i < m; i++ {
			if validAt(vb, i) {
				out[i] = f(u.at(i))
			}
		}
		return ev.fixedVec(types.BigIntT, m, valid, buf, args), nil
	}
}

// temporalOut builds a DATE or DATETIME result; ok=false rows become NULL.
func (ev *evaluator) temporalOut(t types.T, args []vec, f func(i int) (us int64, ok bool)) vec {
	m := ev.rows(args)
	valid := ev.validityMut(m, args...)
	vb := valid.Bytes()
	if t.Kind == types.Date {
		buf, out := fixedBuf[arrow.Date32](ev.mem, m)
		for i := 0; i < m; i++ {
			if bitutil.BitIsSet(vb, i) {
				us, ok := f(i)
				if !ok || !inRange(us) {
					bitutil.ClearBit(vb, i)
					continue
				}
				out[i] = arrow.Date32(floorDiv(us, usPerDay))
			}
		}
		return ev.fixedVec(t, m, valid, buf, args)
	}
	buf, out := fixedBuf[arrow.Timestamp](ev.mem, m)
	for i := 0; i < m; i++ {
		if bitutil.BitIsSet(vb, i) {
			us, ok := f(i)
			if !ok || !inRange(us) {
				bitutil.ClearBit(vb, i)
				continue
			}
			out[i] = arrow.Timestamp(us)
		}
	}
	return ev.fixedVec(t, m, valid, buf, args)
}

// inRange: years 0000..9999 as MySQL DATETIME.
func inRange(us int64) bool {
	const lo = -62167219200 * 1000000   // 0000-01-01
	const hi = 253402300800*1000000 - 1 // 9999-12-31 23:59:59.999999
	return us >= lo && us <= hi
}

func dateFromDays(f func(y, m, d int) int) kernel {
	return i64Fn(func(us int64) int64 {
		y, m, d := civil(int32(floorDiv(us, usPerDay)))
		return int64(f(y, m, d))
	})
}

var dateKernels = map[string]kernel{
	"year":    dateFromDays(func(y, m, d int) int { return y }),
	"month":   dateFromDays(func(y, m, d int) int { return m }),
	"day":     dateFromDays(func(y, m, d int) int { return d }),
	"quarter": dateFromDays(func(y, m, d int) int { return (m + 2) / 3 }),
	"dayofyear": dateFromDays(func(y, m, d int) int {
		return int(daysFrom(y, m, d)-daysFrom(y, 1, 1)) + 1
	}),
	"dayofweek": i64Fn(func(us int64) int64 { return (floorDiv(us, usPerDay)+4)%7 + 1 }),    // 1 = Sunday
	"weekday":   i64Fn(func(us int64) int64 { return (floorDiv(us, usPerDay)%7 + 10) % 7 }), // 0 = Monday
	"hour":      i64Fn(func(us int64) int64 { return (us - floorDiv(us, usPerDay)*usPerDay) / 3600e6 }),
	"minute":    i64Fn(func(us int64) int64 { return (us / 60e6) % 60 }),
	"second":    i64Fn(func(us int64) int64 { return floorDiv(us, 1e6) % 60 }),
	"to_days":   i64Fn(func(us int64) int64 { return floorDiv(us, usPerDay) + toDaysEpoch }),
	"unix_timestamp": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		if len(args) == 0 {
			return ev.constVec(types.IntDatum(ev.instant().Unix())), nil
		}
		if len(args) == 2 { // unix_timestamp(string, format), Doris
			return intKernel(func(r *strRow) (int64, bool) {
				us, ok := parseDateFormat(r.s(0), r.s(1))
				return max(floorDiv(us, 1e6), 0), ok
			})(ev, c, args)
		}
		return i64Fn(func(us int64) int64 {
			if us < 0 {
				return 0
			}
			return us / 1e6
		})(ev, c, args)
	},
	"datediff": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		a, b := newUsOf(args[0]), newUsOf(args[1])
		m := ev.rows(args)
		buf, out := fixedBuf[int64](ev.mem, m)
		for i := 0; i < m; i++ {
			out[i] = (a.at(i) - b.at(i)) / usPerDay
		}
		return ev.fixedVec(types.BigIntT, m, ev.validity(m, args...), buf, args), nil
	},
	"date": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		u := newUsOf(args[0])
		return ev.temporalOut(types.DateT, args, func(i int) (int64, bool) { return u.at(i), true }), nil
	},
	"last_day": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		u := newUsOf(args[0])
		return ev.temporalOut(types.DateT, args, func(i int) (int64, bool) {
			y, m, _ := civil(int32(floorDiv(u.at(i), usPerDay)))
			return int64(daysFrom(y, m, daysInMonth(y, m))) * usPerDay, true
		}), nil
	},
	"from_days": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		ns := i64s(args[0])
		return ev.temporalOut(types.DateT, args, func(i int) (int64, bool) {
			n := ns[args[0].idx(i)]
			return (n - toDaysEpoch) * usPerDay, n >= 366 && n < 3652500
		}), nil
	},
	"date_add": dateAddKernel,
	"date_sub": dateAddKernel,
	"current_date": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		return ev.constVec(types.Datum{T: types.DateT, I: floorDiv(ev.now(), usPerDay)}), nil
	},
	"now": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		return ev.constVec(types.Datum{T: c.T, I: types.TruncMicros(wallMicros(ev.instant(), time.UTC), c.T.Scale)}), nil
	},
	"date_format": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		u := newUsOf(args[0])
		return strKernel(func(r *strRow) (string, bool) {
			return formatDate(u.at(r.row), r.s(1)), true
		})(ev, c, args)
	},
	"from_unixtime": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		ns := i64s(args[0])
		if len(args) == 2 {
			return strKernel(func(r *strRow) (string, bool) {
				n := r.i(0)
				if n < 0 || n > 32536771199 {
					return "", false
				}
				return formatDate(n*1e6, r.s(1)), true
			})(ev, c, args)
		}
		return ev.temporalOut(types.DateTimeT, args, func(i int) (int64, bool) {
			n := ns[args[0].idx(i)]
			return n * 1e6, n >= 0 && n <= 32536771199
		}), nil
	},
	"str_to_date": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		r := newStrRow(args)
		return ev.temporalOut(c.T, args, func(i int) (int64, bool) {
			r.row = i
			return parseDateFormat(r.s(0), r.s(1))
		}), nil
	},
}

// now is the query start time as wall-clock microseconds in UTC (seconds
// precision, as NOW() without fsp). UTC is the default time_zone (and
// system_time_zone); the binder folds clock functions in any other zone.
func (ev *evaluator) now() int64 {
	return floorDiv(wallMicros(ev.instant(), time.UTC), 1e6) * 1e6
}

func dateAddKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	unit := "DAY"
	if len(args) == 3 {
		unit = strings.ToUpper(strs(args[2]).Value(0))
	}
	sign := int64(1)
	if c.Fn == "date_sub" {
		sign = -1
	}
	u := newUsOf(args[0])
	ns := i64s(args[1])
	step, months, ok := unitStep(unit)
	if !ok {
		return vec{}, sqlerr.NotSupportedYet.New("INTERVAL unit " + unit)
	}
	return ev.temporalOut(c.T, args[:2], func(i int) (int64, bool) {
		us, n := u.at(i), sign*ns[args[1].idx(i)]
		if months == 0 {
			if n > 1e13 || n < -1e13 {
				return 0, false
			}
			return us + n*step, true
		}
		days := floorDiv(us, usPerDay)
		tod := us - days*usPerDay
		y, m, d := civil(int32(days))
		total := int64(y)*12 + int64(m-1) + n*months
		if total < 0 || total > 9999*12+11 {
			return 0, false
		}
		ny, nm := int(total/12), int(total%12)+1
		if dm := daysInMonth(ny, nm); d > dm {
			d = dm
		}
		return int64(daysFrom(ny, nm, d))*usPerDay + tod, true
	}), nil
}

var monthNames = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
var dayNames = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}

func pad2(b *strings.Builder, v int) {
	if v < 10 {
		b.WriteByte('0')
	}
	b.WriteString(strconv.Itoa(v))
}

// javaFormats are the Java-style patterns Doris's date_format and
// from_unixtime also accept, as their MySQL equivalents.
var javaFormats = map[string]string{
	"yyyyMMdd": "%Y%m%d", "yyyy-MM-dd": "%Y-%m-%d", "yyyy-MM-dd HH:mm:ss": "%Y-%m-%d %H:%i:%s",
}

// formatWeekModes are calc_week's behaviours for DATE_FORMAT's week
// specifiers (MySQL's make_date_time): %U Sunday first, %u Monday first,
// %V/%X and %v/%x the week-year pairs.
var formatWeekModes = map[byte]int{
	'U': weekFirstWeekday, 'u': weekMondayFirst,
	'V': weekYear | weekFirstWeekday, 'X': weekYear | weekFirstWeekday,
	'v': weekYear | weekMondayFirst, 'x': weekYear | weekMondayFirst,
}

// daySuffix is the English ordinal suffix of %D.
func daySuffix(d int) string {
	if d >= 11 && d <= 13 {
		return "th"
	}
	switch d % 10 {
	case 1:
		return "st"
	case 2:
		return "nd"
	case 3:
		return "rd"
	}
	return "th"
}

// formatDate implements DATE_FORMAT's specifiers (MySQL's full set).
func formatDate(us int64, f string) string {
	if j, ok := javaFormats[f]; ok {
		f = j
	}
	y, m, d, h, mi, s, micro := civilTime(us)
	wd := int((floorDiv(us, usPerDay)%7 + 10) % 7) // 0 = Monday
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 == len(f) {
			b.WriteByte(f[i])
			continue
		}
		i++
		h12 := h % 12
		if h12 == 0 {
			h12 = 12
		}
		switch f[i] {
		case 'Y':
			b.WriteString(strconv.Itoa(y + 10000)[1:])
		case 'y':
			pad2(&b, y%100)
		case 'm':
			pad2(&b, m)
		case 'c':
			b.WriteString(strconv.Itoa(m))
		case 'd':
			pad2(&b, d)
		case 'e':
			b.WriteString(strconv.Itoa(d))
		case 'D':
			b.WriteString(strconv.Itoa(d) + daySuffix(d))
		case 'U', 'u', 'V', 'v':
			w, _ := calcWeek(floorDiv(us, usPerDay), formatWeekModes[f[i]])
			pad2(&b, w)
		case 'X', 'x':
			_, wy := calcWeek(floorDiv(us, usPerDay), formatWeekModes[f[i]])
			b.WriteString(strconv.Itoa(wy + 10000)[1:])
		case 'H':
			pad2(&b, h)
		case 'k':
			b.WriteString(strconv.Itoa(h))
		case 'h', 'I':
			pad2(&b, h12)
		case 'l':
			b.WriteString(strconv.Itoa(h12))
		case 'i':
			pad2(&b, mi)
		case 's', 'S':
			pad2(&b, s)
		case 'f':
			b.WriteString(strconv.Itoa(micro + 1000000)[1:])
		case 'p':
			if h < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'M':
			b.WriteString(monthNames[m-1])
		case 'b':
			b.WriteString(monthNames[m-1][:3])
		case 'W':
			b.WriteString(dayNames[wd])
		case 'a':
			b.WriteString(dayNames[wd][:3])
		case 'w':
			b.WriteString(strconv.Itoa((wd + 1) % 7))
		case 'j':
			doy := int(daysFrom(y, m, d)-daysFrom(y, 1, 1)) + 1
			b.WriteString(strconv.Itoa(doy + 1000)[1:])
		case 'T':
			pad2(&b, h)
			b.WriteByte(':')
			pad2(&b, mi)
			b.WriteByte(':')
			pad2(&b, s)
		case 'r':
			pad2(&b, h12)
			b.WriteByte(':')
			pad2(&b, mi)
			b.WriteByte(':')
			pad2(&b, s)
			if h < 12 {
				b.WriteString(" AM")
			} else {
				b.WriteString(" PM")
			}
		default:
			b.WriteByte(f[i])
		}
	}
	return b.String()
}

// parseDateFormat implements STR_TO_DATE: numeric specifiers, month and
// day names, %j, %D, %r, %T and AM/PM (not the week specifiers %U %u %V
// %v %X %x).
func parseDateFormat(s, f string) (int64, bool) {
	y, m, d, h, mi, sec, micro := 0, 1, 1, 0, 0, 0, 0
	pm, hasP := false, false
	doy := 0 // %j: day of the year, overrides month and day
	i := 0
	num := func(max int) (int, bool) {
		for i < len(s) && s[i] == ' ' { // MySQL skips spaces before a number
			i++
		}
		j := i
		for j < len(s) && j-i < max && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i {
			return 0, false
		}
		v, _ := strconv.Atoi(s[i:j])
		i = j
		return v, true
	}
	for k := 0; k < len(f); k++ {
		if f[k] != '%' || k+1 == len(f) {
			if i < len(s) && s[i] == f[k] {
				i++
				continue
			}
			if f[k] == ' ' {
				continue
			}
			return 0, false
		}
		k++
		var ok bool
		switch f[k] {
		case 'Y':
			y, ok = num(4)
		case 'y':
			y, ok = num(2)
			if y < 70 {
				y += 2000
			} else {
				y += 1900
			}
		case 'm', 'c':
			m, ok = num(2)
		case 'd', 'e':
			d, ok = num(2)
		case 'H', 'k', 'h', 'I', 'l':
			h, ok = num(2)
		case 'i':
			mi, ok = num(2)
		case 's', 'S':
			sec, ok = num(2)
		case 'f':
			j := i
			micro, ok = num(6)
			for n := i - j; n < 6 && ok; n++ {
				micro *= 10
			}
		case 'p':
			hasP, ok = true, i+2 <= len(s)
			if ok {
				pm = strings.EqualFold(s[i:i+2], "PM")
				i += 2
			}
		case 'M', 'b':
			for n, name := range monthNames {
				cand := name
				if f[k] == 'b' {
					cand = name[:3]
				}
				if len(s)-i >= len(cand) && strings.EqualFold(s[i:i+len(cand)], cand) {
					m, ok = n+1, true
					i += len(cand)
					break
				}
			}
		case 'T':
			if h, ok = num(2); ok && i < len(s) && s[i] == ':' {
				i++
				if mi, ok = num(2); ok && i < len(s) && s[i] == ':' {
					i++
					sec, ok = num(2)
				}
			}
		case 'r':
			if h, ok = num(2); ok && i < len(s) && s[i] == ':' {
				i++
				if mi, ok = num(2); ok && i < len(s) && s[i] == ':' {
					i++
					if sec, ok = num(2); ok {
						for i < len(s) && s[i] == ' ' {
							i++
						}
						hasP, ok = true, i+2 <= len(s)
						if ok {
							pm = strings.EqualFold(s[i:i+2], "PM")
							i += 2
						}
					}
				}
			}
		case 'j':
			doy, ok = num(3)
		case 'D':
			if d, ok = num(2); ok && i+2 <= len(s) {
				i += 2 // the ordinal suffix
			}
		case 'a', 'W':
			for _, name := range dayNames {
				cand := name
				if f[k] == 'a' {
					cand = name[:3]
				}
				if len(s)-i >= len(cand) && strings.EqualFold(s[i:i+len(cand)], cand) {
					ok = true
					i += len(cand)
					break
				}
			}
		case '%':
			ok = i < len(s) && s[i] == '%'
			i++
		default:
			return 0, false
		}
		if !ok {
			return 0, false
		}
	}
	if hasP {
		if h == 12 {
			h = 0
		}
		if pm {
			h += 12
		}
	}
	if doy > 0 {
		if doy > daysInYear(y) {
			return 0, false
		}
		yd := daysFrom(y, 1, 1) + int32(doy) - 1
		y, m, d = civil(yd)
	}
	if m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m) || h > 23 || mi > 59 || sec > 59 {
		return 0, false
	}
	return int64(daysFrom(y, m, d))*usPerDay + int64(h)*3600e6 + int64(mi)*60e6 + int64(sec)*1e6 + int64(micro), true
}
