package build

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/planner/fragment"
)

// OpStats are one plan node's counters in one fragment instance.
type OpStats struct {
	Node    fragment.NodeID   `json:"node"`
	Kind    fragment.NodeKind `json:"kind"`
	Rows    int64             `json:"rows"`
	Batches int64             `json:"batches"`
	TimeNs  int64             `json:"time_ns"` // in Next, children included
	PeakMem int64             `json:"peak_mem"`
	// ScanRows and ScanBytes are what a scan node read from storage
	// (before its filters; see ScanCounter); 0 for other nodes.
	ScanRows  int64 `json:"scan_rows,omitempty"`
	ScanBytes int64 `json:"scan_bytes,omitempty"`
	// Spill counters of an operator that spilled (a grace hash join):
	// partition files written, their bytes, and the time spent writing
	// and reading them.
	SpillPartitions int64 `json:"spill_partitions,omitempty"`
	SpillBytes      int64 `json:"spill_bytes,omitempty"`
	SpillWriteNs    int64 `json:"spill_write_ns,omitempty"`
	SpillReadNs     int64 `json:"spill_read_ns,omitempty"`
}

// Profile collects the per-operator counters of a tree built by BuildProfiled.
type Profile struct {
	mu    sync.Mutex
	nodes []*profiledOp
}

// Stats returns every node's counters, in build order (children first).
func (p *Profile) Stats() []OpStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	// Pipeline tasks build a node several times: one entry per node, rows
	// summed, time of the slowest task, peaks added (the tasks run at once).
	var out []OpStats
	at := map[fragment.NodeID]int{}
	for _, o := range p.nodes {
		s := OpStats{Node: o.node.ID, Kind: o.node.Kind, Rows: o.rows.Load(), Batches: o.batches.Load(),
			TimeNs: o.ns.Load(), PeakMem: o.mem.Peak()}
		if c, ok := o.Operator.(op.ScanCounter); ok {
			s.ScanRows, s.ScanBytes = c.Scanned()
		}
		if c, ok := o.Operator.(op.SpillCounter); ok {
			sp := c.Spilled()
			s.SpillPartitions, s.SpillBytes, s.SpillWriteNs, s.SpillReadNs = sp.Partitions, sp.Bytes, sp.WriteNs, sp.ReadNs
		}
		i, ok := at[s.Node]
		if !ok {
			at[s.Node] = len(out)
			out = append(out, s)
			continue
		}
		out[i].Rows += s.Rows
		out[i].Batches += s.Batches
		out[i].TimeNs = max(out[i].TimeNs, s.TimeNs)
		out[i].PeakMem += s.PeakMem
		out[i].ScanRows += s.ScanRows
		out[i].ScanBytes += s.ScanBytes
		out[i].SpillPartitions += s.SpillPartitions
		out[i].SpillBytes += s.SpillBytes
		out[i].SpillWriteNs += s.SpillWriteNs
		out[i].SpillReadNs += s.SpillReadNs
	}
	return out
}

// BuildProfiled is Build with every node wrapped in a counting operator and
// given its own memory tracker (a child of env.Tracker), so the instance
// can report rows, time and peak memory per node. It builds node by node:
// each node is handed to Build with its children replaced by placeholder
// exchanges that return the already built (and wrapped) child operators.
func BuildProfiled(env *op.Env, n *fragment.Node, src *Sources) (op.Operator, *Profile, error) {
	if env.Tracker == nil {
		e := *env
		e.Tracker = op.NewMemTracker(0)
		env = &e
	}
	p := &Profile{}
	o, err := p.build(env, n, src)
	if err != nil {
		return nil, nil, err
	}
	return o, p, nil
}

// placeholderFrom marks the synthetic exchanges standing for built children.
const placeholderFrom fragment.FragmentID = -1

func (p *Profile) build(env *op.Env, n *fragment.Node, src *Sources) (op.Operator, error) {
	built := make([]op.Operator, len(n.Children))
	for i, c := range n.Children {
		o, err := p.build(env, c, src)
		if err != nil {
			closeAll(built[:i])
			return nil, err
		}
		built[i] = o
	}
	return p.node(env, n, built, src)
}

// node builds n over already built (and wrapped) inputs and wraps it. On
// error it closes the inputs.
func (p *Profile) node(env *op.Env, n *fragment.Node, inputs []op.Operator, src *Sources) (op.Operator, error) {
	shallow := *n
	shallow.Children = make([]*fragment.Node, len(n.Children))
	for i, c := range n.Children {
		shallow.Children[i] = &fragment.Node{ID: fragment.NodeID(-1 - i), Kind: fragment.KindExchange, Output: c.Output,
			Exchange: &fragment.ExchangeSpec{From: placeholderFrom}}
	}
	e := *env
	e.Tracker = env.Tracker.Child(fmt.Sprintf("node %d", n.ID))
	local := *src
	local.Exchange = func(x *fragment.Node) (op.Operator, error) {
		if x.Exchange != nil && x.Exchange.From == placeholderFrom {
			return inputs[-1-int(x.ID)], nil
		}
		return src.Exchange(x)
	}
	o, err := Build(&e, &shallow, &local)
	if err != nil {
		closeAll(inputs)
		return nil, err
	}
	return p.wrap(o, n, e.Tracker), nil
}

// wrap counts o's rows and time as node n's.
func (p *Profile) wrap(o op.Operator, n *fragment.Node, mem *op.MemTracker) op.Operator {
	w := &profiledOp{Operator: o, node: n, mem: mem}
	p.mu.Lock()
	p.nodes = append(p.nodes, w)
	p.mu.Unlock()
	return w
}

type profiledOp struct {
	op.Operator
	node    *fragment.Node
	mem     *op.MemTracker
	rows    atomic.Int64
	batches atomic.Int64
	ns      atomic.Int64
}

// CanSelect: the wrapped operator is an op.Selector.
func (o *profiledOp) CanSelect() bool {
	s, ok := o.Operator.(op.Selector)
	return ok && s.CanSelect()
}

// NextSelected forwards to the wrapped op.Selector, counting the rows that
// pass as the operator's output.
func (o *profiledOp) NextSelected(ctx context.Context) (arrow.Record, []int32, error) {
	start := time.Now()
	rec, sel, err := o.Operator.(op.Selector).NextSelected(ctx)
	o.ns.Add(int64(time.Since(start)))
	if err == nil {
		if sel != nil {
			o.rows.Add(int64(len(sel)))
		} else {
			o.rows.Add(rec.NumRows())
		}
		o.batches.Add(1)
	}
	return rec, sel, err
}

func (o *profiledOp) Next(ctx context.Context) (arrow.Record, error) {
	start := time.Now()
	rec, err := o.Operator.Next(ctx)
	o.ns.Add(int64(time.Since(start)))
	if err == nil {
		o.rows.Add(rec.NumRows())
		o.batches.Add(1)
	}
	return rec, err
}
