package server

import (
	"strings"

	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// setTransaction applies one characteristic of SET [GLOBAL | SESSION]
// TRANSACTION …. dorisgo reads committed data as of each statement
// whatever the level, so the level is kept where clients read it
// (@@transaction_isolation, @@tx_isolation), as Doris keeps it. Without a
// scope MySQL changes only the next transaction, which no variable shows,
// so nothing is stored. READ ONLY would have to refuse writes: refused.
func (s *Session) setTransaction(e parser.Assignment, global, session bool) error {
	if !e.IsLiteral {
		return sqlerr.Syntax.New("SET TRANSACTION " + e.Text)
	}
	c := strings.ToLower(strings.TrimSpace(e.Literal))
	switch {
	case c == "read write":
		return nil
	case c == "read only":
		return sqlerr.NotSupportedYet.New("SET TRANSACTION READ ONLY (read-only transactions)")
	case strings.HasPrefix(c, "isolation level "):
		level := strings.ToUpper(strings.ReplaceAll(strings.TrimPrefix(c, "isolation level "), " ", "-"))
		switch level {
		case "READ-UNCOMMITTED", "READ-COMMITTED", "REPEATABLE-READ", "SERIALIZABLE":
		default:
			return sqlerr.Syntax.New("SET TRANSACTION ISOLATION LEVEL " + level)
		}
		if !global && !session {
			return nil
		}
		for _, name := range []string{"transaction_isolation", "tx_isolation"} {
			if global {
				s.srv.globals.set(name, level)
			}
			s.vars.vals[name] = level
		}
		return nil
	}
	return sqlerr.NotSupportedYet.New("SET TRANSACTION " + strings.ToUpper(c))
}
