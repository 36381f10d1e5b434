package server

import (
	"strings"

	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/storage"
)

// SET GLOBAL is kept in the FE's metadata store, as Doris keeps it in its
// edit log: it survives a restart and, on a replicated frontend, reaches
// every frontend through the journal (forwarded to the master, which
// writes it; followers take it when they apply the entry).
const keyGlobal = "g/"

// loadGlobals applies the persisted SET GLOBALs over the defaults.
func (s *Server) loadGlobals() error {
	kvs, err := s.meta.Scan([]byte(keyGlobal))
	if err != nil {
		return err
	}
	for _, e := range kvs {
		name := string(e.Key[len(keyGlobal):])
		if _, known := sysVars[name]; known {
			s.globals.set(name, string(e.Value))
		}
	}
	return nil
}

// setGlobal sets a global variable and persists it. A follower only sets
// its own copy: the statement ran on the master first (forward.go), whose
// journal entry brings the same value here.
func (s *Server) setGlobal(name, val string) error {
	op := []storage.MetaOp{{Key: []byte(keyGlobal + name), Value: []byte(val)}}
	switch {
	case s.ha == nil:
		if err := s.meta.Apply(op); err != nil {
			return err
		}
	case s.ha.master.Load():
		if _, err := s.ha.node.Apply(op); err != nil {
			return err
		}
	}
	s.globals.set(name, val)
	return nil
}

// replicatedGlobals applies the SET GLOBALs of a journal entry.
func (s *Server) replicatedGlobals(ops []storage.MetaOp) {
	for _, op := range ops {
		if k := string(op.Key); strings.HasPrefix(k, keyGlobal) && !op.Delete {
			if _, known := sysVars[k[len(keyGlobal):]]; known {
				s.globals.set(k[len(keyGlobal):], string(op.Value))
			}
		}
	}
}

// setsGlobal reports whether a SET assigns a global variable.
func setsGlobal(n *parser.Set) bool {
	for _, e := range n.Assignments {
		name := strings.ToLower(e.Name)
		if e.Scope == parser.ScopeGlobal || e.Scope == parser.ScopePersist || e.Scope == parser.ScopePersistOnly ||
			strings.HasPrefix(name, "@@global.") || strings.HasPrefix(name, "global.") {
			return true
		}
	}
	return false
}
