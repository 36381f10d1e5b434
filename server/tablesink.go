package server

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/coord"
	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/planner/bind"
	"github.com/dorisgo/dorisgo/planner/explain"
	"github.com/dorisgo/dorisgo/planner/physical"
	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// sinkPlan readies an INSERT's table sink plan to run as this session's
// statement: its query id, clock, memory limit, warnings and estimated
// rows (SHOW LOAD's progress); when it ends, what its scans read goes to
// the audit log and its profile is kept.
func (s *Session) sinkPlan(ctx context.Context, d *physical.Distributed) (*coord.SinkPlan, *sinkResult) {
	now := time.Now()
	env := &op.Env{Mem: memory.DefaultAllocator, Eval: &expr.Context{Now: now, Ctx: ctx, Warn: s.warnings()},
		Tracker: op.NewMemTracker(s.vars.int("exec_mem_limit")), Spill: s.spillConfig()}
	s.mu.Lock()
	id := s.queryID
	s.mu.Unlock()
	out := &sinkResult{}
	return &coord.SinkPlan{Plan: d.Plan, QueryID: id, Env: env, Now: now.UnixMicro(), EstRows: d.RootRows(), Profile: func(p *coord.Profile) {
		out.prof = p
		rows, bytes := p.Scanned()
		s.mu.Lock()
		res := s.stmtRes
		s.mu.Unlock()
		if res != nil {
			res.scanRows.Add(rows)
			res.scanBytes.Add(bytes)
		}
		p.Warnings(s.warnings())
	}}, out
}

// sinkResult is what a table sink statement's instances reported.
type sinkResult struct{ prof *coord.Profile }

// keepSinkProfile keeps a table sink statement's profile (/api/profile):
// the rows written and what each sink instance wrote where.
func (s *Session) keepSinkProfile(rows int64, took time.Duration, sr *sinkResult) {
	s.keepProfile(append([]string{"", "PROFILE", fmt.Sprintf("  rows written: %d", rows),
		fmt.Sprintf("  total time: %.3f ms", float64(took.Microseconds())/1000)}, append(sinkLines(sr.prof), adaptiveLines(sr.prof)...)...))
}

// sinkLines reports where a finished INSERT's table sink instances ran and
// what each wrote (EXPLAIN ANALYZE).
func sinkLines(p *coord.Profile) []string {
	if p == nil {
		return nil
	}
	out := []string{"  OLAP TABLE SINK (instances of fragment 0, on the backends):"}
	for _, r := range p.Instances {
		if r.Fragment != 0 || r.Table == nil {
			continue
		}
		out = append(out, fmt.Sprintf("    instance %d: backend=%s  rows=%d  bytes=%d  partitions=%d  replica backends=%d",
			r.Instance, r.Backend, r.Table.Rows, r.Table.Bytes, len(r.Table.Partitions), len(r.Table.Backends)))
	}
	return out
}

// explainInsert prints the plan an INSERT would run: its source planned
// by the distributed planner, ending in the OLAP TABLE SINK fragment.
func (s *Session) explainInsert(v *parser.Vitess, mode parser.ExplainMode, w wire.ResultWriter) error {
	if err := noPlaceholder(v); err != nil {
		return err
	}
	ins, err := newBinder(s, nil).BindInsert(v)
	if err != nil {
		return err
	}
	return s.explainLoad(v, ins, mode, w)
}

// explainLoad prints the distributed plan of a bound INSERT (or UPDATE,
// which Doris runs as one) ending in its table sink.
func (s *Session) explainLoad(v *parser.Vitess, ins *bind.Insert, mode parser.ExplainMode, w wire.ResultWriter) error {
	if !s.access().Table(ins.DB, ins.Table.Name, catalog.WantLoad) {
		return s.tableDenied("LOAD", ins.DB, ins.Table.Name)
	}
	if err := s.checkReads(ins.Source); err != nil {
		return err
	}
	d, err := physical.PlanInsert(s.plannerContext(v.Hints), ins.Source, physical.InsertTarget{DB: ins.DB, Table: ins.Table, Overwrite: v.Overwrite})
	if err != nil {
		return err
	}
	m := explain.Plain
	switch mode {
	case parser.ExplainVerbose:
		m = explain.Verbose
	case parser.ExplainDistributed:
		m = explain.Distributed
	}
	var rows [][]types.Datum
	for _, line := range d.Explain(m) {
		rows = append(rows, []types.Datum{str(line)})
	}
	return writeTable(w, []wire.Column{strCol("Explain String")}, rows)
}

// insertOverwrite runs INSERT OVERWRITE TABLE t [PARTITION (p, …)] SELECT
// (or VALUES): an atomic replace of the whole table or of the partitions
// named, through new tablets swapped in at commit (coord.Overwrite). As in
// Doris it cannot run inside a transaction.
func (s *Session) insertOverwrite(ctx context.Context, st *parser.Vitess, params []types.Datum, w wire.ResultWriter) error {
	if s.txn != nil || s.vars.get("autocommit") == "0" {
		return sqlerr.Doris.New(errInTxn)
	}
	if params == nil {
		if err := noPlaceholder(st); err != nil {
			return err
		}
	}
	parts := st.InsertPartitions()
	ins, err := newBinder(s, params).BindInsert(st)
	if err != nil {
		return err
	}
	if !s.access().Table(ins.DB, ins.Table.Name, catalog.WantLoad) {
		return s.tableDenied("LOAD", ins.DB, ins.Table.Name)
	}
	if err := s.checkReads(ins.Source); err != nil {
		return err
	}
	t, old, fresh, err := s.srv.cat.ReserveOverwrite(ins.DB, ins.Table.Name, parts)
	if err != nil {
		return err
	}
	if t.SchemaVersion != ins.Table.SchemaVersion {
		// An ALTER came between binding and reserving: the columns bound
		// are not the new tablets' (their ids are orphans, never used).
		return sqlerr.Doris.New("the schema of table " + t.Name + " changed while the overwrite was being planned; retry it")
	}
	d, err := physical.PlanInsert(s.plannerContext(st.Hints), ins.Source, physical.InsertTarget{DB: ins.DB, Table: t, Overwrite: true})
	if err != nil {
		return err
	}
	s.hook("rows", st.Text)
	start := time.Now()
	sp, sr := s.sinkPlan(ctx, d)
	sp.EstRows = estimateOr(sp.EstRows, ins.Source)
	sp.Target = physical.SinkSpec(ins.DB, t, fresh)
	sp.Target.Overwrite = true
	res, err := s.srv.coord.Overwrite(ctx, coord.OverwriteJob{DB: ins.DB, Table: t, Label: st.Label, Old: old, Fresh: fresh, Plan: sp})
	if err != nil {
		return err
	}
	s.keepSinkProfile(res.Rows, time.Since(start), sr)
	return w.WriteOK(wire.OK{AffectedRows: uint64(res.Rows), Info: txnInfo(res.Label, "VISIBLE", res.Txn)})
}
