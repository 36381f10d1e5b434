package catalog

import (
	"fmt"
	"slices"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/storage"
)

// Quorum is how many of n replicas a load must reach to commit (Doris's
// majority: n/2 + 1).
func Quorum(n int) int { return n/2 + 1 }

// Healthy reports whether the replica has every visible version of its
// partition (it may be read and written).
func (r Replica) Healthy() bool { return r.LastFailedVersion == 0 }

// quorum is the majority a load of t needs per tablet.
func (t *Table) quorum(tb *Tablet) int {
	n := t.ReplicationNum
	if n <= 0 {
		n = len(tb.Replicas)
	}
	return Quorum(n)
}

// HealthyOn lists the backends of the tablet's healthy replicas.
func (tb *Tablet) HealthyOn() []BackendID {
	var out []BackendID
	for _, r := range tb.Replicas {
		if r.Healthy() {
			out = append(out, r.BackendID)
		}
	}
	return out
}

// applyWritten records, in the new partition np of t committed at version
// v, which replicas have the transaction's rows: written lists per touched
// tablet the backends that made them durable. A tablet whose healthy
// replicas among them are fewer than a majority fails the commit; its
// other healthy replicas become lagging at v. Tablets not in written got
// no rows, so every replica has the version trivially.
func (t *Table) applyWritten(np *Partition, v storage.Version, txn storage.TxnID, written map[storage.TabletID][]BackendID) error {
	if written == nil {
		return nil
	}
	var tablets []*Tablet
	for j, tb := range np.Tablets {
		bes, touched := written[tb.ID]
		if !touched {
			continue
		}
		ntb := *tb
		ntb.Replicas = slices.Clone(tb.Replicas)
		good := 0
		for i, r := range ntb.Replicas {
			if !r.Healthy() {
				continue
			}
			if slices.Contains(bes, r.BackendID) {
				good++
				continue
			}
			ntb.Replicas[i].LastFailedVersion, ntb.Replicas[i].Version = v, v-1
		}
		if q := t.quorum(tb); good < q {
			return sqlerr.Doris.New(fmt.Sprintf("tablet %d of table %s: %d of %d replicas wrote transaction %d, a majority of %d is needed",
				tb.ID, t.Name, good, len(tb.Replicas), txn, q))
		}
		if tablets == nil {
			tablets = slices.Clone(np.Tablets)
		}
		tablets[j] = &ntb
	}
	if tablets != nil {
		np.Tablets = tablets
	}
	return nil
}

// MarkLagging records that the replicas on backends bes missed the
// committed transaction id (their backend failed to publish it): each
// healthy one in the transaction's partitions becomes lagging at the
// partition's version of id.
func (c *Catalog) MarkLagging(id storage.TxnID, bes []BackendID) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	txn, ok := c.txns[id]
	if !ok {
		return txnNotFound(id)
	}
	b := c.newBatch()
	var changed []*Table
	for _, tid := range txn.Tables {
		t := c.tables[tid]
		if t == nil {
			continue
		}
		nt := t.editReplicas(func(p *Partition, tb *Tablet, r *Replica) bool {
			v, ok := txn.Versions[p.ID]
			if !ok || !r.Healthy() || !slices.Contains(bes, r.BackendID) {
				return false
			}
			r.LastFailedVersion, r.Version = v, v-1
			return true
		})
		if nt != nil {
			b.put(idKey(keyTable, int64(nt.ID)), nt)
			changed = append(changed, nt)
		}
	}
	if len(changed) == 0 {
		return nil
	}
	if err := c.commit(b); err != nil {
		return err
	}
	for _, nt := range changed {
		c.tables[nt.ID] = nt
	}
	return nil
}

