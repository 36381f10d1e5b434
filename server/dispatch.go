package server

import (
	"context"
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/coord"
	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// dispatch runs one parsed statement, once authorize has checked its
// privileges (privs.go).
func (s *Session) dispatch(ctx context.Context, stmt parser.Statement, params []types.Datum, w wire.ResultWriter) error {
	if err := s.txnGate(ctx, stmt); err != nil {
		return err
	}
	if err := s.authorize(stmt); err != nil {
		return err
	}
	switch st := stmt.(type) {
	case *parser.TxnStmt:
		return s.txnStatement(ctx, st, w)
	case *parser.Vitess:
		return s.dispatchVitess(ctx, st, params, w)
	case *parser.CreateTable:
		return s.createTable(ctx, st, w)
	case *parser.CreateTableAs:
		return s.createTableAs(ctx, st, w)
	case *parser.AlterTableSet:
		return s.alterTableSet(ctx, st, w)
	case *parser.AlterTable:
		return s.alterTable(ctx, st, w)
	case *parser.ShowAlterColumn:
		return s.showAlterColumn(st, w)
	case *parser.CancelAlterColumn:
		return s.cancelAlterColumn(st, w)
	case *parser.AlterJobs:
		return sqlerr.NotSupportedYet.New(st.Text + " (dorisgo has no rollups: SHOW and CANCEL ALTER TABLE COLUMN show and cancel its schema change jobs)")
	case *parser.AlterSystem:
		return s.alterSystem(ctx, st, w)
	case *parser.ShowBackends:
		return s.showBackends(w)
	case *parser.ShowFrontends:
		return s.showFrontends(ctx, w)
	case *parser.ShowDelete:
		return s.showDelete(st, w)
	case *parser.ShowTablets:
		return s.showTablets(ctx, st, w)
	case *parser.ShowPartitions:
		return s.showPartitions(ctx, st, w)
	case *parser.ShowTransaction:
		return s.showTransaction(st, w)
	case *parser.ShowData:
		return s.showData(ctx, st, w)
	case *parser.ShowLoad:
		return s.showLoad(st, w)
	case *parser.ShowProc:
		return s.showProc(ctx, st, w)
	case *parser.ShowQueryProfile:
		return s.showQueryProfile(st, w)
	case *parser.ShowCreateTable:
		return s.showCreateTable(st.DB, st.Table, w)
	case *parser.CreateView:
		return s.createView(st, w)
	case *parser.ShowCreateView:
		return s.showCreateView(st, w)
	case *parser.Explain:
		return s.explain(ctx, st, w)
	case *parser.Analyze:
		return s.analyzeStmt(ctx, st, w)
	case *parser.ShowColumnStats:
		return s.showColumnStats(st, w)
	case *parser.ShowTableStats:
		return s.showTableStats(st, w)
	case *parser.ShowAnalyze:
		return s.showAnalyze(st, w)
	case *parser.DropStats:
		return s.dropStats(st, w)
	case *parser.CreateUser:
		if err := s.srv.cat.CreateUserWithRole(st.User, st.Host, st.Password, st.Role, st.IfNotExists); err != nil {
			return err
		}
		return w.WriteOK(wire.OK{})
	case *parser.DropUser:
		if err := s.srv.cat.DropUser(st.User, st.Host, st.IfExists); err != nil {
			return err
		}
		return w.WriteOK(wire.OK{})
	case *parser.SetPassword:
		user, host := st.User, st.Host
		if user == "" {
			user, host = s.acct.user, s.acct.host
		}
		if host == "" {
			host = "%"
		}
		if err := s.srv.cat.SetPassword(user, host, st.Password); err != nil {
			return err
		}
		return w.WriteOK(wire.OK{})
	case *parser.GrantPrivs, *parser.GrantRoles, *parser.CreateRole, *parser.DropRole, *parser.ShowGrants, *parser.ShowRoles:
		return s.grants(st, w)
	case *parser.Admin:
		return s.admin(ctx, st, w)
	}
	return sqlerr.NotSupportedYet.New("this statement")
}

func (s *Session) dispatchVitess(ctx context.Context, st *parser.Vitess, params []types.Datum, w wire.ResultWriter) error {
	switch n := st.AST.(type) {
	case *sqlparser.Select, *sqlparser.SetOp, *sqlparser.ParenSelect:
		return s.query(ctx, st, params, w)
	case *sqlparser.Insert:
		ctx = coord.WithLoadInfo(ctx, catalog.TxnInfo{User: s.acct.user})
		return s.insert(ctx, st, n, params, w)
	case *sqlparser.Delete:
		return s.deleteRows(ctx, st, n, params, w)
	case *sqlparser.Update:
		ctx = coord.WithLoadInfo(ctx, catalog.TxnInfo{User: s.acct.user})
		return s.update(ctx, st, n, params, w)
	case *sqlparser.Set:
		return s.set(n, w)
	case *sqlparser.Prepare:
		return s.sqlPrepare(n, w)
	case *sqlparser.Execute:
		return s.sqlExecute(ctx, n, w)
	case *sqlparser.Deallocate:
		return s.sqlDeallocate(n, w)
	case *sqlparser.Use:
		if err := s.InitDB(ctx, n.DBName.String()); err != nil {
			return err
		}
		return w.WriteOK(wire.OK{})
	case *sqlparser.Show:
		return s.show(ctx, n, w)
	case *sqlparser.DBDDL:
		return s.dbDDL(ctx, n, w)
	case *sqlparser.DDL:
		return s.ddl(ctx, n, w)
	case *sqlparser.Kill:
		id, err := s.constInt(n.ConnID)
		if err != nil {
			return err
		}
		if err := s.kill(id, !n.Connection); err != nil {
			return err
		}
		return w.WriteOK(wire.OK{})
	case *sqlparser.AlterTable:
		// CREATE/DROP INDEX: a columnar store scans with zone maps instead of
		// secondary indexes, so index statements on an existing table are
		// accepted and do nothing (MySQL test suites create them).
		for _, d := range n.Statements {
			if d.IndexSpec == nil {
				return sqlerr.NotSupportedYet.New("ALTER TABLE " + strings.ToUpper(d.Action))
			}
		}
		if _, _, err := s.table(n.Table.DbQualifier.String(), n.Table.Name.String()); err != nil {
			return err
		}
		return w.WriteOK(wire.OK{})
	case *sqlparser.Explain:
		return sqlerr.NotSupportedYet.New("this EXPLAIN form")
	}
	return sqlerr.NotSupportedYet.New(strings.SplitN(strings.TrimSpace(st.Text), " ", 2)[0])
}

func (s *Session) constInt(e sqlparser.Expr) (int64, error) {
	b := newBinder(s, nil)
	return b.ConstInt(e)
}

// set runs SET: session/global system variables, user variables, SET NAMES.
func (s *Session) set(n *sqlparser.Set, w wire.ResultWriter) error {
	for _, e := range n.Exprs {
		name := strings.ToLower(e.Name.Name.String())
		if e.Scope == sqlparser.SetScope_User || strings.HasPrefix(name, "@") && !strings.HasPrefix(name, "@@") {
			b := newBinder(s, nil)
			x, err := b.BindConst(scalarSelect(e.Expr))
			if err != nil {
				return err
			}
			d, err := constValue(x)
			if err != nil {
				return err
			}
			s.vars.user[strings.TrimPrefix(name, "@")] = d
			continue
		}
		global := e.Scope == sqlparser.SetScope_Global || e.Scope == sqlparser.SetScope_Persist || e.Scope == sqlparser.SetScope_PersistOnly
		name = strings.TrimPrefix(name, "@@")
		for _, p := range []string{"global.", "session.", "local."} {
			if strings.HasPrefix(name, p) {
				global = global || p == "global."
				name = name[len(p):]
			}
		}
		switch name {
		case "names", "character set", "charset":
			continue
		case "transaction", "transaction isolation level":
			if err := s.setTransaction(e.Expr, global, e.Scope == sqlparser.SetScope_Session); err != nil {
				return err
			}
			continue
		}
		val, err := s.setValue(e.Expr)
		if err != nil {
			return err
		}
		if strings.EqualFold(val, "DEFAULT") {
			val = sysVars[name].def
		}
		val, err = normalizeVar(name, val)
		if err != nil {
			return err
		}
		if global {
			if err := s.srv.setGlobal(name, val); err != nil {
				return err
			}
		}
		s.vars.vals[name] = val
		if name == "autocommit" {
			if err := s.autocommitSet(context.Background(), val); err != nil {
				return err
			}
		}
	}
	return w.WriteOK(wire.OK{})
}

// setValue evaluates a SET right-hand side to its text; bare words
// (SET x = ON, SET prefer_join_method = shuffle) are taken as strings.
func (s *Session) setValue(e sqlparser.Expr) (string, error) {
	if c, ok := e.(*sqlparser.ColName); ok && !strings.HasPrefix(c.Name.String(), "@") {
		return c.Name.String(), nil
	}
	if _, ok := e.(*sqlparser.Default); ok {
		return "DEFAULT", nil
	}
	e = scalarSelect(e)
	b := newBinder(s, nil)
	x, err := b.BindConst(e)
	if err != nil {
		return "", err
	}
	d, err := constValue(x)
	if err != nil {
		return "", err
	}
	if d.T.Kind == types.Boolean {
		if d.I != 0 {
			return "1", nil
		}
		return "0", nil
	}
	return d.String(), nil
}

// scalarSelect unwraps SET's (SELECT expr) without FROM to the expression,
// as clients write to drop a mode from @@sql_mode with REPLACE; anything
// else is returned as is.
func scalarSelect(e sqlparser.Expr) sqlparser.Expr {
	sq, ok := e.(*sqlparser.Subquery)
	if !ok {
		return e
	}
	sel, ok := sq.Select.(*sqlparser.Select)
	if !ok || len(sel.SelectExprs) != 1 || sel.Where != nil || sel.GroupBy != nil || sel.Having != nil || sel.Limit != nil {
		return e
	}
	for _, te := range sel.From {
		ate, ok := te.(*sqlparser.AliasedTableExpr)
		if !ok {
			return e
		}
		if tn, ok := ate.Expr.(sqlparser.TableName); !ok || !strings.EqualFold(tn.Name.String(), "dual") {
			return e
		}
	}
	ae, ok := sel.SelectExprs[0].(*sqlparser.AliasedExpr)
	if !ok {
		return e
	}
	return ae.Expr
}
