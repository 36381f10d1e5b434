package catalog

import (
	"slices"

	"github.com/dorisgo/dorisgo/storage"
)

// TxnsOf lists db's transactions that keep holds, oldest first.
func (c *Catalog) TxnsOf(db string, keep func(*Txn) bool) ([]*Txn, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	d, err := c.dbLocked(db)
	if err != nil {
		return nil, err
	}
	var out []*Txn
	for _, t := range c.sortedTxns(func(t *Txn) bool { return t.DBID == d.ID && keep(t) }) {
		out = append(out, t.clone())
	}
	return out, nil
}

// OpenTxnsOn lists the transactions on table that may still write rows:
// PREPARE ones, and PRECOMMITTED ones waiting for their client.
func (c *Catalog) OpenTxnsOn(table TableID) []storage.TxnID {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []storage.TxnID
	for _, t := range c.sortedTxns(func(t *Txn) bool {
		return (t.State == TxnPrepare || t.State == TxnPrecommitted) && slices.Contains(t.Tables, table)
	}) {
		out = append(out, t.ID)
	}
	return out
}
