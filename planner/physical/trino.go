package physical

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dorisgo/dorisgo/planner/explain"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/planner/props"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// trinoView renders the same fragments in Trino's EXPLAIN (TYPE
// DISTRIBUTED) format (DORIS-PLANNING.md §4). Symbols: a scan column is its
// name, its k-th repeat (scans in FROM order) `name_k-1`; computed columns
// are named after their function (`sum`, partial `sum_0`) or `expr`; a bare
// column reference keeps its source's symbol. A node's layout is the
// columns some ancestor reads (a scan shows every column it reads).
type trinoView struct {
	p    *Distributed
	sym  map[logical.ColumnID]string
	seen map[string]int
	used map[*pnode]map[logical.ColumnID]bool
}

func (p *Distributed) trino() []string {
	v := &trinoView{p: p, sym: map[logical.ColumnID]string{}, seen: map[string]int{}, used: map[*pnode]map[logical.ColumnID]bool{}}
	v.symbols()
	top := map[logical.ColumnID]bool{}
	for _, c := range p.root.cols {
		top[c.ID] = true
	}
	v.markUsed(p.root, top)
	var frags []explain.TrinoFragment
	for _, f := range p.frags {
		tf := explain.TrinoFragment{ID: int(f.id), Kind: v.kind(f), OutputLayout: v.names(v.layout(f.root)), Root: v.node(f.root)}
		if f.table != nil {
			tf.Partitioning = "SINGLE []"
			tf.Root = &explain.TrinoNode{Header: "TableWriter[dorisgo:" + f.table.spec.DB + "." + f.table.spec.Table + "]",
				Details: []string{v.layoutLine(f.root)}, Children: []*explain.TrinoNode{tf.Root}}
		} else if f.sink == nil {
			tf.Partitioning = "SINGLE []"
			tf.Root = v.output(f.root, tf.Root)
		} else {
			tf.Partitioning = v.partitioning(f.sink)
		}
		frags = append(frags, tf)
	}
	return explain.Trino(frags)
}

func (v *trinoView) alloc(id logical.ColumnID, base string) {
	if _, ok := v.sym[id]; ok {
		return
	}
	base = strings.ToLower(base)
	k := v.seen[base]
	v.seen[base] = k + 1
	if k == 0 {
		v.sym[id] = base
	} else {
		v.sym[id] = fmt.Sprintf("%s_%d", base, k-1)
	}
}

// alias gives id the symbol of e when e is a bare column, else allocates base.
func (v *trinoView) alias(id logical.ColumnID, e expr.Expr, base string) {
	if r, ok := e.(*expr.ColRef); ok {
		if s, ok := v.sym[logical.ColumnID(r.Index)]; ok {
			if _, done := v.sym[id]; !done {
				v.sym[id] = s
			}
			return
		}
	}
	v.alloc(id, base)
}

func (v *trinoView) symbols() {
	var scans []*pnode
	var all []*pnode
	var walk func(n *pnode)
	walk = func(n *pnode) {
		for _, c := range n.children {
			walk(c)
		}
		all = append(all, n)
		if n.op == opScan {
			scans = append(scans, n)
		}
	}
	walk(v.p.root)
	// The binder numbers columns in FROM order.
	slices.SortStableFunc(scans, func(a, b *pnode) int { return int(a.cols[0].ID - b.cols[0].ID) })
	for _, s := range scans {
		for _, c := range s.cols {
			v.alloc(c.ID, c.Name)
		}
	}
	for _, n := range all {
		switch n.op {
		case opProject:
			for i, c := range n.cols {
				v.alias(c.ID, n.exprs[i], "expr")
			}
		case opAgg:
			a := n.agg
			for i, g := range a.l.GroupCols {
				v.alias(g.ID, a.l.Groups[i], "expr")
			}
			for _, c := range a.l.Aggs {
				v.alloc(c.Col.ID, c.Fn)
			}
			for i, pcs := range a.partial {
				for _, pc := range pcs {
					v.alloc(pc.ID, a.l.Aggs[i].Fn)
				}
			}
		case opWindow:
			for _, c := range n.window.Calls {
				v.alloc(c.Col.ID, c.Fn)
			}
		case opRepeat:
			for _, c := range n.cols[len(n.child().cols):] {
				v.alloc(c.ID, c.Name)
			}
		case opSetOp, opValues, opTableFunc:
			for _, c := range n.cols {
				v.alloc(c.ID, c.Name)
			}
		case opApply:
			v.alloc(n.apply.Col.ID, n.apply.Col.Name)
		}
	}
}

