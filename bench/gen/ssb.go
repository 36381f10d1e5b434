package gen

import (
	"math"
	"strconv"
)

// SSB returns the five Star Schema Benchmark tables at scale factor sf, with
// the cardinalities and domains of ssb-dbgen.
func SSB(sf float64) []Table {
	nCust := scaled(sf, 30000)
	nSupp := scaled(sf, 2000)
	nPart := scaled(sf, 200000)
	if sf >= 1 {
		nPart = 200000 * int64(1+math.Floor(math.Log2(sf)))
	}
	nOrders := scaled(sf, 1500000)
	return []Table{
		ssbDates(),
		chunked("customer", nCust, 20000, func(k int64, r *rng, b []byte) []byte {
			return ssbPerson(b, r, k, "Customer#", true)
		}),
		chunked("supplier", nSupp, 20000, func(k int64, r *rng, b []byte) []byte {
			return ssbPerson(b, r, k, "Supplier#", false)
		}),
		chunked("part", nPart, 20000, ssbPart),
		ssbLineorder(nOrders, nCust, nPart, nSupp),
	}
}

// ssbCity is the nation's name cut or padded to 9 characters plus a digit.
func ssbCity(b []byte, nation string, d int64) []byte {
	n := len(b)
	b = append(b, nation...)
	if len(b)-n > 9 {
		b = b[:n+9]
	}
	for len(b)-n < 9 {
		b = append(b, ' ')
	}
	return append(b, byte('0'+d))
}

func ssbPerson(b []byte, r *rng, k int64, prefix string, customer bool) []byte {
	nat := r.between(0, 24)
	b = strconv.AppendInt(b, k, 10)
	b = append(b, '|')
	b = append(b, prefix...)
	b = appendPadded(b, k, 9)
	b = append(b, '|')
	b = r.alnum(b, 10, 25)
	b = append(b, '|')
	b = ssbCity(b, nations[nat].name, r.between(0, 9))
	b = append(b, '|')
	b = append(b, nations[nat].name...)
	b = append(b, '|')
	b = append(b, regions[nations[nat].region]...)
	b = append(b, '|')
	b = r.phone(b, nat)
	if customer {
		b = append(b, '|')
		b = append(b, r.pick(segments)...)
	}
	return append(b, '\n')
}

func ssbPart(k int64, r *rng, b []byte) []byte {
	m := r.between(1, 5)
	c := r.between(1, 5)
	b = strconv.AppendInt(b, k, 10)
	b = append(b, '|')
	b = r.partName(b, 2)
	b = append(b, "|MFGR#"...)
	b = strconv.AppendInt(b, m, 10)
	b = append(b, "|MFGR#"...)
	b = strconv.AppendInt(b, m*10+c, 10)
	b = append(b, "|MFGR#"...)
	b = strconv.AppendInt(b, m*10+c, 10)
	b = strconv.AppendInt(b, r.between(1, 40), 10)
	b = append(b, '|')
	b = append(b, r.pick(colors)...)
	b = append(b, '|')
	b = r.partType(b)
	b = append(b, '|')
	b = strconv.AppendInt(b, r.between(1, 50), 10)
	b = append(b, '|')
	b = r.container(b)
	return append(b, '\n')
}

var (
	weekdays   = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	monthNames = []string{"January", "February", "March", "April", "May", "June", "July",
		"August", "September", "October", "November", "December"}
	seasons = []string{"Winter", "Winter", "Spring", "Spring", "Spring", "Summer", "Summer",
		"Summer", "Fall", "Fall", "Fall", "Christmas"}
)