// editReplicas returns a copy of t with edit applied to every replica, or
// nil when edit changed none (it reports whether it changed r).
func (t *Table) editReplicas(edit func(p *Partition, tb *Tablet, r *Replica) bool) *Table {
	var nt *Table
	for i, p := range t.Partitions {
		var np *Partition
		for j, tb := range p.Tablets {
			var ntb *Tablet
			for k := range tb.Replicas {
				r := tb.Replicas[k]
				if !edit(p, tb, &r) {
					continue
				}
				if ntb == nil {
					c := *tb
					c.Replicas = slices.Clone(tb.Replicas)
					ntb = &c
				}
				ntb.Replicas[k] = r
			}
			if ntb == nil {
				continue
			}
			if np == nil {
				c := *p
				c.Tablets = slices.Clone(p.Tablets)
				np = &c
			}
			np.Tablets[j] = ntb
		}
		if np == nil {
			continue
		}
		if nt == nil {
			nt = t.clone()
		}
		nt.Partitions[i] = np
	}
	return nt
}

// TabletPlace locates a tablet: its table, partition and the tablet itself
// as the catalog holds them now.
type TabletPlace struct {
	Table     *Table
	Partition *Partition
	Tablet    *Tablet
}

// FindTablet returns where tablet id lives now.
func (c *Catalog) FindTablet(id storage.TabletID) (TabletPlace, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.findTabletLocked(id)
}

func (c *Catalog) findTabletLocked(id storage.TabletID) (TabletPlace, bool) {
	for _, t := range c.tables {
		for _, p := range t.Partitions {
			for _, tb := range p.Tablets {
				if tb.ID == id {
					return TabletPlace{t, p, tb}, true
				}
			}
		}
	}
	return TabletPlace{}, false
}

// Repair is the outcome of one clone (the FE's tablet scheduler): To now
// holds every version of the tablet up to Version, the partition's visible
// version when the clone began. Drop, when set, is the replica the new one
// replaces (a dead or decommissioned backend's).
type Repair struct {
	Tablet  storage.TabletID
	To      BackendID
	Version storage.Version
	Drop    BackendID
}

// FinishRepair registers a finished clone: the replica on r.To becomes
// healthy (added if new) and the one on r.Drop is removed, in one
// persisted write. It fails if the partition's version moved since the
// clone began (a load committed meanwhile: clone again).
func (c *Catalog) FinishRepair(r Repair) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	pl, ok := c.findTabletLocked(r.Tablet)
	if !ok {
		return sqlerr.Doris.New(fmt.Sprintf("tablet %d does not exist (dropped during its clone)", r.Tablet))
	}
	if pl.Partition.VisibleVersion != r.Version || pl.Partition.NextVersion != r.Version+1 {
		return sqlerr.Doris.New(fmt.Sprintf("tablet %d: partition %s moved from version %d to %d during the clone",
			r.Tablet, pl.Partition.Name, r.Version, pl.Partition.VisibleVersion))
	}
	b := c.newBatch()
	ntb := *pl.Tablet
	ntb.Replicas = nil
	found := false
	for _, rep := range pl.Tablet.Replicas {
		switch rep.BackendID {
		case r.Drop:
			continue
		case r.To:
			rep.LastFailedVersion, rep.Version = 0, 0
			found = true
		}
		ntb.Replicas = append(ntb.Replicas, rep)
	}
	if !found {
		ntb.Replicas = append(ntb.Replicas, Replica{ID: ReplicaID(b.nextID()), BackendID: r.To})
	}
	nt := pl.Table.withTablet(pl.Partition.ID, &ntb)
	b.put(idKey(keyTable, int64(nt.ID)), nt)
	// A colocate member's bucket moves as a whole: the group's sequence
	// names the new backend at once, so the bucket's other tablets follow
	// it (tabletsched's destination), and the group is unstable until
	// every member's tablet of the bucket is there (refreshGroups).
	var ng *ColocateGroup
	if g, ok := c.groupLocked(pl.Table.DBID, pl.Table.ColocateGroup); ok && pl.Table.ColocateGroup != "" && r.Drop != 0 &&
		pl.Tablet.Bucket < len(g.BucketSeq) && slices.Contains(g.BucketSeq[pl.Tablet.Bucket], r.Drop) &&
		!slices.Contains(g.BucketSeq[pl.Tablet.Bucket], r.To) {
		ng = cloneGroup(g)
		ng.BucketSeq = slices.Clone(g.BucketSeq)
		seq := slices.Clone(g.BucketSeq[pl.Tablet.Bucket])
		seq[slices.Index(seq, r.Drop)] = r.To
		ng.BucketSeq[pl.Tablet.Bucket] = seq
		b.put(idKey(keyGroup, int64(ng.ID)), ng)
	}
	if err := c.commit(b); err != nil {
		return err
	}
	c.tables[nt.ID] = nt
	if ng != nil {
		c.groups[ng.ID] = ng
	}
	c.refreshGroups()
	return nil
}

