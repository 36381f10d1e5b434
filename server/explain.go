package server

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"fmt"

	"github.com/dorisgo/dorisgo/execution/coord"
	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/execution/op/build"

	"github.com/dorisgo/dorisgo/planner/check"
	"github.com/dorisgo/dorisgo/planner/explain"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/physical"
	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// plannerContext is what distributed planning reads of this session: its
// variables, overridden by the statement's SET_VAR hints, and its Spark hints.
func (s *Session) plannerContext(h *parser.Hints) *physical.Context {
	v := physical.DefaultVars()
	for _, name := range physical.VarNames() {
		v.Set(name, s.vars.get(name))
	}
	ctx := &physical.Context{Cat: s.srv.cat, Vars: v, Ctx: s.statementContext()}
	if s.vars.get("enable_plan_check") == "true" {
		cat := s.srv.cat
		ctx.Check = func(p *fragment.Plan) error { return check.Plan(p, check.FromCatalog(cat)) }
	}
	if h != nil {
		for _, sv := range h.SetVars {
			ctx.Vars.Set(sv.Name, sv.Value)
		}
		ctx.Spark = h.Spark
	}
	return ctx
}

// explain prints the distributed plan, one line per row.
func (s *Session) explain(ctx context.Context, st *parser.Explain, w wire.ResultWriter) error {
	v, ok := st.Stmt.(*parser.Vitess)
	if !ok {
		return sqlerr.NotSupportedYet.New("EXPLAIN of this statement")
	}
	if v.Kind == parser.KindDelete {
		return s.explainDelete(v)
	}
	if v.Kind == parser.KindInsert && st.Mode != parser.ExplainAnalyze {
		return s.explainInsert(v, st.Mode, w)
	}
	if v.Kind == parser.KindUpdate && st.Mode != parser.ExplainAnalyze {
		if err := noPlaceholder(v); err != nil {
			return err
		}
		ins, err := newBinder(s, nil).BindUpdate(v)
		if err != nil {
			return err
		}
		return s.explainLoad(v, ins, st.Mode, w)
	}
	if v.Kind != parser.KindSelect {
		return sqlerr.NotSupportedYet.New("EXPLAIN of this statement")
	}
	p, err := s.planQuery(v, nil)
	if err != nil {
		return err
	}
	mode := explain.Plain
	switch st.Mode {
	case parser.ExplainVerbose:
		mode = explain.Verbose
	case parser.ExplainDistributed:
		mode = explain.Distributed
	}
	lines := p.dist.Explain(mode)
	if st.Mode == parser.ExplainAnalyze {
		more, err := s.analyze(ctx, p)
		if err != nil {
			return err
		}
		lines = append(lines, more...)
	}
	var rows [][]types.Datum
	for _, line := range lines {
		rows = append(rows, []types.Datum{str(line)})
	}
	return writeTable(w, []wire.Column{strCol("Explain String")}, rows)
}

// analyze runs the plan to the end (discarding rows) and reports what each
// operator and exchange actually did, for comparison with the estimates.
func (s *Session) analyze(ctx context.Context, p *planned) ([]string, error) {
	start := time.Now()
	root, err := s.start(ctx, p.plan)
	if err != nil {
		return nil, err
	}
	var rows int64
	err = op.Drain(ctx, root, func(rec arrow.Record) error {
		rows += rec.NumRows()
		return nil
	})
	root.Close()
	s.countScans(root)
	if err != nil {
		return nil, err
	}
	return profileLines(p, root, rows, time.Since(start)), nil
}

