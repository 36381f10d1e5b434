package catalog

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// GlobalGroupPrefix makes a colocate group span databases.
const GlobalGroupPrefix = "__global__"

// groupKey is the identity of a group: per database ("<dbId>_<name>", as
// Doris) unless the name is global.
func groupKey(db DBID, name string) string {
	if strings.HasPrefix(name, GlobalGroupPrefix) {
		return name
	}
	return fmt.Sprintf("%d_%s", db, name)
}

// groupDB is the DBID a group of this name in db is keyed under.
func groupDB(db DBID, name string) DBID {
	if strings.HasPrefix(name, GlobalGroupPrefix) {
		return 0
	}
	return db
}

// Groups lists the colocate groups sorted by id.
func (c *Catalog) Groups() []*ColocateGroup {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]*ColocateGroup, 0, len(c.groups))
	for _, g := range c.groups {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Group resolves a group name as written in database db (db is ignored for
// __global__ names).
func (c *Catalog) Group(db DBID, name string) (*ColocateGroup, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.groupLocked(db, name)
}

func (c *Catalog) groupLocked(db DBID, name string) (*ColocateGroup, bool) {
	id, ok := c.groupKeys[groupKey(db, name)]
	if !ok {
		return nil, false
	}
	return c.groups[id], true
}

// GroupOfTable returns the group t belongs to.
func (c *Catalog) GroupOfTable(t *Table) (*ColocateGroup, bool) {
	if t == nil || t.ColocateGroup == "" {
		return nil, false
	}
	return c.Group(t.DBID, t.ColocateGroup)
}

// SetGroupStable is the admin mark (POST = unstable, DELETE = stable on
// /api/colocate/group_stable). A group marked stable is still unstable while
// a sequence backend is unavailable or a replica is misplaced.
func (c *Catalog) SetGroupStable(dbName, group string, stable bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var db DBID
	if !strings.HasPrefix(group, GlobalGroupPrefix) {
		d, err := c.dbLocked(dbName)
		if err != nil {
			return err
		}
		db = d.ID
	}
	old, ok := c.groupLocked(db, group)
	if !ok {
		return sqlerr.Doris.New(fmt.Sprintf("Colocate group %s does not exist", group))
	}
	if old.MarkedUnstable == !stable {
		return nil
	}
	g := cloneGroup(old)
	g.MarkedUnstable = !stable
	b := c.newBatch()
	b.put(idKey(keyGroup, int64(g.ID)), g)
	if err := c.commit(b); err != nil {
		return err
	}
	c.groups[g.ID] = g
	c.refreshGroups()
	return nil
}

// SetColocateGroup is ALTER TABLE t SET ("colocate_with" = group); "" leaves
// the current group. Joining an existing group validates the table like
// CREATE; a table starting a new group lends it its current placement.
// A table joining whose replicas are not on the group's bucket sequence
// leaves the group unstable ("tablet … is not on the backends of bucket
// …") until the tablet scheduler has moved them there, as Doris's
// ColocateTableCheckerAndBalancer does (COLOCATE_MISMATCH).
func (c *Catalog) SetColocateGroup(db, table, group string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, err := c.tableLocked(db, table)
	if err != nil {
		return err
	}
	if old.ColocateGroup != "" && group != "" && groupKey(old.DBID, old.ColocateGroup) == groupKey(old.DBID, group) {
		return nil
	}
	if old.ColocateGroup == "" && group == "" {
		return nil
	}
	t := old.clone()
	t.ColocateGroup = group
	if _, ok := t.Properties["colocate_with"]; ok || group != "" {
		props := make(map[string]string, len(t.Properties)+1)
		for k, v := range t.Properties {
			props[k] = v
		}
		props["colocate_with"] = group
		if group == "" {
			delete(props, "colocate_with")
		}
		t.Properties = nilIfEmpty(props)
	}
	b := c.newBatch()
	gs := newGroupEdits(c)
	gs.removeTable(old)
	if group != "" {
		if t.Dist.Kind == DistRandom {
			return sqlerr.Doris.New("Random distribution for colocate table is unsupported")
		}
		if g, ok := c.groupLocked(t.DBID, group); ok {
			if err := checkColocate(g, t); err != nil {
				return err
			}
			gs.addTable(gs.get(g.ID), t)
		} else {
			seq := tablePlacement(t)
			if seq == nil {
				pl, err := c.newPlacer(t.Dist.Buckets, t.ReplicationNum, nil)
				if err != nil {
					return err
				}
				seq = pl.groupSeq()
			}
			gs.create(b, t, seq)
		}
	}
	b.put(idKey(keyTable, int64(t.ID)), t)
	gs.stage(b)
	if err := c.commit(b); err != nil {
		return err
	}
	c.tables[t.ID] = t
	gs.apply()
	return nil
}

// tablePlacement is the bucket → backends of t's first partition, or nil if
// t has no partitions.
func tablePlacement(t *Table) [][]BackendID {
	if len(t.Partitions) == 0 {
		return nil
	}
	var seq [][]BackendID
	for _, tb := range t.Partitions[0].Tablets {
		bes := make([]BackendID, len(tb.Replicas))
		for i, r := range tb.Replicas {
			bes[i] = r.BackendID
		}
		seq = append(seq, bes)
	}
	return seq
}

// checkColocate validates a table joining group g, in Doris's order and wording.
func checkColocate(g *ColocateGroup, t *Table) error {
	if t.Dist.Buckets != g.BucketNum {
		return sqlerr.Colocate.New(fmt.Sprintf("Colocate tables must have same bucket num: %d should be %d", t.Dist.Buckets, g.BucketNum))
	}
	if len(t.Dist.Columns) != len(g.DistTypes) {
		return sqlerr.Colocate.New(fmt.Sprintf("Colocate tables distribution columns size must be the same : %d", len(g.DistTypes)))
	}
	for i, ci := range t.Dist.Columns {
		col := t.Columns[ci]
		if !col.Type.SameFamily(g.DistTypes[i]) {
			return sqlerr.Colocate.New(fmt.Sprintf("Colocate tables distribution columns must have the same data type: %s should be %s", col.Name, g.DistTypes[i]))
		}
	}
	if t.ReplicationNum != g.ReplicaNum {
		return sqlerr.Colocate.New(fmt.Sprintf("Colocate tables must have same replication num: %d", g.ReplicaNum))
	}
	return nil
}

func cloneGroup(g *ColocateGroup) *ColocateGroup {
	n := *g
	n.Tables = slices.Clone(g.Tables)
	return &n
}

// groupEdits stages group changes of one mutation: they go into the batch,
// and into memory only after the batch commits.
type groupEdits struct {
	c       *Catalog
	changed map[GroupID]*ColocateGroup // new versions
	deleted map[GroupID]*ColocateGroup // old versions of dropped groups
}

func newGroupEdits(c *Catalog) *groupEdits {
	return &groupEdits{c: c, changed: map[GroupID]*ColocateGroup{}, deleted: map[GroupID]*ColocateGroup{}}
}

// get returns the group's editable version (a clone made once per mutation).
func (e *groupEdits) get(id GroupID) *ColocateGroup {
	if g, ok := e.changed[id]; ok {
		return g
	}
	g := cloneGroup(e.c.groups[id])
	e.changed[id] = g
	return g
}

// create starts a group whose first member is t, placed by seq.
func (e *groupEdits) create(b *batch, t *Table, seq [][]BackendID) *ColocateGroup {
	g := &ColocateGroup{
		ID:         GroupID(b.nextID()),
		DBID:       groupDB(t.DBID, t.ColocateGroup),
		Name:       t.ColocateGroup,
		BucketNum:  t.Dist.Buckets,
		ReplicaNum: t.ReplicationNum,
		BucketSeq:  seq,
		Tables:     []TableID{t.ID},
	}
	for _, ci := range t.Dist.Columns {
		g.DistTypes = append(g.DistTypes, t.Columns[ci].Type)
	}
	e.changed[g.ID] = g
	return g
}

func (e *groupEdits) addTable(g *ColocateGroup, t *Table) {
	if !slices.Contains(g.Tables, t.ID) {
		g.Tables = append(g.Tables, t.ID)
	}
}

// removeTable takes t out of its group; the last member drops the group.
func (e *groupEdits) removeTable(t *Table) {
	if t.ColocateGroup == "" {
		return
	}
	id, ok := e.c.groupKeys[groupKey(t.DBID, t.ColocateGroup)]
	if !ok || e.deleted[id] != nil {
		return
	}
	g := e.get(id)
	g.Tables = slices.DeleteFunc(g.Tables, func(x TableID) bool { return x == t.ID })
	if len(g.Tables) == 0 {
		delete(e.changed, id)
		e.deleted[id] = e.c.groups[id]
	}
}

func (e *groupEdits) stage(b *batch) {
	for id, g := range e.changed {
		b.put(idKey(keyGroup, int64(id)), g)
	}
	for id := range e.deleted {
		b.del(idKey(keyGroup, int64(id)))
	}
}

func (e *groupEdits) apply() {
	for id, g := range e.deleted {
		delete(e.c.groups, id)
		delete(e.c.groupKeys, groupKey(g.DBID, g.Name))
	}
	for id, g := range e.changed {
		e.c.groups[id] = g
		e.c.groupKeys[groupKey(g.DBID, g.Name)] = id
	}
	e.c.refreshGroups()
}

// refreshGroups re-derives every group's Unstable/ErrMsg, swapping in a new
// snapshot where they changed. Callers hold the write lock.
func (c *Catalog) refreshGroups() {
	for id, g := range c.groups {
		msg := c.groupProblem(g)
		unstable := msg != ""
		if unstable == g.Unstable && msg == g.ErrMsg {
			continue
		}
		n := cloneGroup(g)
		n.Unstable, n.ErrMsg = unstable, msg
		c.groups[id] = n
	}
}

// groupProblem says why g is unstable, "" if it is stable.
func (c *Catalog) groupProblem(g *ColocateGroup) string {
	if g.MarkedUnstable {
		return "marked unstable by admin"
	}
	for i, bes := range g.BucketSeq {
		for _, id := range bes {
			be, ok := c.backends[id]
			switch {
			case !ok:
				return fmt.Sprintf("backend %d of bucket %d has been dropped", id, i)
			case !be.Alive:
				return fmt.Sprintf("backend %d of bucket %d is not alive", id, i)
			case be.Decommissioned:
				return fmt.Sprintf("backend %d of bucket %d is decommissioned", id, i)
			}
		}
	}
	for _, tid := range g.Tables {
		t := c.tables[tid]
		if t == nil {
			continue
		}
		for _, p := range t.Partitions {
			for _, tb := range p.Tablets {
				if tb.Bucket >= len(g.BucketSeq) || !sameBackends(tb.Replicas, g.BucketSeq[tb.Bucket]) {
					return fmt.Sprintf("tablet %d of table %s is not on the backends of bucket %d", tb.ID, t.Name, tb.Bucket)
				}
			}
		}
	}
	return ""
}

func sameBackends(rs []Replica, bes []BackendID) bool {
	if len(rs) != len(bes) {
		return false
	}
	for _, r := range rs {
		if !slices.Contains(bes, r.BackendID) {
			return false
		}
	}
	return true
}
