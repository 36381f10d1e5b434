package server

import (
	"context"
	"strings"

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
	case *parser.Set:
		return s.set(st, w)
	case *parser.Prepare:
		return s.sqlPrepare(st, w)
	case *parser.Execute:
		return s.sqlExecute(ctx, st, w)
	case *parser.Deallocate:
		return s.sqlDeallocate(st, w)
	case *parser.Use:
		if err := s.InitDB(ctx, st.DB); err != nil {
			return err
		}
		return w.WriteOK(wire.OK{})
	case *parser.Show:
		return s.show(ctx, st, w)
	case *parser.DatabaseDDL:
		return s.dbDDL(ctx, st, w)
	case *parser.DDL:
		return s.ddl(ctx, st, w)
	case *parser.Kill:
		return s.killStmt(st, w)
	case *parser.AlterIndexes:
		return s.alterIndexes(st, w)
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
		return showTo(w)(s.srv.shows.Backends())
	case *parser.ShowFrontends:
		return s.showFrontends(ctx, w)
	case *parser.ShowDelete:
		return s.showDelete(st, w)
	case *parser.ShowTablets:
		return showTo(w)(s.srv.shows.Tablets(ctx, showSession{s}, st))
	case *parser.ShowPartitions:
		return showTo(w)(s.srv.shows.Partitions(ctx, showSession{s}, st))
	case *parser.ShowTransaction:
		return showTo(w)(s.srv.shows.Transaction(showSession{s}, st))
	case *parser.ShowData:
		return showTo(w)(s.srv.shows.Data(ctx, showSession{s}, st))
	case *parser.ShowLoad:
		return showTo(w)(s.srv.shows.Load(showSession{s}, st))
	case *parser.ShowProc:
		return s.showProc(ctx, st, w)
	case *parser.ShowQueryProfile:
		return s.showQueryProfile(st, w)
	case *parser.ShowCreateTable:
		return showTo(w)(s.srv.shows.CreateTable(showSession{s}, st.DB, st.Table))
	case *parser.CreateView:
		return s.createView(st, w)
	case *parser.ShowCreateView:
		return showTo(w)(s.srv.shows.CreateView(showSession{s}, st))
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
	switch st.Kind {
	case parser.KindSelect:
		return s.query(ctx, st, params, w)
	case parser.KindInsert:
		ctx = coord.WithLoadInfo(ctx, catalog.TxnInfo{User: s.acct.user})
		return s.insert(ctx, st, params, w)
	case parser.KindDelete:
		return s.deleteRows(ctx, st, params, w)
	case parser.KindUpdate:
		ctx = coord.WithLoadInfo(ctx, catalog.TxnInfo{User: s.acct.user})
		return s.update(ctx, st, params, w)
	case parser.KindExplain:
		return sqlerr.NotSupportedYet.New("this EXPLAIN form")
	}
	return sqlerr.NotSupportedYet.New(strings.SplitN(strings.TrimSpace(st.Text), " ", 2)[0])
}

// killStmt runs KILL [CONNECTION | QUERY] id.
func (s *Session) killStmt(st *parser.Kill, w wire.ResultWriter) error {
	id, err := newBinder(s, nil).ConstInt(st.ID)
	if err != nil {
		return err
	}
	if err := s.kill(id, !st.Connection); err != nil {
		return err
	}
	return w.WriteOK(wire.OK{})
}

// alterIndexes runs vitess's ALTER TABLE: CREATE/DROP INDEX. A columnar
// store scans with zone maps instead of secondary indexes, so index
// statements on an existing table are accepted and do nothing (MySQL test
// suites create them).
func (s *Session) alterIndexes(st *parser.AlterIndexes, w wire.ResultWriter) error {
	if st.HasOther {
		return sqlerr.NotSupportedYet.New("ALTER TABLE " + st.Other)
	}
	if _, _, err := s.table(st.Table.DB, st.Table.Name); err != nil {
		return err
	}
	return w.WriteOK(wire.OK{})
}

// set runs SET: session/global system variables, user variables, SET NAMES.
func (s *Session) set(n *parser.Set, w wire.ResultWriter) error {
	for _, e := range n.Assignments {
		name := strings.ToLower(e.Name)
		if e.Scope == parser.ScopeUser || strings.HasPrefix(name, "@") && !strings.HasPrefix(name, "@@") {
			b := newBinder(s, nil)
			x, err := b.BindConst(e.Value)
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
		global := e.Scope == parser.ScopeGlobal || e.Scope == parser.ScopePersist || e.Scope == parser.ScopePersistOnly
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
			if err := s.setTransaction(e, global, e.Scope == parser.ScopeSession); err != nil {
				return err
			}
			continue
		}
		val, err := s.setValue(e)
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
func (s *Session) setValue(e parser.Assignment) (string, error) {
	if e.Word != "" {
		return e.Word, nil
	}
	if e.Default {
		return "DEFAULT", nil
	}
	b := newBinder(s, nil)
	x, err := b.BindConst(e.Value)
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
