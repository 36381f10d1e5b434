package server

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/coord"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/storage"
)

// sessionTxn is the session's open multi-statement transaction: one begun
// with BEGIN (explicit: Doris's rules, only writes and COMMIT/ROLLBACK
// inside) or by the first write of a session with autocommit off
// (implicit: MySQL's, every statement allowed, DDL commits first).
type sessionTxn struct {
	// x is nil until the first write when BEGIN ran without a current
	// database: the transaction belongs to the database it first writes.
	x        *coord.ExplicitTxn
	label    string
	explicit bool
	start    time.Time
	// locks release the UPDATE locks its statements took (tablelock.go),
	// once it has committed or rolled back.
	locks []func()
}

// Label is the transaction's label (generated at BEGIN if none was given).
func (t *sessionTxn) Label() string {
	if t.x != nil {
		return t.x.Label()
	}
	return t.label
}

// ID is the client-visible transaction id (0 before any statement wrote).
func (t *sessionTxn) ID() storage.TxnID {
	if t.x == nil {
		return 0
	}
	return t.x.ID()
}

// errInTxn is Doris's answer to a statement it does not run inside BEGIN … COMMIT.
const errInTxn = "This is in a transaction, only insert, update, delete, commit, rollback is acceptable."

// ServerStatus implements the wire layer's status source: the autocommit
// and in-transaction flags of every OK and EOF packet, which drivers read
// (pymysql's get_autocommit, JDBC's local session state).
func (s *Session) ServerStatus() uint16 {
	var st uint16
	if s.vars.get("autocommit") != "0" {
		st |= wire.StatusAutocommit
	}
	if s.txn != nil || s.fwdTxn {
		st |= wire.StatusInTrans
	}
	return st
}

// txnGate applies the open transaction's rules before stmt runs: inside
// BEGIN only writes and transaction statements; with autocommit off a DDL
// statement first commits what the transaction wrote (MySQL's implicit
// commit). A transaction past its timeout is rolled back first.
func (s *Session) txnGate(ctx context.Context, stmt parser.Statement) error {
	t := s.txn
	if t == nil {
		return nil
	}
	if ts, ok := stmt.(*parser.TxnStmt); !ok || ts.Op != parser.TxnRollback {
		if limit := s.txnTimeout(); time.Since(t.start) > limit {
			s.endTxn(false, "transaction timeout")
			return sqlerr.Doris.New(fmt.Sprintf("transaction %s timed out after %v (the larger of insert_timeout and query_timeout) and was rolled back", t.Label(), limit))
		}
	}
	kind := txnKind(stmt)
	if t.explicit {
		if kind != txnWrite && kind != txnControl {
			return sqlerr.Doris.New(errInTxn)
		}
		return nil
	}
	if kind == txnDDL {
		_, err := s.commitTxn(ctx)
		return err
	}
	return nil
}

type stmtTxnKind uint8

const (
	txnRead    stmtTxnKind = iota // SELECT, SHOW, SET, ...: runs on committed data
	txnWrite                      // INSERT (and DELETE/UPDATE): a statement of the transaction
	txnControl                    // BEGIN, COMMIT, ROLLBACK
	txnDDL                        // changes the catalog: commits first with autocommit off
)

func txnKind(stmt parser.Statement) stmtTxnKind {
	switch st := stmt.(type) {
	case *parser.TxnStmt:
		return txnControl
	case *parser.Vitess:
		switch st.Kind {
		case parser.KindInsert, parser.KindDelete, parser.KindUpdate:
			return txnWrite
		}
		return txnRead
	case *parser.DDL, *parser.DatabaseDDL, *parser.AlterIndexes,
		*parser.CreateTable, *parser.CreateTableAs, *parser.CreateView, *parser.AlterTableSet, *parser.AlterTable, *parser.CreateUser, *parser.DropUser,
		*parser.GrantPrivs, *parser.GrantRoles, *parser.CreateRole, *parser.DropRole, *parser.SetPassword:
		return txnDDL
	}
	return txnRead
}

func (s *Session) txnTimeout() time.Duration {
	return time.Duration(max(s.vars.int("insert_timeout"), s.vars.int("query_timeout"))) * time.Second
}

