package eval

import (
	"strconv"
	"strings"
	"time"

	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Doris's date family beyond MySQL's core (datefn.go): truncation, unit
// arithmetic and differences, MySQL week numbering and time zones.

func unitAddKernel(unit string, sign int64) kernel {
	return func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		u := newUsOf(args[0])
		ns := i64s(args[1])
		return ev.temporalOut(c.T, args, func(i int) (int64, bool) {
			return shiftTime(u.at(i), sign*ns[args[1].idx(i)], unit)
		}), nil
	}
}

// maxShiftUs bounds a shift in microseconds: more than the span of the
// years 0000–9999 (3.2e17 µs), far below int64's 9.2e18.
const maxShiftUs = 4e17

// unitStep is an INTERVAL unit's length: step microseconds, or months for
// the calendar units; ok is false for a unit dorisgo does not know.
func unitStep(unit string) (step, months int64, ok bool) {
	switch unit {
	case "MICROSECOND":
		step = 1
	case "SECOND":
		step = 1e6
	case "MINUTE":
		step = 60e6
	case "HOUR":
		step = 3600e6
	case "DAY":
		step = usPerDay
	case "WEEK":
		step = 7 * usPerDay
	case "MONTH":
		months = 1
	case "QUARTER":
		months = 3
	case "YEAR":
		months = 12
	default:
		return 0, 0, false
	}
	return step, months, true
}

// shiftTime adds n units to a datetime in microseconds; month units clamp
// the day to the target month's last (MySQL).
func shiftTime(us, n int64, unit string) (int64, bool) {
	step, months, ok := unitStep(unit)
	if !ok {
		return 0, false
	}
	if months == 0 {
		// Out of range past maxShiftUs either way; the bound keeps n*step
		// from overflowing. (It was 1e13 µs, 115 days: DAYS_ADD(d, 300)
		// gave NULL.)
		if n > maxShiftUs/step || n < -maxShiftUs/step {
			return 0, false
		}
		return us + n*step, true
	}
	if n > 120000 || n < -120000 {
		return 0, false
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
}

// unitDiff is TIMESTAMPDIFF(unit, a, b): whole units from a to b.
func unitDiff(a, b int64, unit string) int64 {
	switch unit {
	case "MICROSECOND":
		return b - a
	case "SECOND":
		return (b - a) / 1e6
	case "MINUTE":
		return (b - a) / 60e6
	case "HOUR":
		return (b - a) / 3600e6
	case "DAY":
		return (b - a) / usPerDay
	case "WEEK":
		return (b - a) / (7 * usPerDay)
	case "MONTH":
		return monthsBetween(a, b)
	case "QUARTER":
		return monthsBetween(a, b) / 3
	case "YEAR":
		return monthsBetween(a, b) / 12
	}
	return 0
}

// monthsBetween counts whole months from a to b (negative if b < a): a
// month is complete when b's day and time reach a's.
func monthsBetween(a, b int64) int64 {
	if b < a {
		return -monthsBetween(b, a)
	}
	da, db := floorDiv(a, usPerDay), floorDiv(b, usPerDay)
	y1, m1, d1 := civil(int32(da))
	y2, m2, d2 := civil(int32(db))
	t1, t2 := a-da*usPerDay, b-db*usPerDay
	n := int64(y2-y1)*12 + int64(m2-m1)
	if d2 < d1 || d2 == d1 && t2 < t1 {
		n--
	}
	return n
}

func diffKernel(unit string) kernel {
	return func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		a, b := newUsOf(args[0]), newUsOf(args[1])
		m := ev.rows(args)
		buf, out := fixedBuf[int64](ev.mem, m)
		for i := 0; i < m; i++ {
			if !args[0].isNull(i) && !args[1].isNull(i) {
				out[i] = unitDiff(b.at(i), a.at(i), unit)
			}
		}
		return ev.fixedVec(types.BigIntT, m, ev.validity(m, args...), buf, args), nil
	}
}

// MySQL's week numbering (sql-common/my_time.cc calc_week).
const (
	weekMondayFirst  = 1
	weekYear         = 2
	weekFirstWeekday = 4
)

func weekMode(mode int) int {
	f := mode & 7
	if f&weekMondayFirst == 0 {
		f ^= weekFirstWeekday
	}
	return f
}

func daysInYear(y int) int {
	if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		return 366
	}
	return 365
}

