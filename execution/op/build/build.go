package build

import (
	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/execution/op/aggregate"
	"github.com/dorisgo/dorisgo/execution/op/join"
	"github.com/dorisgo/dorisgo/execution/op/scan"
	"github.com/dorisgo/dorisgo/execution/op/sorting"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/storage"
)

// Sources supplies what a fragment instance reads from outside itself.
type Sources struct {
	// Store is the local tablet storage (nil on the FE).
	Store scan.TabletReader
	// Tablets restricts each scan node to the tablets this instance owns
	// (by node id); nil means all of the spec's tablets.
	Tablets map[fragment.NodeID][]fragment.TabletRef
	// Exchange returns the receiving end of an exchange node.
	Exchange func(n *fragment.Node) (op.Operator, error)
	// Filters are the instance's runtime filters; nil: none are published
	// or applied.
	Filters *join.RuntimeFilters
	// BatchRows is the rows per scan batch; ≤ 0: the storage default.
	BatchRows int
}

// Build turns a node tree into an operator tree.
func Build(env *op.Env, n *fragment.Node, src *Sources) (op.Operator, error) {
	children := make([]op.Operator, len(n.Children))
	for i, c := range n.Children {
		o, err := Build(env, c, src)
		if err != nil {
			for _, b := range children[:i] {
				b.Close()
			}
			return nil, err
		}
		children[i] = o
	}
	switch n.Kind {
	case fragment.KindScan:
		s := n.Scan
		if src.Store == nil {
			return nil, sqlerr.Assertf("scan node %d outside a backend", n.ID)
		}
		tablets := s.Tablets
		if src.Tablets != nil {
			tablets = src.Tablets[n.ID]
		}
		reqs := make([]storage.ScanRequest, len(tablets))
		for i, t := range tablets {
			reqs[i] = storage.ScanRequest{Tablet: t.Tablet, Version: t.Version, Columns: s.Columns, Ranges: s.Ranges, BatchRows: src.BatchRows,
				SchemaVersion: s.SchemaVersion}
		}
		read := n.Output
		if s.Keep != nil {
			read = s.Read
		}
		var o op.Operator = scan.NewOlapScan(src.Store, reqs, read)
		targets := n.RFTarget
		if src.Filters == nil {
			targets = nil
		}
		if len(s.Conjuncts) == 0 && len(targets) == 0 && s.Keep == nil {
			return o, nil
		}
		return join.NewScanFilter(env, o, fragment.Unwrap(s.Conjuncts), s.Keep, n.Output, src.Filters, targets)
	case fragment.KindFilter:
		return op.NewFilter(env, children[0], fragment.Unwrap(n.Filter.Conjuncts))
	case fragment.KindProject:
		return op.NewProject(env, children[0], fragment.Unwrap(n.Project.Exprs), n.Output), nil
	case fragment.KindLimit:
		return op.NewLimit(children[0], n.Limit.Offset, n.Limit.Count), nil
	case fragment.KindValues:
		rows := make([][]expr.Expr, len(n.Values.Rows))
		for i, r := range n.Values.Rows {
			rows[i] = fragment.Unwrap(r)
		}
		return op.NewValues(env, rows, n.Output), nil
	case fragment.KindExchange:
		if src.Exchange == nil {
			return nil, sqlerr.Assertf("exchange node %d without a receiver", n.ID)
		}
		return src.Exchange(n)
	case fragment.KindHashJoin:
		j := n.Join
		spec := join.HashJoinSpec{Type: j.Type, LeftKeys: fragment.Unwrap(j.LeftKeys), RightKeys: fragment.Unwrap(j.RightKeys),
			NullSafe: j.NullSafe, Other: fragment.Unwrap(j.Other), Output: n.Output, Mem: env.Tracker}
		if j.Algorithm == fragment.AlgoSortMerge {
			// The sorts are added here, not as plan nodes: they belong to the
			// algorithm (Doris EXPLAIN has no node for them), they must sit
			// on each instance right above its inputs (after any exchange),
			// and their order must be the merge's own (MergeJoinSortKeys).
			return NewSortMergeJoin(env, children[0], children[1], spec)
		}
		h, err := join.NewHashJoin(env, children[0], children[1], spec)
		if err == nil && src.Filters != nil {
			h.PublishRuntimeFilters(src.Filters, n.RFBuild)
		}
		return h, err
	case fragment.KindNestedLoopJoin:
		j := n.Join
		t := j.Type
		if t == fragment.JoinInner && len(j.Other) == 0 {
			t = fragment.JoinCross
		}
		return join.NewNestedLoopJoin(env, children[0], children[1], join.NestedLoopJoinSpec{Type: t,
			Conjuncts: fragment.Unwrap(j.Other), Output: n.Output, Mem: env.Tracker})
	case fragment.KindAgg:
		a := n.Agg
		spec := aggregate.HashAggSpec{Phase: a.Phase, Groups: fragment.Unwrap(a.Groups), Output: n.Output, Mem: env.Tracker}
		for _, c := range a.Aggs {
			spec.Aggs = append(spec.Aggs, aggregate.AggCall{Fn: c.Fn, Args: fragment.Unwrap(c.Args), ArgType: c.ArgType,
				Distinct: c.Distinct, Separator: c.Separator})
		}
		return aggregate.NewHashAgg(env, children[0], spec)
	case fragment.KindSort:
		return sorting.NewSort(env, children[0], sorting.SortSpec{Keys: sortKeys(n.Sort.Keys), Mem: env.Tracker}), nil
	case fragment.KindTopN:
		return sorting.NewTopN(env, children[0], sorting.TopNSpec{Keys: sortKeys(n.Sort.Keys), Offset: n.Sort.Offset, Limit: n.Sort.Limit, Mem: env.Tracker}), nil
	case fragment.KindSetOp:
		return aggregate.NewSetOp(env, children, aggregate.SetOpSpec{Kind: n.SetOp.Kind, Output: n.Output, Mem: env.Tracker}), nil
	case fragment.KindWindow:
		w := n.Window
		spec := aggregate.WindowSpec{PartitionBy: fragment.Unwrap(w.PartitionBy), OrderBy: sortKeys(w.OrderBy), Output: n.Output, Mem: env.Tracker}
		for _, c := range w.Calls {
			wc := aggregate.WindowCall{Fn: c.Fn, Args: fragment.Unwrap(c.Args), ArgType: c.ArgType}
			if c.Frame != nil {
				unit := aggregate.FrameRange
				if c.Frame.Rows {
					unit = aggregate.FrameRows
				}
				wc.Frame = &aggregate.WindowFrame{Unit: unit, Start: aggregate.FrameBound{Kind: aggregate.BoundKind(c.Frame.Start.Kind), Offset: c.Frame.Start.Offset},
					End: aggregate.FrameBound{Kind: aggregate.BoundKind(c.Frame.End.Kind), Offset: c.Frame.End.Offset}}
			}
			spec.Calls = append(spec.Calls, wc)
		}
		return aggregate.NewWindow(env, children[0], spec)
	case fragment.KindRepeat:
		r := n.Repeat
		return aggregate.NewRepeat(env, children[0], aggregate.RepeatSpec{Keys: r.Keys, Sets: r.Sets, IDs: r.IDs, Output: n.Output}), nil
	case fragment.KindApply:
		return NewApply(env, children[0], n, src)
	case fragment.KindTableFunc:
		return scan.NewTableFunc(env, n.TableFunc, n.Output)
	}
	return nil, sqlerr.Assertf("unknown plan node kind %d", n.Kind)
}

func sortKeys(ks []fragment.SortKey) []op.SortKey {
	out := make([]op.SortKey, len(ks))
	for i, k := range ks {
		out[i] = op.SortKey{Expr: k.Expr.Expr, Desc: k.Desc, NullsFirst: k.NullsFirst}
	}
	return out
}

// NewSortMergeJoin puts a Sort by MergeJoinSortKeys under each input and
// joins them with a MergeJoin (what Build does for a sort-merge join).
func NewSortMergeJoin(env *op.Env, left, right op.Operator, spec join.MergeJoinSpec) (*join.MergeJoin, error) {
	ls := sorting.NewSort(env, left, sorting.SortSpec{Keys: join.MergeJoinSortKeys(spec.LeftKeys), Mem: spec.Mem})
	rs := sorting.NewSort(env, right, sorting.SortSpec{Keys: join.MergeJoinSortKeys(spec.RightKeys), Mem: spec.Mem})
	m, err := join.NewMergeJoin(env, ls, rs, spec)
	if err != nil {
		ls.Close()
		rs.Close()
		return nil, err
	}
	return m, nil
}
