package physical

import (
	"github.com/dorisgo/dorisgo/planner/explain"
	"github.com/dorisgo/dorisgo/planner/props"
)

// Graph is the distributed plan as data, for drawing it (the FE's web UI):
// the fragments EXPLAIN prints, the exchanges between them with their kind
// and estimates, and each operator's EXPLAIN attributes.
type Graph struct {
	Fragments []GraphFragment `json:"fragments"`
}

// GraphFragment is one plan fragment.
type GraphFragment struct {
	ID        int    `json:"id"`
	Partition string `json:"partition"` // as EXPLAIN's PARTITION
	Sink      string `json:"sink"`      // RESULT SINK, OLAP TABLE SINK or the stream sink's partition
	Tasks     int    `json:"tasks,omitempty"`
	// Exchange is the exchange that reads this fragment (nil: the root).
	Exchange *GraphExchange `json:"exchange,omitempty"`
	Nodes    []GraphNode    `json:"nodes"` // pre-order, the fragment's root first
}

// GraphExchange is the edge from a fragment to the one that reads it.
type GraphExchange struct {
	ID int `json:"id"` // the EXCHANGE node's id in the reading fragment
	// Kind is hash, bucket shuffle, broadcast, gather, merge, random or
	// tablet sink.
	Kind     string `json:"kind"`
	To       int    `json:"to"`
	EstRows  int64  `json:"est_rows"`  // -1 unknown
	EstBytes int64  `json:"est_bytes"` // -1 unknown
}

// GraphNode is one operator as EXPLAIN shows it.
type GraphNode struct {
	ID      int        `json:"id"`
	Label   string     `json:"label"`
	Inputs  []int      `json:"inputs,omitempty"` // in-fragment children
	From    int        `json:"from"`             // an exchange's sending fragment, else -1
	EstRows int64      `json:"est_rows"`
	Attrs   []string   `json:"attrs,omitempty"`
	Join    *GraphJoin `json:"join,omitempty"`
}

// GraphJoin is a join's distribution and why it is not colocated.
type GraphJoin struct {
	Distribution   string `json:"distribution"` // COLOCATE, BUCKET_SHUFFLE, BROADCAST, PARTITIONED
	Colocate       bool   `json:"colocate"`
	ColocateReason string `json:"colocate_reason,omitempty"`
}

// Graph returns the plan as data.
func (p *Distributed) Graph() *Graph {
	g := &Graph{}
	for _, f := range p.frags {
		gf := GraphFragment{ID: int(f.id), Partition: p.d.partitionText(f), Tasks: f.tasks}
		switch {
		case f.table != nil:
			gf.Sink = "OLAP TABLE SINK"
		case f.sink == nil:
			gf.Sink = "RESULT SINK"
		default:
			gf.Sink = p.d.sinkText(f.sink)
			est := GraphExchange{ID: int(f.sink.id), Kind: exchangeKind(f.sink), To: int(f.sink.frag.id), EstRows: f.root.rows, EstBytes: -1}
			if f.root.rows >= 0 {
				est.EstBytes = int64(float64(f.root.rows) * f.root.width)
			}
			gf.Exchange = &est
		}
		var walk func(n *pnode)
		walk = func(n *pnode) {
			w := explain.NewWriter(explain.Plain)
			n.Explain(w)
			gn := GraphNode{ID: int(n.id), Label: n.Label(), From: -1, EstRows: n.rows, Attrs: w.Lines()}
			if n.op == opExchange {
				gn.From = int(n.child().frag.id)
			}
			if n.op == opJoin {
				j := n.join
				gn.Join = &GraphJoin{Distribution: distNames[j.dist], Colocate: j.colocate == ReasonNone}
				if j.colocate != ReasonNone {
					gn.Join.ColocateReason = j.colocate.String()
				}
			}
			in := n.Inputs()
			for _, c := range in {
				gn.Inputs = append(gn.Inputs, c.NodeID())
			}
			gf.Nodes = append(gf.Nodes, gn)
			for _, c := range in {
				walk(c.(*pnode))
			}
		}
		walk(visibleNode(f.root))
		g.Fragments = append(g.Fragments, gf)
	}
	return g
}

// exchangeKind names how exchange x moves rows to its readers.
func exchangeKind(x *pnode) string {
	switch {
	case x.exch.tabletSink:
		return "tablet sink"
	case x.exch.merge:
		return "merge"
	}
	switch x.exch.req.Kind {
	case props.ReqSingle:
		return "gather"
	case props.ReqReplicated:
		return "broadcast"
	case props.ReqHash:
		return "hash"
	case props.ReqBucket:
		return "bucket shuffle"
	}
	return "random"
}

// RootRows is the planner's estimate of the rows the root fragment's sink
// takes in (an INSERT's table sink: a load's progress); -1 unknown.
func (p *Distributed) RootRows() int64 { return visibleNode(p.frags[0].root).rows }
