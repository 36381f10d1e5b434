package logical

import (
	"context"
	"slices"

	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
)

// Optimize applies the rewrite rules: predicate pushdown (WHERE conjuncts
// move into joins, turning cross joins into equi joins, and down to the
// scans) and column pruning (scans read only the columns the query uses).
// It stops with ctx's error once ctx is done (KILL, query_timeout, the
// client leaving; nil: never): predicate pushdown, its one pass that is
// not linear in the plan (each join asks its sides for their columns), asks
// at every node it visits.
func Optimize(ctx context.Context, n Node) (Node, error) {
	o := &rewriter{ctx: ctx}
	n = o.pushFilters(n)
	if o.stopped() {
		return nil, o.done
	}
	used := map[ColumnID]bool{}
	for _, c := range n.Columns() {
		used[c.ID] = true
	}
	collectUsed(n, used)
	// A projection's expressions are only needed for the outputs something
	// reads (a decorrelated subquery's projection passes every outer column
	// through; counting them all kept every column of the outer scans).
	// Reads of projection outputs come from anywhere above, correlated
	// subqueries included, so grow the set to a fixpoint.
	for projectUses(n, used) {
	}
	if o.stopped() {
		return nil, o.done
	}
	// Columns only a scan's own conjuncts read stay in the scan but leave
	// every projection (dropFilterOnly puts one over the filter; a
	// pass-through projection above carries the same column id).
	proj := make(map[ColumnID]bool, len(used))
	for id := range used {
		proj[id] = true
	}
	for id := range filterOnly(n) {
		delete(proj, id)
	}
	return dropFilterOnly(pruneScans(n, used, proj)), nil
}

// rewriter carries the statement's context through a rewrite.
type rewriter struct {
	ctx  context.Context
	done error // ctx's error, once seen
}

// stopped reports that the statement's context is done. Once it is, the
// rewrite returns what it visits unchanged and Optimize returns the error.
func (o *rewriter) stopped() bool {
	if o.done == nil && o.ctx != nil {
		o.done = o.ctx.Err()
	}
	return o.done != nil
}

// filteredScan is the scan n filters: a Filter directly over a Scan, or a
// Scan with filters of its own; nil otherwise.
func filteredScan(n Node) *Scan {
	switch x := n.(type) {
	case *Filter:
		s, _ := x.Input.(*Scan)
		return s
	case *Scan:
		if len(x.Filters) > 0 {
			return x
		}
	}
	return nil
}

// usage indexes who reads each column of a plan, so that asking, for every
// filtered scan, which of its columns the rest of the plan reads costs the
// scan's columns and not a walk of the plan (a 1,000-table chain with a
// filter per table walked it 2,000 times).
type usage struct {
	root    map[ColumnID]bool
	readers map[ColumnID]int        // nodes other than projections that read the id
	derived map[ColumnID][]ColumnID // projection outputs (other ids) computed from the id
	used    map[ColumnID]bool       // every id read, projections' fixpoint included
}

func newUsage(root Node) *usage {
	u := &usage{root: map[ColumnID]bool{}, readers: map[ColumnID]int{}, derived: map[ColumnID][]ColumnID{}, used: map[ColumnID]bool{}}
	for _, c := range root.Columns() {
		u.root[c.ID], u.used[c.ID] = true, true
	}
	collectUsed(root, u.used)
	for projectUses(root, u.used) {
	}
	var walk func(n Node)
	walk = func(n Node) {
		if p, ok := n.(*Project); ok {
			for i, c := range p.Cols {
				expr.Walk(p.Exprs[i], func(x expr.Expr) bool {
					if r, ok := x.(*expr.ColRef); ok && ColumnID(r.Index) != c.ID {
						u.derived[ColumnID(r.Index)] = append(u.derived[ColumnID(r.Index)], c.ID)
					}
					return true
				})
			}
		} else {
			reads := map[ColumnID]bool{}
			nodeUses(n, reads, nil)
			for id := range reads {
				u.readers[id]++
			}
		}
		for _, in := range n.Inputs() {
			walk(in)
		}
	}
	walk(root)
	return u
}

