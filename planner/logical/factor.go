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
		for _, f := range factorOne(c) {
			out = append(out, orToIn(f))
		}
	}
	return out
}

// orToInMin is the fewest equalities with one expression that orToIn turns
// into an IN list: short disjunctions stay as written (and as EXPLAIN
// shows them).
const orToInMin = 16

// orToIn rewrites the branches x = c1 OR x = c2 OR … (x a column, c
// constants) of a disjunction as x IN (c1, c2, …), as Doris's OrToIn does: the same
// three-valued answer, evaluated with one set lookup per row instead of a
// comparison per branch (a WHERE of 10,000 such branches).
func orToIn(c expr.Expr) expr.Expr {
	branches := split(c, "or")
	if len(branches) < orToInMin {
		return c
	}
	type group struct {
		probe  expr.Expr
		consts []expr.Expr
		at     int // the branch the IN replaces
	}
	var groups []*group
	byProbe := map[string]*group{}
	member := make([]*group, len(branches))
	for i, b := range branches {
		call, ok := b.(*expr.Call)
		if !ok || call.Fn != "eq" || len(call.Args) != 2 {
			continue
		}
		probe, k := call.Args[0], call.Args[1]
		if _, isConst := probe.(*expr.Const); isConst {
			probe, k = k, probe
		}
		if _, isConst := k.(*expr.Const); !isConst || !isColumn(probe) {
			continue
		}
		key := probe.String()
		g := byProbe[key]
		if g == nil {
			g = &group{probe: probe, at: i}
			byProbe[key] = g
			groups = append(groups, g)
		}
		g.consts = append(g.consts, k)
		member[i] = g
	}
	changed := false
	ins := map[*group]expr.Expr{}
	for _, g := range groups {
		if len(g.consts) < orToInMin {
			continue
		}
		in, err := expr.NewCall("in", append([]expr.Expr{g.probe}, g.consts...)...)
		if err != nil {
			continue
		}
		ins[g] = in
		changed = true
	}
	if !changed {
		return c
	}
	var out []expr.Expr
	for i, b := range branches {
		g := member[i]
		in, grouped := ins[g]
		switch {
		case g == nil || !grouped:
			out = append(out, b)
		case g.at == i:
			out = append(out, in)
		}
	}
	return join(out, "or")
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

// isColumn: e is a column, maybe under casts (as the binder compares an
// INT column with a BIGINT literal). Anything else may not be evaluated
// once for many branches (rand()).
func isColumn(e expr.Expr) bool {
	for {
		switch x := e.(type) {
		case *expr.ColRef:
			return true
		case *expr.Cast:
			e = x.Arg
		default:
			return false
		}
	}
}

// split lists the operands of a chain of fn (and, or), left to right. It
// walks with a stack of its own: a WHERE of 10,000 ORs is that deep, and
// concatenating the halves' lists at every level was quadratic.
func split(e expr.Expr, fn string) []expr.Expr {
	var out []expr.Expr
	stack := []expr.Expr{e}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if c, ok := x.(*expr.Call); ok && c.Fn == fn && len(c.Args) == 2 {
			stack = append(stack, c.Args[1], c.Args[0])
			continue
		}
		out = append(out, x)
	}
	return out
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
