package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/server/show"
	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// Heavy schema change statements: ALTER TABLE clauses that rewrite the
// tablets (a column's type or nullability, key columns, column order)
// create a job (catalog.AlterJob) that runs in the background
// (schemachange_job.go); the statement answers at once, as Doris's does.

// isHeavyOp reports whether clause op of ALTER TABLE on t rewrites data.
func isHeavyOp(t *catalog.Table, op parser.AlterOp) bool {
	switch op.Kind {
	case parser.AlterOrderBy:
		return true
	case parser.AlterAddColumn:
		for _, c := range op.Columns {
			if c.IsKey || (t.Keys == storage.AggKeys && c.Agg == "") {
				return true
			}
		}
	case parser.AlterDropColumn:
		if i := t.ColumnIndex(op.Name); i >= 0 && t.Columns[i].IsKey {
			return true
		}
	case parser.AlterModifyColumn:
		if op.CommentOnly {
			return false
		}
		c := op.Columns[0]
		i := t.ColumnIndex(c.Name)
		if i < 0 {
			return false // the light path names the missing column
		}
		cur := t.Columns[i]
		return c.Type != cur.Type || c.Nullable != cur.Nullable || c.First || c.After != "" || (c.IsKey && !cur.IsKey)
	}
	return false
}

// heavyEdit turns one clause into its edit of the shadow schema.
func (s *Session) heavyEdit(db string, op parser.AlterOp) (func(t *catalog.Table) error, error) {
	switch op.Kind {
	case parser.AlterOrderBy:
		return func(t *catalog.Table) error { return t.Reorder(op.Order) }, nil
	case parser.AlterAddColumn:
		type add struct {
			col  catalog.Column
			fill *types.Datum
			pos  catalog.ColumnPos
		}
		var adds []add
		for _, c := range op.Columns {
			col, fill, err := alterColumn(c)
			if err != nil {
				return nil, err
			}
			adds = append(adds, add{col, fill, catalog.ColumnPos{First: c.First, After: c.After}})
		}
		return func(t *catalog.Table) error {
			for _, a := range adds {
				var err error
				if a.col.IsKey || (t.Keys == storage.AggKeys && a.col.Agg == storage.AggNone) {
					err = t.AddKeyColumn(a.col, a.pos, a.fill)
				} else {
					err = t.AddColumn(a.col, a.pos, a.fill)
				}
				if err != nil {
					return err
				}
			}
			return nil
		}, nil
	case parser.AlterDropColumn:
		return func(t *catalog.Table) error {
			i := t.ColumnIndex(op.Name)
			key := i >= 0 && t.Columns[i].IsKey
			err := t.DropColumn(op.Name) // Doris's checks; a key column is left to DropKeyColumn
			var se *sqlerr.Error
			if key && errors.As(err, &se) && se.Code == sqlerr.NotSupportedYet.Code {
				return t.DropKeyColumn(op.Name)
			}
			return err
		}, nil
	case parser.AlterModifyColumn:
		if op.CommentOnly {
			return s.schemaEdit(db, op)
		}
		c := op.Columns[0]
		col, _, err := alterColumn(c)
		if err != nil {
			return nil, err
		}
		pos := catalog.ColumnPos{First: c.First, After: c.After}
		return func(t *catalog.Table) error {
			i := t.ColumnIndex(col.Name)
			if i < 0 {
				return sqlerr.Doris.New("Column[" + col.Name + "] does not exists")
			}
			cur := t.Columns[i]
			if col.Type == cur.Type && col.Nullable == cur.Nullable && pos == (catalog.ColumnPos{}) && (!col.IsKey || cur.IsKey) {
				return t.ModifyColumn(col, pos) // this clause alone is light
			}
			return t.HeavyModifyColumn(col, pos)
		}, nil
	}
	return s.schemaEdit(db, op)
}

// heavySchemaChange starts a schema change job for ALTER TABLE st (all its
// clauses are column clauses, at least one heavy).
func (s *Session) heavySchemaChange(ctx context.Context, db string, st *parser.AlterTable, w wire.ResultWriter) error {
	var edits []func(t *catalog.Table) error
	for _, op := range st.Ops {
		e, err := s.heavyEdit(db, op)
		if err != nil {
			return err
		}
		edits = append(edits, e)
	}
	job, err := s.srv.cat.BeginSchemaChange(db, st.Table, func(t *catalog.Table) error {
		for _, e := range edits {
			if err := e(t); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.srv.alters.start(s.srv, db, job)
	return w.WriteOK(wire.OK{})
}

// cancelAlterColumn is CANCEL ALTER TABLE COLUMN FROM [db.]t: the running
// job stops, its shadow tablets are dropped and the table stays as it was.
func (s *Session) cancelAlterColumn(st *parser.CancelAlterColumn, w wire.ResultWriter) error {
	db, t, err := s.table(st.DB, st.Table)
	if err != nil {
		return err
	}
	if !s.access().Table(db, t.Name, catalog.WantAlter) {
		return s.tableDenied("ALTER", db, t.Name)
	}
	job := s.srv.cat.RunningAlterJob(t.ID)
	if job == nil {
		return sqlerr.Doris.New("Table[" + t.Name + "] is not under SCHEMA_CHANGE.")
	}
	if err := s.srv.alters.cancel(s.srv, job, 30*time.Second); err != nil {
		return err
	}
	return w.WriteOK(wire.OK{})
}

// alterJobRows are SHOW ALTER TABLE COLUMN's rows for database db.
func (s *Server) alterJobRows(db *catalog.Database, visible func(table string) bool) [][]string {
	var rows [][]string
	for _, j := range s.cat.AlterJobs(db.ID) {
		if !visible(j.TableName) {
			continue
		}
		finish := "NULL"
		if j.State.Done() {
			finish = show.Time(j.FinishTime)
		}
		txn := "-1"
		if j.TxnID != 0 {
			txn = fmt.Sprint(j.TxnID)
		}
		rows = append(rows, []string{fmt.Sprint(j.ID), j.TableName, show.Time(j.CreateTime), finish, j.TableName,
			fmt.Sprint(j.IndexID), fmt.Sprint(int64(j.TableID)), fmt.Sprintf("%d:0", j.Shadow.SchemaVersion), txn,
			string(j.State), j.Msg, s.alters.progress(s, j), fmt.Sprint(j.Timeout)})
	}
	return rows
}

// alterColumnNames are SHOW ALTER TABLE COLUMN's columns (Doris 2.x).
var alterColumnNames = []string{"JobId", "TableName", "CreateTime", "FinishTime", "IndexName", "IndexId", "OriginIndexId",
	"SchemaVersion", "TransactionId", "State", "Msg", "Progress", "Timeout"}

// alterJobsWhere checks SHOW ALTER TABLE COLUMN's WHERE: Doris filters on
// any of its columns with =, !=, and LIKE/<, > for some; dorisgo takes
// = on any column (and LIKE on TableName).
func alterJobsWhere(st *parser.ShowAlterColumn) error {
	for _, c := range st.Where {
		ok := false
		for _, n := range alterColumnNames {
			ok = ok || strings.EqualFold(n, c.Field)
		}
		if !ok {
			return sqlerr.BadField.New(c.Field, "where clause")
		}
	}
	return nil
}