// besides reports whether the plan reads column id of n's scan other than
// through n's own conjuncts (n is a filtered scan: filteredScan). It is
// what collecting every use but n's, projections' fixpoint included,
// finds: the output, another reader, or a used projection output computed
// from id. Only n's scan columns lose uses without n's conjuncts, and a
// projection output other than its input id is none of them, so whether
// such an output is used is the same with n's conjuncts or without.
func (u *usage) besides(n Node, own map[ColumnID]bool, id ColumnID) bool {
	if u.root[id] {
		return true
	}
	r := u.readers[id]
	if own[id] {
		r--
	}
	if r > 0 {
		return true
	}
	for _, o := range u.derived[id] {
		if u.used[o] {
			return true
		}
	}
	return false
}

// usedBy is the scan columns of filtered scan n the plan reads besides n's
// conjuncts.
func (u *usage) usedBy(n Node, scan *Scan) map[ColumnID]bool {
	own := map[ColumnID]bool{}
	nodeUses(n, own, nil)
	out := map[ColumnID]bool{}
	for _, c := range scan.Cols {
		if u.besides(n, own, c.ID) {
			out[c.ID] = true
		}
	}
	return out
}

// filterOnly is the set of scan columns read only by the conjuncts of the
// filter over their scan (or the scan's own filters).
func filterOnly(root Node) map[ColumnID]bool {
	out := map[ColumnID]bool{}
	u := newUsage(root)
	var walk func(n Node)
	walk = func(n Node) {
		if scan := filteredScan(n); scan != nil {
			used := u.usedBy(n, scan)
			var keep int
			for _, c := range scan.Cols {
				if used[c.ID] {
					keep++
				}
			}
			if keep > 0 { // else the scan's one remaining column stays
				for _, c := range scan.Cols {
					if !used[c.ID] {
						out[c.ID] = true
					}
				}
			}
			return
		}
		for _, in := range n.Inputs() {
			walk(in)
		}
	}
	walk(root)
	return out
}

// projectUses adds the columns read by projection expressions whose output
// is used; it reports whether it added any.
func projectUses(n Node, used map[ColumnID]bool) bool {
	grew := false
	if p, ok := n.(*Project); ok {
		for i, c := range p.Cols {
			if !used[c.ID] {
				continue
			}
			expr.Walk(p.Exprs[i], func(x expr.Expr) bool {
				if r, ok := x.(*expr.ColRef); ok && !used[ColumnID(r.Index)] {
					used[ColumnID(r.Index)] = true
					grew = true
				}
				return true
			})
		}
	}
	for _, in := range n.Inputs() {
		if projectUses(in, used) {
			grew = true
		}
	}
	return grew
}

// pushFilters moves filter conjuncts as far down as they can go.
func (o *rewriter) pushFilters(n Node) Node {
	if o.stopped() {
		return n
	}
	switch x := n.(type) {
	case *Filter:
		in := o.pushFilters(x.Input)
		return o.pushInto(in, factorOr(foldConds(x.Conds)))
	case *Project:
		return &Project{Input: o.pushFilters(x.Input), Exprs: x.Exprs, Cols: x.Cols}
	case *Join:
		j := *x
		j.Left, j.Right = o.pushFilters(x.Left), o.pushFilters(x.Right)
		if len(j.Other) == 0 {
			return &j
		}
		if j.Type == fragment.JoinInner || j.Type == fragment.JoinCross {
			// ON conjuncts of inner joins that read one side go down too.
			var keep, toLeft, toRight []expr.Expr
			lc, rc := j.Left.Columns(), j.Right.Columns()
			ls, rs := idSet(lc), idSet(rc)
			for _, c := range j.Other {
				switch {
				case ls.covers(c):
					toLeft = append(toLeft, c)
				case rs.covers(c):
					toRight = append(toRight, c)
				default:
					if d := impliedFor(c, lc); d != nil {
						toLeft = append(toLeft, d)
					}
					if d := impliedFor(c, rc); d != nil {
						toRight = append(toRight, d)
					}
					keep = append(keep, c)
				}
			}
			j.Left, j.Right = o.pushInto(j.Left, toLeft), o.pushInto(j.Right, toRight)
			j.Other = keep
		} else {
			// An ON conjunct reading only the side whose rows merely get
			// matched (right of LEFT OUTER/SEMI/ANTI, left of RIGHT …)
			// restricts which of its rows can match: they go down too.
			var keep, toLeft, toRight []expr.Expr
			ls, rs := idSet(j.Left.Columns()), idSet(j.Right.Columns())
			for _, c := range j.Other {
				switch {
				case matchedOnly(j.Type, false) && hasRef(c) && rs.covers(c):
					toRight = append(toRight, c)
				case matchedOnly(j.Type, true) && hasRef(c) && ls.covers(c):
					toLeft = append(toLeft, c)
				default:
					keep = append(keep, c)
				}
			}
			j.Left, j.Right = o.pushInto(j.Left, toLeft), o.pushInto(j.Right, toRight)
			j.Other = keep
		}
		return &j
	case *Limit:
		return &Limit{Input: o.pushFilters(x.Input), Offset: x.Offset, Count: x.Count}
	case *Sort:
		return &Sort{Input: o.pushFilters(x.Input), Keys: x.Keys}
	case *Aggregate:
		a := *x
		a.Input = o.pushFilters(x.Input)
		return &a
	case *Window:
		return &Window{Input: o.pushFilters(x.Input), Calls: x.Calls}
	case *Repeat:
		r := *x
		r.Input = o.pushFilters(x.Input)
		return &r
	case *SetOp:
		s := *x
		s.Ins = make([]Node, len(x.Ins))
		for i, in := range x.Ins {
			s.Ins[i] = o.pushFilters(in)
		}
		return &s
	case *Apply:
		a := *x
		a.Outer = o.pushFilters(x.Outer)
		a.Sub = o.pushFilters(x.Sub)
		return &a
	}
	return n
}

