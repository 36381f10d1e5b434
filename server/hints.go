package server

import (
	"strings"

	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// Statement hints the session applies (the planner reads the join hints):
// SET_VAR(name = value, …) sets session variables for the statement only,
// as in Doris and MySQL; MAX_EXECUTION_TIME(ms) is the statement's timeout
// (in place of query_timeout); every other optimizer hint is ignored with
// a warning naming it.

// applySetVars sets the SET_VAR hints of h for the running statement and
// returns what puts the previous values back. A variable that does not
// exist or a bad value fails the statement, as SET would.
func (s *Session) applySetVars(h *parser.Hints) (restore func(), err error) {
	if h == nil || len(h.SetVars) == 0 {
		return func() {}, nil
	}
	type saved struct {
		name, val string
		had       bool
	}
	var old []saved
	restore = func() {
		for i := len(old) - 1; i >= 0; i-- {
			o := old[i]
			if o.had {
				s.vars.vals[o.name] = o.val
			} else {
				delete(s.vars.vals, o.name)
			}
		}
	}
	for _, sv := range h.SetVars {
		name := strings.ToLower(sv.Name)
		val, err := normalizeVar(name, sv.Value)
		if err != nil {
			restore()
			return nil, err
		}
		if name == "autocommit" {
			restore()
			return nil, sqlerr.NotSupportedYet.New("SET_VAR(autocommit)")
		}
		v, had := s.vars.vals[name]
		old = append(old, saved{name, v, had})
		s.vars.vals[name] = val
	}
	return restore, nil
}

// warnIgnoredHints adds a warning for each hint of the statement that
// dorisgo accepts without applying.
func (s *Session) warnIgnoredHints(h *parser.Hints) {
	if h == nil {
		return
	}
	for _, x := range h.Ignored {
		s.warnings().Add(int(sqlerr.NotSupportedYet.Code), "Optimizer hint "+x+" is not supported and was ignored")
	}
}
