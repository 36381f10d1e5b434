package coord

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/storage"
)

type twoPhaseKey struct{}

// WithTwoPhase makes ctx's load stop at PRECOMMITTED (Doris's stream load
// two_phase_commit): written and durable, invisible until CommitPrecommitted.
func WithTwoPhase(ctx context.Context) context.Context {
	return context.WithValue(ctx, twoPhaseKey{}, true)
}

func twoPhase(ctx context.Context) bool {
	on, _ := ctx.Value(twoPhaseKey{}).(bool)
	return on
}

// precommittedTxn finds id in db, refusing others' transactions and those
// not waiting for a commit or abort.
func (c *Coordinator) precommittedTxn(db string, id storage.TxnID, op string) (*catalog.Txn, error) {
	d, err := c.cat.Database(db)
	if err != nil {
		return nil, err
	}
	txn, ok := c.cat.Txn(id)
	if !ok || txn.DBID != d.ID {
		return nil, sqlerr.Doris.New(fmt.Sprintf("transaction [%d] not found in database %s", id, db))
	}
	switch txn.State {
	case catalog.TxnPrecommitted:
		return txn, nil
	case catalog.TxnVisible, catalog.TxnCommitted:
		if op == "commit" {
			return nil, sqlerr.Doris.New(fmt.Sprintf("transaction [%d] is already visible, not pre-committed.", id))
		}
	case catalog.TxnAborted:
		if op == "abort" {
			return nil, sqlerr.Doris.New(fmt.Sprintf("transaction [%d] is already aborted. abort reason: %s", id, txn.Reason))
		}
	}
	return nil, sqlerr.Doris.New(fmt.Sprintf("transaction [%d] is %s, not pre-committed, can not %s", id, txn.State, op))
}

// CommitPrecommitted commits a PRECOMMITTED load of db and publishes it,
// as the second phase of a two-phase stream load.
func (c *Coordinator) CommitPrecommitted(ctx context.Context, db string, id storage.TxnID) error {
	txn, err := c.precommittedTxn(db, id, "commit")
	if err != nil {
		return err
	}
	if len(txn.Tables) != 1 {
		return sqlerr.Assertf("coord: precommitted txn %d has %d tables", id, len(txn.Tables))
	}
	unlock, err := c.lockTable(ctx, txn.Tables[0])
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := c.cat.CommitPrecommitted(id); err != nil {
		return err
	}
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), publishTimeout)
	defer cancel()
	if err := c.publish(pctx, id); err != nil {
		return sqlerr.Doris.New(fmt.Sprintf("transaction [%d] committed but not yet visible: %v", id, err))
	}
	return nil
}

// AbortPrecommitted aborts a PRECOMMITTED load of db: the catalog first
// (the label is free again), then every backend holding a replica of its
// table drops the rows (one that is down drops them when Recover next
// asks it for its pending transactions).
func (c *Coordinator) AbortPrecommitted(ctx context.Context, db string, id storage.TxnID, reason string) error {
	txn, err := c.precommittedTxn(db, id, "abort")
	if err != nil {
		return err
	}
	if err := c.cat.AbortTxn(id, reason); err != nil {
		return err
	}
	c.abortOnBackends(txn)
	return nil
}

// abortOnBackends tells every alive backend holding a replica of txn's
// tables to drop its pending rows.
func (c *Coordinator) abortOnBackends(txn *catalog.Txn) {
	ctx, cancel := context.WithTimeout(context.Background(), abortTimeout)
	defer cancel()
	bes := map[catalog.BackendID]bool{}
	for _, tid := range txn.Tables {
		t, ok := c.cat.TableByID(tid)
		if !ok {
			continue
		}
		for _, p := range t.Partitions {
			for _, tb := range p.Tablets {
				for _, r := range tb.Replicas {
					bes[r.BackendID] = true
				}
			}
		}
	}
	for be := range bes {
		if b, ok := c.cat.Backend(be); !ok || !b.Alive {
			continue
		}
		if cl, err := c.Client(be); err == nil {
			_ = cl.Do(ctx, rpc.ActAbort, rpc.TxnReq{Txn: txn.ID}, nil)
		}
	}
}

// precommitTimeout is how long a PRECOMMITTED load may wait for its commit
// or abort before the FE aborts it (Doris's
// stream_load_default_precommit_timeout_second, 1 hour).
var precommitTimeout atomic.Int64

func init() { precommitTimeout.Store(int64(time.Hour)) }

// SetPrecommitTimeout changes the precommit timeout, returning the old one.
func SetPrecommitTimeout(d time.Duration) time.Duration {
	return time.Duration(precommitTimeout.Swap(int64(d)))
}

// abortStalePrecommitted aborts PRECOMMITTED loads older than
// PrecommitTimeout.
func (c *Coordinator) abortStalePrecommitted() {
	limit := time.Duration(precommitTimeout.Load())
	for _, txn := range c.cat.Txns(catalog.TxnPrecommitted) {
		if time.Since(txn.PrecommitTime) < limit {
			continue
		}
		if err := c.cat.AbortTxn(txn.ID, fmt.Sprintf("pre-committed longer than %v without a commit", limit)); err == nil {
			c.abortOnBackends(txn)
		}
	}
}
