package catalog

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
