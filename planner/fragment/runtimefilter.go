package fragment

import (
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// RFBuild is a runtime filter a hash join publishes once its build side is
// complete: the set of build values of key Key (min/max and a bloom filter).
type RFBuild struct {
	ID  int `json:"id"`
	Key int `json:"key"` // index into the join's RightKeys
	// Global: the scan applying it is in another fragment (or past a local
	// exchange); the join's instance sends its part to the backends running
	// Target's instances, which merge the parts of all the join's
	// instances.
	Global bool       `json:"global,omitempty"`
	Target FragmentID `json:"target,omitempty"`
}

// RFTarget is a runtime filter a scan applies to its output column Column:
// rows whose value cannot be among the build values are dropped before
// anything above the scan sees them (Doris's runtime filters).
type RFTarget struct {
	ID     int `json:"id"`
	Column int `json:"column"` // scan output column
	// Global: built by the instances of fragment Build (merged on this
	// instance's backend); the scan waits for it a while before its first
	// read (runtime_filter_wait_time_ms).
	Global bool       `json:"global,omitempty"`
	Build  FragmentID `json:"build,omitempty"`
}

// AssignRuntimeFilters plans runtime filters in p: for each '=' key of a
// hash join whose unmatched probe rows are dropped (inner, left semi, right
// outer/semi/anti), when the probe key is a scan column reached through
// operators that pass it through unchanged and never keep a row because
// of rows the filter removes (no LIMIT, no aggregate unless over the key as
// a group key, no window), the join publishes its build keys and the scan
// filters by them.
//
// A local filter (the scan in the join's fragment, no local exchange
// between) is complete where it is applied: the join's build side holds
// every value a probe row of that instance could match (broadcast: all of
// them; colocate and bucket shuffle: the instance's buckets, which are the
// buckets its scan reads). With global set (runtime_filter_mode GLOBAL),
// the key is also followed through exchanges into the fragments below: the
// scan then applies the union of every join instance's filter, which is
// complete whatever the join's distribution (Doris's global runtime
// filters, merged on the scans' backends instead of a merge node). Joins
// of the root fragment, adaptive joins that sample their probe side (which may run on the FE) and of fragments run as
// several pipeline tasks (each task builds a share) publish local ones
// only. It returns the filters it placed.
func AssignRuntimeFilters(p *Plan, global bool) int {
	id := 0
	for _, f := range p.Fragments {
		canGlobal := global && f.ID != 0 && f.Tasks <= 1
		var walk func(n *Node)
		walk = func(n *Node) {
			for _, c := range n.Children {
				walk(c)
			}
			if n.Kind != KindHashJoin || n.Join == nil || n.Join.Algorithm != AlgoHash || len(n.Children) != 2 {
				return
			}
			switch n.Join.Type {
			case JoinInner, JoinLeftSemi, JoinRightOuter, JoinRightSemi, JoinRightAnti:
			default:
				return
			}
			// An adaptive join that may sample its probe side's keys before
			// it releases its build side (skew handling) would hold its own
			// filter back from the scans it waits on.
			global := canGlobal && (n.Join.Adaptive == nil || n.Join.Adaptive.SkewShare <= 0)
			local := noLocalExchange(n, 0)
			if !local && !global {
				return
			}
			for k, lk := range n.Join.LeftKeys {
				if k < len(n.Join.NullSafe) && n.Join.NullSafe[k] {
					continue
				}
				if !filterable(n.Join.RightKeys[k].Expr) {
					continue
				}
				col, ok := keyColumn(lk.Expr)
				if !ok {
					continue
				}
				tr := tracer{p: p, frag: f.ID, global: global, remote: !local}
				scan, c, ok := tr.toScan(n.Children[0], col)
				if !ok {
					continue
				}
				b := RFBuild{ID: id, Key: k}
				t := RFTarget{ID: id, Column: c}
				if tr.remote {
					b.Global, b.Target = true, tr.frag
					t.Global, t.Build = true, f.ID
				}
				n.RFBuild = append(n.RFBuild, b)
				scan.RFTarget = append(scan.RFTarget, t)
				id++
			}
		}
		walk(f.Root)
	}
	return id
}

// FoldScanProjections merges a projection that only selects columns of a
// filtered scan into the scan (ScanSpec.Keep): the scan then gathers just
// the kept columns of the rows its conjuncts pass, instead of every column
// it read.
func FoldScanProjections(p *Plan) {
	var fold func(n *Node) *Node
	fold = func(n *Node) *Node {
		for i, c := range n.Children {
			n.Children[i] = fold(c)
		}
		if n.Kind != KindProject || len(n.Children) != 1 || len(n.LocalExchanges) > 0 {
			return n
		}
		s := n.Children[0]
		if s.Kind != KindScan || len(s.Scan.Conjuncts) == 0 || s.Scan.Keep != nil || len(s.RFTarget) > 0 {
			return n
		}
		keep := make([]int, len(n.Project.Exprs))
		for i, e := range n.Project.Exprs {
			r, ok := e.Expr.(*expr.ColRef)
			if !ok || r.Index < 0 || r.Index >= len(s.Output) {
				return n
			}
			keep[i] = r.Index
		}
		s.Scan.Keep, s.Scan.Read = keep, s.Output
		s.Output = n.Output
		return s
	}
	for _, f := range p.Fragments {
		f.Root = fold(f.Root)
	}
}

// filterable: the key's values are integers, dates or datetimes, which a
// runtime filter holds as int64.
func filterable(e expr.Expr) bool {
	if e == nil {
		return false
	}
	t := e.Type()
	return (t.IsInteger() && t.Kind != types.LargeInt) || t.Kind == types.Date || t.Kind == types.DateTime
}

// keyColumn is the probe column a key reads: a column, or an integer
// widening of one (the value, as int64, is the same).
func keyColumn(e expr.Expr) (int, bool) {
	switch x := e.(type) {
	case *expr.ColRef:
		return x.Index, filterable(x)
	case *expr.Cast:
		if c, ok := x.Arg.(*expr.ColRef); ok && filterable(x) && c.T.IsInteger() && x.To.IsInteger() && c.T.Kind <= x.To.Kind {
			return c.Index, true
		}
	}
	return 0, false
}

// noLocalExchange: nothing runs between n's child i and n's tasks, so a
// filter published by n's instance sees the same rows as that child.
func noLocalExchange(n *Node, i int) bool {
	return i >= len(n.LocalExchanges) || n.LocalExchanges[i].Kind == LocalNoop
}

// tracer follows a probe key down to the scan producing it.
type tracer struct {
	p      *Plan
	frag   FragmentID // the fragment the trace is in
	global bool       // may cross exchanges and local exchanges
	remote bool       // crossed one: the filter must be global
}

// local reports whether the trace may pass local exchange i of n: a local
// filter may not (the instance's tasks' rows are redistributed), a global
// one may.
func (t *tracer) local(n *Node, i int) bool {
	if noLocalExchange(n, i) {
		return true
	}
	if !t.global {
		return false
	}
	t.remote = true
	return true
}

// toScan follows output column col of n down to the scan producing it,
// through operators that pass the column through unchanged and never keep
// a row because of rows the filter would remove.
func (t *tracer) toScan(n *Node, col int) (*Node, int, bool) {
	for {
		if col < 0 || col >= len(n.Output) {
			return nil, 0, false
		}
		switch n.Kind {
		case KindScan:
			return n, col, true
		case KindFilter:
		case KindProject:
			c, ok := n.Project.Exprs[col].Expr.(*expr.ColRef)
			if !ok {
				return nil, 0, false
			}
			col = c.Index
		case KindAgg:
			// A group key: the filter drops whole groups, each of which
			// the join would have dropped.
			if col >= len(n.Agg.Groups) {
				return nil, 0, false
			}
			c, ok := n.Agg.Groups[col].Expr.(*expr.ColRef)
			if !ok {
				return nil, 0, false
			}
			col = c.Index
		case KindExchange:
			x := n.Exchange
			// Not a merging exchange: it sits over a sort, maybe with a
			// limit, which filtering below would change.
			if !t.global || x == nil || x.Merge || int(x.From) <= 0 || int(x.From) >= len(t.p.Fragments) {
				return nil, 0, false
			}
			src := t.p.Fragments[x.From]
			if src == nil || src.Root == nil || len(src.Root.Output) != len(n.Output) || src.Sink.Kind == TableSinkKind {
				return nil, 0, false
			}
			t.remote, t.frag = true, src.ID
			n = src.Root
			continue
		case KindHashJoin, KindNestedLoopJoin:
			if len(n.Children) != 2 {
				return nil, 0, false
			}
			left, right := n.Children[0], n.Children[1]
			jt := n.Join.Type
			switch {
			case jt == JoinRightSemi || jt == JoinRightAnti:
				return nil, 0, false
			case col < len(left.Output):
				// The left side's rows keep their values in every join
				// that outputs them (null extension only adds columns).
				if jt == JoinRightOuter || jt == JoinFullOuter || !t.local(n, 0) {
					return nil, 0, false
				}
				n = left
				continue
			case (jt == JoinInner || jt == JoinCross) && len(n.Output) == len(left.Output)+len(right.Output):
				if !t.local(n, 1) {
					return nil, 0, false
				}
				col -= len(left.Output)
				n = right
				continue
			}
			return nil, 0, false
		default:
			return nil, 0, false
		}
		if len(n.Children) != 1 || !t.local(n, 0) {
			return nil, 0, false
		}
		n = n.Children[0]
	}
}
