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
}

// RFTarget is a runtime filter a scan applies to its output column Column:
// rows whose value cannot be among the build values are dropped before
// anything above the scan sees them (Doris's runtime filters, local kind).
type RFTarget struct {
	ID     int `json:"id"`
	Column int `json:"column"` // scan output column
}

// AssignRuntimeFilters plans local runtime filters in every fragment of p:
// for each '=' key of a hash join whose unmatched probe rows are dropped
// (inner, left semi, right outer/semi/anti), when the probe key is a scan
// column reached without crossing an exchange, a local exchange or an
// operator that could keep a row the join drops (LIMIT, aggregates over
// it, windows …), the join publishes its build keys and the scan filters by
// them. The filter is complete wherever it is applied: the join's build
// side holds every value a probe row of that instance could match
// (broadcast: all of them; colocate and bucket shuffle: the instance's
// buckets, which are the buckets its scan reads). Shuffle joins read their
// probe side through an exchange, so they get none (Doris merges those
// globally; dorisgo does not). It returns the filters it placed.
func AssignRuntimeFilters(p *Plan) int {
	id := 0
	for _, f := range p.Fragments {
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
			if !noLocalExchange(n, 0) {
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
				scan, c, ok := traceToScan(n.Children[0], col)
				if !ok {
					continue
				}
				n.RFBuild = append(n.RFBuild, RFBuild{ID: id, Key: k})
				scan.RFTarget = append(scan.RFTarget, RFTarget{ID: id, Column: c})
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

// traceToScan follows output column col of n down to the scan producing
// it, through operators that pass the column through unchanged and never
// keep a row because of rows the filter would remove.
func traceToScan(n *Node, col int) (*Node, int, bool) {
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
		case KindHashJoin, KindNestedLoopJoin:
			if len(n.Children) != 2 {
				return nil, 0, false
			}
			left, right := n.Children[0], n.Children[1]
			t := n.Join.Type
			switch {
			case t == JoinRightSemi || t == JoinRightAnti:
				return nil, 0, false
			case col < len(left.Output):
				// The left side's rows keep their values in every join
				// that outputs them (null extension only adds columns).
				if t == JoinRightOuter || t == JoinFullOuter || !noLocalExchange(n, 0) {
					return nil, 0, false
				}
				n = left
				continue
			case (t == JoinInner || t == JoinCross) && len(n.Output) == len(left.Output)+len(right.Output):
				if !noLocalExchange(n, 1) {
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
		if !noLocalExchange(n, 0) || len(n.Children) != 1 {
			return nil, 0, false
		}
		n = n.Children[0]
	}
}
