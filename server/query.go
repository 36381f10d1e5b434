package server

import (
	"context"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/planner/bind"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/physical"
	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/eval"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

func newBinder(s *Session, params []types.Datum) *bind.Binder {
	return bind.New(s.bindContext(params))
}

func newBinderCtx(c *bind.Context) *bind.Binder { return bind.New(c) }

// constValue folds a constant expression to its value.
func constValue(x expr.Expr) (types.Datum, error) {
	return eval.EvalConst(&expr.Context{Now: time.Now()}, x)
}

// planned is a bound and planned query: the distributed plan (EXPLAIN
// prints it, execution runs its plan data).
type planned struct {
	q    *bind.Query
	plan *fragment.Plan
	dist *physical.Distributed
}

// planQuery binds and plans a SELECT; EXPLAIN prints and execution runs
// the same plan object.
func (s *Session) planQuery(st *parser.Vitess, params []types.Datum) (*planned, error) {
	if st.Kind != parser.KindSelect {
		return nil, sqlerr.Assertf("not a query: %v", st.Kind)
	}
	if params == nil {
		if err := noPlaceholder(st); err != nil {
			return nil, err
		}
	}
	bc := s.bindContext(params)
	bc.Hints = st.Hints
	q, err := newBinderCtx(bc).BindQuery(st)
	if err != nil {
		return nil, err
	}
	if err := s.checkReads(q.Plan); err != nil {
		return nil, err
	}
	if err := s.txnReads(q.Plan); err != nil {
		return nil, err
	}
	s.hook("plan", st.Text)
	out := make([]types.Column, len(q.Outputs))
	for i, o := range q.Outputs {
		out[i] = types.Column{Name: o.Name, Type: o.Col.T, Nullable: o.Col.Null}
	}
	d, err := physical.PlanDistributed(s.plannerContext(st.Hints), q.Plan, out)
	if err != nil {
		return nil, err
	}
	return &planned{q: q, plan: d.Plan, dist: d}, nil
}

// noPlaceholder refuses a query or INSERT that holds a placeholder outside
// a prepared statement (COM_QUERY), as MySQL does: the binder leaves it a
// parameter that nothing binds (it failed evaluating, 1105 "unbound
// parameter").
func noPlaceholder(v *parser.Vitess) error {
	if v.HasPlaceholder() {
		return sqlerr.ParseError.New("You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '?'")
	}
	return nil
}

// start runs a plan and returns its root operator.
func (s *Session) start(ctx context.Context, plan *fragment.Plan) (op.Operator, error) {
	now := time.Now()
	env := s.queryEnv(ctx, now)
	s.mu.Lock()
	id := s.queryID
	s.mu.Unlock()
	return s.srv.coord.Run(ctx, id, plan, env, now.UnixMicro())
}

// startRetrying is start with the coordinator's transparent retry of a
// stale plan: replan plans the statement again.
func (s *Session) startRetrying(ctx context.Context, plan *fragment.Plan, replan func() (*fragment.Plan, error)) (op.Operator, error) {
	now := time.Now()
	env := s.queryEnv(ctx, now)
	s.mu.Lock()
	id := s.queryID
	s.mu.Unlock()
	return s.srv.coord.RunRetrying(ctx, id, plan, replan, env, now.UnixMicro())
}

// queryEnv is what a query's operators here run with.
func (s *Session) queryEnv(ctx context.Context, now time.Time) *op.Env {
	// exec_mem_limit bounds what this query's stateful operators hold here.
	return &op.Env{Mem: memory.DefaultAllocator, Eval: &expr.Context{Now: now, Ctx: ctx, Warn: s.warnings()},
		Tracker: op.NewMemTracker(s.vars.int("exec_mem_limit")), Spill: s.spillConfig()}
}

// query runs a SELECT and streams its rows to the client.
func (s *Session) query(ctx context.Context, st *parser.Vitess, params []types.Datum, w wire.ResultWriter) error {
	p, err := s.planQuery(st, params)
	if err != nil {
		return err
	}
	q := p.q
	s.hook("start", st.Text)
	// A plan gone stale (E-230: a replica cloned or a schema changed since
	// it was planned) is planned again and rerun while no row was sent.
	root, err := s.startRetrying(ctx, p.plan, func() (*fragment.Plan, error) {
		np, err := s.planQuery(st, params)
		if err != nil {
			return nil, err
		}
		p = np
		s.hook("start", st.Text)
		return np.plan, nil
	})
	if err != nil {
		return err
	}
	s.trackRun(p, root)
	start := time.Now()
	defer s.countScans(root) // after the Close below
	defer root.Close()
	if err := w.WriteColumns(outputColumns(q.Outputs)); err != nil {
		return err
	}
	var rows int64
	if err := op.Drain(ctx, root, func(rec arrow.Record) error {
		s.hook("rows", st.Text)
		rows += rec.NumRows()
		return w.WriteRows(rec)
	}); err != nil {
		return err
	}
	root.Close()
	s.collectWarnings(root)
	s.keepProfile(profileLines(p, root, rows, time.Since(start)))
	return w.WriteEnd()
}

func outputColumns(outs []bind.Output) []wire.Column {
	cols := make([]wire.Column, len(outs))
	for i, o := range outs {
		cols[i] = wire.Column{Schema: o.Schema, Table: o.Table, OrgTable: o.OrgTable, Name: o.Name, OrgName: o.OrgName,
			Type: o.Col.T, Nullable: o.Col.Null}
	}
	return cols
}

// insert runs INSERT ... VALUES / SELECT as one load transaction.
func (s *Session) insert(ctx context.Context, st *parser.Vitess, params []types.Datum, w wire.ResultWriter) error {
	if st.Overwrite {
		return s.insertOverwrite(ctx, st, params, w)
	}
	if params == nil {
		if err := noPlaceholder(st); err != nil {
			return err
		}
	}
	ins, err := newBinder(s, params).BindInsert(st)
	if err != nil {
		return err
	}
	ins.Label = st.Label
	return s.runInsert(ctx, st, ins, w)
}

// runInsert checks privileges and writes a bound INSERT's source rows as one
// load transaction (INSERT and UPDATE both end here), planned with the
// statement's hints as EXPLAIN plans it.
func (s *Session) runInsert(ctx context.Context, st *parser.Vitess, ins *bind.Insert, w wire.ResultWriter) error {
	if !s.access().Table(ins.DB, ins.Table.Name, catalog.WantLoad) {
		return s.tableDenied("LOAD", ins.DB, ins.Table.Name)
	}
	if err := s.checkReads(ins.Source); err != nil {
		return err
	}
	if err := s.txnReads(ins.Source); err != nil {
		return err
	}
	d, err := physical.PlanInsert(s.plannerContext(st.Hints), ins.Source, physical.InsertTarget{DB: ins.DB, Table: ins.Table, Partial: ins.Partial})
	if err != nil {
		return err
	}
	s.hook("rows", st.Text)
	start := time.Now()
	if ins.Partial != nil {
		ctx = rpc.WithPartialUpdate(ctx, ins.Partial) // rows the FE itself routes
	}
	sp, sr := s.sinkPlan(ctx, d)
	sp.EstRows = estimateOr(sp.EstRows, ins.Source)
	res, info, err := s.loadPlan(ctx, ins.DB, ins.Table, ins.Label, sp)
	if err != nil {
		return err
	}
	s.keepSinkProfile(res.Rows, time.Since(start), sr)
	s.keepLoadRun(d, sr)
	return w.WriteOK(wire.OK{AffectedRows: uint64(res.Rows), Info: info})
}
