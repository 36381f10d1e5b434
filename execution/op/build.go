package op

import (
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/storage"
)

// Sources supplies what a fragment instance reads from outside itself.
type Sources struct {
	// Store is the local tablet storage (nil on the FE).
	Store TabletReader
	// Tablets restricts each scan node to the tablets this instance owns
	// (by node id); nil means all of the spec's tablets.
	Tablets map[fragment.NodeID][]fragment.TabletRef
	// Exchange returns the receiving end of an exchange node.
	Exchange func(n *fragment.Node) (Operator, error)
	// Filters are the instance's runtime filters; nil: none are published
	// or applied.
	Filters *RuntimeFilters
	// BatchRows is the rows per scan batch; ≤ 0: the storage default.
	BatchRows int
}

// Build turns a node tree into an operator tree.
func Build(env *Env, n *fragment.Node, src *Sources) (Operator, error) {
	children := make([]Operator, len(n.Children))
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
		var o Operator = NewOlapScan(src.Store, reqs, read)
		targets := n.RFTarget
		if src.Filters == nil {
			targets = nil
		}
		if len(s.Conjuncts) == 0 && len(targets) == 0 && s.Keep == nil {
			return o, nil
		}
		return NewScanFilter(env, o, fragment.Unwrap(s.Conjuncts), s.Keep, n.Output, src.Filters, targets)
	case fragment.KindFilter:
		return NewFilter(env, children[0], fragment.Unwrap(n.Filter.Conjuncts))
	case fragment.KindProject:
		return NewProject(env, children[0], fragment.Unwrap(n.Project.Exprs), n.Output), nil
	case fragment.KindLimit:
		return NewLimit(children[0], n.Limit.Offset, n.Limit.Count), nil
	case fragment.KindValues:
		rows := make([][]expr.Expr, len(n.Values.Rows))
		for i, r := range n.Values.Rows {
			rows[i] = fragment.Unwrap(r)
		}
		return NewValues(env, rows, n.Output), nil
	case fragment.KindExchange:
		if src.Exchange == nil {
			return nil, sqlerr.Assertf("exchange node %d without a receiver", n.ID)
		}
		return src.Exchange(n)
	case fragment.KindHashJoin:
		j := n.Join
		spec := HashJoinSpec{Type: j.Type, LeftKeys: fragment.Unwrap(j.LeftKeys), RightKeys: fragment.Unwrap(j.RightKeys),
			NullSafe: j.NullSafe, Other: fragment.Unwrap(j.Other), Output: n.Output, Mem: env.Tracker}
		if j.Algorithm == fragment.AlgoSortMerge {
			// The sorts are added here, not as plan nodes: they belong to the
			// algorithm (Doris EXPLAIN has no node for them), they must sit
			// on each instance right above its inputs (after any exchange),
			// and their order must be the merge's own (MergeJoinSortKeys).
			return NewSortMergeJoin(env, children[0], children[1], spec)
		}
		h, err := NewHashJoin(env, children[0], children[1], spec)
		if err == nil && src.Filters != nil {
			h.rfs, h.rfBuild = src.Filters, n.RFBuild
		}
		return h, err
	case fragment.KindNestedLoopJoin:
		j := n.Join
		t := j.Type
		if t == fragment.JoinInner && len(j.Other) == 0 {
			t = fragment.JoinCross
		}
		return NewNestedLoopJoin(env, children[0], children[1], NestedLoopJoinSpec{Type: t,
			Conjuncts: fragment.Unwrap(j.Other), Output: n.Output, Mem: env.Tracker})
	case fragment.KindAgg:
		a := n.Agg
		spec := HashAggSpec{Phase: a.Phase, Groups: fragment.Unwrap(a.Groups), Output: n.Output, Mem: env.Tracker}
		for _, c := range a.Aggs {
			spec.Aggs = append(spec.Aggs, AggCall{Fn: c.Fn, Args: fragment.Unwrap(c.Args), ArgType: c.ArgType,
				Distinct: c.Distinct, Separator: c.Separator})
		}
		return NewHashAgg(env, children[0], spec)
	case fragment.KindSort:
		return NewSort(env, children[0], SortSpec{Keys: sortKeys(n.Sort.Keys), Mem: env.Tracker}), nil
	case fragment.KindTopN:
		return NewTopN(env, children[0], TopNSpec{Keys: sortKeys(n.Sort.Keys), Offset: n.Sort.Offset, Limit: n.Sort.Limit, Mem: env.Tracker}), nil
	case fragment.KindSetOp:
		return NewSetOp(env, children, SetOpSpec{Kind: n.SetOp.Kind, Output: n.Output, Mem: env.Tracker}), nil
	case fragment.KindWindow:
		w := n.Window
		spec := WindowSpec{PartitionBy: fragment.Unwrap(w.PartitionBy), OrderBy: sortKeys(w.OrderBy), Output: n.Output, Mem: env.Tracker}
		for _, c := range w.Calls {
			wc := WindowCall{Fn: c.Fn, Args: fragment.Unwrap(c.Args), ArgType: c.ArgType}
			if c.Frame != nil {
				unit := FrameRange
				if c.Frame.Rows {
					unit = FrameRows
				}
				wc.Frame = &WindowFrame{Unit: unit, Start: FrameBound{Kind: BoundKind(c.Frame.Start.Kind), Offset: c.Frame.Start.Offset},
					End: FrameBound{Kind: BoundKind(c.Frame.End.Kind), Offset: c.Frame.End.Offset}}
			}
			spec.Calls = append(spec.Calls, wc)
		}
		return NewWindow(env, children[0], spec)
	case fragment.KindRepeat:
		r := n.Repeat
		return NewRepeat(env, children[0], RepeatSpec{Keys: r.Keys, Sets: r.Sets, IDs: r.IDs, Output: n.Output}), nil
	case fragment.KindApply:
		return NewApply(env, children[0], n, src)
	case fragment.KindTableFunc:
		return NewTableFunc(env, n.TableFunc, n.Output)
	}
	return nil, sqlerr.Assertf("unknown plan node kind %d", n.Kind)
}

func sortKeys(ks []fragment.SortKey) []SortKey {
	out := make([]SortKey, len(ks))
	for i, k := range ks {
		out[i] = SortKey{Expr: k.Expr.Expr, Desc: k.Desc, NullsFirst: k.NullsFirst}
	}
	return out
}