// pushInto places conds over n, pushing each as deep as its columns allow.
func (o *rewriter) pushInto(n Node, conds []expr.Expr) Node {
	if len(conds) == 0 || o.stopped() {
		return n
	}
	switch x := n.(type) {
	case *Filter:
		return o.pushInto(x.Input, append(append([]expr.Expr{}, x.Conds...), conds...))
	case *Join:
		j := *x
		var keep []expr.Expr
		var toLeft, toRight []expr.Expr
		// Each side's columns once, as sets: a WHERE with a conjunct per
		// table of a 1,000-table chain passes ~k conjuncts through the k-th
		// join, and asking each of them for the sides' columns was cubic.
		lc, rc := j.Left.Columns(), j.Right.Columns()
		ls, rs := idSet(lc), idSet(rc)
		if t := simplifyOuter(j.Type, conds, ls, rs); t != j.Type {
			if t == fragment.JoinInner {
				// The ON conjuncts of what is now an inner join filter
				// like the WHERE's: they go down (or into Equi) with them.
				conds = append(append([]expr.Expr{}, conds...), j.Other...)
				j.Other = nil
			}
			j.Type = t
		}
		for _, c := range conds {
			inL, inR := ls.covers(c), rs.covers(c)
			switch {
			case inL && canPushLeft(j.Type):
				toLeft = append(toLeft, c)
			case inR && canPushRight(j.Type):
				toRight = append(toRight, c)
			case (j.Type == fragment.JoinInner || j.Type == fragment.JoinCross) && coversBoth(c, ls, rs):
				if d := impliedFor(c, lc); d != nil {
					toLeft = append(toLeft, d)
				}
				if d := impliedFor(c, rc); d != nil {
					toRight = append(toRight, d)
				}
				eq, other := SplitConds([]expr.Expr{c}, lc, rc)
				j.Equi = append(j.Equi, eq...)
				j.Other = append(j.Other, other...)
				if j.Type == fragment.JoinCross {
					j.Type = fragment.JoinInner
				}
			default:
				keep = append(keep, c)
			}
		}
		j.Left = o.pushInto(j.Left, toLeft)
		j.Right = o.pushInto(j.Right, toRight)
		if len(keep) == 0 {
			return &j
		}
		return &Filter{Input: &j, Conds: keep}
	case *Apply:
		var down, keep []expr.Expr
		for _, c := range conds {
			if RefsIn(c, x.Outer.Columns()) {
				down = append(down, c)
			} else {
				keep = append(keep, c)
			}
		}
		a := *x
		a.Outer = o.pushInto(x.Outer, down)
		if len(keep) == 0 {
			return &a
		}
		return &Filter{Input: &a, Conds: keep}
	case *Project:
		// A projection is row by row: conjuncts over the columns it passes
		// through unchanged hold below it too (the decorrelated scalar
		// subquery's Project over its left join relies on this).
		var pass []Column
		for i, c := range x.Cols {
			if r, ok := x.Exprs[i].(*expr.ColRef); ok && r.Index == int(c.ID) {
				pass = append(pass, c)
			}
		}
		var down, keep []expr.Expr
		for _, c := range conds {
			if len(pass) > 0 && RefsIn(c, pass) && hasRef(c) {
				down = append(down, c)
			} else if s, ok := inlineProject(c, x); ok && hasRef(s) {
				// A conjunct over computed columns holds below with
				// their expressions in their place (the decorrelated
				// `ps_availqty > 0.5 * sum(...)` reaches its join so).
				down = append(down, s)
			} else {
				keep = append(keep, c)
			}
		}
		if len(down) == 0 {
			return &Filter{Input: n, Conds: conds}
		}
		var p Node = &Project{Input: o.pushInto(x.Input, down), Exprs: x.Exprs, Cols: x.Cols}
		if len(keep) > 0 {
			p = &Filter{Input: p, Conds: keep}
		}
		return p
	}
	return &Filter{Input: n, Conds: conds}
}

