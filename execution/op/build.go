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
			reqs[i] = storage.ScanRequest{Tablet: t.Tablet, Version: t.Version, Columns: s.Columns, Ranges: s.Ranges}
		}
		var o Operator = NewOlapScan(src.Store, reqs, n.Output)
		if len(s.Conjuncts) > 0 {
			f, err := NewFilter(env, o, fragment.Unwrap(s.Conjuncts))
			if err != nil {
				return nil, err
			}
			o = f
		}
		return o, nil
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
	}
	return nil, sqlerr.Assertf("unknown plan node kind %d", n.Kind)
}
