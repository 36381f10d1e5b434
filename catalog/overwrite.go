package catalog

import (
	"fmt"
	"strings"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/storage"
)

// ReserveOverwrite prepares INSERT OVERWRITE of table db.name, as Doris
// does with temporary partitions: for each partition named (all when names
// is empty) a new partition with the same name and bounds and new tablets
// placed as a TRUNCATE would place them. Only the ids are reserved: the
// table is unchanged until CommitOverwrite swaps the new partitions in, so
// a crash before that leaves the old data (the new tablets are orphans no
// catalog entry points at).
func (c *Catalog) ReserveOverwrite(db, name string, names []string) (t *Table, old, fresh []*Partition, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err = c.tableLocked(db, name)
	if err != nil {
		return nil, nil, nil, err
	}
	if c.runningAlterLocked(t.ID) != nil {
		return nil, nil, nil, errNotNormal(t.Name, "INSERT OVERWRITE")
	}
	if len(names) == 0 {
		old = append(old, t.Partitions...)
	} else {
		seen := map[PartitionID]bool{}
		for _, n := range names {
			var p *Partition
			for _, q := range t.Partitions {
				if strings.EqualFold(q.Name, n) {
					p = q
				}
			}
			if p == nil {
				return nil, nil, nil, sqlerr.Doris.New(fmt.Sprintf("Unknown partition '%s' in table '%s'", n, t.Name))
			}
			if !seen[p.ID] {
				seen[p.ID] = true
				old = append(old, p)
			}
		}
	}
	var pl *placer
	if g, ok := c.groupLocked(t.DBID, t.ColocateGroup); ok && t.ColocateGroup != "" {
		pl = fixedPlacer(g.BucketSeq)
	} else if pl, err = c.newPlacer(t.Dist.Buckets, t.ReplicationNum, partitionSet(old)); err != nil {
		return nil, nil, nil, err
	}
	b := c.newBatch()
	for _, p := range old {
		fresh = append(fresh, &Partition{ID: PartitionID(b.nextID()), Name: p.Name, Lower: p.Lower, Upper: p.Upper, Values: p.Values,
			VisibleVersion: 1, NextVersion: 2})
	}
	placeTablets(b, fresh, pl)
	b.ops = nil // reserve the ids only
	if err := c.commit(b); err != nil {
		return nil, nil, nil, err
	}
	return t, old, fresh, nil
}

// OverwriteVersion is the version a new partition's only load gets.
const OverwriteVersion storage.Version = 2

// CommitOverwrite is INSERT OVERWRITE's commit point, one catalog write:
// transaction txn (its rows written and published at OverwriteVersion on
// the new tablets) becomes VISIBLE and each old partition is replaced by
// its new one (replace: old id → new partition from ReserveOverwrite),
// readable at once. Readers see the old partitions or the new ones, never
// a mix. It fails, changing nothing, when a partition to replace is gone
// (the table was dropped, truncated or overwritten meanwhile), or when the
// table's schema is no longer schemaVersion, the one the new tablets were
// written in (a schema change began or finished meanwhile: it keeps
// partition ids, so the new tablets would join a table of another schema).
func (c *Catalog) CommitOverwrite(txn storage.TxnID, table TableID, schemaVersion int64, replace map[PartitionID]*Partition, rows, bytes map[storage.TabletID]int64) (*Table, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.txns[txn]
	if !ok {
		return nil, txnNotFound(txn)
	}
	if old.State != TxnPrepare {
		return nil, sqlerr.Doris.New(fmt.Sprintf("transaction [%d] is already %s, can not commit", txn, old.State))
	}
	cur := c.tables[table]
	if cur == nil {
		return nil, sqlerr.Doris.New(fmt.Sprintf("table %d of transaction [%d] does not exist", table, txn))
	}
	if cur.SchemaVersion != schemaVersion || c.runningAlterLocked(table) != nil {
		return nil, sqlerr.Doris.New(fmt.Sprintf("the schema of table %s changed while it was being overwritten; the overwrite is not committed, retry it", cur.Name))
	}
	t := cur.clone()
	tx := old.clone()
	tx.Versions = map[PartitionID]storage.Version{}
	tx.Stats = map[storage.TabletID]storage.RowsetStats{}
	done := 0
	for i, p := range t.Partitions {
		np, ok := replace[p.ID]
		if !ok {
			continue
		}
		n := *np
		n.VisibleVersion, n.NextVersion = OverwriteVersion, OverwriteVersion+1
		n.RowCount, n.DataSize = 0, 0
		n.Tablets = make([]*Tablet, len(np.Tablets))
		for j, tb := range np.Tablets {
			ntb := *tb
			ntb.RowCount = rows[tb.ID]
			n.Tablets[j] = &ntb
			n.RowCount += rows[tb.ID]
			n.DataSize += bytes[tb.ID]
			tx.Stats[tb.ID] = storage.RowsetStats{Rows: rows[tb.ID], Bytes: bytes[tb.ID]}
		}
		tx.Versions[n.ID] = OverwriteVersion
		t.Partitions[i] = &n
		done++
	}
	if done != len(replace) {
		return nil, sqlerr.Doris.New(fmt.Sprintf("table %s was changed while being overwritten", cur.Name))
	}
	now := c.now()
	tx.State, tx.CommitTime, tx.FinishTime = TxnVisible, now, now
	if err := c.persistTxns(map[TableID]*Table{t.ID: t}, []*Txn{tx}, false); err != nil {
		return nil, err
	}
	c.refreshGroups()
	return t, nil
}
