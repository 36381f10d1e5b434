package physical

import (
	"strings"

	"github.com/dorisgo/dorisgo/planner/logical"
)

// tableFuncText is a table-valued function call as written, e.g.
// numbers("number" = "10").
func tableFuncText(t *logical.TableFunc) string {
	args := make([]string, len(t.Params))
	for i, p := range t.Params {
		args[i] = `"` + p.Key + `" = "` + p.Value + `"`
	}
	return t.Name + "(" + strings.Join(args, ", ") + ")"
}
