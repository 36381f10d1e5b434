package catalog

import (
	"crypto/rand"
	"fmt"
	"slices"
	"strings"
)

// DeleteInfo describes a DELETE for SHOW DELETE (Doris's DeleteInfo): it
// rides on the DELETE's load transaction, so it is listed exactly when the
// delete is visible and forgotten with the transaction (CleanTxns), as
// Doris drops delete infos after streaming_label_keep_max_second.
type DeleteInfo struct {
	TableID   TableID `json:"table_id"`
	TableName string  `json:"table_name"`
	// Partitions are the partitions the delete applies to (after pruning);
	// AllPartitions: the statement named none (SHOW DELETE prints "*").
	Partitions    []string `json:"partitions,omitempty"`
	AllPartitions bool     `json:"all_partitions,omitempty"`
	// Conditions are the condition's conjuncts as Doris prints them
	// (k1 EQ "1", k2 IS NULL, k3 IN (1, 2)).
	Conditions []string `json:"conditions"`
}

// BeginDelete begins the transaction of a DELETE on table t of db, with a
// label delete_<uuid> as Doris gives it, recording d on it.
func (c *Catalog) BeginDelete(db string, t TableID, d DeleteInfo) (*Txn, error) {
	d.TableID = t
	d.Partitions = slices.Clone(d.Partitions)
	d.Conditions = slices.Clone(d.Conditions)
	return c.beginTxn(db, NewDeleteLabel(), []TableID{t}, &d, TxnInfo{})
}

// Deletes lists the visible DELETEs of db by creation time (SHOW DELETE).
func (c *Catalog) Deletes(db string) ([]*Txn, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	d, err := c.dbLocked(db)
	if err != nil {
		return nil, err
	}
	out := c.sortedTxns(func(t *Txn) bool { return t.DBID == d.ID && t.State == TxnVisible && t.Delete != nil })
	slices.SortStableFunc(out, func(a, b *Txn) int { return a.CreateTime.Compare(b.CreateTime) })
	return out, nil
}

// NewDeleteLabel is a DELETE's label as Doris makes it: delete_<uuid>.
func NewDeleteLabel() string { return "delete_" + newUUID() }

// NewLoadLabel is a stream load's label when the request names none: a
// UUID, as Doris's backend makes it (stream_load.cpp).
func NewLoadLabel() string { return newUUID() }

// newUUID is a random RFC 4122 version 4 UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := fmt.Sprintf("%x", b[:])
	return strings.Join([]string{h[:8], h[8:12], h[12:16], h[16:20], h[20:]}, "-")
}
