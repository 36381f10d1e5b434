package build

import (
	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/execution/op/exchange"
	"github.com/dorisgo/dorisgo/planner/fragment"
)

// ExchangeSource is the operator reading exchange node n from its inbox: a
// MERGING-EXCHANGE merges the senders' sorted streams by the node's sort
// keys (or, for plans that carry none, fallback: the keys of the sending
// fragment's root sort) and applies the node's offset and limit.
func ExchangeSource(env *op.Env, ib *exchange.Inbox, n *fragment.Node, fallback []fragment.SortKey) op.Operator {
	x := n.Exchange
	if !x.Merge {
		return ib.Source()
	}
	keys := x.SortKeys
	if len(keys) == 0 {
		keys = fallback
	}
	var src op.Operator = ib.Source()
	if len(keys) > 0 {
		src = ib.MergingSource(env, sortKeys(keys))
	}
	limited := x.Limit >= 0 && !(x.Limit == 0 && len(x.SortKeys) == 0)
	if x.Offset > 0 || limited {
		count := x.Limit
		if !limited {
			count = -1
		}
		src = op.NewLimit(src, x.Offset, count)
	}
	return src
}
