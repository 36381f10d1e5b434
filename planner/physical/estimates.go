package physical

import "github.com/dorisgo/dorisgo/planner/fragment"

// Estimates are the planner's estimated output rows of each plan node
// EXPLAIN shows (exchanges included), by node id; -1 is unknown. EXPLAIN
// ANALYZE prints them next to the rows each operator produced.
func (p *Distributed) Estimates() map[fragment.NodeID]int64 {
	out := map[fragment.NodeID]int64{}
	var walk func(n *pnode)
	walk = func(n *pnode) {
		if !n.hidden {
			out[n.id] = n.rows
		}
		for _, c := range n.children {
			walk(c)
		}
	}
	walk(p.root)
	return out
}

// Inputs are the node ids of each shown node's inputs (hidden operators
// skipped), for reading estimates per edge (a join's inputs).
func (p *Distributed) Inputs() map[fragment.NodeID][]fragment.NodeID {
	out := map[fragment.NodeID][]fragment.NodeID{}
	var walk func(n *pnode)
	walk = func(n *pnode) {
		for _, c := range n.children {
			walk(c)
			if !n.hidden {
				out[n.id] = append(out[n.id], visibleNode(c).id)
			}
		}
	}
	walk(p.root)
	return out
}
