package catalog

import (
	"fmt"
	"maps"
	"sort"
	"time"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/storage"
)

// TxnState is a load transaction's state (Doris TransactionStatus).
type TxnState uint8

const (
	TxnPrepare   TxnState = iota // begun: rows being written to the backends
	TxnCommitted                 // versions assigned, durable; not yet visible
	TxnVisible                   // published on every backend; readable
	TxnAborted                   // rolled back; its label may be reused
	// TxnPrecommitted: written and durable on the backends, waiting for
	// the client's commit or abort (stream load's two_phase_commit).
	TxnPrecommitted
)

func (s TxnState) String() string {
	switch s {
	case TxnPrepare:
		return "PREPARE"
	case TxnCommitted:
		return "COMMITTED"
	case TxnVisible:
		return "VISIBLE"
	case TxnAborted:
		return "ABORTED"
	case TxnPrecommitted:
		return "PRECOMMITTED"
	}
	return fmt.Sprintf("TxnState(%d)", s)
}

// Txn is a load transaction record. Immutable once handed out.
type Txn struct {
	ID     storage.TxnID `json:"id"`
	DBID   DBID          `json:"db_id"`
	Label  string        `json:"label"`
	State  TxnState      `json:"state"`
	Tables []TableID     `json:"tables"`
	// Versions is the version each loaded partition got at commit.
	Versions   map[PartitionID]storage.Version          `json:"versions"`
	Stats      map[storage.TabletID]storage.RowsetStats `json:"stats"`
	CreateTime time.Time                                `json:"create_time"`
	CommitTime time.Time                                `json:"commit_time"`
	FinishTime time.Time                                `json:"finish_time"` // visible or aborted
	Reason     string                                   `json:"reason,omitempty"`
	// Delete is set on the transaction of a DELETE (delete.go).
	Delete *DeleteInfo `json:"delete,omitempty"`
	// Source is Doris's LoadJobSourceType: FRONTEND (INSERT, DELETE,
	// UPDATE) or BACKEND_STREAMING (stream load); "" reads as FRONTEND.
	Source string `json:"source,omitempty"`
	// TimeoutMs is the load's timeout (0: none known).
	TimeoutMs int64 `json:"timeout_ms,omitempty"`
	// User is who ran the load ("" when not known).
	User string `json:"user,omitempty"`
	// Precommit is what a PRECOMMITTED txn wrote, for its commit.
	Precommit     *TxnCommit `json:"precommit,omitempty"`
	PrecommitTime time.Time  `json:"precommit_time,omitempty"`
}

func (t *Txn) clone() *Txn {
	n := *t
	return &n
}

// LabelUsedError reports a label already taken by a non-aborted txn. It
// unwraps to a 1105 sqlerr with Doris's text; stream load also reads State
// for "ExistingJobStatus".
type LabelUsedError struct {
	Label string
	TxnID storage.TxnID
	State TxnState
}

func (e *LabelUsedError) Error() string { return e.Unwrap().Error() }

func (e *LabelUsedError) Unwrap() error {
	return sqlerr.Doris.New(fmt.Sprintf("Label [%s] has already been used, relate to txn [%d], status [%s].", e.Label, e.TxnID, e.State))
}

func txnNotFound(id storage.TxnID) error {
	return sqlerr.Doris.New(fmt.Sprintf("transaction not found, id: %d", id))
}

func (c *Catalog) indexLabel(t *Txn) {
	c.labels[labelKey{t.DBID, t.Label}] = t.ID
}

// BeginTxn starts a load into tables of db (persisted as PREPARE). An empty
// label gets a generated one; a label of a non-aborted txn of the same
// database is a *LabelUsedError.
func (c *Catalog) BeginTxn(db, label string, tables []TableID) (*Txn, error) {
	return c.beginTxn(db, label, tables, nil, TxnInfo{})
}

// TxnInfo is what SHOW TRANSACTION tells of a load besides its label.
type TxnInfo struct {
	Source  string // Doris's LoadJobSourceType ("": FRONTEND)
	Timeout time.Duration
	User    string
}