// refs are the columns n itself reads.
func (n *pnode) refs() []expr.Expr {
	var out []expr.Expr
	switch n.op {
	case opScan:
		out = n.scan.conds
	case opFilter:
		out = n.conds
	case opProject:
		out = n.exprs
	case opJoin:
		for _, e := range n.join.equi {
			out = append(out, e.L, e.R)
		}
		out = append(out, n.join.other...)
	case opAgg:
		a := n.agg
		if a.merge != nil {
			out = append(out, colRefs(a.l.GroupCols)...)
			for _, pcs := range a.merge.partial {
				out = append(out, colRefs(pcs)...)
			}
		} else {
			out = append(out, a.l.Groups...)
			for _, c := range a.l.Aggs {
				out = append(out, c.Args...)
			}
		}
		out = append(out, a.having...)
	case opSort, opTopN:
		for _, k := range n.keys {
			out = append(out, k.Expr)
		}
	case opWindow:
		for _, c := range n.window.Calls {
			out = append(out, c.Args...)
			out = append(out, c.PartitionBy...)
			for _, k := range c.OrderBy {
				out = append(out, k.Expr)
			}
		}
	case opRepeat:
		out = repeatRefs(n.repeat)
	case opApply:
		if n.apply.Probe != nil {
			out = append(out, n.apply.Probe)
		}
	case opExchange:
		out = append(out, n.exch.keys...)
		for _, k := range n.exch.sort {
			out = append(out, k.Expr)
		}
	}
	return out
}

// markUsed records, top down, the columns each node's ancestors read.
func (v *trinoView) markUsed(n *pnode, above map[logical.ColumnID]bool) {
	v.used[n] = above
	below := map[logical.ColumnID]bool{}
	for id := range above {
		below[id] = true
	}
	for _, e := range n.refs() {
		expr.Walk(e, func(x expr.Expr) bool {
			if r, ok := x.(*expr.ColRef); ok {
				below[logical.ColumnID(r.Index)] = true
			}
			return true
		})
	}
	for _, c := range n.children {
		if n.op == opSetOp {
			// Set operations compare whole rows.
			all := map[logical.ColumnID]bool{}
			for _, col := range c.cols {
				all[col.ID] = true
			}
			v.markUsed(c, all)
			continue
		}
		v.markUsed(c, below)
	}
}

func (v *trinoView) layout(n *pnode) []logical.Column {
	if n.op == opScan {
		return n.cols
	}
	var out []logical.Column
	for _, c := range n.cols {
		if v.used[n][c.ID] {
			out = append(out, c)
		}
	}
	return out
}

func (v *trinoView) names(cols []logical.Column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = v.symOf(c.ID)
	}
	return out
}

func (v *trinoView) symOf(id logical.ColumnID) string {
	if s, ok := v.sym[id]; ok {
		return s
	}
	return fmt.Sprintf("col_%d", id)
}

func (v *trinoView) layoutLine(n *pnode) string {
	var parts []string
	for _, c := range v.layout(n) {
		parts = append(parts, v.symOf(c.ID)+":"+trinoType(c.T))
	}
	return "Layout: [" + strings.Join(parts, ", ") + "]"
}

// expr renders e over symbols, Trino-quoted.
func (v *trinoView) expr(e expr.Expr) string {
	out, err := expr.Rewrite(e, func(x expr.Expr) (expr.Expr, error) {
		if r, ok := x.(*expr.ColRef); ok {
			return &expr.ColRef{Index: r.Index, Name: v.symOf(logical.ColumnID(r.Index)), T: r.T, Null: r.Null}, nil
		}
		return x, nil
	})
	if err != nil {
		out = e
	}
	return strings.ReplaceAll(out.String(), "`", `"`)
}

