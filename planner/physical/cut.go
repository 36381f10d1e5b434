package physical

import (
	"sort"

	"github.com/dorisgo/dorisgo/planner/fragment"

	"github.com/dorisgo/dorisgo/planner/props"
)

// cut assigns every node its fragment: an exchange belongs to its parent's
// fragment and its child roots a new one. Fragments are numbered root-first,
// in the reverse of the order in which each last got a new root (post-order),
// so a fragment reads only fragments numbered after it.
func (d *distPlanner) cut(root *pnode) []*pfrag {
	var frags []*pfrag
	var assign func(n *pnode, f *pfrag)
	assign = func(n *pnode, f *pfrag) {
		n.frag = f
		for _, c := range n.children {
			if n.op == opExchange {
				cf := &pfrag{root: c, sink: n}
				frags = append(frags, cf)
				assign(c, cf)
				continue
			}
			assign(c, f)
		}
	}
	top := &pfrag{root: root}
	frags = append(frags, top)
	assign(root, top)
	tick := 0
	var touch func(n *pnode)
	touch = func(n *pnode) {
		for _, c := range n.children {
			touch(c)
		}
		tick++
		n.frag.touch = tick
	}
	touch(root)
	sort.SliceStable(frags, func(i, j int) bool { return frags[i].touch > frags[j].touch })
	for i, f := range frags {
		f.id = fragment.FragmentID(i)
	}
	return frags
}

// leftmost is the first leaf of n's fragment (a scan, exchange or values).
func leftmost(n *pnode) *pnode {
	for n.op != opExchange && len(n.children) > 0 {
		n = n.children[0]
	}
	return n
}

// rootInstances counts a top fragment's instances: one per selected tablet
// of its left-most scan, or one per alive backend when exchange-fed.
func (d *distPlanner) rootInstances(root *pnode) int {
	if root.del.Kind == props.DelSingle {
		return 1
	}
	l := leftmost(root)
	switch l.op {
	case opScan:
		return len(l.scan.tablets)
	case opExchange:
		if l.del.Kind == props.DelSingle {
			return 1
		}
		return d.aliveBackend
	}
	return 1
}