// matchedOnly: the join's left (left) or right side only supplies matches,
// it is never preserved or output on its own.
func matchedOnly(t fragment.JoinType, left bool) bool {
	if left {
		return t == fragment.JoinRightOuter || t == fragment.JoinRightSemi || t == fragment.JoinRightAnti
	}
	switch t {
	case fragment.JoinLeftOuter, fragment.JoinLeftSemi, fragment.JoinLeftAnti, fragment.JoinNullAwareLeftAnti:
		return true
	}
	return false
}

func canPushLeft(t fragment.JoinType) bool {
	switch t {
	case fragment.JoinInner, fragment.JoinCross, fragment.JoinLeftOuter, fragment.JoinLeftSemi, fragment.JoinLeftAnti, fragment.JoinNullAwareLeftAnti:
		return true
	}
	return false
}

func canPushRight(t fragment.JoinType) bool {
	return t == fragment.JoinInner || t == fragment.JoinCross || t == fragment.JoinRightOuter
}

// RefsIn reports whether every column e reads is in cols (constants count
// as in). It gathers e's few references and looks for them in cols, with
// no set of cols built: a join chain asks at each of its levels, with every
// column of the level's left side.
func RefsIn(e expr.Expr, cols []Column) bool {
	var refs []int
	expr.Walk(e, func(x expr.Expr) bool {
		if r, ok := x.(*expr.ColRef); ok && !slices.Contains(refs, r.Index) {
			refs = append(refs, r.Index)
		}
		return true
	})
	if len(refs) == 0 {
		return true
	}
	if len(refs) > 8 {
		set := make(map[int]bool, len(cols))
		for _, c := range cols {
			set[int(c.ID)] = true
		}
		for _, r := range refs {
			if !set[r] {
				return false
			}
		}
		return true
	}
	for _, c := range cols {
		if i := slices.Index(refs, int(c.ID)); i >= 0 {
			if refs = slices.Delete(refs, i, i+1); len(refs) == 0 {
				return true
			}
		}
	}
	return false
}

// colSet is a set of column ids, for testing many expressions against one
// node's columns.
type colSet map[ColumnID]struct{}

func idSet(cols []Column) colSet {
	s := make(colSet, len(cols))
	for _, c := range cols {
		s[c.ID] = struct{}{}
	}
	return s
}

// covers is RefsIn over the set.
func (s colSet) covers(e expr.Expr) bool { return coversBoth(e, s, nil) }

// coversBoth reports whether every column e reads is in a or b.
func coversBoth(e expr.Expr, a, b colSet) bool {
	ok := true
	expr.Walk(e, func(x expr.Expr) bool {
		if r, isRef := x.(*expr.ColRef); isRef && ok {
			_, inA := a[ColumnID(r.Index)]
			_, inB := b[ColumnID(r.Index)]
			ok = inA || inB
		}
		return ok
	})
	return ok
}