// withTablet is a copy of t with tablet tb (same id) replaced in partition pid.
func (t *Table) withTablet(pid PartitionID, tb *Tablet) *Table {
	nt := t.clone()
	for i, p := range nt.Partitions {
		if p.ID != pid {
			continue
		}
		np := *p
		np.Tablets = slices.Clone(p.Tablets)
		for j, x := range np.Tablets {
			if x.ID == tb.ID {
				np.Tablets[j] = tb
			}
		}
		nt.Partitions[i] = &np
	}
	return nt
}

// AddCloneReplica registers a replica of tablet on be that a clone is
// about to fill (Doris's replica in CLONE state): lagging from version 2,
// so it is never read nor counted in a load's majority, but loads begun
// from now on write it too, and the clone's copy plus what they write make
// it complete. The tablet must already exist on be.
func (c *Catalog) AddCloneReplica(tablet storage.TabletID, be BackendID) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	pl, ok := c.findTabletLocked(tablet)
	if !ok {
		return sqlerr.Doris.New(fmt.Sprintf("tablet %d does not exist", tablet))
	}
	for _, r := range pl.Tablet.Replicas {
		if r.BackendID == be {
			return nil
		}
	}
	b := c.newBatch()
	ntb := *pl.Tablet
	ntb.Replicas = append(slices.Clone(pl.Tablet.Replicas), Replica{ID: ReplicaID(b.nextID()), BackendID: be, Version: 1, LastFailedVersion: 2})
	nt := pl.Table.withTablet(pl.Partition.ID, &ntb)
	b.put(idKey(keyTable, int64(nt.ID)), nt)
	if err := c.commit(b); err != nil {
		return err
	}
	c.tables[nt.ID] = nt
	c.refreshGroups()
	return nil
}

// DropReplica removes the replica of tablet on backend be (a redundant
// one: the tablet keeps a majority of healthy replicas elsewhere).
func (c *Catalog) DropReplica(tablet storage.TabletID, be BackendID) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	pl, ok := c.findTabletLocked(tablet)
	if !ok {
		return nil
	}
	left := 0
	for _, r := range pl.Tablet.Replicas {
		if r.BackendID != be && r.Healthy() {
			left++
		}
	}
	if left < pl.Table.quorum(pl.Tablet) {
		return sqlerr.Doris.New(fmt.Sprintf("tablet %d: dropping the replica on backend %d would leave %d healthy replicas", tablet, be, left))
	}
	ntb := *pl.Tablet
	ntb.Replicas = slices.DeleteFunc(slices.Clone(pl.Tablet.Replicas), func(r Replica) bool { return r.BackendID == be })
	nt := pl.Table.withTablet(pl.Partition.ID, &ntb)
	b := c.newBatch()
	b.put(idKey(keyTable, int64(nt.ID)), nt)
	if err := c.commit(b); err != nil {
		return err
	}
	c.tables[nt.ID] = nt
	c.refreshGroups()
	return nil
}

// LastReplicas lists the tablets whose only healthy replicas are on be:
// dropping be would lose their data.
func (c *Catalog) LastReplicas(be BackendID) []storage.TabletID {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []storage.TabletID
	for _, t := range c.tables {
		for _, p := range t.Partitions {
			for _, tb := range p.Tablets {
				on, elsewhere := false, false
				for _, r := range tb.Replicas {
					if !r.Healthy() {
						continue
					}
					if r.BackendID == be {
						on = true
					} else if _, ok := c.backends[r.BackendID]; ok {
						elsewhere = true
					}
				}
				if on && !elsewhere {
					out = append(out, tb.ID)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}
