package slt

import (
	"crypto/md5"
	"encoding/hex"
	"math"
	"slices"
	"strconv"
	"strings"
)

// FormatValue renders one result value the way the reference sqllogictest
// runner does for column type typ: NULL as "NULL"; I as a 64-bit integer
// (numeric text is converted and truncated toward zero, non-numeric text
// reads its numeric prefix or 0, like sqlite3_column_int64); R as "%.3f";
// T as the text itself, "(empty)" when empty, with bytes outside printable
// ASCII replaced by '@'.
func FormatValue(typ byte, v []byte, null bool) string {
	if null {
		return "NULL"
	}
	switch typ {
	case 'I':
		return formatInt(string(v))
	case 'R':
		return strconv.FormatFloat(numericPrefix(string(v)), 'f', 3, 64)
	}
	if len(v) == 0 {
		return "(empty)"
	}
	out := []byte(nil)
	for i, c := range v {
		if c < ' ' || c > '~' {
			if out == nil {
				out = append([]byte(nil), v...)
			}
			out[i] = '@'
		}
	}
	if out != nil {
		return string(out)
	}
	return string(v)
}

func formatInt(s string) string {
	t := strings.TrimSpace(s)
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		return strconv.FormatInt(n, 10)
	}
	f := numericPrefix(t)
	switch {
	case math.IsNaN(f):
		return "0"
	case f >= math.MaxInt64:
		return strconv.FormatInt(math.MaxInt64, 10)
	case f <= math.MinInt64:
		return strconv.FormatInt(math.MinInt64, 10)
	}
	return strconv.FormatInt(int64(f), 10)
}

// numericPrefix parses the longest leading number of s (after spaces), or 0.
func numericPrefix(s string) float64 {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f
	} else if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		return f
	}
	end := 0
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := func() bool {
		st := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i > st
	}
	ok := digits()
	if ok {
		end = i
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() || ok {
			ok = true
			end = i
		}
	}
	if ok && i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() {
			end = i
		} else {
			i = j
		}
	}
	if end == 0 {
		return 0
	}
	f, _ := strconv.ParseFloat(strings.TrimSuffix(s[:end], "."), 64)
	return f
}

// SortValues orders a flat row-major value list of ncol columns as mode says:
// rowsort compares rows column by column as strings, valuesort sorts every
// value on its own. It sorts in place.
func SortValues(vals []string, ncol int, mode SortMode) {
	switch mode {
	case ValueSort:
		slices.Sort(vals)
	case RowSort:
		if ncol <= 0 || len(vals)%ncol != 0 {
			return
		}
		rows := make([][]string, len(vals)/ncol)
		for i := range rows {
			rows[i] = vals[i*ncol : (i+1)*ncol : (i+1)*ncol]
		}
		sorted := make([][]string, len(rows))
		copy(sorted, rows)
		slices.SortStableFunc(sorted, func(a, b []string) int {
			for k := range a {
				if c := strings.Compare(a[k], b[k]); c != 0 {
					return c
				}
			}
			return 0
		})
		flat := make([]string, 0, len(vals))
		for _, r := range sorted {
			flat = append(flat, r...)
		}
		copy(vals, flat)
	}
}

// HashValues is the md5 (hex) of every value followed by a newline.
func HashValues(vals []string) string {
	h := md5.New()
	for _, v := range vals {
		h.Write([]byte(v))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}