// BeginTxnWith is BeginTxn recording info on the transaction.
func (c *Catalog) BeginTxnWith(db, label string, tables []TableID, info TxnInfo) (*Txn, error) {
	return c.beginTxn(db, label, tables, nil, info)
}

// beginTxn is BeginTxn recording del on the transaction (a DELETE's).
func (c *Catalog) beginTxn(db, label string, tables []TableID, del *DeleteInfo, info TxnInfo) (*Txn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, err := c.dbLocked(db)
	if err != nil {
		return nil, err
	}
	for _, id := range tables {
		if t, ok := c.tables[id]; !ok || t.DBID != d.ID {
			return nil, sqlerr.Doris.New(fmt.Sprintf("table %d does not exist in database %s", id, db))
		}
	}
	if label != "" {
		if prev, ok := c.labels[labelKey{d.ID, label}]; ok {
			if p := c.txns[prev]; p.State != TxnAborted {
				return nil, &LabelUsedError{Label: label, TxnID: p.ID, State: p.State}
			}
		}
	}
	b := c.newBatch()
	now := c.now()
	t := &Txn{ID: b.nextTxn(), DBID: d.ID, Label: label, State: TxnPrepare, Tables: append([]TableID(nil), tables...), CreateTime: now, Delete: del,
		Source: info.Source, TimeoutMs: info.Timeout.Milliseconds(), User: info.User}
	if t.Label == "" {
		t.Label = fmt.Sprintf("label_%d_%x", t.ID, now.UnixNano())
	}
	b.put(idKey(keyTxn, int64(t.ID)), t)
	if err := c.commitLazy(b); err != nil { // a lost BEGIN loses nothing committed (kv.go)
		return nil, err
	}
	c.txns[t.ID] = t
	c.indexLabel(t)
	c.txnCount.begun.Add(1)
	return t, nil
}