// txnStatement runs BEGIN, COMMIT and ROLLBACK with Doris's replies: the
// label, the state and the transaction id in the OK packet's info.
func (s *Session) txnStatement(ctx context.Context, st *parser.TxnStmt, w wire.ResultWriter) error {
	if st.Unsupported != "" {
		return sqlerr.NotSupportedYet.New(st.Unsupported)
	}
	switch st.Op {
	case parser.TxnBegin:
		if s.txn != nil {
			if !s.txn.explicit {
				// MySQL: BEGIN commits the open transaction and starts another.
				if _, err := s.commitTxn(ctx); err != nil {
					return err
				}
			} else {
				// Doris: BEGIN inside a transaction does nothing.
				return w.WriteOK(wire.OK{Info: txnInfo(s.txn.Label(), "PREPARE", s.txn.ID())})
			}
		}
		if err := s.beginTxn(st.Label); err != nil {
			return err
		}
		return w.WriteOK(wire.OK{Info: txnInfo(s.txn.Label(), "PREPARE", 0)})
	case parser.TxnCommit:
		if s.txn == nil {
			return w.WriteOK(wire.OK{})
		}
		label := s.txn.Label()
		res, err := s.commitTxn(ctx)
		if err != nil {
			return err
		}
		return w.WriteOK(wire.OK{Info: txnInfo(label, "VISIBLE", res.Txn)})
	default:
		if s.txn == nil {
			return w.WriteOK(wire.OK{})
		}
		label, id := s.txn.Label(), s.txn.ID()
		s.endTxn(false, "rolled back by the client")
		return w.WriteOK(wire.OK{Info: txnInfo(label, "ABORTED", id)})
	}
}

func txnInfo(label, status string, id storage.TxnID) string {
	tid := ""
	if id != 0 {
		tid = fmt.Sprint(id)
	}
	return fmt.Sprintf("{'label':'%s', 'status':'%s', 'txnId':'%s'}", label, status, tid)
}

// beginTxn opens an explicit transaction (BEGIN) on the current database (its label is
// reserved from now on), or, without one, on the database of its first
// write.
func (s *Session) beginTxn(label string) error {
	t := &sessionTxn{label: label, explicit: true, start: time.Now()}
	if db := s.DB(); db != "" && !isSystemDB(db) {
		x, err := s.srv.coord.BeginExplicit(db, label)
		if err != nil {
			return err
		}
		t.x = x
	} else if t.label == "" {
		t.label = newTxnLabel()
	}
	s.txn = t
	return nil
}

// newTxnLabel names a transaction begun without a label before it has a
// database (one with a database gets the catalog's generated label).
func newTxnLabel() string { return fmt.Sprintf("txn_insert_%x", time.Now().UnixNano()) }

// commitTxn commits the open transaction (none: nothing to do).
func (s *Session) commitTxn(ctx context.Context) (*coord.LoadResult, error) {
	t := s.txn
	if t == nil {
		return &coord.LoadResult{}, nil
	}
	s.txn = nil
	defer t.unlock()
	if t.x == nil {
		return &coord.LoadResult{Label: t.label}, nil // nothing was written
	}
	return t.x.Commit(ctx)
}

// endTxn ends the open transaction: committed, or rolled back for reason.
func (s *Session) endTxn(commit bool, reason string) {
	t := s.txn
	if t == nil {
		return
	}
	if commit {
		_, _ = s.commitTxn(context.Background())
		return
	}
	s.txn = nil
	defer t.unlock()
	if t.x != nil {
		t.x.Rollback(reason)
	}
}

// autocommitSet follows SET autocommit: turning it on commits the open
// implicit transaction, as in MySQL.
func (s *Session) autocommitSet(ctx context.Context, val string) error {
	if val == "0" || s.txn == nil || s.txn.explicit {
		return nil
	}
	_, err := s.commitTxn(ctx)
	return err
}