// splitConds separates l = r conjuncts across the two sides from the rest.
func SplitConds(conds []expr.Expr, left, right []Column) ([]EquiCond, []expr.Expr) {
	var equi []EquiCond
	var other []expr.Expr
	for _, c := range conds {
		call, ok := c.(*expr.Call)
		if ok && (call.Fn == "eq" || call.Fn == "null_safe_eq") && len(call.Args) == 2 {
			a, z := call.Args[0], call.Args[1]
			ns := call.Fn == "null_safe_eq"
			if hasRef(a) && hasRef(z) {
				switch {
				case RefsIn(a, left) && RefsIn(z, right):
					equi = append(equi, EquiCond{L: a, R: z, NullSafe: ns})
					continue
				case RefsIn(a, right) && RefsIn(z, left):
					equi = append(equi, EquiCond{L: z, R: a, NullSafe: ns})
					continue
				}
			}
		}
		other = append(other, c)
	}
	return equi, other
}

func hasRef(e expr.Expr) bool {
	found := false
	expr.Walk(e, func(x expr.Expr) bool {
		if _, ok := x.(*expr.ColRef); ok {
			found = true
		}
		return !found
	})
	return found
}

// collectUsed records every column id an expression of the plan reads.
func collectUsed(n Node, used map[ColumnID]bool) { collectUsedBut(n, used, nil) }

// collectUsedBut is collectUsed not counting skip's own conjuncts (a Filter's
// or a Scan's).
func collectUsedBut(n Node, used map[ColumnID]bool, skip Node) {
	nodeUses(n, used, skip)
	for _, in := range n.Inputs() {
		collectUsedBut(in, used, skip)
	}
}

// nodeUses records the column ids n's own expressions read (collectUsedBut
// without the inputs).
func nodeUses(n Node, used map[ColumnID]bool, skip Node) {
	add := func(es ...expr.Expr) {
		for _, e := range es {
			expr.Walk(e, func(x expr.Expr) bool {
				if r, ok := x.(*expr.ColRef); ok {
					used[ColumnID(r.Index)] = true
				}
				return true
			})
		}
	}
	switch x := n.(type) {
	case *Scan:
		if n != skip {
			add(x.Filters...)
		}
	case *Filter:
		if n != skip {
			add(x.Conds...)
		}
	case *Project:
		// Only for used outputs: projectUses.
	case *Join:
		for _, e := range x.Equi {
			add(e.L, e.R)
		}
		add(x.Other...)
	case *Aggregate:
		add(x.Groups...)
		for _, a := range x.Aggs {
			add(a.Args...)
		}
	case *Sort:
		for _, k := range x.Keys {
			add(k.Expr)
		}
	case *Window:
		for _, c := range x.Calls {
			add(c.Args...)
			add(c.PartitionBy...)
			for _, k := range c.OrderBy {
				add(k.Expr)
			}
		}
	case *Repeat:
		for _, k := range x.Keys {
			add(k)
		}
	case *SetOp:
		// Set operations compare whole rows: every input column is used.
		for _, in := range x.Ins {
			for _, c := range in.Columns() {
				used[c.ID] = true
			}
		}
	case *Apply:
		if x.Probe != nil {
			add(x.Probe)
		}
		for _, c := range x.Sub.Columns() {
			used[c.ID] = true
		}
	case *Values:
		for _, c := range x.Cols {
			used[c.ID] = true
		}
	}
}

// dropFilterOnly puts a projection over each filtered scan keeping only the
// columns something above it reads: a column only the scan's own
// conjuncts read (TPC-H Q13's o_comment) is then neither gathered by the
// filter nor shipped nor carried through joins.
func dropFilterOnly(root Node) Node {
	u := newUsage(root)
	var rewrite func(n Node) Node
	rewrite = func(n Node) Node {
		if scan := filteredScan(n); scan != nil {
			used := u.usedBy(n, scan)
			var keep []Column
			for _, c := range scan.Cols {
				if used[c.ID] {
					keep = append(keep, c)
				}
			}
			if len(keep) == 0 || len(keep) == len(scan.Cols) || len(n.Columns()) != len(scan.Cols) {
				return n
			}
			exprs := make([]expr.Expr, len(keep))
			for i, c := range keep {
				exprs[i] = c.Ref()
			}
			return &Project{Input: n, Exprs: exprs, Cols: keep}
		}
		ins := n.Inputs()
		if len(ins) == 0 {
			return n
		}
		out := make([]Node, len(ins))
		for i, in := range ins {
			out[i] = rewrite(in)
		}
		return WithInputs(n, out)
	}
	return rewrite(root)
}

