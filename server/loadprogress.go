package server

import (
	"context"
	"fmt"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
)

// loadProgress is SHOW LOAD's Progress and LoadedRows for an INSERT's
// load transaction. Doris's shape is "percent (finished tasks/tasks)": an
// INSERT is one task. While its table sink runs, the percent is the rows
// written so far over the planner's estimate of the sink's input, kept
// below 100% until the transaction is visible (the estimate may be low);
// with no estimate (neither the planner's nor the source's, loadestimate.go)
// the percent is N/A, as Doris writes an unknown progress, with the rows
// still counted.
func (s *Server) loadProgress(t *catalog.Txn) (progress string, loaded int64) {
	for _, st := range t.Stats {
		loaded += st.Rows
	}
	switch t.State {
	case catalog.TxnVisible:
		return "100.00% (1/1)", loaded
	case catalog.TxnAborted:
		return "0.00% (0/1)", loaded
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	rows, est, ok := s.coord.LoadProgress(ctx, t.ID)
	if !ok {
		if t.State == catalog.TxnCommitted {
			// Every row written and durable, the sink gone, the
			// versions being published: as far as it gets below 100%.
			return "99.99% (0/1)", loaded
		}
		return "0.00% (0/1)", loaded
	}
	if est < 0 {
		return "N/A (0/1)", max(loaded, rows)
	}
	pct := 0.0
	if est > 0 {
		pct = min(float64(rows)*100/float64(est), 99.99)
	}
	return fmt.Sprintf("%.2f%% (0/1)", pct), max(loaded, rows)
}