// bare is a key as a plain symbol when it is a column, else its expression.
func (v *trinoView) bare(e expr.Expr) string {
	if r, ok := e.(*expr.ColRef); ok {
		return v.symOf(logical.ColumnID(r.Index))
	}
	return v.expr(e)
}

func (v *trinoView) conj(es []expr.Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = v.expr(e)
	}
	return strings.Join(parts, " AND ")
}

func (v *trinoView) kind(f *pfrag) string {
	switch {
	case v.p.d.spread(f) == partSingle:
		return "SINGLE"
	case hasScan(f.root):
		return "SOURCE"
	case v.p.d.spread(f) == partHash:
		return "HASH"
	}
	return "ROUND_ROBIN"
}

func hasScan(n *pnode) bool {
	if n.op == opScan {
		return true
	}
	if n.op == opExchange {
		return false
	}
	return slices.ContainsFunc(n.children, hasScan)
}

func (v *trinoView) partitioning(x *pnode) string {
	keys := func() string {
		parts := make([]string, len(x.exch.keys))
		for i, k := range x.exch.keys {
			parts[i] = v.bare(k)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	switch x.exch.req.Kind {
	case props.ReqSingle:
		return "SINGLE []"
	case props.ReqReplicated:
		return "BROADCAST []"
	case props.ReqHash:
		return "HASH " + keys()
	case props.ReqBucket:
		return "BUCKET_SHUFFLE " + keys()
	}
	return "ROUND_ROBIN []"
}

// output is the root fragment's Output node: result names, and an
// assignment where a name differs from its symbol.
func (v *trinoView) output(root *pnode, child *explain.TrinoNode) *explain.TrinoNode {
	names := make([]string, len(root.cols))
	var assigns []string
	for i, c := range root.cols {
		names[i] = c.Name
		if out := v.p.Plan.Output; i < len(out) {
			names[i] = out[i].Name
		}
		if s := v.symOf(c.ID); s != names[i] {
			assigns = append(assigns, names[i]+" := "+s)
		}
	}
	return &explain.TrinoNode{Header: "Output[" + strings.Join(names, ", ") + "]",
		Details: append([]string{v.layoutLine(root)}, assigns...), Children: []*explain.TrinoNode{child}}
}

func (v *trinoView) sortKeys(keys []logical.SortKey) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		dir := "ASC"
		if k.Desc {
			dir = "DESC"
		}
		nulls := "_NULLS_LAST"
		if k.NullsFirst {
			nulls = "_NULLS_FIRST"
		}
		parts[i] = v.bare(k.Expr) + " " + dir + nulls
	}
	return strings.Join(parts, ", ")
}

// underMerge: n's output feeds a merging exchange (a partial sort / top-N).
func underMerge(n *pnode) bool {
	return n.frag != nil && n.frag.sink != nil && n.frag.root == n && n.frag.sink.exch.merge
}

var trinoJoinNames = map[fragment.JoinType]string{
	fragment.JoinInner: "InnerJoin", fragment.JoinLeftOuter: "LeftJoin", fragment.JoinRightOuter: "RightJoin",
	fragment.JoinFullOuter: "FullJoin", fragment.JoinLeftSemi: "SemiJoin", fragment.JoinRightSemi: "SemiJoin",
	fragment.JoinLeftAnti: "AntiJoin", fragment.JoinRightAnti: "AntiJoin", fragment.JoinNullAwareLeftAnti: "AntiJoin",
	fragment.JoinCross: "CrossJoin",
}

var trinoPhases = [...]string{"SINGLE", "PARTIAL", "FINAL", "INTERMEDIATE"}