// weekdayOf: 0 = Monday (sundayFirst: 0 = Sunday) of days since 1970.
func weekdayOf(days int64, sundayFirst bool) int {
	if sundayFirst {
		return int(((days+4)%7 + 7) % 7)
	}
	return int(((days+3)%7 + 7) % 7)
}

// calcWeek returns the week number and the year it belongs to.
func calcWeek(days int64, behaviour int) (week, year int) {
	y, m, d := civil(int32(days))
	daynr := days
	first := int64(daysFrom(y, 1, 1))
	mondayFirst := behaviour&weekMondayFirst != 0
	wy := behaviour&weekYear != 0
	firstWeekday := behaviour&weekFirstWeekday != 0
	weekday := weekdayOf(first, !mondayFirst)
	year = y
	if m == 1 && d <= 7-weekday {
		if !wy && (firstWeekday && weekday != 0 || !firstWeekday && weekday >= 4) {
			return 0, year
		}
		wy = true
		year--
		n := daysInYear(year)
		first -= int64(n)
		weekday = (weekday + 53*7 - n) % 7
	}
	var dd int64
	if firstWeekday && weekday != 0 || !firstWeekday && weekday >= 4 {
		dd = daynr - (first + int64(7-weekday))
	} else {
		dd = daynr - (first - int64(weekday))
	}
	if wy && dd >= 52*7 {
		weekday = (weekday + daysInYear(year)) % 7
		if !firstWeekday && weekday < 4 || firstWeekday && weekday == 0 {
			return 1, year + 1
		}
	}
	return int(dd/7) + 1, year
}

func weekKernel(yearweek bool) kernel {
	return func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		u := newUsOf(args[0])
		var modes []int64
		if len(args) == 2 {
			modes = i64s(args[1])
		}
		m := ev.rows(args)
		buf, out := fixedBuf[int64](ev.mem, m)
		for i := 0; i < m; i++ {
			if args[0].isNull(i) || len(args) == 2 && args[1].isNull(i) {
				continue
			}
			mode := 0
			if modes != nil {
				mode = int(modes[args[1].idx(i)])
			}
			days := floorDiv(u.at(i), usPerDay)
			if yearweek {
				w, y := calcWeek(days, weekMode(mode)|weekYear)
				out[i] = int64(y*100 + w)
			} else {
				w, _ := calcWeek(days, weekMode(mode))
				out[i] = int64(w)
			}
		}
		return ev.fixedVec(types.BigIntT, m, ev.validity(m, args...), buf, args), nil
	}
}

var weekdayNames = map[string]int{ // 0 = Monday
	"MO": 0, "MON": 0, "MONDAY": 0, "TU": 1, "TUE": 1, "TUESDAY": 1, "WE": 2, "WED": 2, "WEDNESDAY": 2,
	"TH": 3, "THU": 3, "THURSDAY": 3, "FR": 4, "FRI": 4, "FRIDAY": 4, "SA": 5, "SAT": 5, "SATURDAY": 5,
	"SU": 6, "SUN": 6, "SUNDAY": 6,
}

// zoneArg reads the zone of a *_tz call (argument 0, a constant).
func zoneArg(args []vec) (*time.Location, error) {
	return LoadZone(strs(args[0]).Value(0))
}

