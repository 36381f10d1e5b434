package coord

import (
	"fmt"
	"runtime/debug"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// A panic is a bug, but a bug in one query must not take down the FE and
// every other session with it. Each goroutine coord starts for a query or
// a load defers one of the two recovers below as its first statement
// (recover works only when called by the deferred function itself, hence
// two functions rather than one wrapping the other). The session's
// goroutine, which runs fragment 0 and the load sources, is guarded by the
// server.

// recoverQuery fails q with an internal error naming the query and what
// panicked, logged with the query id and the stack.
func (q *query) recoverQuery(what string) {
	if r := recover(); r != nil {
		q.fail(q.c.panicked(r, fmt.Sprintf("in query %s while %s", q.id, what), "query_id", q.id))
	}
}

// recoverTo turns a panic into *err, logged with attrs (say, the load's
// transaction) and the stack.
func (c *Coordinator) recoverTo(err *error, what string, attrs ...any) {
	if r := recover(); r != nil {
		*err = c.panicked(r, "while "+what, attrs...)
	}
}

// panicked logs the panic value r (where says where it happened) and
// returns the error its query or load fails with.
func (c *Coordinator) panicked(r any, where string, attrs ...any) error {
	c.log.Error("panic "+where, append(attrs, "panic", r, "stack", string(debug.Stack()))...)
	return sqlerr.Internal.New(fmt.Sprintf("unexpected panic %s: %v (stack in the FE log)", where, r))
}
