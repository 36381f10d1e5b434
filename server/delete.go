package server

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/coord"
	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/planner/bind"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/planner/physical"
	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// deleteRows runs DELETE FROM t [PARTITION ...] WHERE cond as Doris's
// delete predicates: the binder checks Doris's rules, the planner's
// partition and bucket pruning picks the tablets, and the coordinator
// publishes the condition to them as one load transaction. As Doris, the
// reply reports 0 affected rows (the delete is logical) and the label,
// transaction id and status in its info.
func (s *Session) deleteRows(ctx context.Context, st *parser.Vitess, params []types.Datum, w wire.ResultWriter) error {
	if params == nil {
		if err := noPlaceholder(st); err != nil {
			return err
		}
	}
	b := newBinder(s, params)
	t, _ := b.DeleteTable(st)
	if bind.IsUsingDelete(st) || (t != nil && t.MergeOnWrite()) {
		return s.deleteSign(ctx, st, params)(w)
	}
	d, err := b.BindDelete(st)
	if err != nil && t != nil && t.Keys == storage.UniqueKeys && t.DeleteSign() >= 0 {
		// Not a delete predicate: Doris falls back to the delete-sign load.
		return s.deleteSign(ctx, st, params)(w)
	}
	if err != nil {
		return err
	}
	if !s.access().Table(d.DB, d.Table.Name, catalog.WantLoad) {
		return s.tableDenied("LOAD", d.DB, d.Table.Name)
	}
	if _, ok := d.Cond.(*expr.Const); ok {
		return writeNoDelete(w) // FALSE or NULL: nothing to delete
	}
	conds := conjuncts(d.Cond)
	chosen := physical.PruneTablets(d.Scan, d.Partitions, conds)
	var tablets []storage.TabletID
	var parts []string
	for _, p := range d.Table.Partitions {
		if tbs, ok := chosen[p]; ok {
			parts = append(parts, p.Name)
			for _, tb := range tbs {
				tablets = append(tablets, tb.ID)
			}
		}
	}
	if len(tablets) == 0 {
		return writeNoDelete(w)
	}
	cond, err := storageCond(d, conds)
	if err != nil {
		return err
	}
	if d.Check != nil {
		if err := s.checkDelete(ctx, d.Check); err != nil {
			return err
		}
	}
	job := coord.DeleteJob{
		Table: d.Table, Tablets: tablets, Cond: cond,
		Info: catalog.DeleteInfo{TableName: d.Table.Name, Partitions: parts, AllPartitions: d.Partitions == nil, Conditions: d.Conditions},
	}
	if s.txn != nil || s.vars.get("autocommit") == "0" {
		info, err := s.txnDelete(ctx, d.DB, job)
		if err != nil {
			return err
		}
		return w.WriteOK(wire.OK{Info: info})
	}
	res, err := s.srv.coord.Delete(ctx, d.DB, job)
	if err != nil {
		return err
	}
	return w.WriteOK(wire.OK{Info: fmt.Sprintf("{'label':'%s', 'txnId':'%d', 'status':'VISIBLE'}", res.Label, res.Txn)})
}

// checkDelete evaluates a condition that may fail over the table's rows
// (bind.Delete.Check), so that the DELETE fails now rather than every later
// scan. It reads every partition, a superset of those the delete touches.
func (s *Session) checkDelete(ctx context.Context, check logical.Node) error {
	out := logical.TypedColumns(check.Columns())
	d, err := physical.PlanDistributed(s.plannerContext(nil), check, out)
	if err != nil {
		return err
	}
	root, err := s.start(ctx, d.Plan)
	if err != nil {
		return err
	}
	defer root.Close()
	return op.Drain(ctx, root, func(arrow.Record) error { return nil })
}

// writeNoDelete answers a DELETE that deletes nothing as Doris does when
// planning already shows it (no transaction, txnId -1).
func writeNoDelete(w wire.ResultWriter) error {
	return w.WriteOK(wire.OK{Info: fmt.Sprintf("{'label':'%s', 'txnId':'-1', 'status':'VISIBLE'}", catalog.NewDeleteLabel())})
}

func conjuncts(e expr.Expr) []expr.Expr {
	if c, ok := e.(*expr.Call); ok && c.Fn == "and" {
		return append(conjuncts(c.Args[0]), conjuncts(c.Args[1])...)
	}
	return []expr.Expr{e}
}

// storageCond encodes the condition for the backends: column references
// by table column (resolved by name there), and the zone-map ranges it
// implies.
func storageCond(d *bind.Delete, conds []expr.Expr) (storage.DeleteCond, error) {
	ord := map[int]int{}
	for i, c := range d.Scan.Cols {
		ord[int(c.ID)] = d.Scan.Ords[i]
	}
	e, err := expr.Rewrite(d.Cond, func(x expr.Expr) (expr.Expr, error) {
		ref, ok := x.(*expr.ColRef)
		if !ok {
			return x, nil
		}
		o, ok := ord[ref.Index]
		if !ok {
			return nil, sqlerr.Assertf("delete condition reads column %s outside its table", ref)
		}
		c := d.Table.Columns[o]
		return &expr.ColRef{Index: o, Name: c.Name, T: c.Type, Null: c.Nullable}, nil
	})
	if err != nil {
		return storage.DeleteCond{}, err
	}
	js, err := expr.Marshal(e)
	if err != nil {
		return storage.DeleteCond{}, err
	}
	return storage.DeleteCond{Cond: js, Ranges: physical.ColumnRanges(d.Scan, conds)}, nil
}

// explainDelete answers EXPLAIN DELETE with Doris's error: a delete
// predicate is not a query plan. (Doris explains a DELETE on a UNIQUE KEY
// table as the partial-update load it runs there; here it is a delete
// predicate too.)
func (s *Session) explainDelete(v *parser.Vitess) error {
	if tn, ok := v.DeleteFrom(); ok {
		_, t, err := s.table(tn.DB, tn.Name)
		if err != nil {
			return err
		}
		if t.Keys == storage.UniqueKeys {
			return sqlerr.NotSupportedYet.New("EXPLAIN DELETE of a UNIQUE KEY table")
		}
	}
	return sqlerr.Doris.New("delete command on aggregate/duplicate table is not explainable")
}

// showDelete runs SHOW DELETE [FROM db]: the visible DELETEs of db on
// tables the user may load, oldest first, with Doris's columns.
func (s *Session) showDelete(st *parser.ShowDelete, w wire.ResultWriter) error {
	db, err := s.dbName(st.DB)
	if err != nil {
		return err
	}
	txns, err := s.srv.cat.Deletes(db)
	if err != nil {
		return err
	}
	a := s.access()
	var rows [][]types.Datum
	for _, t := range txns {
		d := t.Delete
		if !a.Table(db, d.TableName, catalog.WantLoad) {
			continue
		}
		parts := "*"
		if !d.AllPartitions {
			parts = strings.Join(d.Partitions, ", ")
		}
		rows = append(rows, []types.Datum{str(d.TableName), str(parts), str(t.CreateTime.Local().Format("2006-01-02 15:04:05")),
			str(strings.Join(d.Conditions, ", ")), str("FINISHED")})
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i][2].S < rows[j][2].S })
	cols := []wire.Column{strCol("TableName"), strCol("PartitionName"), strCol("CreateTime"), strCol("DeleteCondition"), strCol("State")}
	return writeTable(w, cols, rows)
}
