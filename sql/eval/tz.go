package eval

import (
	"strconv"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // zones for convert_tz and time_zone on machines without zoneinfo

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// UnknownTimeZone is MySQL's ER_UNKNOWN_TIME_ZONE, which Doris also answers.
var UnknownTimeZone = sqlerr.Kind{Code: 1298, State: "HY000", Format: "Unknown or incorrect time zone: '%s'"}

// zoneCache keeps loaded zones: time.LoadLocation reads and parses the
// embedded database on every call, and convert_tz asks per row.
var zoneCache sync.Map

// LoadZone resolves a MySQL/Doris time zone name: 'SYSTEM' (the server's
// system_time_zone, UTC), an offset '+08:00' / '-5:30' (MySQL's range
// -13:59 to +14:00), 'UTC', 'CST' (Doris: Asia/Shanghai) or an IANA name.
func LoadZone(name string) (*time.Location, error) {
	if l, ok := zoneCache.Load(name); ok {
		return l.(*time.Location), nil
	}
	l, ok := parseZone(name)
	if !ok {
		return nil, UnknownTimeZone.New(name)
	}
	zoneCache.Store(name, l)
	return l, nil
}

func parseZone(name string) (*time.Location, bool) {
	switch strings.ToUpper(name) {
	case "SYSTEM", "UTC", "GMT", "Z":
		return time.UTC, true
	case "CST":
		name = "Asia/Shanghai"
	}
	if name != "" && (name[0] == '+' || name[0] == '-') {
		h, m, ok := strings.Cut(name[1:], ":")
		if !ok || len(m) != 2 || h == "" || len(h) > 2 {
			return nil, false
		}
		hh, err1 := strconv.Atoi(h)
		mm, err2 := strconv.Atoi(m)
		if err1 != nil || err2 != nil || mm > 59 {
			return nil, false
		}
		off := hh*3600 + mm*60
		if name[0] == '-' {
			off = -off
		}
		if off > 14*3600 || off < -(13*3600+59*60) {
			return nil, false
		}
		return time.FixedZone(name, off), true
	}
	if name == "" {
		return nil, false // LoadLocation's "" is UTC; MySQL refuses it
	}
	l, err := time.LoadLocation(name)
	if err != nil || name == "Local" {
		return nil, false
	}
	return l, true
}

// IsUTC reports whether a zone name means UTC (the default, which needs
// no zone argument at evaluation).
func IsUTC(name string) bool {
	l, err := LoadZone(name)
	if err != nil {
		return false
	}
	if l == time.UTC {
		return true
	}
	switch name {
	case "+00:00", "-00:00", "+0:00", "-0:00":
		return true
	}
	return false
}

// wallMicros is instant t as wall-clock microseconds in loc, the way
// DATETIME values are kept (a zone-less civil time).
func wallMicros(t time.Time, loc *time.Location) int64 {
	_, off := t.In(loc).Zone()
	return t.UnixMicro() + int64(off)*1e6
}

// unixOfWall is wallMicros's inverse: the instant (Unix microseconds) of a
// civil time in loc. A time skipped by a DST change resolves as Go does.
func unixOfWall(us int64, loc *time.Location) int64 {
	if loc == time.UTC {
		return us
	}
	y, m, d, h, mi, s, micro := civilTime(us)
	return time.Date(y, time.Month(m), d, h, mi, s, micro*1000, loc).UnixMicro()
}