// CommitTxn assigns each listed partition its NextVersion (then advances it)
// and records the per-tablet stats, in one persisted write together with
// the COMMITTED state. After it returns the load is durable: FinishTxn may
// be retried (e.g. after a restart) until every backend has published.
func (c *Catalog) CommitTxn(id storage.TxnID, partitions []PartitionID, rows, bytes map[storage.TabletID]int64) (*Txn, error) {
	out, err := c.CommitTxns([]TxnCommit{{ID: id, Partitions: partitions, Rows: rows, Bytes: bytes}})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// TxnCommit is one transaction of a CommitTxns call.
type TxnCommit struct {
	ID          storage.TxnID
	Partitions  []PartitionID
	Rows, Bytes map[storage.TabletID]int64
	// Written, when set, lists per tablet given rows the backends that
	// made them durable: the commit needs a majority of each such
	// tablet's replicas, and marks the others lagging (replica.go).
	Written map[storage.TabletID][]BackendID `json:",omitempty"`
}

// CommitTxns commits several PREPARE transactions in one persisted write
// (the statements of an explicit BEGIN … COMMIT): all become durable or
// none. They take versions in the order given, so a later statement's rows
// of a partition get the higher version.
func (c *Catalog) CommitTxns(items []TxnCommit) ([]*Txn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	tables := map[TableID]*Table{} // new versions, shared by the items
	var out []*Txn
	now := c.now()
	for _, it := range items {
		txn, err := c.commitLocked(it, tables, now)
		if err != nil {
			return nil, err
		}
		out = append(out, txn)
	}
	if err := c.persistTxns(tables, out, false); err != nil {
		return nil, err
	}
	return out, nil
}

// commitLocked computes the COMMITTED record of it; tables holds the
// tables already changed by earlier items of the same write.
func (c *Catalog) commitLocked(it TxnCommit, tables map[TableID]*Table, now time.Time) (*Txn, error) {
	id := it.ID
	old, ok := c.txns[id]
	if !ok {
		return nil, txnNotFound(id)
	}
	if old.State != TxnPrepare && old.State != TxnPrecommitted {
		return nil, sqlerr.Doris.New(fmt.Sprintf("transaction [%d] is already %s, can not commit", id, old.State))
	}
	owner := map[PartitionID]TableID{}
	for _, tid := range old.Tables {
		if t := c.tables[tid]; t != nil {
			for _, p := range t.Partitions {
				owner[p.ID] = tid
			}
		}
	}
	txn := old.clone()
	txn.Versions = make(map[PartitionID]storage.Version, len(it.Partitions))
	txn.Stats = map[storage.TabletID]storage.RowsetStats{}
	inTxn := map[storage.TabletID]bool{}
	for _, pid := range it.Partitions {
		tid, ok := owner[pid]
		if !ok {
			return nil, sqlerr.Doris.New(fmt.Sprintf("partition %d of transaction [%d] does not exist (table dropped or truncated?)", pid, id))
		}
		if _, dup := txn.Versions[pid]; dup {
			continue
		}
		t := tables[tid]
		if t == nil {
			t = c.tables[tid].clone()
			tables[tid] = t
		}
		for i, p := range t.Partitions {
			if p.ID != pid {
				continue
			}
			np := *p
			txn.Versions[pid] = np.NextVersion
			if err := t.applyWritten(&np, np.NextVersion, id, it.Written); err != nil {
				return nil, err
			}
			np.NextVersion++
			t.Partitions[i] = &np
			for _, tb := range p.Tablets {
				inTxn[tb.ID] = true
			}
		}
	}
	for tab := range it.Written {
		if !inTxn[tab] {
			return nil, tabletReplaced(id, tab)
		}
	}
	for tab, n := range it.Rows {
		if !inTxn[tab] {
			return nil, tabletReplaced(id, tab)
		}
		s := txn.Stats[tab]
		s.Rows = n
		txn.Stats[tab] = s
	}
	for tab, n := range it.Bytes {
		if !inTxn[tab] {
			return nil, tabletReplaced(id, tab)
		}
		s := txn.Stats[tab]
		s.Bytes = n
		txn.Stats[tab] = s
	}
	txn.State = TxnCommitted
	txn.CommitTime = now
	txn.Precommit = nil
	return txn, nil
}

// FinishTxn makes a committed txn VISIBLE once every backend has published
// it: each partition's VisibleVersion rises to the txn's version (never
// lowers) and row counts and sizes grow by the txn's stats. Finishing a
// VISIBLE txn again is a no-op. Partitions dropped meanwhile are skipped.
func (c *Catalog) FinishTxn(id storage.TxnID) error {
	return c.FinishTxns([]storage.TxnID{id})
}

// FinishTxns makes several committed txns VISIBLE in one persisted write,
// so a reader sees all of them or none (an explicit transaction's
// statements).
func (c *Catalog) FinishTxns(ids []storage.TxnID) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	tables := map[TableID]*Table{}
	var out []*Txn
	now := c.now()
	for _, id := range ids {
		txn, err := c.finishLocked(id, tables, now)
		if err != nil {
			return err
		}
		if txn != nil {
			out = append(out, txn)
		}
	}
	if len(out) == 0 {
		return nil
	}
	// Lazy: a lost VISIBLE leaves the transaction COMMITTED, and Recover
	// publishes it again (kv.go).
	return c.persistTxns(tables, out, true)
}

// persistTxns writes the changed tables and transaction records in one
// persisted write (lazy: commitLazy), then installs them. Caller holds c.mu.
func (c *Catalog) persistTxns(tables map[TableID]*Table, txns []*Txn, lazy bool) error {
	b := c.newBatch()
	for _, t := range tables {
		b.put(idKey(keyTable, int64(t.ID)), t)
	}
	for _, txn := range txns {
		b.put(idKey(keyTxn, int64(txn.ID)), txn)
	}
	if err := c.write(b, lazy); err != nil {
		return err
	}
	maps.Copy(c.tables, tables)
	for _, txn := range txns {
		c.txns[txn.ID] = txn
		if txn.State == TxnVisible {
			c.txnCount.succeeded.Add(1)
		}
	}
	return nil
}

