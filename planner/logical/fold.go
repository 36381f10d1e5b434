package logical

import (
	"time"

	"github.com/dorisgo/dorisgo/sql/eval"
	"github.com/dorisgo/dorisgo/sql/expr"
)

// foldConds folds the constant parts of filter conjuncts and drops the
// ones that became TRUE (WHERE 1 = 1 AND ...). A conjunct whose folding
// fails (an overflow, say) is kept as written: it may never be evaluated.
func foldConds(conds []expr.Expr) []expr.Expr {
	ctx := &expr.Context{Now: time.Now()}
	out := make([]expr.Expr, 0, len(conds))
	for _, c := range conds {
		f, err := eval.Fold(c, ctx)
		if err != nil {
			out = append(out, c)
			continue
		}
		if k, ok := f.(*expr.Const); ok && !k.Val.Null && k.Val.Float() != 0 {
			continue
		}
		out = append(out, f)
	}
	return out
}