// pruneScans drops the columns no expression reads from every scan (keeping
// one, so row counts survive).
func pruneScans(n Node, used, proj map[ColumnID]bool) Node {
	switch x := n.(type) {
	case *Scan:
		s := *x
		s.Cols, s.Ords = nil, nil
		for i, c := range x.Cols {
			if used[c.ID] {
				s.Cols = append(s.Cols, c)
				s.Ords = append(s.Ords, x.Ords[i])
			}
		}
		if len(s.Cols) == 0 {
			s.Cols, s.Ords = x.Cols[:1], x.Ords[:1]
		}
		return &s
	case *Filter:
		return &Filter{Input: pruneScans(x.Input, used, proj), Conds: x.Conds}
	case *Project:
		// Outputs nothing reads go (their inputs may be pruned below);
		// one stays so the row count does, and the columns it reads stay
		// below it, as outputs of the projections there too (SELECT
		// COUNT(*) FROM (SELECT k FROM (SELECT k, v FROM t) b) a: b must
		// keep k, not its own last column).
		p := &Project{}
		for i, c := range x.Cols {
			if proj[c.ID] || (i == len(x.Cols)-1 && len(p.Cols) == 0) {
				p.Exprs = append(p.Exprs, x.Exprs[i])
				p.Cols = append(p.Cols, c)
			}
		}
		for _, e := range p.Exprs {
			expr.Walk(e, func(y expr.Expr) bool {
				if r, ok := y.(*expr.ColRef); ok {
					used[ColumnID(r.Index)] = true
					proj[ColumnID(r.Index)] = true
				}
				return true
			})
		}
		p.Input = pruneScans(x.Input, used, proj)
		return p
	case *Join:
		j := *x
		j.Left, j.Right = pruneScans(x.Left, used, proj), pruneScans(x.Right, used, proj)
		return &j
	case *Limit:
		return &Limit{Input: pruneScans(x.Input, used, proj), Offset: x.Offset, Count: x.Count}
	case *Sort:
		return &Sort{Input: pruneScans(x.Input, used, proj), Keys: x.Keys}
	case *Aggregate:
		a := *x
		a.Input = pruneScans(x.Input, used, proj)
		return &a
	case *Window:
		return &Window{Input: pruneScans(x.Input, used, proj), Calls: x.Calls}
	case *Repeat:
		r := *x
		r.Input = pruneScans(x.Input, used, proj)
		return &r
	case *SetOp:
		s := *x
		s.Ins = make([]Node, len(x.Ins))
		for i, in := range x.Ins {
			s.Ins[i] = pruneScans(in, used, proj)
		}
		return &s
	case *Apply:
		a := *x
		a.Outer, a.Sub = pruneScans(x.Outer, used, proj), pruneScans(x.Sub, used, proj)
		return &a
	}
	return n
}

// WithInputs copies n with new inputs.
func WithInputs(n Node, in []Node) Node {
	switch x := n.(type) {
	case *Filter:
		return &Filter{Input: in[0], Conds: x.Conds}
	case *Project:
		return &Project{Input: in[0], Exprs: x.Exprs, Cols: x.Cols}
	case *Limit:
		return &Limit{Input: in[0], Offset: x.Offset, Count: x.Count}
	case *Sort:
		return &Sort{Input: in[0], Keys: x.Keys}
	case *Join:
		c := *x
		c.Left, c.Right = in[0], in[1]
		return &c
	case *Aggregate:
		c := *x
		c.Input = in[0]
		return &c
	case *Window:
		return &Window{Input: in[0], Calls: x.Calls}
	case *Repeat:
		c := *x
		c.Input = in[0]
		return &c
	case *SetOp:
		c := *x
		c.Ins = in
		return &c
	case *Apply:
		c := *x
		c.Outer, c.Sub = in[0], in[1]
		return &c
	}
	return n
}
