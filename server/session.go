package server

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/dorisgo/dorisgo/execution/coord"
	"github.com/dorisgo/dorisgo/planner/bind"
	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

var _ wire.Handler = (*Server)(nil)
var _ wire.Session = (*Session)(nil)

// LookupAccount implements wire.Handler.
func (s *Server) LookupAccount(user, host string) (wire.Account, bool) {
	u, ok := s.cat.LookupUser(user, host)
	if !ok {
		return wire.Account{}, false
	}
	return wire.Account{NativeHash: u.NativeHash, Sha2Hash: u.Sha2Hash}, true
}

// NewSession implements wire.Handler.
func (s *Server) NewSession(info wire.ConnInfo) (wire.Session, error) {
	g := s.globals.snapshot()
	sess := &Session{srv: s, info: info, vars: &sessionVars{vals: g, user: map[string]types.Datum{}, g: s.globals},
		connected: time.Now(), command: "Sleep", acct: account{user: info.User, host: "%"}}
	if u, ok := s.cat.LookupUser(info.User, info.Host); ok {
		sess.acct.host = u.Host // the account the wire layer authenticated
	}
	if info.DB != "" {
		if err := sess.InitDB(context.Background(), info.DB); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	s.sessions[info.ID] = sess
	s.mu.Unlock()
	return sess, nil
}

// Session is one client connection's state.
type Session struct {
	srv       *Server
	info      wire.ConnInfo
	acct      account // the account logged in as; privileges are looked up per statement
	vars      *sessionVars
	connected time.Time

	mu        sync.Mutex
	db        string
	command   string
	stmtStart time.Time
	sql       string
	queryID   string             // the running statement's (coord.NewQueryID)
	lastQuery string             // the previous statement's query id (last_query_id())
	cancel    context.CancelFunc // the running statement's; KILL QUERY calls it
	stmtCtx   context.Context    // the running statement's; binding and planning stop when it is done
	killed    bool
	// diag is the last statement's diagnostics (SHOW WARNINGS); keepDiag
	// is set by a statement that must not replace them (SHOW WARNINGS);
	// stmtRes counts what the running statement sent (the audit log).
	diag     []diagEntry
	keepDiag bool
	stmtRes  *stmtResult
	// warn collects the running statement's warnings (casts that gave
	// NULL, ignored hints); finish makes them the diagnostics.
	warn *expr.Warnings
	// txn is the open multi-statement transaction (txn.go); only the
	// connection's goroutine touches it.
	txn *sessionTxn
	// sqlStmts are the SQL PREPARE statements by lower-case name
	// (sqlprepare.go); only the connection's goroutine touches them.
	sqlStmts map[string]*prepared
	// fwdTxn: a transaction of this follower's client is open on the
	// master, so every statement goes there (forward.go).
	fwdTxn bool
}

// InitDB implements wire.Session (COM_INIT_DB and USE). The account
// needs some privilege on db (1044 otherwise, whether or not db exists).
func (s *Session) InitDB(ctx context.Context, db string) error {
	if !isSystemDB(db) && !s.access().SeesDB(db) {
		return s.dbDenied(db)
	}
	if _, err := s.srv.cat.Database(db); err != nil && !isSystemDB(db) {
		return err
	}
	s.mu.Lock()
	s.db = db
	s.mu.Unlock()
	return nil
}

// DB is the current database.
func (s *Session) DB() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.db
}

// Close implements wire.Session.
func (s *Session) Close() {
	s.srv.mu.Lock()
	delete(s.srv.sessions, s.info.ID)
	s.srv.mu.Unlock()
	s.mu.Lock()
	if s.cancel != nil {
		s.cancel()
	}
	s.mu.Unlock()
	// A transaction the client did not commit is rolled back, as in Doris.
	s.endTxn(false, "connection closed")
	s.endForwarded()
}

// Query implements wire.Session: each statement of a multi-statement text
// runs in turn; the first error ends the batch, as in MySQL.
func (s *Session) Query(ctx context.Context, sql string, w wire.ResultWriter) error {
	s.mu.Lock()
	s.killed = false // KILL QUERY reaches what runs from now on
	s.mu.Unlock()
	var texts []string
	if err := s.parsing(ctx, len(sql), func() { texts = parser.Split(sql) }); err != nil {
		return err
	}
	if len(texts) == 0 {
		return sqlerr.EmptyQuery.New()
	}
	for i, text := range texts {
		w.SetMoreResults(i < len(texts)-1)
		id := coord.NewQueryID()
		if err := s.guard(id, text, func() error {
			var stmt parser.Statement
			var err error
			if perr := s.parsing(ctx, len(text), func() { stmt, err = parser.ParseOne(text) }); perr != nil {
				return perr
			}
			if err != nil {
				return err
			}
			return s.run(ctx, id, text, stmt, nil, w)
		}); err != nil {
			return err
		}
	}
	return nil
}

// parseAsyncBytes is the statement size from which parsing runs where
// KILL, query_timeout and a client leaving can stop waiting for it
// (parsing is linear, about 30 ns a byte: a 64 MB packet parses in ~2 s).
const parseAsyncBytes = 1 << 20