var dateLibKernels = withUnits(map[string]kernel{
	"date_trunc": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		unit := strings.ToUpper(strs(args[1]).Value(0))
		u := newUsOf(args[0])
		return ev.temporalOut(c.T, args[:1], func(i int) (int64, bool) {
			us := u.at(i)
			days := floorDiv(us, usPerDay)
			y, m, _ := civil(int32(days))
			switch unit {
			case "SECOND":
				return floorDiv(us, 1e6) * 1e6, true
			case "MINUTE":
				return floorDiv(us, 60e6) * 60e6, true
			case "HOUR":
				return floorDiv(us, 3600e6) * 3600e6, true
			case "DAY":
				return days * usPerDay, true
			case "WEEK":
				return (days - int64(weekdayOf(days, false))) * usPerDay, true
			case "MONTH":
				return int64(daysFrom(y, m, 1)) * usPerDay, true
			case "QUARTER":
				return int64(daysFrom(y, (m-1)/3*3+1, 1)) * usPerDay, true
			case "YEAR":
				return int64(daysFrom(y, 1, 1)) * usPerDay, true
			}
			return 0, false
		}), nil
	},
	"timestampdiff": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		unit := strings.ToUpper(strs(args[0]).Value(0))
		a, b := newUsOf(args[1]), newUsOf(args[2])
		m := ev.rows(args)
		buf, out := fixedBuf[int64](ev.mem, m)
		for i := 0; i < m; i++ {
			if !args[1].isNull(i) && !args[2].isNull(i) {
				out[i] = unitDiff(a.at(i), b.at(i), unit)
			}
		}
		return ev.fixedVec(types.BigIntT, m, ev.validity(m, args[1:]...), buf, args), nil
	},
	"timestampadd": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		unit := strings.ToUpper(strs(args[0]).Value(0))
		ns := i64s(args[1])
		u := newUsOf(args[2])
		return ev.temporalOut(c.T, args[1:], func(i int) (int64, bool) {
			return shiftTime(u.at(i), ns[args[1].idx(i)], unit)
		}), nil
	},
	"timediff": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		a, b := newUsOf(args[0]), newUsOf(args[1])
		return strKernel(func(r *strRow) (string, bool) {
			return formatDuration(a.at(r.row) - b.at(r.row)), true
		})(ev, c, args)
	},
	"convert_tz": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		u := newUsOf(args[0])
		r := newStrRow(args)
		return ev.temporalOut(types.DateTimeT, args, func(i int) (int64, bool) {
			r.row = i
			from, err1 := LoadZone(r.s(1))
			to, err2 := LoadZone(r.s(2))
			if err1 != nil || err2 != nil {
				return 0, false
			}
			inst := unixOfWall(u.at(i), from)
			return wallMicros(time.UnixMicro(inst), to), true
		}), nil
	},
	"date_floor": dateFloorKernel,
	"date_ceil":  dateFloorKernel,
	"week":       weekKernel(false),
	"yearweek":   weekKernel(true),
	"weekofyear": i64Fn(func(us int64) int64 { w, _ := calcWeek(floorDiv(us, usPerDay), weekMode(3)); return int64(w) }),
	"dayname": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		u := newUsOf(args[0])
		return strKernel(func(r *strRow) (string, bool) {
			return dayNames[weekdayOf(floorDiv(u.at(r.row), usPerDay), false)], true
		})(ev, c, args)
	},
	"monthname": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		u := newUsOf(args[0])
		return strKernel(func(r *strRow) (string, bool) {
			_, m, _ := civil(int32(floorDiv(u.at(r.row), usPerDay)))
			return monthNames[m-1], true
		})(ev, c, args)
	},
	"to_monday": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		u := newUsOf(args[0])
		return ev.temporalOut(types.DateT, args, func(i int) (int64, bool) {
			days := floorDiv(u.at(i), usPerDay)
			return (days - int64(weekdayOf(days, false))) * usPerDay, true
		}), nil
	},
	"next_day": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		u := newUsOf(args[0])
		r := newStrRow(args)
		return ev.temporalOut(types.DateT, args, func(i int) (int64, bool) {
			r.row = i
			want, ok := weekdayNames[strings.ToUpper(strings.TrimSpace(r.s(1)))]
			if !ok {
				return 0, false
			}
			days := floorDiv(u.at(i), usPerDay)
			step := (want-weekdayOf(days, false)+6)%7 + 1
			return (days + int64(step)) * usPerDay, true
		}), nil
	},
	"makedate": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		ys, ds := i64s(args[0]), i64s(args[1])
		return ev.temporalOut(types.DateT, args, func(i int) (int64, bool) {
			y, d := ys[args[0].idx(i)], ds[args[1].idx(i)]
			if d <= 0 || y < 0 || y > 9999 || d > 3660000 {
				return 0, false
			}
			return (int64(daysFrom(int(y), 1, 1)) + d - 1) * usPerDay, true
		}), nil
	},
	"microsecond": i64Fn(func(us int64) int64 { return us - floorDiv(us, 1e6)*1e6 }),
	"utc_timestamp": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		return ev.constVec(types.Datum{T: types.DateTimeT, I: wallMicros(ev.instant(), time.UTC) / 1e6 * 1e6}), nil
	},
	"current_time": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		return ev.constVec(types.StringDatum(formatDate(ev.now(), "%H:%i:%s"))), nil
	},
	"from_unixtime_tz": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		loc, err := zoneArg(args)
		if err != nil {
			return vec{}, err
		}
		ns := i64s(args[1])
		if len(args) == 3 {
			return strKernel(func(r *strRow) (string, bool) {
				n := r.i(0)
				if n < 0 || n > 32536771199 {
					return "", false
				}
				return formatDate(wallMicros(time.Unix(n, 0), loc), r.s(1)), true
			})(ev, c, args[1:])
		}
		return ev.temporalOut(types.DateTimeT, args[1:], func(i int) (int64, bool) {
			n := ns[args[1].idx(i)]
			return wallMicros(time.Unix(n, 0), loc), n >= 0 && n <= 32536771199
		}), nil
	},
	"unix_timestamp_tz": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		loc, err := zoneArg(args)
		if err != nil {
			return vec{}, err
		}
		if len(args) == 3 {
			return intKernel(func(r *strRow) (int64, bool) {
				us, ok := parseDateFormat(r.s(1), r.s(2))
				return max(floorDiv(unixOfWall(us, loc), 1e6), 0), ok
			})(ev, c, args)
		}
		return i64Fn(func(us int64) int64 {
			return max(floorDiv(unixOfWall(us, loc), 1e6), 0)
		})(ev, c, args[1:])
	},
})

