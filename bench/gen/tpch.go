package gen

import "strconv"

// TPCH returns the eight TPC-H tables at scale factor sf with the spec's
// cardinalities, key formulas and value domains (dbgen's CSV layout).
func TPCH(sf float64) []Table {
	nSupp := scaled(sf, 10000)
	nPart := scaled(sf, 200000)
	nCust := scaled(sf, 150000)
	nOrders := scaled(sf, 1500000)
	nClerk := scaled(sf, 1000)
	return []Table{
		tpchRegion(), tpchNation(),
		chunked("supplier", nSupp, 20000, func(k int64, r *rng, b []byte) []byte {
			nat := r.between(0, 24)
			b = strconv.AppendInt(b, k, 10)
			b = append(b, "|Supplier#"...)
			b = appendPadded(b, k, 9)
			b = append(b, '|')
			b = r.alnum(b, 10, 40)
			b = append(b, '|')
			b = strconv.AppendInt(b, nat, 10)
			b = append(b, '|')
			b = r.phone(b, nat)
			b = append(b, '|')
			b = appendCents(b, r.between(-99999, 999999))
			b = append(b, '|')
			// Spec: 5 per 10,000 suppliers complain, 5 recommend (Q16).
			switch k % 2000 {
			case 7:
				b = append(b, "careful Customer slyly Complaints "...)
			case 1007:
				b = append(b, "even Customer quickly Recommends "...)
			}
			b = r.text(b, 25, 60)
			return append(b, '\n')
		}),
		chunked("part", nPart, 20000, func(k int64, r *rng, b []byte) []byte {
			m := r.between(1, 5)
			b = strconv.AppendInt(b, k, 10)
			b = append(b, '|')
			b = r.partName(b, 5)
			b = append(b, "|Manufacturer#"...)
			b = strconv.AppendInt(b, m, 10)
			b = append(b, "|Brand#"...)
			b = strconv.AppendInt(b, m*10+r.between(1, 5), 10)
			b = append(b, '|')
			b = r.partType(b)
			b = append(b, '|')
			b = strconv.AppendInt(b, r.between(1, 50), 10)
			b = append(b, '|')
			b = r.container(b)
			b = append(b, '|')
			b = appendCents(b, retailCents(k))
			b = append(b, '|')
			b = r.text(b, 5, 22)
			return append(b, '\n')
		}),
		times(4, chunked("partsupp", nPart, 20000, func(k int64, r *rng, b []byte) []byte {
			for i := int64(0); i < 4; i++ {
				b = strconv.AppendInt(b, k, 10)
				b = append(b, '|')
				b = strconv.AppendInt(b, partSupp(k, i, nSupp), 10)
				b = append(b, '|')
				b = strconv.AppendInt(b, r.between(1, 9999), 10)
				b = append(b, '|')
				b = appendCents(b, r.between(100, 100000))
				b = append(b, '|')
				b = r.text(b, 49, 100)
				b = append(b, '\n')
			}
			return b
		})),
		chunked("customer", nCust, 20000, func(k int64, r *rng, b []byte) []byte {
			nat := r.between(0, 24)
			b = strconv.AppendInt(b, k, 10)
			b = append(b, "|Customer#"...)
			b = appendPadded(b, k, 9)
			b = append(b, '|')
			b = r.alnum(b, 10, 40)
			b = append(b, '|')
			b = strconv.AppendInt(b, nat, 10)
			b = append(b, '|')
			b = r.phone(b, nat)
			b = append(b, '|')
			b = appendCents(b, r.between(-99999, 999999))
			b = append(b, '|')
			b = append(b, r.pick(segments)...)
			b = append(b, '|')
			b = r.text(b, 29, 116)
			return append(b, '\n')
		}),
		tpchOrders("orders", nOrders, nCust, nPart, nSupp, nClerk),
		tpchOrders("lineitem", nOrders, nCust, nPart, nSupp, nClerk),
	}
}

// times fixes the row count of a table that writes k rows per generated key.
func times(k int64, t Table) Table {
	inner := t.Chunk
	t.Chunk = func(i int, r *rng, b []byte) ([]byte, int64) {
		b, n := inner(i, r, b)
		return b, n * k
	}
	return t
}

// partSupp is the spec's PS_SUPPKEY formula for the i-th supplier of a part.
func partSupp(part, i, nSupp int64) int64 {
	return (part+i*(nSupp/4+(part-1)/nSupp))%nSupp + 1
}

func tpchRegion() Table {
	return Table{Name: "region", Chunks: 1, Chunk: func(_ int, r *rng, b []byte) ([]byte, int64) {
		for i, n := range regions {
			b = strconv.AppendInt(b, int64(i), 10)
			b = append(b, '|')
			b = append(b, n...)
			b = append(b, '|')
			b = r.text(b, 31, 115)
			b = append(b, '\n')
		}
		return b, int64(len(regions))
	}}
}

