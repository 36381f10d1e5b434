package expr

import (
	"math"

	"github.com/dorisgo/dorisgo/sql/types"
)

// FuseRanges rewrites the conjuncts of one filter so that a lower and an
// upper bound on the same column become one BETWEEN: `x >= 5 AND x <= 7`
// (what BETWEEN is split into, and every date range of TPC-H) is then one
// pass over x, a single unsigned comparison a row (sql/eval's between
// kernel), instead of two comparisons and an AND. Only exact bounds of a
// column's own type are fused: integers, dates and datetimes (whose strict
// bounds move by one unit) and decimals (inclusive bounds only). The fused
// conjunct takes the place of the first of the pair; the rest keep their
// order.
func FuseRanges(cs []Expr) []Expr {
	type bound struct {
		at   int // conjunct index
		val  types.Datum
		seen bool
	}
	type pair struct{ lo, hi bound }
	var pairs map[int]*pair // by column index
	var order []int
	for i, c := range cs {
		col, d, lower, ok := rangeBound(c)
		if !ok {
			continue
		}
		if pairs == nil {
			pairs = map[int]*pair{}
		}
		p := pairs[col.Index]
		if p == nil {
			p = &pair{}
			pairs[col.Index] = p
			order = append(order, col.Index)
		}
		b := &p.hi
		if lower {
			b = &p.lo
		}
		if !b.seen { // a second bound on the same side stays a conjunct of its own
			*b = bound{at: i, val: d, seen: true}
		}
	}
	drop := map[int]bool{}
	repl := map[int]Expr{}
	for _, idx := range order {
		p := pairs[idx]
		if !p.lo.seen || !p.hi.seen {
			continue
		}
		x := cs[p.lo.at].(*Call).Args[0]
		if _, ok := x.(*ColRef); !ok {
			x = cs[p.lo.at].(*Call).Args[1]
		}
		fused := &Call{Fn: "between", Args: []Expr{x, Lit(p.lo.val), Lit(p.hi.val)}, T: types.BoolT, Null: x.Nullable()}
		first, second := min(p.lo.at, p.hi.at), max(p.lo.at, p.hi.at)
		repl[first] = fused
		drop[second] = true
	}
	if len(repl) == 0 {
		return cs
	}
	out := make([]Expr, 0, len(cs)-len(drop))
	for i, c := range cs {
		switch {
		case drop[i]:
		case repl[i] != nil:
			out = append(out, repl[i])
		default:
			out = append(out, c)
		}
	}
	return out
}

// rangeBound reads c as an inclusive bound on a column: col >= d (lower)
// or col <= d, with strict bounds of integer-coded types moved by one.
func rangeBound(c Expr) (col *ColRef, d types.Datum, lower, ok bool) {
	call, isCall := c.(*Call)
	if !isCall || len(call.Args) != 2 {
		return nil, d, false, false
	}
	fn := call.Fn
	col, isCol := call.Args[0].(*ColRef)
	k, isConst := call.Args[1].(*Const)
	if !isCol || !isConst {
		col, isCol = call.Args[1].(*ColRef)
		k, isConst = call.Args[0].(*Const)
		if !isCol || !isConst {
			return nil, d, false, false
		}
		fn = map[string]string{"ge": "le", "gt": "lt", "le": "ge", "lt": "gt"}[fn] // c op col → col op' c
	}
	d = k.Val
	if d.Null || d.T.Kind != col.T.Kind || d.T.Scale != col.T.Scale || d.T.Kind != types.Decimal && d.T != col.T {
		return nil, d, false, false
	}
	intCoded := col.T.Kind >= types.TinyInt && col.T.Kind <= types.BigInt || col.T.Kind == types.Date || col.T.Kind == types.DateTime
	if !intCoded && col.T.Kind != types.Decimal {
		return nil, d, false, false
	}
	switch fn {
	case "ge":
		return col, d, true, true
	case "le":
		return col, d, false, true
	case "gt", "lt":
		if !intCoded {
			return nil, d, false, false
		}
		lo, hi := intRange(col.T)
		if fn == "gt" {
			if d.I >= hi {
				return nil, d, false, false
			}
			d.I++
			return col, d, true, true
		}
		if d.I <= lo {
			return nil, d, false, false
		}
		d.I--
		return col, d, false, true
	}
	return nil, d, false, false
}

// intRange is the range of an integer-coded type's physical values, so that
// a bound moved by one still fits the column's width.
func intRange(t types.T) (lo, hi int64) {
	switch t.Kind {
	case types.TinyInt:
		return math.MinInt8, math.MaxInt8
	case types.SmallInt:
		return math.MinInt16, math.MaxInt16
	case types.Int, types.Date:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}
