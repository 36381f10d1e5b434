package logical

import (
	"github.com/dorisgo/dorisgo/sql/expr"
)

// factorOr pulls the conjuncts every branch of a disjunction shares out of
// it: (a AND x) OR (a AND y) becomes a AND (x OR y). TPC-H Q19 writes its
// join key inside each OR branch; factored out, it becomes an equi-join
// condition instead of a filter over a cross join.
func factorOr(conds []expr.Expr) []expr.Expr {
	var out []expr.Expr
	for _, c := range conds {
		out = append(out, factorOne(c)...)
	}
	return out
}

func factorOne(c expr.Expr) []expr.Expr {
	branches := split(c, "or")
	if len(branches) < 2 {
		return []expr.Expr{c}
	}
	parts := make([][]expr.Expr, len(branches))
	for i, b := range branches {
		parts[i] = split(b, "and")
	}
	// Conjuncts of the first branch present in every other branch.
	var common []expr.Expr
	for _, x := range parts[0] {
		k := x.String()
		everywhere := true
		for _, p := range parts[1:] {
			if !containsKey(p, k) {
				everywhere = false
				break
			}
		}
		if everywhere && !containsKey(common, k) {
			common = append(common, x)
		}
	}
	if len(common) == 0 {
		return []expr.Expr{c}
	}
	var rest []expr.Expr
	for _, p := range parts {
		var left []expr.Expr
		for _, x := range p {
			if !containsKey(common, x.String()) {
				left = append(left, x)
			}
		}
		if len(left) == 0 {
			// One branch is just the common part: the OR adds nothing.
			return common
		}
		rest = append(rest, join(left, "and"))
	}
	return append(common, join(rest, "or"))
}

// impliedFor is the disjunction, over c's branches, of each branch's
// conjuncts that read only cols. It is TRUE whenever c is, so it may go
// down to the input owning cols while c stays where it is (Doris's
// ExtractSingleTableExpressionFromDisjunction: TPC-H Q7's nation names,
// Q19's lineitem and part conditions). nil when c is no disjunction or a
// branch has no such conjunct.
func impliedFor(c expr.Expr, cols []Column) expr.Expr {
	branches := split(c, "or")
	if len(branches) < 2 {
		return nil
	}
	parts := make([]expr.Expr, 0, len(branches))
	for _, b := range branches {
		var mine []expr.Expr
		for _, x := range split(b, "and") {
			if hasRef(x) && RefsIn(x, cols) {
				mine = append(mine, x)
			}
		}
		if len(mine) == 0 {
			return nil
		}
		parts = append(parts, join(mine, "and"))
	}
	return join(parts, "or")
}

func split(e expr.Expr, fn string) []expr.Expr {
	if c, ok := e.(*expr.Call); ok && c.Fn == fn && len(c.Args) == 2 {
		return append(split(c.Args[0], fn), split(c.Args[1], fn)...)
	}
	return []expr.Expr{e}
}

func join(es []expr.Expr, fn string) expr.Expr {
	out := es[0]
	for _, e := range es[1:] {
		x, err := expr.NewCall(fn, out, e)
		if err != nil {
			return out
		}
		out = x
	}
	return out
}

func containsKey(es []expr.Expr, k string) bool {
	for _, e := range es {
		if e.String() == k {
			return true
		}
	}
	return false
}
