package coord

import "github.com/dorisgo/dorisgo/planner/fragment"

// hoistRoot moves a root fragment that reads tablets onto the backends. The
// planner keeps the result sink in a scan-rooted top fragment when it has a
// single instance (as Doris does, e.g. a one-tablet table), but this FE holds
// no tablets: the fragment runs as an ordinary instance that gathers into a
// new root on the FE, which only reads the exchange.
func hoistRoot(plan *fragment.Plan) *fragment.Plan {
	root := plan.Fragments[0]
	if !readsTablets(root.Root) {
		return plan
	}
	maxID := fragment.NodeID(0)
	for _, f := range plan.Fragments {
		fragment.Walk(f.Root, func(n *fragment.Node) {
			if n.ID > maxID {
				maxID = n.ID
			}
		})
	}
	moved := *root
	moved.ID = fragment.FragmentID(len(plan.Fragments))
	ex := &fragment.Node{ID: maxID + 1, Kind: fragment.KindExchange, Output: root.Root.Output,
		Exchange: &fragment.ExchangeSpec{From: moved.ID}}
	moved.Sink = fragment.Sink{Kind: fragment.StreamGather, ExchangeID: ex.ID}
	out := *plan
	out.Fragments = append(append([]*fragment.Fragment{}, plan.Fragments...), &moved)
	out.Fragments[0] = &fragment.Fragment{ID: 0, Root: ex, Partition: fragment.Unpartitioned, Sink: fragment.Sink{Kind: fragment.ResultSink}}
	return &out
}

func readsTablets(n *fragment.Node) bool {
	found := false
	fragment.Walk(n, func(x *fragment.Node) {
		if x.Kind == fragment.KindScan {
			found = true
		}
	})
	return found
}
