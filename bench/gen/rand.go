package gen

import (
	"strconv"
	"time"
)

// rng is splitmix64: tiny, fast and good enough for data generation.
type rng struct{ s uint64 }

func newRNG(seed int64, table string, chunk int) *rng {
	h := uint64(seed)*0x9E3779B97F4A7C15 + uint64(chunk)*0xBF58476D1CE4E5B9
	for i := 0; i < len(table); i++ {
		h = (h ^ uint64(table[i])) * 0x100000001B3
	}
	r := &rng{s: h}
	r.next()
	return r
}

func (r *rng) next() uint64 {
	r.s += 0x9E3779B97F4A7C15
	z := r.s
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// between returns a uniform integer in [lo, hi].
func (r *rng) between(lo, hi int64) int64 {
	return lo + int64(r.next()%uint64(hi-lo+1))
}

func (r *rng) pick(xs []string) string { return xs[r.next()%uint64(len(xs))] }

// appendCents formats an amount in cents as a decimal with two places.
func appendCents(b []byte, c int64) []byte {
	if c < 0 {
		b = append(b, '-')
		c = -c
	}
	b = strconv.AppendInt(b, c/100, 10)
	f := c % 100
	return append(b, '.', byte('0'+f/10), byte('0'+f%10))
}

func appendPadded(b []byte, v int64, width int) []byte {
	var tmp [20]byte
	s := strconv.AppendInt(tmp[:0], v, 10)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// day is a day number counted from 1992-01-01.
type day int

var epoch = time.Date(1992, 1, 1, 0, 0, 0, 0, time.UTC)

// dayTable holds the formatted dates used by both benchmarks (1992..1999).
type dayTable struct {
	iso []string // YYYY-MM-DD
	num []int64  // YYYYMMDD
	t   []time.Time
}

var days = func() dayTable {
	n := 8 * 366
	dt := dayTable{iso: make([]string, n), num: make([]int64, n), t: make([]time.Time, n)}
	for i := 0; i < n; i++ {
		t := epoch.AddDate(0, 0, i)
		dt.t[i] = t
		dt.iso[i] = t.Format("2006-01-02")
		dt.num[i] = int64(t.Year()*10000 + int(t.Month())*100 + t.Day())
	}
	return dt
}()

func dayOf(y, m, d int) day {
	return day(time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Sub(epoch).Hours() / 24)
}

// text appends a pseudo-random comment of n bytes at most, from a word pool.
func (r *rng) text(b []byte, minLen, maxLen int) []byte {
	n := int(r.between(int64(minLen), int64(maxLen)))
	start := len(b)
	for len(b)-start < n {
		if len(b) > start {
			b = append(b, ' ')
		}
		b = append(b, textWords[r.next()%uint64(len(textWords))]...)
	}
	if len(b)-start > maxLen {
		b = b[:start+maxLen]
	}
	return b
}

var textWords = []string{"furiously", "quickly", "carefully", "blithely", "slyly", "ironic",
	"final", "regular", "express", "bold", "pending", "even", "silent", "unusual", "deposits",
	"packages", "accounts", "theodolites", "foxes", "pinto", "beans", "instructions", "dependencies",
	"asymptotes", "platelets", "ideas", "courts", "dolphins", "warhorses", "sheaves", "about",
	"above", "according", "across", "after", "against", "along", "among", "around", "sleep",
	"wake", "haggle", "nag", "use", "boost", "affix", "detect", "integrate", "cajole", "engage",
	"special", "requests", "unusual", "frays", "gifts", "excuses", "attainments", "somas"}

// alnum appends a random address-like string.
func (r *rng) alnum(b []byte, minLen, maxLen int) []byte {
	const cs = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789,"
	n := int(r.between(int64(minLen), int64(maxLen)))
	for i := 0; i < n; i++ {
		b = append(b, cs[r.next()%uint64(len(cs))])
	}
	return b
}

func (r *rng) phone(b []byte, nation int64) []byte {
	b = strconv.AppendInt(b, nation+10, 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, r.between(100, 999), 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, r.between(100, 999), 10)
	b = append(b, '-')
	return strconv.AppendInt(b, r.between(1000, 9999), 10)
}
