package catalog

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// ALTER TABLE as Doris 2.x does it for light schema changes: every column
// has a unique id (Column.UID, Doris's col_unique_id) that storage keys
// its data by, so ADD/DROP/RENAME/MODIFY of value columns is one catalog
// write of the new table (SchemaVersion+1) and nothing is rewritten. The
// caller then sends Table.Schema() to every backend holding a tablet of
// the table (AlterTablet, which ignores schemas not newer than its own),
// and again whenever a backend comes back (heartbeat): the catalog write
// is the change's commit point, so kill -9 leaves the old table or the new
// one, and a restart brings the backends to the catalog's version.

// ColumnPos is where ADD COLUMN puts a column: FIRST, AFTER a column, or
// (zero) at the end.
type ColumnPos struct {
	First bool
	After string
}

// assignColumnIDs gives the columns of a table written before column ids
// the ids storage assumes for such data: their positions.
func assignColumnIDs(t *Table) {
	if t.NextColumnID > 0 {
		return
	}
	for i := range t.Columns {
		t.Columns[i].UID = int32(i)
	}
	t.NextColumnID = int32(len(t.Columns))
}

// restoreColumns rebuilds what JSON cannot carry in a loaded table's
// columns and gives a table from before column ids its ids.
func restoreColumns(t *Table) {
	assignColumnIDs(t)
	for i := range t.Columns {
		if d := t.Columns[i].FillValue; d != nil {
			d.Restore()
		}
	}
}

// cloneSchema copies the table header with its own columns, properties
// and distribution columns (partitions are shared: they are immutable).
func (t *Table) cloneSchema() *Table {
	n := t.clone()
	n.Columns = slices.Clone(t.Columns)
	n.Dist.Columns = slices.Clone(t.Dist.Columns)
	n.Properties = maps.Clone(t.Properties)
	return n
}

// columnByUID is the position of the column with unique id uid, -1 if none.
func (t *Table) columnByUID(uid int32) int {
	for i, c := range t.Columns {
		if c.UID == uid {
			return i
		}
	}
	return -1
}

// AlterTable applies edit to a copy of table db.name and persists the
// result in one write, returning the old and the new table. A change of
// the columns raises SchemaVersion; the distribution and partition columns
// are followed by unique id, so reordering keeps them.
func (c *Catalog) AlterTable(db, name string, edit func(t *Table) error) (old, nt *Table, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, err = c.tableLocked(db, name)
	if err != nil {
		return nil, nil, err
	}
	t := old.cloneSchema()
	distIDs := make([]int32, len(t.Dist.Columns))
	for i, ci := range t.Dist.Columns {
		distIDs[i] = t.Columns[ci].UID
	}
	partID := int32(-1)
	if t.PartKind != PartNone {
		partID = t.Columns[t.PartColumn].UID
	}
	if err := edit(t); err != nil {
		return nil, nil, err
	}
	for i, id := range distIDs {
		if t.Dist.Columns[i] = t.columnByUID(id); t.Dist.Columns[i] < 0 {
			return nil, nil, sqlerr.Assertf("catalog: distribution column %d dropped", id)
		}
	}
	if partID >= 0 {
		if t.PartColumn = t.columnByUID(partID); t.PartColumn < 0 {
			return nil, nil, sqlerr.Assertf("catalog: partition column %d dropped", partID)
		}
	}
	if !slices.EqualFunc(old.Columns, t.Columns, sameColumn) {
		t.SchemaVersion = old.SchemaVersion + 1
	}
	b := c.newBatch()
	b.put(idKey(keyTable, int64(t.ID)), t)
	if err := c.commit(b); err != nil {
		return nil, nil, err
	}
	c.tables[t.ID] = t
	if t.Name != old.Name {
		delete(c.tableNames[t.DBID], old.Name)
		c.indexTable(t)
	}
	return old, t, nil
}