// profileLines reports what a finished query's operators and exchanges did.
func profileLines(p *planned, root op.Operator, rows int64, elapsed time.Duration) []string {
	out := []string{"", "PROFILE", fmt.Sprintf("  rows returned: %d", rows), fmt.Sprintf("  total time: %.3f ms", float64(elapsed.Microseconds())/1000)}
	prof, ok := root.(interface{ Profile() *coord.Profile })
	if !ok {
		return out
	}
	pr := prof.Profile()
	scanRows, scanBytes := pr.Scanned()
	out = append(out, fmt.Sprintf("  scanned: rows=%d  bytes=%d", scanRows, scanBytes))
	type agg struct {
		kind                fragment.NodeKind
		rows, batches, peak int64
		timeNs              int64
		instances           int
		spill               op.SpillStats
	}
	ops := map[fragment.NodeID]*agg{}
	add := func(stats []build.OpStats) {
		for _, o := range stats {
			a := ops[o.Node]
			if a == nil {
				a = &agg{kind: o.Kind}
				ops[o.Node] = a
			}
			a.rows += o.Rows
			a.batches += o.Batches
			a.peak = max(a.peak, o.PeakMem)
			a.timeNs = max(a.timeNs, o.TimeNs)
			a.instances++
			a.spill.Partitions += o.SpillPartitions
			a.spill.Bytes += o.SpillBytes
			a.spill.WriteNs += o.SpillWriteNs
			a.spill.ReadNs += o.SpillReadNs
		}
	}
	add(pr.Root)
	for _, r := range pr.Instances {
		add(r.Operators)
	}
	ids := make([]fragment.NodeID, 0, len(ops))
	for id := range ops {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	out = append(out, "  operators (rows summed over instances, est = the planner's estimate, time = slowest instance, children included):")
	est, inputs := p.dist.Estimates(), p.dist.Inputs()
	for _, id := range ids {
		a := ops[id]
		e := "?"
		if v, ok := est[id]; ok && v >= 0 {
			e = fmt.Sprint(v)
		}
		in := ""
		if ins := inputs[id]; len(ins) > 0 {
			ss := make([]string, len(ins))
			for i, c := range ins {
				ss[i] = fmt.Sprint(c)
			}
			in = "  inputs=" + strings.Join(ss, ",")
		}
		out = append(out, fmt.Sprintf("    %d:%s  instances=%d  rows=%d  est=%s  batches=%d  time=%.3f ms  peak memory=%d%s",
			id, a.kind, a.instances, a.rows, e, a.batches, float64(a.timeNs)/1e6, a.peak, in))
		if sp := a.spill; sp.Partitions > 0 {
			out = append(out, fmt.Sprintf("      spilled: partitions=%d  bytes=%d  write time=%.3f ms  read time=%.3f ms (summed over instances)",
				sp.Partitions, sp.Bytes, float64(sp.WriteNs)/1e6, float64(sp.ReadNs)/1e6))
		}
	}
	out = append(out, "  fragments (instances that ran, pipeline tasks per instance):")
	for _, f := range p.plan.Fragments {
		n, tasks := 0, 0
		for _, r := range pr.Instances {
			if r.Fragment == f.ID {
				n++
				tasks = max(tasks, r.Tasks)
			}
		}
		if n > 0 {
			out = append(out, fmt.Sprintf("    fragment %d: instances=%d  tasks=%d", f.ID, n, max(tasks, 1)))
		}
	}
	out = append(out, adaptiveLines(pr)...)
	out = append(out, "  exchanges (sending side, summed over sender instances):")
	for _, f := range p.plan.Fragments[1:] {
		x := pr.ExchangeStats(f.ID)
		out = append(out, fmt.Sprintf("    EXCHANGE %02d from fragment %d: rows=%d  bytes sent=%d  wire bytes=%d  batches=%d  blocked=%.3f ms  peak buffered=%d",
			f.Sink.ExchangeID, f.ID, x.Rows, x.Bytes, x.WireBytes, x.Batches, float64(x.BlockedNs)/1e6, x.PeakBytes))
	}
	return out
}

// adaptiveLines says how each adaptive join ran, the measured size that
// decided, and the bytes its exchanges moved against the planned shuffle.
func adaptiveLines(pr *coord.Profile) []string {
	if len(pr.Adaptive) == 0 {
		return nil
	}
	out := []string{"  adaptive joins (planned distribution, executed distribution, the build side as measured):"}
	for _, a := range pr.Adaptive {
		b, p := pr.ExchangeStats(a.Build), pr.ExchangeStats(a.Probe)
		line := fmt.Sprintf("    %d:HASH JOIN  planned=%s  ran=%s  build rows=%d bytes=%d (broadcast limits: rows<=%d bytes<=%d)  from fragments build=%d probe=%d",
			a.Join, a.Planned, a.Ran, a.BuildRows, a.BuildBytes, a.MaxRows, a.MaxBytes, a.Build, a.Probe)
		if a.Ran == fragment.AdaptBroadcast {
			line += fmt.Sprintf("  build exchange bytes=%d (%d instances × %d)  probe rows=%d, sent to another backend=%d",
				b.Bytes, a.Nodes, a.BuildBytes, p.Rows, pr.RemoteRows(a.Probe, a.Fragment))
			if a.Planned == fragment.AdaptPartitioned {
				// The planned shuffle would have moved both sides once.
				line += fmt.Sprintf("  bytes saved=%d", p.Bytes+a.BuildBytes-b.Bytes)
			} else {
				line += "  (as planned)"
			}
		}
		if a.Ran == fragment.AdaptPartitioned && a.Planned == fragment.AdaptBroadcast {
			// The planned broadcast would have sent the build side to every
			// join instance; the shuffle sends each side once.
			line += fmt.Sprintf("  shuffled: build exchange bytes=%d + probe exchange bytes=%d = %d, against %d instances × %d broadcast  bytes saved=%d",
				b.Bytes, p.Bytes, b.Bytes+p.Bytes, a.Nodes, b.Bytes, int64(a.Nodes)*b.Bytes-b.Bytes-p.Bytes)
		}
		if a.Ran == fragment.AdaptPartitioned {
			line += fmt.Sprintf("  skewed keys spread=%d (largest key share of the probe sample %.0f%%)  probe rows per join instance=%v",
				a.Skewed, 100*a.TopShare, p.DestRows)
		}
		out = append(out, line)
	}
	return out
}