// node builds the Trino tree of n's fragment below n.
func (v *trinoView) node(n *pnode) *explain.TrinoNode {
	if n.op == opProject && !computes(n) {
		return v.node(n.child())
	}
	t := &explain.TrinoNode{Details: []string{v.layoutLine(n)}}
	if n.op != opExchange {
		for _, c := range n.children {
			t.Children = append(t.Children, v.node(c))
		}
	}
	switch n.op {
	case opScan:
		name := "dorisgo:" + n.scan.ls.DB + "." + n.scan.ls.Table.Name
		t.Header = "TableScan[" + name + "]"
		if len(n.scan.conds) > 0 {
			t.Header = "ScanFilter[" + name + ", filterPredicate = " + v.conj(n.scan.conds) + "]"
		}
	case opFilter:
		t.Header = "Filter[filterPredicate = " + v.conj(n.conds) + "]"
	case opProject:
		t.Header = "Project[]"
		for i, c := range n.cols {
			if _, bare := n.exprs[i].(*expr.ColRef); !bare {
				t.Details = append(t.Details, v.symOf(c.ID)+" := "+v.expr(n.exprs[i]))
			}
		}
	case opLimit:
		t.Header = fmt.Sprintf("Limit[%d]", n.count)
		if n.offset > 0 {
			t = v.offset(n, n.offset, t)
		}
	case opValues:
		t.Header = "Values"
	case opTableFunc:
		t.Header = "TableFunction[" + tableFuncText(n.tfunc) + "]"
	case opRepeat:
		t.Header = v.groupID(n)
	case opApply:
		t.Header = "Apply[" + strings.ToLower(applyKindNames[n.apply.Kind]) + "]"
	case opJoin:
		v.join(n, t)
	case opAgg:
		return v.agg(n, t)
	case opSort:
		t.Header = "Sort[" + v.sortKeys(n.keys) + "]"
		if underMerge(n) {
			t.Header = "PartialSort[" + v.sortKeys(n.keys) + "]"
		}
	case opTopN:
		kind := "TopN"
		if underMerge(n) {
			kind = "TopNPartial"
		}
		t.Header = fmt.Sprintf("%s[%d by (%s)]", kind, n.count, v.sortKeys(n.keys))
		if n.offset > 0 {
			t = v.offset(n, n.offset, t)
		}
	case opSetOp:
		t.Header = [...]string{"Union", "Union", "Intersect", "Except"}[n.setop.Kind]
	case opWindow:
		var parts []string
		if c := n.window.Calls; len(c) > 0 && len(c[0].PartitionBy) > 0 {
			var ps []string
			for _, e := range c[0].PartitionBy {
				ps = append(ps, v.bare(e))
			}
			parts = append(parts, "partitionBy = ["+strings.Join(ps, ", ")+"]")
		}
		if c := n.window.Calls; len(c) > 0 && len(c[0].OrderBy) > 0 {
			parts = append(parts, "orderBy = ["+v.sortKeys(c[0].OrderBy)+"]")
		}
		t.Header = "Window[" + strings.Join(parts, ", ") + "]"
		for _, c := range n.window.Calls {
			t.Details = append(t.Details, v.symOf(c.Col.ID)+" := "+strings.Replace(v.call(c.Fn, c.Args, false), "(*)", "()", 1))
		}
	case opExchange:
		x := n.exch
		if !x.merge {
			t.Header = fmt.Sprintf("RemoteSource[%d]", n.child().frag.id)
			return t
		}
		t.Header = fmt.Sprintf("RemoteMerge[%d]", n.child().frag.id)
		if x.limit >= 0 {
			t = &explain.TrinoNode{Header: fmt.Sprintf("Limit[%d]", x.limit), Details: []string{v.layoutLine(n)}, Children: []*explain.TrinoNode{t}}
		}
		if x.offset > 0 {
			t = v.offset(n, x.offset, t)
		}
	}
	return t
}

func (v *trinoView) offset(n *pnode, k int64, child *explain.TrinoNode) *explain.TrinoNode {
	return &explain.TrinoNode{Header: fmt.Sprintf("Offset[%d]", k), Details: []string{v.layoutLine(n)}, Children: []*explain.TrinoNode{child}}
}