// load writes one INSERT's rows: inside a transaction as its next
// statement (status PREPARE until COMMIT), else as a load transaction of
// its own. It returns the OK packet's info.
func (s *Session) load(ctx context.Context, db string, t *catalog.Table, label string, src coord.Source) (*coord.LoadResult, string, error) {
	return s.loadVia(db, label,
		func() (*coord.LoadResult, error) { return s.srv.coord.Load(ctx, db, t, label, src) },
		func(x *coord.ExplicitTxn) (*coord.LoadResult, error) { return x.Load(ctx, t, src) })
}

// loadPlan writes an INSERT … SELECT through its plan's table sink, as
// load does (a transaction's next statement, or a load of its own).
func (s *Session) loadPlan(ctx context.Context, db string, t *catalog.Table, label string, sp *coord.SinkPlan) (*coord.LoadResult, string, error) {
	return s.loadVia(db, label,
		func() (*coord.LoadResult, error) { return s.srv.coord.LoadPlan(ctx, db, t, label, sp) },
		func(x *coord.ExplicitTxn) (*coord.LoadResult, error) { return x.LoadPlan(ctx, t, sp) })
}

// loadVia runs a load alone (own) or as the open transaction's next
// statement (sub).
func (s *Session) loadVia(db, label string, own func() (*coord.LoadResult, error), sub func(*coord.ExplicitTxn) (*coord.LoadResult, error)) (*coord.LoadResult, string, error) {
	if s.txn == nil && s.vars.get("autocommit") == "0" && label != "" {
		return nil, "", sqlerr.Doris.New("an INSERT with a label cannot start a transaction: with autocommit off, name the transaction with BEGIN WITH LABEL")
	}
	if s.txn == nil && s.vars.get("autocommit") != "0" {
		res, err := own()
		if err != nil {
			return nil, "", err
		}
		return res, txnInfo(res.Label, "VISIBLE", res.Txn), nil
	}
	if label != "" && s.txn != nil {
		return nil, "", sqlerr.Doris.New(fmt.Sprintf("an INSERT inside transaction %s cannot have a label of its own", s.txn.Label()))
	}
	x, err := s.txnFor(db)
	if err != nil {
		return nil, "", err
	}
	res, err := sub(x)
	if err != nil {
		return nil, "", err
	}
	return res, txnInfo(x.Label(), "PREPARE", x.ID()), nil
}

// txnDelete runs a DELETE as the open transaction's next statement
// (opening one with autocommit off).
func (s *Session) txnDelete(ctx context.Context, db string, job coord.DeleteJob) (string, error) {
	x, err := s.txnFor(db)
	if err != nil {
		return "", err
	}
	if _, err := x.Delete(ctx, job); err != nil {
		return "", err
	}
	return txnInfo(x.Label(), "PREPARE", x.ID()), nil
}

// txnFor is the open transaction's coordinator side for a statement
// writing db: with autocommit off the first write opens it, and a
// transaction is bound to the database it first writes (another one is
// refused).
func (s *Session) txnFor(db string) (*coord.ExplicitTxn, error) {
	if s.txn == nil {
		s.txn = &sessionTxn{label: newTxnLabel(), start: time.Now()}
	}
	if s.txn.x == nil {
		x, err := s.srv.coord.BeginExplicit(db, s.txn.label)
		if err != nil {
			return nil, err
		}
		s.txn.x = x
	}
	if !strings.EqualFold(db, s.txn.x.DB()) {
		return nil, sqlerr.Doris.New("Transaction insert must be in the same database")
	}
	return s.txn.x, nil
}

// txnReads refuses, with autocommit off, a statement that reads a table
// the open transaction wrote: MySQL would show the transaction's own rows,
// Doris reads only committed data, so the answer would silently differ.
// (Inside BEGIN, Doris's rule holds: reads see committed data only.)
func (s *Session) txnReads(n logical.Node) error {
	t := s.txn
	if t == nil || t.explicit {
		return nil
	}
	if sc, ok := n.(*logical.Scan); ok && t.x != nil && t.x.Wrote(sc.Table.ID) {
		return sqlerr.NotSupportedYet.New(fmt.Sprintf("reading table %s.%s after writing it in an uncommitted transaction (reads see committed rows only; COMMIT first)", sc.DB, sc.Table.Name))
	}
	for _, in := range n.Inputs() {
		if err := s.txnReads(in); err != nil {
			return err
		}
	}
	return nil
}