func tpchNation() Table {
	return Table{Name: "nation", Chunks: 1, Chunk: func(_ int, r *rng, b []byte) ([]byte, int64) {
		for i, n := range nations {
			b = strconv.AppendInt(b, int64(i), 10)
			b = append(b, '|')
			b = append(b, n.name...)
			b = append(b, '|')
			b = strconv.AppendInt(b, n.region, 10)
			b = append(b, '|')
			b = r.text(b, 31, 114)
			b = append(b, '\n')
		}
		return b, int64(len(nations))
	}}
}

// orderKey makes the spec's sparse keys: 8 used out of every 32.
func orderKey(i int64) int64 { return (i-1)/8*32 + (i-1)%8 + 1 }

// tpchOrders generates orders and their lineitems from one RNG stream; name
// picks which of the two is written.
func tpchOrders(name string, nOrders, nCust, nPart, nSupp, nClerk int64) Table {
	start := int64(0)
	lastOrder := int64(dayOf(1998, 12, 31)) - 151
	current := int64(dayOf(1995, 6, 17))
	chunks := int((nOrders + ordersPerChunk - 1) / ordersPerChunk)
	lines := name == "lineitem"
	type li struct{ part, supp, qty, ext, disc, tax, ship, commit, receipt int64 }
	return Table{Name: name, Seed: "orders", Chunks: chunks, Chunk: func(ci int, r *rng, b []byte) ([]byte, int64) {
		lo := int64(ci) * ordersPerChunk
		hi := min(lo+ordersPerChunk, nOrders)
		var rows int64
		var ls [7]li
		var cmt []byte
		for i := lo + 1; i <= hi; i++ {
			key := orderKey(i)
			cust := r.between(1, nCust)
			for cust%3 == 0 && nCust > 2 {
				cust = r.between(1, nCust)
			}
			od := r.between(start, lastOrder)
			prio := r.pick(priorities)
			clerk := r.between(1, nClerk)
			cmt = r.text(cmt[:0], 19, 78)
			n := int(r.between(1, 7))
			var total int64
			nF, nO := 0, 0
			for j := 0; j < n; j++ {
				l := &ls[j]
				l.part = r.between(1, nPart)
				l.supp = partSupp(l.part, r.between(0, 3), nSupp)
				l.qty = r.between(1, 50)
				l.ext = l.qty * retailCents(l.part)
				l.disc = r.between(0, 10)
				l.tax = r.between(0, 8)
				l.ship = od + r.between(1, 121)
				l.commit = od + r.between(30, 90)
				l.receipt = l.ship + r.between(1, 30)
				total += l.ext * (100 + l.tax) * (100 - l.disc) / 10000
				if l.ship > current {
					nO++
				} else {
					nF++
				}
			}
			if !lines {
				status := byte('P')
				if nO == 0 {
					status = 'F'
				} else if nF == 0 {
					status = 'O'
				}
				b = strconv.AppendInt(b, key, 10)
				b = append(b, '|')
				b = strconv.AppendInt(b, cust, 10)
				b = append(b, '|', status, '|')
				b = appendCents(b, total)
				b = append(b, '|')
				b = append(b, days.iso[od]...)
				b = append(b, '|')
				b = append(b, prio...)
				b = append(b, "|Clerk#"...)
				b = appendPadded(b, clerk, 9)
				b = append(b, "|0|"...)
				b = append(b, cmt...)
				b = append(b, '\n')
				rows++
				continue
			}
			for j := 0; j < n; j++ {
				l := &ls[j]
				b = strconv.AppendInt(b, key, 10)
				b = append(b, '|')
				b = strconv.AppendInt(b, l.part, 10)
				b = append(b, '|')
				b = strconv.AppendInt(b, l.supp, 10)
				b = append(b, '|')
				b = strconv.AppendInt(b, int64(j+1), 10)
				b = append(b, '|')
				b = strconv.AppendInt(b, l.qty, 10)
				b = append(b, '|')
				b = appendCents(b, l.ext)
				b = append(b, "|0."...)
				b = appendPadded(b, l.disc, 2)
				b = append(b, "|0."...)
				b = appendPadded(b, l.tax, 2)
				b = append(b, '|')
				switch {
				case l.receipt > current:
					b = append(b, 'N')
				case (l.part+l.qty+int64(j))%2 == 0:
					b = append(b, 'R')
				default:
					b = append(b, 'A')
				}
				b = append(b, '|')
				if l.ship > current {
					b = append(b, 'O')
				} else {
					b = append(b, 'F')
				}
				b = append(b, '|')
				b = append(b, days.iso[l.ship]...)
				b = append(b, '|')
				b = append(b, days.iso[l.commit]...)
				b = append(b, '|')
				b = append(b, days.iso[l.receipt]...)
				b = append(b, '|')
				b = append(b, instructions[(l.part+int64(j))%4]...)
				b = append(b, '|')
				b = append(b, shipModes[(l.supp+l.qty)%7]...)
				b = append(b, '|')
				b = append(b, cmt[:min(len(cmt), 10+j*3)]...)
				b = append(b, '\n')
			}
			rows += int64(n)
		}
		return b, rows
	}}
}