// parsing runs parse, a parse of n bytes of SQL. A large one runs in its
// own goroutine so that the session stops waiting, with the statement's
// error, when it is killed, times out or its client leaves; the abandoned
// parse finishes on its own (it holds nothing but memory).
func (s *Session) parsing(ctx context.Context, n int, parse func()) error {
	if n < parseAsyncBytes {
		parse()
		return nil
	}
	timeout := time.Duration(s.vars.int("query_timeout")) * time.Second
	if timeout <= 0 {
		timeout = 900 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	s.mu.Lock()
	if s.killed { // between the parts of this statement's parsing
		s.mu.Unlock()
		return sqlerr.QueryInterrupted.New()
	}
	s.command, s.stmtStart, s.cancel = "Query", time.Now(), cancel
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.command, s.cancel = "Sleep", nil
		s.mu.Unlock()
	}()
	done := make(chan struct{})
	var perr error
	go func() {
		defer close(done)
		defer func() { // the session's guard cannot see this goroutine
			if r := recover(); r != nil {
				perr = sqlerr.Internal.New(fmt.Sprintf("unexpected panic while parsing: %v", r))
			}
		}()
		parse()
	}()
	select {
	case <-done:
		return perr
	case <-ctx.Done():
		s.mu.Lock()
		killed := s.killed
		s.mu.Unlock()
		if ctx.Err() == context.DeadlineExceeded && !killed {
			return sqlerr.QueryTimeout.New()
		}
		return sqlerr.QueryInterrupted.New()
	}
}

// run executes one statement, query queryID, under the session's timeout
// and KILL QUERY; callers guard it.
func (s *Session) run(ctx context.Context, queryID, text string, stmt parser.Statement, params []types.Datum, w wire.ResultWriter) error {
	hints := parser.HintsOf(stmt)
	restore, err := s.applySetVars(hints) // hints.go
	if err != nil {
		return err
	}
	defer restore()
	timeout := time.Duration(s.vars.int("query_timeout")) * time.Second
	if timeout <= 0 {
		timeout = 900 * time.Second
	}
	if hints != nil && hints.MaxExecutionMs > 0 {
		timeout = time.Duration(hints.MaxExecutionMs) * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res := &stmtResult{task: taskOf(stmt)}
	w = &countingWriter{ResultWriter: w, res: res}
	s.mu.Lock()
	s.stmtRes = res
	s.warn = &expr.Warnings{}
	s.command, s.sql, s.queryID, s.stmtStart, s.cancel, s.killed = "Query", text, queryID, time.Now(), cancel, false
	s.stmtCtx = ctx
	s.mu.Unlock()
	s.warnIgnoredHints(hints)
	defer func() {
		s.mu.Lock()
		s.command, s.sql, s.queryID, s.cancel, s.stmtCtx = "Sleep", "", "", nil, nil
		s.mu.Unlock()
	}()
	if s.needsMaster(stmt) {
		err = s.forward(ctx, text, params, w)
		if set, ok := stmt.(*parser.Set); ok && err == nil {
			err = s.set(set, discardWriter{}) // the session's own copy follows
		}
	} else {
		err = s.dispatch(ctx, stmt, params, w)
	}
	if err != nil && ctx.Err() != nil {
		s.mu.Lock()
		killed := s.killed
		s.mu.Unlock()
		if killed {
			return sqlerr.QueryInterrupted.New()
		}
		if ctx.Err() == context.DeadlineExceeded {
			return sqlerr.QueryTimeout.New()
		}
		return sqlerr.QueryInterrupted.New()
	}
	return err
}

// warnings is the running statement's warning collector (nil outside one).
func (s *Session) warnings() *expr.Warnings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.warn
}

// StatementWarnings implements wire.WarningReporter.
func (s *Session) StatementWarnings() uint16 {
	return uint16(min(s.warnings().Count(), 65535))
}

// bindContext is what the binder sees of this session.
func (s *Session) bindContext(params []types.Datum) *bind.Context {
	return &bind.Context{Cat: s.srv.cat, DB: s.DB(), User: s.info.User, ConnID: s.info.ID,
		Version: serverVersion, Vars: s.vars, Virtual: s.srv.shows.InfoSchema(showSession{s}), Now: time.Now(), Params: params,
		Ctx: s.statementContext(), Warn: s.warnings(), LastQueryID: s.lastQueryID()}
}

// statementContext is the running statement's context (nil outside one).
func (s *Session) statementContext() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stmtCtx
}

// killQuery cancels the running statement of this session.
func (s *Session) killQuery() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.killed = true
	if s.cancel != nil {
		s.cancel()
	}
}

func isSystemDB(db string) bool {
	switch strings.ToLower(db) {
	case "information_schema", "mysql", "__internal_schema":
		return true
	}
	return false
}

// kill implements KILL [CONNECTION|QUERY] id.
func (s *Session) kill(id int64, queryOnly bool) error {
	s.srv.mu.Lock()
	target, ok := s.srv.sessions[uint32(id)]
	s.srv.mu.Unlock()
	if !ok {
		return sqlerr.NoSuchThread.New(id)
	}
	if !s.mayKill(target) {
		return sqlerr.KillDenied.New(id)
	}
	target.killQuery()
	if !queryOnly && target.info.Cancel != nil {
		target.info.Cancel()
	}
	return nil
}

func (s *Session) String() string { return fmt.Sprintf("session %d (%s)", s.info.ID, s.info.User) }