func sameColumn(a, b Column) bool {
	return a.UID == b.UID && a.Name == b.Name && a.Type == b.Type && a.Nullable == b.Nullable && a.Agg == b.Agg &&
		a.IsKey == b.IsKey && a.Comment == b.Comment && ptrEq(a.Default, b.Default) && ptrEq(a.FillValue, b.FillValue)
}

func ptrEq[T comparable](a, b *T) bool {
	return a == b || (a != nil && b != nil && *a == *b)
}

// AddColumn adds a value column (Doris's processAddColumn for light schema
// change): fill is what existing rows read as (its default, or NULL).
func (t *Table) AddColumn(col Column, pos ColumnPos, fill *types.Datum) error {
	if col.Name == "" {
		return sqlerr.WrongColumnName.New(col.Name)
	}
	if t.ColumnIndex(col.Name) >= 0 {
		return sqlerr.Doris.New("Can not add column which already exists in base table: " + col.Name)
	}
	if col.Type.IsNested() && (col.IsKey || t.Keys != storage.DupKeys) {
		return sqlerr.Doris.New(nestedTypeName(col.Type) + " can only be used in the non-key column of the duplicate table at present.")
	}
	switch t.Keys {
	case storage.AggKeys:
		if col.Agg == storage.AggNone {
			// Doris makes an AGGREGATE column without an aggregation
			// type a key column: a heavy schema change.
			return sqlerr.NotSupportedYet.New("ADD COLUMN of a key column (a heavy schema change); give the column an aggregation type to add a value column")
		}
	case storage.UniqueKeys:
		if col.Agg != storage.AggNone {
			return sqlerr.Doris.New("Can not assign aggregation method on column in Unique data model table: " + col.Name)
		}
	default:
		if col.Agg != storage.AggNone {
			return sqlerr.Doris.New("Can not assign aggregation method on column in Duplicate data model table: " + col.Name)
		}
	}
	if col.IsKey {
		return sqlerr.NotSupportedYet.New("ADD COLUMN of a key column (a heavy schema change)")
	}
	if !col.Nullable && fill == nil {
		return sqlerr.Doris.New(fmt.Sprintf("Can not add column %s which is NOT NULL and has no default value", col.Name))
	}
	at := len(t.VisibleColumns()) // hidden columns stay last
	switch {
	case pos.First:
		at = 0
	case pos.After != "":
		i := t.ColumnIndex(pos.After)
		if i < 0 {
			return sqlerr.Doris.New("Column[" + pos.After + "] does not exists")
		}
		at = i + 1
	}
	if at < t.NumKeys {
		return sqlerr.Doris.New("Invalid column order. value should be after key. index[" + fmt.Sprint(at) + "]")
	}
	at = min(at, len(t.VisibleColumns()))
	if t.NextColumnID == 0 {
		assignColumnIDs(t)
	}
	col.UID = t.NextColumnID
	t.NextColumnID++
	if fill != nil {
		d := *fill
		d.Prepare()
		col.FillValue = &d
	}
	t.Columns = slices.Insert(t.Columns, at, col)
	return nil
}

// DropColumn drops a value column (Doris's DropColumnOp checks).
func (t *Table) DropColumn(name string) error {
	i := t.ColumnIndex(name)
	if i < 0 {
		return sqlerr.Doris.New("Column does not exists: " + name)
	}
	if t.Columns[i].Hidden {
		return sqlerr.Doris.New("Can not drop hidden column: " + name)
	}
	if (t.PartKind != PartNone && t.PartColumn == i) || slices.Contains(t.Dist.Columns, i) {
		return sqlerr.Doris.New("Can not drop partition or distribution column : " + name)
	}
	if t.Columns[i].IsKey {
		switch t.Keys {
		case storage.UniqueKeys:
			return sqlerr.Doris.New("Can not drop key column " + name + " in unique data model table")
		case storage.AggKeys:
			for _, c := range t.Columns {
				if c.Agg == storage.AggReplace || c.Agg == storage.AggReplaceIfNotNull {
					return sqlerr.Doris.New("Can not drop key column " + name + " in aggregation key table having REPLACE or REPLACE_IF_NOT_NULL column")
				}
			}
		}
		return sqlerr.NotSupportedYet.New("DROP COLUMN of a key column (a heavy schema change)")
	}
	if len(t.Columns) == 1 {
		return sqlerr.Doris.New("Do not allow remove last column of table: " + t.Name + " column: " + name)
	}
	t.Columns = slices.Delete(t.Columns, i, i+1)
	return nil
}