// ssbDates is the date dimension, 1992-01-01 .. 1998-12-31, one row per day.
func ssbDates() Table {
	last := int(dayOf(1998, 12, 31))
	return Table{Name: "dates", Chunks: 1, Chunk: func(_ int, _ *rng, b []byte) ([]byte, int64) {
		for i := 0; i <= last; i++ {
			t := days.t[i]
			mon := int(t.Month())
			b = strconv.AppendInt(b, days.num[i], 10)
			b = append(b, '|')
			b = append(b, monthNames[mon-1]...)
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(t.Day()), 10)
			b = append(b, ", "...)
			b = strconv.AppendInt(b, int64(t.Year()), 10)
			b = append(b, '|')
			b = append(b, weekdays[t.Weekday()]...)
			b = append(b, '|')
			b = append(b, monthNames[mon-1]...)
			b = append(b, '|')
			b = strconv.AppendInt(b, int64(t.Year()), 10)
			b = append(b, '|')
			b = strconv.AppendInt(b, int64(t.Year()*100+mon), 10)
			b = append(b, '|')
			b = append(b, monthNames[mon-1][:3]...)
			b = strconv.AppendInt(b, int64(t.Year()), 10)
			b = append(b, '|')
			b = strconv.AppendInt(b, int64(t.Weekday())+1, 10)
			b = append(b, '|')
			b = strconv.AppendInt(b, int64(t.Day()), 10)
			b = append(b, '|')
			b = strconv.AppendInt(b, int64(t.YearDay()), 10)
			b = append(b, '|')
			b = strconv.AppendInt(b, int64(mon), 10)
			b = append(b, '|')
			b = strconv.AppendInt(b, int64((t.YearDay()-1)/7+1), 10)
			b = append(b, '|')
			b = append(b, seasons[mon-1]...)
			b = append(b, '|')
			b = appendFlag(b, t.Weekday() == 6)
			b = append(b, '|')
			b = appendFlag(b, t.AddDate(0, 0, 1).Day() == 1)
			b = append(b, '|')
			b = appendFlag(b, (mon == 1 && t.Day() == 1) || (mon == 12 && t.Day() == 25) || (mon == 7 && t.Day() == 4))
			b = append(b, '|')
			b = appendFlag(b, t.Weekday() != 0 && t.Weekday() != 6)
			b = append(b, '\n')
		}
		return b, int64(last + 1)
	}}
}

func appendFlag(b []byte, v bool) []byte {
	if v {
		return append(b, '1')
	}
	return append(b, '0')
}

const ordersPerChunk = 10000

// ssbLineorder: 1..7 lines per order, prices from the part's retail price.
func ssbLineorder(nOrders, nCust, nPart, nSupp int64) Table {
	lastOrderDay := int64(dayOf(1998, 8, 2))
	chunks := int((nOrders + ordersPerChunk - 1) / ordersPerChunk)
	type line struct{ part, supp, qty, ext, disc, rev, cost, tax, commit int64 }
	return Table{Name: "lineorder", Chunks: chunks, Chunk: func(ci int, r *rng, b []byte) ([]byte, int64) {
		lo := int64(ci) * ordersPerChunk
		hi := min(lo+ordersPerChunk, nOrders)
		var rows int64
		var lines [7]line
		for o := lo + 1; o <= hi; o++ {
			cust := r.between(1, nCust)
			od := r.between(0, lastOrderDay)
			prio := r.pick(priorities)
			n := int(r.between(1, 7))
			var total int64
			for i := 0; i < n; i++ {
				l := &lines[i]
				l.part = r.between(1, nPart)
				l.supp = r.between(1, nSupp)
				l.qty = r.between(1, 50)
				price := retailCents(l.part)
				l.ext = l.qty * price
				l.disc = r.between(0, 10)
				l.rev = l.ext * (100 - l.disc) / 100
				l.cost = 6 * price / 10
				l.tax = r.between(0, 8)
				l.commit = od + r.between(30, 90)
				total += l.ext
			}
			for i := 0; i < n; i++ {
				l := &lines[i]
				b = strconv.AppendInt(b, o, 10)
				b = append(b, '|')
				b = strconv.AppendInt(b, int64(i+1), 10)
				b = append(b, '|')
				b = strconv.AppendInt(b, cust, 10)
				b = append(b, '|')
				b = strconv.AppendInt(b, l.part, 10)
				b = append(b, '|')
				b = strconv.AppendInt(b, l.supp, 10)
				b = append(b, '|')
				b = strconv.AppendInt(b, days.num[od], 10)
				b = append(b, '|')
				b = append(b, prio...)
				b = append(b, "|0|"...)
				b = strconv.AppendInt(b, l.qty, 10)
				b = append(b, '|')
				b = strconv.AppendInt(b, l.ext, 10)
				b = append(b, '|')
				b = strconv.AppendInt(b, total, 10)
				b = append(b, '|')
				b = strconv.AppendInt(b, l.disc, 10)
				b = append(b, '|')
				b = strconv.AppendInt(b, l.rev, 10)
				b = append(b, '|')
				b = strconv.AppendInt(b, l.cost, 10)
				b = append(b, '|')
				b = strconv.AppendInt(b, l.tax, 10)
				b = append(b, '|')
				b = strconv.AppendInt(b, days.num[l.commit], 10)
				b = append(b, '|')
				b = append(b, r.pick(shipModes)...)
				b = append(b, '\n')
			}
			rows += int64(n)
		}
		return b, rows
	}}
}