// finishLocked computes the VISIBLE record of txn id (nil if it already
// is); tables holds the tables already changed by the same write.
func (c *Catalog) finishLocked(id storage.TxnID, tables map[TableID]*Table, now time.Time) (*Txn, error) {
	old, ok := c.txns[id]
	if !ok {
		return nil, txnNotFound(id)
	}
	switch old.State {
	case TxnVisible:
		return nil, nil
	case TxnCommitted:
	default:
		return nil, sqlerr.Doris.New(fmt.Sprintf("transaction [%d] is %s, can not be made visible", id, old.State))
	}
	for _, tid := range old.Tables {
		t := tables[tid]
		if t == nil {
			t = c.tables[tid]
		}
		if t == nil {
			continue
		}
		var nt *Table
		for i, p := range t.Partitions {
			v, ok := old.Versions[p.ID]
			if !ok {
				continue
			}
			if nt == nil {
				if nt = tables[tid]; nt == nil {
					nt = t.clone()
				}
			}
			np := *p
			np.VisibleVersion = max(np.VisibleVersion, v)
			np.Tablets = make([]*Tablet, len(p.Tablets))
			for j, tb := range p.Tablets {
				s, ok := old.Stats[tb.ID]
				if !ok {
					np.Tablets[j] = tb
					continue
				}
				ntb := *tb
				ntb.RowCount += s.Rows
				np.Tablets[j] = &ntb
				np.RowCount += s.Rows
				np.DataSize += s.Bytes
			}
			nt.Partitions[i] = &np
		}
		if nt != nil {
			tables[tid] = nt
		}
	}
	txn := old.clone()
	txn.State = TxnVisible
	txn.FinishTime = now
	return txn, nil
}

// AbortTxn rolls back a PREPARE txn, freeing its label. Aborting an aborted
// txn is a no-op; a committed or visible one cannot be aborted.
func (c *Catalog) AbortTxn(id storage.TxnID, reason string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.txns[id]
	if !ok {
		return txnNotFound(id)
	}
	switch old.State {
	case TxnAborted:
		return nil
	case TxnPrepare, TxnPrecommitted:
	default:
		return sqlerr.Doris.New(fmt.Sprintf("transaction [%d] is already %s, can not abort", id, old.State))
	}
	txn := old.clone()
	txn.State, txn.Reason, txn.FinishTime = TxnAborted, reason, c.now()
	b := c.newBatch()
	b.put(idKey(keyTxn, int64(id)), txn)
	if err := c.commit(b); err != nil {
		return err
	}
	c.txns[id] = txn
	c.txnCount.failed.Add(1)
	return nil
}

// Txn returns a txn by id.
func (c *Catalog) Txn(id storage.TxnID) (*Txn, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	t, ok := c.txns[id]
	return t, ok
}

// TxnByLabel returns the newest txn with this label in db.
func (c *Catalog) TxnByLabel(db, label string) (*Txn, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	d, err := c.dbLocked(db)
	if err != nil {
		return nil, false
	}
	id, ok := c.labels[labelKey{d.ID, label}]
	if !ok {
		return nil, false
	}
	return c.txns[id], true
}

// Txns lists the txns in a state, by id (recovery after a restart finishes
// COMMITTED ones and aborts PREPARE ones).
func (c *Catalog) Txns(state TxnState) []*Txn {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.sortedTxns(func(t *Txn) bool { return t.State == state })
}

func (c *Catalog) sortedTxns(keep func(*Txn) bool) []*Txn {
	var out []*Txn
	for _, t := range c.txns {
		if keep(t) {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// CleanTxns forgets VISIBLE and ABORTED txns finished before cutoff (Doris
// keeps labels for label_keep_max_second); it returns how many it removed.
func (c *Catalog) CleanTxns(cutoff time.Time) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.sortedTxns(func(t *Txn) bool {
		return (t.State == TxnVisible || t.State == TxnAborted) && t.FinishTime.Before(cutoff)
	})
	if len(old) == 0 {
		return 0, nil
	}
	b := c.newBatch()
	for _, t := range old {
		b.del(idKey(keyTxn, int64(t.ID)))
	}
	if err := c.commit(b); err != nil {
		return 0, err
	}
	for _, t := range old {
		delete(c.txns, t.ID)
		k := labelKey{t.DBID, t.Label}
		if c.labels[k] == t.ID {
			delete(c.labels, k)
		}
	}
	return len(old), nil
}