// ModifyColumn changes what a light schema change can change of a column:
// its default, comment, and nullability from NOT NULL to NULL keep the
// data as is. Anything else (type, key, aggregation, position) is a heavy
// change and answers 1235 naming it.
func (t *Table) ModifyColumn(col Column, pos ColumnPos) error {
	i := t.ColumnIndex(col.Name)
	if i < 0 {
		return sqlerr.Doris.New("Column[" + col.Name + "] does not exists")
	}
	cur := t.Columns[i]
	if (t.PartKind != PartNone && t.PartColumn == i) || slices.Contains(t.Dist.Columns, i) {
		if col.Type != cur.Type {
			return sqlerr.Doris.New("Can not modify partition or distribution column : " + col.Name)
		}
	}
	if cur.IsKey && t.Keys != storage.DupKeys {
		col.IsKey = true
	}
	if t.Keys == storage.AggKeys && !cur.IsKey && col.Agg == storage.AggNone {
		col.Agg = cur.Agg
	}
	if t.Keys == storage.DupKeys && cur.IsKey {
		col.IsKey = true
	}
	switch {
	case col.Type != cur.Type:
		return sqlerr.NotSupportedYet.New(fmt.Sprintf("MODIFY COLUMN %s from %s to %s (a heavy schema change)", col.Name, cur.Type, col.Type))
	case col.Agg != cur.Agg:
		return sqlerr.NotSupportedYet.New("MODIFY COLUMN " + col.Name + " changing its aggregation type (a heavy schema change)")
	case col.Nullable != cur.Nullable && !col.Nullable:
		return sqlerr.NotSupportedYet.New("MODIFY COLUMN " + col.Name + " from NULL to NOT NULL (a heavy schema change)")
	case col.Nullable != cur.Nullable:
		return sqlerr.NotSupportedYet.New("MODIFY COLUMN " + col.Name + " from NOT NULL to NULL (a heavy schema change)")
	case pos != ColumnPos{}:
		return sqlerr.NotSupportedYet.New("MODIFY COLUMN " + col.Name + " with a new position (a heavy schema change)")
	}
	n := cur
	n.Default, n.Comment = col.Default, col.Comment
	t.Columns[i] = n
	return nil
}

// RenameColumn renames a column (Doris 2.x, light schema change tables):
// the data follows the unique id.
func (t *Table) RenameColumn(from, to string) error {
	i := t.ColumnIndex(from)
	if i < 0 {
		return sqlerr.Doris.New("Column[" + from + "] does not exists")
	}
	if to == "" {
		return sqlerr.WrongColumnName.New(to)
	}
	if strings.EqualFold(from, to) && from == to {
		return sqlerr.Doris.New("Same column name")
	}
	if j := t.ColumnIndex(to); j >= 0 && j != i {
		return sqlerr.Doris.New("Column name[" + to + "] is already used")
	}
	t.Columns[i].Name = to
	return nil
}

// RenameTable renames a table (Doris: ALTER TABLE t RENAME t2): 1050 if
// the name is taken by a table or a view.
func (c *Catalog) RenameTable(db, from, to string) (*Table, error) {
	if to == "" {
		return nil, sqlerr.WrongTableName.New(to)
	}
	if from == to {
		return nil, sqlerr.Doris.New("Same table name")
	}
	_, nt, err := c.AlterTable(db, from, func(t *Table) error {
		if _, ok := c.tableNames[t.DBID][to]; ok {
			return sqlerr.TableExists.New(to)
		}
		if _, isView := c.viewOf(t.DBID, to); isView {
			return sqlerr.TableExists.New(to)
		}
		t.Name = to
		return nil
	})
	return nt, err
}