// dateFloorKernel rounds down (date_floor) or up (date_ceil) to a
// multiple of n units counted from Doris's origin 0001-01-01 00:00:00.
func dateFloorKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	unit := strings.ToUpper(strs(args[2]).Value(0))
	ceil := c.Fn == "date_ceil"
	u := newUsOf(args[0])
	ns := i64s(args[1])
	origin := int64(daysFrom(1, 1, 1)) * usPerDay
	return ev.temporalOut(c.T, args[:2], func(i int) (int64, bool) {
		us, n := u.at(i), ns[args[1].idx(i)]
		if n <= 0 {
			return 0, false
		}
		switch unit {
		case "MONTH", "QUARTER", "YEAR":
			per := map[string]int64{"MONTH": 1, "QUARTER": 3, "YEAR": 12}[unit] * n
			days := floorDiv(us, usPerDay)
			y, m, d := civil(int32(days))
			months := int64(y-1)*12 + int64(m-1)
			k := months / per * per
			start := int64(daysFrom(int(1+k/12), int(k%12)+1, 1)) * usPerDay
			if ceil && (k != months || d != 1 || us != start) {
				return shiftTime(start, per, "MONTH")
			}
			return start, true
		}
		var step int64
		switch unit {
		case "SECOND":
			step = 1e6
		case "MINUTE":
			step = 60e6
		case "HOUR":
			step = 3600e6
		case "DAY":
			step = usPerDay
		case "WEEK":
			step = 7 * usPerDay
		default:
			return 0, false
		}
		if n > maxShiftUs/step {
			return 0, false
		}
		step *= n
		q := floorDiv(us-origin, step)*step + origin
		if ceil && q != us {
			q += step
		}
		return q, true
	}), nil
}

// formatDuration prints a TIME value as MySQL: [-]HH:MM:SS[.ffffff],
// clamped to 838:59:59.
func formatDuration(us int64) string {
	neg := us < 0
	if neg {
		us = -us
	}
	const max = (838*3600 + 59*60 + 59) * 1e6
	if us > max {
		us = max
	}
	sec := us / 1e6
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	h := sec / 3600
	if h < 10 {
		b.WriteByte('0')
	}
	b.WriteString(strconv.FormatInt(h, 10))
	b.WriteByte(':')
	pad2(&b, int(sec/60%60))
	b.WriteByte(':')
	pad2(&b, int(sec%60))
	if f := us % 1e6; f != 0 {
		b.WriteString("." + strconv.FormatInt(f+1e6, 10)[1:])
	}
	return b.String()
}

// instant is the query's start as a time.Time.
func (ev *evaluator) instant() time.Time {
	if ev.ctx != nil && !ev.ctx.Now.IsZero() {
		return ev.ctx.Now
	}
	return time.Now()
}

// withUnits adds years_add/_sub/_diff and the other unit functions.
func withUnits(m map[string]kernel) map[string]kernel {
	for _, u := range []struct{ name, unit string }{
		{"years", "YEAR"}, {"months", "MONTH"}, {"weeks", "WEEK"}, {"days", "DAY"},
		{"hours", "HOUR"}, {"minutes", "MINUTE"}, {"seconds", "SECOND"},
	} {
		m[u.name+"_add"] = unitAddKernel(u.unit, 1)
		m[u.name+"_sub"] = unitAddKernel(u.unit, -1)
		m[u.name+"_diff"] = diffKernel(u.unit)
	}
	return m
}
