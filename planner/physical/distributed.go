package physical

import (
	"fmt"
	"sort"

	"github.com/dorisgo/dorisgo/planner/explain"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/planner/props"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Distributed is a distributed plan: the fragments that would run and what
// EXPLAIN prints of them (the same objects; EXPLAIN never plans twice).
type Distributed struct {
	Plan  *fragment.Plan
	d     *distPlanner
	frags []*pfrag
	root  *pnode
}

// PlanDistributed places root on the cluster (DORIS-PLANNING.md): join
// order, per-join distribution (colocate → bucket shuffle → broadcast →
// partitioned), two-phase aggregation, merging sorts; EnforceDistribution
// inserts the exchanges and the plan is cut into fragments at them. out
// names the result columns. Correlated subqueries the binder could not
// decorrelate plan as Apply (apply.go).
func PlanDistributed(ctx *Context, root logical.Node, out []types.Column) (*Distributed, error) {
	return planDistributed(ctx, root, out, nil)
}

// planDistributed plans root; with a table sink the root fragment ends in
// it (OLAP TABLE SINK) instead of the result sink.
func planDistributed(ctx *Context, root logical.Node, out []types.Column, sink *tableSinkOp) (*Distributed, error) {
	root, err := logical.Optimize(ctx.Ctx, root)
	if err != nil {
		return nil, err
	}
	d := &distPlanner{ctx: ctx, eq: props.NewEquivClasses(), subst: map[logical.ColumnID]expr.Expr{}}
	d.nextCol = maxColumnID(root) + 1
	for _, be := range ctx.Cat.Backends() {
		if be.Alive && !be.Decommissioned {
			d.aliveBackend++
		}
	}
	if !ctx.Vars.DisableJoinReorder {
		root = d.reorder(root)
	}
	root = logical.PruneJoinOutputs(root)
	if err := ctx.cancelled(); err != nil {
		return nil, err
	}
	n, err := d.build(root)
	if err != nil {
		return nil, err
	}
	n = d.EnforceDistribution(n)
	switch {
	case sink != nil:
		n = d.requireSink(n, sink)
	case d.rootInstances(n) > 1:
		n = d.require(n, sideReq{req: props.Required{Kind: props.ReqSingle}})
	}
	if !d.checkEdges(n) {
		return nil, sqlerr.Assertf("physical: an exchange does not deliver what its parent requires")
	}
	d.markAdaptive(n, true)
	frags := d.cut(n)
	frags[0].table = sink
	d.planLocal(frags)
	plan, err := d.emit(frags, out)
	if err != nil {
		return nil, err
	}
	fragment.FoldScanProjections(plan)
	plan.RFWaitMs = ctx.Vars.RuntimeFilterWaitTimeMs
	plan.SingleBackendRows = ctx.Vars.SingleBackendScanRows
	if ctx.Vars.RuntimeFilterMode != "OFF" && fragment.AssignRuntimeFilters(plan, ctx.Vars.RuntimeFilterMode == "GLOBAL") > 0 {
		d.noteRuntimeFilters(plan)
	}
	if ctx.Check != nil {
		if err := ctx.Check(plan); err != nil {
			return nil, sqlerr.Assertf("the distributed plan failed its check (enable_plan_check): %v", err)
		}
	}
	return &Distributed{Plan: plan, d: d, frags: frags, root: n}, nil
}

// maxColumnID is the largest column id in the plan. Joins, filters,
// limits and sorts output their inputs' columns: asking them would copy
// every column of a join chain at each of its levels.
func maxColumnID(n logical.Node) logical.ColumnID {
	m := logical.ColumnID(0)
	switch n.(type) {
	case *logical.Join, *logical.Filter, *logical.Limit, *logical.Sort:
	default:
		for _, c := range n.Columns() {
			m = max(m, c.ID)
		}
	}
	for _, in := range n.Inputs() {
		m = max(m, maxColumnID(in))
	}
	if s, ok := n.(*logical.Scan); ok {
		for _, c := range s.Cols {
			m = max(m, c.ID)
		}
	}
	return m
}

// JoinDists lists the distribution of every join in node-id order (tests).
func (p *Distributed) JoinDists() []fragment.Distribution {
	var out []fragment.Distribution
	var walk func(n *pnode)
	walk = func(n *pnode) {
		for _, c := range n.children {
			walk(c)
		}
		if n.op == opJoin {
			out = append(out, n.join.dist)
		}
	}
	walk(p.root)
	return out
}

// Explain renders the plan in Doris's format (plain or VERBOSE) or Trino's
// (Distributed).
func (p *Distributed) Explain(mode explain.Mode) []string {
	if mode == explain.Distributed {
		return p.trino()
	}
	var frags []explain.Fragment
	for _, f := range p.frags {
		ef := explain.Fragment{ID: int(f.id), ExchangeID: -1, Root: visibleNode(f.root)}
		if f.table != nil {
			ef.TableSink = p.d.tableSinkLines(f)
		} else if f.sink == nil {
			for _, c := range f.root.cols {
				ef.OutputExprs = append(ef.OutputExprs, p.d.show(c.Ref()))
			}
		} else {
			ef.ExchangeID = int(f.sink.id)
			ef.SinkPartition = p.d.sinkText(f.sink)
		}
		ef.Partition = p.d.partitionText(f)
		if f.tasks > 1 {
			ef.Notes = append(ef.Notes, fmt.Sprintf("PIPELINE TASKS: %d", f.tasks))
			if s := f.sinkLocal; s != nil && (s.kind != fragment.LocalNoop || s.rule != "") {
				w := explain.NewWriter(mode)
				p.d.explainLocal(w, *s)
				ef.Notes = append(ef.Notes, "LOCAL-EXCHANGE (sink)")
				ef.Notes = append(ef.Notes, w.Lines()...)
			}
		}
		frags = append(frags, ef)
	}
	lines := explain.Doris(frags, mode)
	if mode == explain.Verbose {
		lines = append(lines, p.tupleLines()...)
	}
	return lines
}

// tupleLines is VERBOSE's tuple and slot detail, as Doris prints it: one
// tuple per scan (its id is the scan's node id) with a slot per column read.
func (p *Distributed) tupleLines() []string {
	var scans []*fragment.Node
	for _, f := range p.Plan.Fragments {
		fragment.Walk(f.Root, func(n *fragment.Node) {
			if n.Kind == fragment.KindScan {
				scans = append(scans, n)
			}
		})
	}
	sort.Slice(scans, func(i, j int) bool { return scans[i].ID < scans[j].ID })
	out := []string{"", "Tuples:"}
	slot := 0
	for _, n := range scans {
		out = append(out, fmt.Sprintf("TupleDescriptor{id=%d, tbl=%s}", n.ID, n.Scan.Table))
		for _, c := range n.Output {
			out = append(out, fmt.Sprintf("  SlotDescriptor{id=%d, col=%s, type=%s, nullable=%v}", slot, c.Name, c.Type, c.Nullable))
			slot++
		}
		out = append(out, "")
	}
	return out[:len(out)-1]
}

// visibleNode skips operators EXPLAIN hides.
func visibleNode(n *pnode) *pnode {
	for n.hidden {
		n = n.child()
	}
	return n
}