// AddPartition adds partition spec to a RANGE or LIST table with Doris's
// overlap rules: a LESS THAN bound starts at the greatest upper bound
// below it. buckets 0 means the table's. The new tablets are placed as
// CREATE places them (a colocate table's by its group's sequence) and
// reserved first; create makes them on the backends, without the catalog
// lock, before the partition joins the table. If the table changed
// meanwhile the switch fails and the partition is still returned so the
// caller can drop its tablets.
func (c *Catalog) AddPartition(db, table string, spec PartitionSpec, buckets int, create func(*Table, *Partition) error) (*Partition, error) {
	c.mu.Lock()
	old, err := c.tableLocked(db, table)
	if err != nil {
		c.mu.Unlock()
		return nil, err
	}
	p, pl, err := c.newPartitionLocked(old, spec, buckets)
	if err != nil {
		c.mu.Unlock()
		return nil, err
	}
	b := c.newBatch()
	p.ID = PartitionID(b.nextID())
	placeTablets(b, []*Partition{p}, pl)
	b.ops = nil // reserve the ids only; the table is written below
	err = c.commit(b)
	c.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if err := create(old, p); err != nil {
		return p, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tables[old.ID] != old {
		return p, sqlerr.Doris.New(fmt.Sprintf("table %s was changed while adding partition %s; retry", table, spec.Name))
	}
	t := old.clone()
	t.Partitions = append(t.Partitions, p)
	b = c.newBatch()
	b.put(idKey(keyTable, int64(t.ID)), t)
	if err := c.commit(b); err != nil {
		return p, err
	}
	c.tables[t.ID] = t
	c.refreshGroups()
	return p, nil
}

// newPartitionLocked validates spec against t's partitions and returns the
// partition (bounds coerced, no id or tablets) and the placer of its
// tablets.
func (c *Catalog) newPartitionLocked(t *Table, spec PartitionSpec, buckets int) (*Partition, *placer, error) {
	if t.PartKind == PartNone {
		return nil, nil, sqlerr.Doris.New("Only support adding partition to range and list partitioned table")
	}
	if t.PartitionByName(spec.Name) != nil {
		return nil, nil, sqlerr.SamePartitionName.New(spec.Name)
	}
	if buckets != 0 && buckets != t.Dist.Buckets {
		if t.ColocateGroup != "" {
			return nil, nil, sqlerr.Doris.New(fmt.Sprintf("Colocate tables must have same bucket num: %d", t.Dist.Buckets))
		}
		return nil, nil, sqlerr.NotSupportedYet.New(fmt.Sprintf("a partition with %d buckets in a table of %d", buckets, t.Dist.Buckets))
	}
	col := t.partColumn()
	if t.PartKind == PartRange && spec.Lower == nil && len(spec.Values) == 0 {
		// VALUES LESS THAN: the range starts at the greatest existing
		// upper bound at or below the new one (Doris's createAndCheckNewRange).
		if spec.Upper != nil {
			hi, err := coerceBound(*spec.Upper, col)
			if err != nil {
				return nil, nil, err
			}
			for _, p := range t.Partitions {
				if p.Upper != nil && compareDatum(*p.Upper, hi) <= 0 && (spec.Lower == nil || compareDatum(*p.Upper, *spec.Lower) > 0) {
					u := *p.Upper
					spec.Lower = &u
				}
			}
		} else {
			for _, p := range t.Partitions {
				if p.Upper != nil && (spec.Lower == nil || compareDatum(*p.Upper, *spec.Lower) > 0) {
					u := *p.Upper
					spec.Lower = &u
				}
			}
		}
	}
	specs := []PartitionSpec{spec}
	built, err := buildPartitions(t.PartKind, col, specs)
	if err != nil {
		return nil, nil, err
	}
	p := built[0]
	all := append(slices.Clone(t.Partitions), p)
	switch t.PartKind {
	case PartRange:
		if err := checkNewRange(t.Partitions, p); err != nil {
			return nil, nil, err
		}
	case PartList:
		if err := checkListOverlap(all); err != nil {
			return nil, nil, err
		}
	}
	var pl *placer
	if g, ok := c.groupLocked(t.DBID, t.ColocateGroup); ok && t.ColocateGroup != "" {
		pl = fixedPlacer(g.BucketSeq)
	} else if pl, err = c.newPlacer(t.Dist.Buckets, t.ReplicationNum, nil); err != nil {
		return nil, nil, err
	}
	return p, pl, nil
}

// checkNewRange is Doris's error for a new range that meets an existing one.
func checkNewRange(parts []*Partition, p *Partition) error {
	for _, o := range parts {
		if rangesOverlap(o, p) {
			return sqlerr.Doris.New(fmt.Sprintf("Range %s is intersected with range: %s", formatRange(p), formatRange(o)))
		}
	}
	return nil
}

func rangesOverlap(a, b *Partition) bool {
	// [a.lo, a.hi) and [b.lo, b.hi) meet iff a.lo < b.hi and b.lo < a.hi.
	less := func(lo, hi *types.Datum) bool {
		return lo == nil || hi == nil || compareDatum(*lo, *hi) < 0
	}
	return less(a.Lower, b.Upper) && less(b.Lower, a.Upper)
}

// DropPartition drops a partition of a RANGE or LIST table and returns it
// (nil if absent with ifExists) so the caller can drop its tablets.
func (c *Catalog) DropPartition(db, table, name string, ifExists bool) (*Partition, error) {
	var dropped *Partition
	_, _, err := c.AlterTable(db, table, func(t *Table) error {
		if t.PartKind == PartNone {
			return sqlerr.Doris.New("Table[" + t.Name + "] is not partitioned")
		}
		p := t.PartitionByName(name)
		if p == nil {
			if ifExists {
				return errNoChange
			}
			return sqlerr.DropPartitionNonExistent.New(name)
		}
		dropped = p
		t.Partitions = slices.DeleteFunc(slices.Clone(t.Partitions), func(q *Partition) bool { return q == p })
		return nil
	})
	if err == errNoChange {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.refreshGroups()
	c.mu.Unlock()
	return dropped, nil
}

// errNoChange ends an AlterTable edit without writing anything.
var errNoChange = fmt.Errorf("catalog: no change")

// SetReplicationNum is ALTER TABLE t SET ("replication_num" |
// "default.replication_num" = n) as Doris takes it: the default applies to
// partitions added later (a colocate table's is its group's and cannot
// change); replication_num of a partitioned table is refused with Doris's
// hint, and changing an existing partition's replica count (which would
// move replicas) is refused as not supported. Setting what is already set
// is accepted.
func (c *Catalog) SetReplicationNum(db, table string, isDefault bool, n int) error {
	_, _, err := c.AlterTable(db, table, func(t *Table) error {
		if n == t.ReplicationNum {
			return errNoChange
		}
		switch {
		case !isDefault && t.PartKind != PartNone:
			return sqlerr.Doris.New("This is a partitioned table, you should specify partitions with MODIFY PARTITION clause. " +
				"If you want to set default replication number, please use 'default.replication_num' instead of 'replication_num' to escape misleading.")
		case t.ColocateGroup != "":
			return sqlerr.Doris.New("Cannot change replication allocation of colocate table.")
		case !isDefault || t.PartKind == PartNone:
			return sqlerr.NotSupportedYet.New(fmt.Sprintf("changing the replication_num of existing partitions from %d to %d (replicas would have to move)", t.ReplicationNum, n))
		}
		if n > len(c.placementBackends()) {
			return sqlerr.Doris.New(fmt.Sprintf("Failed to find enough backend, please check the replication num: %d, available backends: %d", n, len(c.placementBackends())))
		}
		t.ReplicationNum = n
		if t.Properties != nil {
			if _, ok := t.Properties["replication_num"]; ok {
				t.Properties["replication_num"] = fmt.Sprint(n)
			}
		}
		return nil
	})
	if err == errNoChange {
		return nil
	}
	return err
}
