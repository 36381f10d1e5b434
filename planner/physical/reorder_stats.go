package physical

import (
	"github.com/dorisgo/dorisgo/sql/expr"
)

// statsOrder is the join order when statistics cover every equi conjunct
// of the run: the relation with the most rows first (as §2.6, the probe
// side of every join), then, for up to dpMaxRelations relations, the order
// dynamic programming finds with the fewest rows summed over the joins'
// outputs (dpOrder), or a bushy tree (dpBushy: a join whose build side is
// itself a join, e.g. supplier ⋈ nation before lineitem) when that sums
// to less than half of it; above that, greedily, the connected relation whose join with those placed yields the
// fewest estimated rows (|placed|·|r| / max(NDV) over its most selective
// conjunct; ties in written order); with none connected, the first
// remaining. ok is false without such statistics (the §2.6 order stands).
func (d *distPlanner) statsOrder(rows []int64, infos []condInfo, byRel [][]int) ([]int, *joinTree, bool) {
	if d.cstats == nil || len(rows) < 3 {
		return nil, nil, false // two relations: nothing to choose
	}
	for _, r := range rows {
		if r < 0 {
			return nil, nil, false
		}
	}
	ndv := func(e expr.Expr, capAt float64) (float64, bool) {
		s := d.refStat(e)
		if s == nil {
			return 0, false
		}
		return min(s.ndv, max(capAt, 1)), true
	}
	first := 0
	for i, r := range rows {
		if r > rows[first] {
			first = i
		}
	}
	if len(rows) <= dpMaxRelations {
		order, cost, card, ok := d.dpOrder(rows, first, infos, byRel, ndv)
		if !ok {
			return nil, nil, false
		}
		if t, bcost, ok := dpBushy(len(rows), card, infos); ok && bcost < bushyGain*cost {
			t.orient(first, card)
			if _, deep := t.leftDeep(); !deep {
				return order, t, true
			}
		}
		return order, nil, true
	}
	order := []int{first}
	placed := make([]bool, len(rows))
	placed[first] = true
	cur := float64(rows[first])
	for len(order) < len(rows) {
		best, bestRows := -1, 0.0
		for cand := range rows {
			if placed[cand] {
				continue
			}
			sel := 0.0
			for _, ci := range byRel[cand] {
				in := &infos[ci]
				side := in.equiSide(placed, cand)
				if side == 0 {
					continue
				}
				pe, ce := in.call.Args[0], in.call.Args[1]
				if side == 2 {
					pe, ce = ce, pe
				}
				np, ok1 := ndv(pe, cur)
				nc, ok2 := ndv(ce, float64(rows[cand]))
				if !ok1 || !ok2 {
					return nil, nil, false
				}
				sel = max(sel, max(np, nc))
			}
			if sel == 0 {
				continue
			}
			if est := cur * float64(rows[cand]) / sel; best < 0 || est < bestRows {
				best, bestRows = cand, est
			}
		}
		if best < 0 {
			for cand := range rows {
				if !placed[cand] {
					best, bestRows = cand, cur*float64(rows[cand])
					break
				}
			}
		}
		placed[best] = true
		order = append(order, best)
		cur = max(1, bestRows)
	}
	return order, nil, true
}

// dpMaxRelations bounds the runs ordered by dynamic programming (2^n
// subsets); longer runs are ordered greedily.
const dpMaxRelations = 8

// dpOrder is the left-deep order starting at first that minimizes the
// rows summed over every join's output (cost), with every set's rows
// (card, by bitmask) for dpBushy. A set's rows are the product of
// its relations' rows and, per pair of relations joined by equi
// conjuncts, 1/max(NDV) of the pair's most selective one, so they do not
// depend on the order that built the set. A relation joins a set it has a
// conjunct with; one with none joins only when no remaining relation has
// one (a cross join, as §2.6). Ties go to the written order.
func (d *distPlanner) dpOrder(rows []int64, first int, infos []condInfo, byRel [][]int,
	ndv func(expr.Expr, float64) (float64, bool)) (order []int, total float64, card []float64, ok bool) {
	n := len(rows)
	sel := make([][]float64, n)
	for i := range sel {
		sel[i] = make([]float64, n)
		for j := range sel[i] {
			sel[i][j] = 1
		}
	}
	for ci := range infos {
		in := &infos[ci]
		if in.call == nil || len(in.sides[0]) != 1 || len(in.sides[1]) != 1 || in.sides[0][0] == in.sides[1][0] {
			continue
		}
		a, b := in.sides[0][0], in.sides[1][0]
		na, ok1 := ndv(in.call.Args[0], float64(rows[a]))
		nb, ok2 := ndv(in.call.Args[1], float64(rows[b]))
		if !ok1 || !ok2 {
			return nil, 0, nil, false
		}
		if s := 1 / max(na, nb, 1); s < sel[a][b] {
			sel[a][b], sel[b][a] = s, s
		}
	}
	full := 1<<n - 1
	card = make([]float64, full+1)
	for set := 1; set <= full; set++ {
		c := 1.0
		for i := 0; i < n; i++ {
			if set&(1<<i) == 0 {
				continue
			}
			c *= float64(max(rows[i], 1))
			for j := 0; j < i; j++ {
				if set&(1<<j) != 0 {
					c *= sel[i][j]
				}
			}
		}
		card[set] = max(c, 1)
	}
	cost := make([]float64, full+1)
	prev := make([]int, full+1) // the relation added last; -1 unreached
	for i := range prev {
		prev[i] = -1
	}
	start := 1 << first
	prev[start] = first
	placed := make([]bool, n)
	connected := func(set, cand int) bool {
		for i := range placed {
			placed[i] = set&(1<<i) != 0
		}
		for _, ci := range byRel[cand] {
			if infos[ci].equiSide(placed, cand) != 0 {
				return true
			}
		}
		return false
	}
	for set := start; set <= full; set++ {
		if set&start == 0 || prev[set] < 0 {
			continue
		}
		var cands []int
		for r := 0; r < n; r++ {
			if set&(1<<r) == 0 && connected(set, r) {
				cands = append(cands, r)
			}
		}
		if len(cands) == 0 {
			for r := 0; r < n; r++ {
				if set&(1<<r) == 0 {
					cands = append(cands, r)
					break
				}
			}
		}
		for _, r := range cands {
			next := set | 1<<r
			c := cost[set] + card[next]
			if prev[next] < 0 || c < cost[next] {
				cost[next], prev[next] = c, r
			}
		}
	}
	if prev[full] < 0 {
		return nil, 0, nil, false
	}
	order = make([]int, 0, n)
	for set := full; set != start; {
		r := prev[set]
		order = append(order, r)
		set &^= 1 << r
	}
	order = append(order, first)
	for i, j := 0, len(order)-1; i < j; i, j = i+1, j-1 {
		order[i], order[j] = order[j], order[i]
	}
	return order, cost[full], card, true
}
