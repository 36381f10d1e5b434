package physical

import (
	"math/bits"

	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/sql/expr"
)

// joinTree is a bushy join order over a run's relations: a leaf (rel) or
// a join of two subtrees (left the probe side).
type joinTree struct {
	rel         int
	set         int // the relations below, as a bitmask
	left, right *joinTree
}

// bushyGain is how much of the left-deep order's rows a bushy order must
// save to be taken: near ties keep the left-deep one, whose probe side
// streams from the largest relation through every join.
const bushyGain = 0.5

// dpBushy is dynamic programming over every split of every connected set
// of the run's relations (each side a set of its own, joined by an equi
// conjunct across them), with the cost of a set the rows summed over its
// joins' outputs, as dpOrder's. card holds each set's rows. It returns the
// cheapest tree and its cost; ok false when some set can only be built by
// a cross join (dpOrder's left-deep order handles those).
func dpBushy(n int, card []float64, infos []condInfo) (*joinTree, float64, bool) {
	full := 1<<n - 1
	// Each equality's sides as bitmasks: a split (l, r) is connected when
	// one conjunct has a side within l and the other within r.
	type edge struct{ a, b int }
	var edges []edge
	for ci := range infos {
		in := &infos[ci]
		if in.call == nil || in.foreign {
			continue
		}
		var a, b int
		for _, r := range in.sides[0] {
			a |= 1 << r
		}
		for _, r := range in.sides[1] {
			b |= 1 << r
		}
		if a != 0 && b != 0 && a&b == 0 {
			edges = append(edges, edge{a, b})
		}
	}
	connected := func(l, r int) bool {
		for _, e := range edges {
			if (e.a&l == e.a && e.b&r == e.b) || (e.a&r == e.a && e.b&l == e.b) {
				return true
			}
		}
		return false
	}
	cost := make([]float64, full+1)
	split := make([]int, full+1) // the left subset of a set's best split; 0 unreached
	for set := 1; set <= full; set++ {
		if bits.OnesCount(uint(set)) == 1 {
			split[set] = set
			continue
		}
		low := set & -set
		// Proper subsets holding the lowest relation: each unordered split once.
		for sub := (set - 1) & set; sub > 0; sub = (sub - 1) & set {
			if sub&low == 0 {
				continue
			}
			rest := set ^ sub
			if split[sub] == 0 || split[rest] == 0 || !connected(sub, rest) {
				continue
			}
			c := cost[sub] + cost[rest] + card[set]
			if split[set] == 0 || c < cost[set] {
				cost[set], split[set] = c, sub
			}
		}
	}
	if split[full] == 0 {
		return nil, 0, false
	}
	var build func(set int) *joinTree
	build = func(set int) *joinTree {
		if bits.OnesCount(uint(set)) == 1 {
			return &joinTree{rel: bits.TrailingZeros(uint(set)), set: set}
		}
		l, r := split[set], set^split[set]
		return &joinTree{rel: -1, set: set, left: build(l), right: build(r)}
	}
	return build(full), cost[full], true
}

// orient makes the probe (left) side of every join the one holding the
// run's largest relation, else the one with more estimated rows (the
// build side is hashed).
func (t *joinTree) orient(first int, card []float64) {
	if t.left == nil {
		return
	}
	t.left.orient(first, card)
	t.right.orient(first, card)
	lf, rf := t.left.set&(1<<first) != 0, t.right.set&(1<<first) != 0
	if rf || (!lf && card[t.right.set] > card[t.left.set]) {
		t.left, t.right = t.right, t.left
	}
}

// leftDeep returns the tree's order when every join's build side is one
// relation.
func (t *joinTree) leftDeep() ([]int, bool) {
	if t.left == nil {
		return []int{t.rel}, true
	}
	if t.right.left != nil {
		return nil, false
	}
	o, ok := t.left.leftDeep()
	return append(o, t.right.rel), ok
}

// buildBushy builds the logical joins of tree t over rels; each conjunct
// goes to the lowest join that has every relation it reads (one reading a
// column outside the run to the top join), as an equi condition when its
// sides fall on the two sides of that join.
func buildBushy(t *joinTree, rels []logical.Node, conds []expr.Expr, infos []condInfo) logical.Node {
	placed := make([]bool, len(conds))
	relSet := make([]int, len(conds))
	for ci, in := range infos {
		for _, r := range in.rels {
			relSet[ci] |= 1 << r
		}
	}
	var walk func(t *joinTree, top bool) logical.Node
	walk = func(t *joinTree, top bool) logical.Node {
		if t.left == nil {
			return rels[t.rel]
		}
		l, r := walk(t.left, false), walk(t.right, false)
		mask := func(side []int) int {
			m := 0
			for _, x := range side {
				m |= 1 << x
			}
			return m
		}
		within := func(m, set int) bool { return m != 0 && m&set == m }
		var eq []logical.EquiCond
		var other []expr.Expr
		for ci, in := range infos {
			if placed[ci] || relSet[ci]&t.set != relSet[ci] || (in.foreign && !top) {
				continue
			}
			placed[ci] = true
			if in.call != nil && !in.foreign {
				a, b := mask(in.sides[0]), mask(in.sides[1])
				switch {
				case within(a, t.left.set) && within(b, t.right.set):
					eq = append(eq, logical.EquiCond{L: in.call.Args[0], R: in.call.Args[1], NullSafe: in.nullSafe})
					continue
				case within(b, t.left.set) && within(a, t.right.set):
					eq = append(eq, logical.EquiCond{L: in.call.Args[1], R: in.call.Args[0], NullSafe: in.nullSafe})
					continue
				}
			}
			other = append(other, conds[ci])
		}
		typ := fragment.JoinInner
		if len(eq) == 0 && len(other) == 0 {
			typ = fragment.JoinCross
		}
		return &logical.Join{Type: typ, Left: l, Right: r, Equi: eq, Other: other}
	}
	return walk(t, true)
}
