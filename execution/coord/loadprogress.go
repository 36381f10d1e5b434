package coord

import (
	"context"
	"sync"

	"github.com/dorisgo/dorisgo/storage"
)

// runningLoad is a table sink query writing a load transaction's rows.
type runningLoad struct {
	q   *Query
	est int64 // the planner's estimate of the sink's input rows, -1 unknown
	// seen is each sink instance's most rows seen: an instance that just
	// ended is briefly neither live on its backend nor reported here, and
	// its rows must not drop out of the sum.
	mu   sync.Mutex
	seen map[int]int64
}

// LoadProgress is how far the table sink of load transaction txn got
// (SHOW LOAD's Progress while it runs): the rows its instances wrote so
// far, the finished ones' reports and the running ones' live counters
// (query_status), and the planner's estimate of the rows it will write (-1
// unknown). ok is false when txn has no table sink: an INSERT … VALUES, a
// stream load, or a load that has ended.
func (c *Coordinator) LoadProgress(ctx context.Context, txn storage.TxnID) (rows, est int64, ok bool) {
	v, ok := c.loads.Load(txn)
	if !ok {
		return 0, 0, false
	}
	r := v.(*runningLoad)
	p := r.q.LiveProfile(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rep := range p.Instances {
		if rep.Fragment == 0 && rep.Table != nil {
			r.seen[rep.Instance] = max(r.seen[rep.Instance], rep.Table.Rows)
		}
	}
	for _, n := range r.seen {
		rows += n
	}
	return rows, r.est, true
}

// trackLoad makes q's progress visible under txn (LoadProgress) until
// the load that began txn calls untrackLoad: past the sink's end, through
// its commit, its final counts stay readable.
func (c *Coordinator) trackLoad(txn storage.TxnID, q *query, est int64) {
	c.loads.Store(txn, &runningLoad{q: &Query{q: q}, est: est, seen: map[int]int64{}})
}

func (c *Coordinator) untrackLoad(txn storage.TxnID) { c.loads.Delete(txn) }