// computes: a projection with a non-column expression (else it is hidden).
func computes(n *pnode) bool {
	for _, e := range n.exprs {
		if _, ok := e.(*expr.ColRef); !ok {
			return true
		}
	}
	return false
}

func (v *trinoView) join(n *pnode, t *explain.TrinoNode) {
	j := n.join
	name := trinoJoinNames[j.typ]
	var crit []string
	for _, e := range j.equi {
		op := "="
		if e.NullSafe {
			op = "IS NOT DISTINCT FROM"
		}
		crit = append(crit, fmt.Sprintf("(%s %s %s)", quoteSym(v.bare(e.L), e.L), op, quoteSym(v.bare(e.R), e.R)))
	}
	var args []string
	if len(crit) > 0 {
		args = append(args, strings.Join(crit, " AND "))
	}
	if len(j.other) > 0 {
		args = append(args, "filterPredicate = "+v.conj(j.other))
	}
	if j.nested() && (j.typ == fragment.JoinInner || j.typ == fragment.JoinCross) && len(j.other) == 0 {
		name = "CrossJoin"
	}
	t.Header = name
	if len(args) > 0 {
		t.Header += "[" + strings.Join(args, ", ") + "]"
	}
	dist := "PARTITIONED"
	if j.dist == fragment.DistBroadcast {
		dist = "REPLICATED"
	}
	t.Details = append(t.Details, "Distribution: "+dist)
}

// quoteSym quotes a bare symbol as Trino prints join criteria.
func quoteSym(s string, e expr.Expr) string {
	if _, ok := e.(*expr.ColRef); ok {
		return `"` + s + `"`
	}
	return s
}

func (v *trinoView) call(fn string, args []expr.Expr, distinct bool) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = v.expr(a)
	}
	s := strings.Join(parts, ", ")
	if len(args) == 0 {
		s = "*"
	}
	if distinct {
		s = "DISTINCT " + s
	}
	return fn + "(" + s + ")"
}

func (v *trinoView) agg(n *pnode, t *explain.TrinoNode) *explain.TrinoNode {
	a := n.agg
	t.Header = "Aggregate(" + trinoPhases[a.phase] + ")"
	if len(a.l.GroupCols) > 0 {
		t.Header += "[" + strings.Join(v.names(a.l.GroupCols), ", ") + "]"
	}
	for i, c := range a.l.Aggs {
		switch {
		case a.merge != nil:
			t.Details = append(t.Details, v.symOf(c.Col.ID)+" := "+v.call(c.Fn, colRefs(a.merge.partial[i]), false))
		case a.phase == fragment.AggUpdateSerialize:
			t.Details = append(t.Details, v.symOf(a.partial[i][0].ID)+" := "+v.call(c.Fn, c.Args, c.Distinct))
		default:
			t.Details = append(t.Details, v.symOf(c.Col.ID)+" := "+v.call(c.Fn, c.Args, c.Distinct))
		}
	}
	if len(a.having) == 0 {
		return t
	}
	return &explain.TrinoNode{Header: "Filter[filterPredicate = " + v.conj(a.having) + "]", Details: []string{v.layoutLine(n)},
		Children: []*explain.TrinoNode{t}}
}

// trinoType is a type as Trino spells it.
func trinoType(t types.T) string {
	switch t.Kind {
	case types.Boolean:
		return "boolean"
	case types.TinyInt:
		return "tinyint"
	case types.SmallInt:
		return "smallint"
	case types.Int:
		return "integer"
	case types.BigInt:
		return "bigint"
	case types.LargeInt:
		return "decimal(38,0)"
	case types.Float:
		return "real"
	case types.Double:
		return "double"
	case types.Decimal:
		return fmt.Sprintf("decimal(%d,%d)", t.Precision, t.Scale)
	case types.Char:
		return fmt.Sprintf("char(%d)", t.Length)
	case types.Varchar:
		return fmt.Sprintf("varchar(%d)", t.Length)
	case types.String:
		return "varchar"
	case types.Date:
		return "date"
	case types.DateTime:
		return fmt.Sprintf("timestamp(%d)", t.Scale)
	}
	return "unknown"
}
