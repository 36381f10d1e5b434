package server

import (
	"context"
	"strings"
	"time"

	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// SQL prepared statements (PREPARE name FROM …, EXECUTE name [USING @v, …],
// DEALLOCATE PREPARE name) are the protocol's prepared statements
// (prepared.go) kept by name for the session: parsed and authorised once,
// bound and planned at each EXECUTE with the user variables' values as
// the arguments. Names are case-insensitive, as in MySQL; preparing a name
// again replaces the statement (dropping the old one even when the new
// text fails).

// sqlPrepare runs PREPARE name FROM 'text' | @var.
func (s *Session) sqlPrepare(n *parser.Prepare, w wire.ResultWriter) error {
	name := strings.ToLower(n.Name)
	text := n.Source
	if v, ok := userVarName(text); ok {
		d := s.vars.User(v)
		if d.Null {
			return sqlerr.ParseError.New("You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near 'NULL' at line 1")
		}
		text = d.String()
	}
	delete(s.sqlStmts, name)
	if strings.TrimSpace(text) == "" {
		return sqlerr.EmptyQuery.New()
	}
	p, err := s.prepare(text)
	if err != nil {
		return err
	}
	if p.planErr != nil {
		// As MySQL, a query naming what does not exist fails to prepare.
		switch sqlerr.As(p.planErr).Code {
		case 1046, 1049, 1051, 1052, 1054, 1146:
			return p.planErr
		}
	}
	if s.sqlStmts == nil {
		s.sqlStmts = map[string]*prepared{}
	}
	s.sqlStmts[name] = p
	return w.WriteOK(wire.OK{Info: "Statement prepared"})
}

// userVarName reports whether PREPARE's source is a user variable (@v):
// vitess gives the variable's name where a string literal would be.
func userVarName(src string) (string, bool) {
	if len(src) < 2 || src[0] != '@' || src[1] == '@' {
		return "", false
	}
	name := strings.Trim(src[1:], "`'\"")
	for _, c := range name {
		if !(c == '_' || c == '$' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80) {
			return "", false
		}
	}
	return strings.ToLower(name), name != ""
}

// sqlExecute runs EXECUTE name [USING @a, …] as the statement prepared
// under name, with the variables' current values (NULL if unset).
func (s *Session) sqlExecute(ctx context.Context, n *parser.Execute, w wire.ResultWriter) error {
	p, ok := s.sqlStmts[strings.ToLower(n.Name)]
	if !ok {
		return sqlerr.UnknownStmt.New(n.Name, "EXECUTE")
	}
	if len(n.Vars) != p.NumParams() {
		return sqlerr.WrongArguments.New("EXECUTE")
	}
	args := make([]types.Datum, len(n.Vars))
	for i, v := range n.Vars {
		name, ok := userVarName(v)
		if !ok {
			return sqlerr.WrongArguments.New("EXECUTE")
		}
		args[i] = s.vars.User(name)
	}
	// The prepared statement's own hints hold for the execution.
	h := parser.HintsOf(p.stmt)
	restore, err := s.applySetVars(h)
	if err != nil {
		return err
	}
	defer restore()
	if h != nil && h.MaxExecutionMs > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(h.MaxExecutionMs)*time.Millisecond)
		defer cancel()
	}
	s.warnIgnoredHints(h)
	return s.dispatch(ctx, p.stmt, args, w)
}

// sqlDeallocate runs DEALLOCATE PREPARE name (and DROP PREPARE name).
func (s *Session) sqlDeallocate(n *parser.Deallocate, w wire.ResultWriter) error {
	name := strings.ToLower(n.Name)
	if _, ok := s.sqlStmts[name]; !ok {
		return sqlerr.UnknownStmt.New(n.Name, "DEALLOCATE PREPARE")
	}
	delete(s.sqlStmts, name)
	return w.WriteOK(wire.OK{})
}
