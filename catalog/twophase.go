package catalog

import (
	"fmt"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/storage"
)

// PrecommitTxn makes a PREPARE txn PRECOMMITTED (Doris's two-phase stream
// load): its rows are durable on the backends and it records what it wrote,
// so that CommitPrecommitted can commit it later, after a restart too. It
// keeps its label until it is committed or aborted.
func (c *Catalog) PrecommitTxn(it TxnCommit) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.txns[it.ID]
	if !ok {
		return txnNotFound(it.ID)
	}
	if old.State != TxnPrepare {
		return sqlerr.Doris.New(fmt.Sprintf("transaction [%d] is already %s, can not pre-commit", it.ID, old.State))
	}
	txn := old.clone()
	cp := it
	txn.State, txn.Precommit, txn.PrecommitTime = TxnPrecommitted, &cp, c.now()
	b := c.newBatch()
	b.put(idKey(keyTxn, int64(it.ID)), txn)
	if err := c.commit(b); err != nil {
		return err
	}
	c.txns[it.ID] = txn
	return nil
}

// CommitPrecommitted commits a PRECOMMITTED txn with what it recorded.
func (c *Catalog) CommitPrecommitted(id storage.TxnID) (*Txn, error) {
	c.mu.RLock()
	old, ok := c.txns[id]
	c.mu.RUnlock()
	if !ok {
		return nil, txnNotFound(id)
	}
	if old.State != TxnPrecommitted || old.Precommit == nil {
		return nil, sqlerr.Doris.New(fmt.Sprintf("transaction [%d] is %s, not pre-committed", id, old.State))
	}
	p := *old.Precommit
	p.ID = id
	out, err := c.CommitTxns([]TxnCommit{p})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}
