package server

import (
	"fmt"
	"runtime/debug"
	"time"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// loggedSQL bounds the statement text a panic's log line quotes.
const loggedSQL = 2000

// guard runs f, the whole of one statement (parse, bind, plan, execute),
// so that a panic in it, a bug anywhere on the FE's path of that
// statement, fails only the statement: it is logged with the query id, the
// connection, the statement and the stack, and the client gets error 1105
// naming the query id on a connection that stays usable. (server/wire's
// own recover is the last resort: it cannot know where the protocol stands
// and closes the connection.) Goroutines the coordinator starts for the
// query recover on their own (execution/coord/panic.go), as do the
// backends' (op.RecoverTo).
func (s *Session) guard(queryID, text string, f func() error) (err error) {
	start := time.Now()
	defer func() { s.finish(queryID, text, start, err) }() // last: sees the recovered panic's error
	defer func() {
		if r := recover(); r != nil {
			if len(text) > loggedSQL {
				text = text[:loggedSQL] + "..."
			}
			s.srv.log.Error("panic in query "+queryID, "query_id", queryID, "conn", s.info.ID, "user", s.info.User,
				"sql", text, "panic", r, "stack", string(debug.Stack()))
			err = sqlerr.Internal.New(fmt.Sprintf("unexpected panic in query %s: %v (stack in the FE log)", queryID, r))
		}
	}()
	return f()
}

// hook calls the test hook, if a test set one (see Server.testHook).
func (s *Session) hook(stage, text string) {
	if h := s.srv.testHook.Load(); h != nil {
		(*h)(stage, text)
	}
}
