package op

import (
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// RecoverTo turns a panic of the calling goroutine into *err (an internal
// error) so that an operator bug fails its query, not the process: call it
// deferred at the top of every goroutine that runs operators.
func RecoverTo(err *error) {
	if r := recover(); r != nil {
		slog.Error("panic running a plan fragment", "panic", r, "stack", string(debug.Stack()))
		*err = sqlerr.Internal.New(fmt.Sprint(r))
	}
}
