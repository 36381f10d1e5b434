package catalog

import (
	"fmt"
	"maps"
	"strings"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// TableSpec is a bound CREATE TABLE.
type TableSpec struct {
	Name    string
	Columns []Column
	Keys    storage.KeysType
	// KeyColumns name the key columns, which must be a prefix of Columns.
	// Empty: DUPLICATE → the first column; AGGREGATE → the leading columns
	// without an aggregation type; UNIQUE → error.
	KeyColumns []string
	Dist       DistSpec
	PartKind   PartKind
	PartColumn string
	Partitions []PartitionSpec
	// ReplicationNum 0 means Doris's default, 3.
	ReplicationNum int
	ColocateWith   string
	Properties     map[string]string
	Comment        string
}

// DistSpec is DISTRIBUTED BY as written.
type DistSpec struct {
	Kind    DistKind
	Columns []string
	Buckets int // 0 = AUTO: the number of alive backends (or the group's bucket count)
}

// DefaultReplicationNum is Doris's default replication_num.
const DefaultReplicationNum = 3

// CreateTable validates spec, places its tablets and persists the table (and
// its colocate group) in one write. An existing table is error 1050, or
// returned as is with ifNotExists.
func (c *Catalog) CreateTable(db string, spec *TableSpec, ifNotExists bool) (*Table, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, err := c.dbLocked(db)
	if err != nil {
		return nil, err
	}
	if spec.Name == "" {
		return nil, sqlerr.WrongTableName.New(spec.Name)
	}
	if id, ok := c.tableNames[d.ID][spec.Name]; ok {
		if ifNotExists {
			return c.tables[id], nil
		}
		return nil, sqlerr.TableExists.New(spec.Name)
	}
	if _, ok := c.viewOf(d.ID, spec.Name); ok {
		return nil, sqlerr.TableExists.New(spec.Name)
	}
	t, specs, err := buildTable(d.ID, spec)
	if err != nil {
		return nil, err
	}
	t.CreateTime = c.now()
	b := c.newBatch()
	gs := newGroupEdits(c)
	var g *ColocateGroup
	if t.ColocateGroup != "" {
		if gid, ok := c.groupKeys[groupKey(d.ID, t.ColocateGroup)]; ok {
			g = gs.get(gid)
			if t.Dist.Buckets == 0 {
				t.Dist.Buckets = g.BucketNum
			}
			if err := checkColocate(g, t); err != nil {
				return nil, err
			}
		}
	}
	if t.Dist.Buckets == 0 {
		t.Dist.Buckets = max(1, len(c.placementBackends()))
	}
	t.ID = TableID(b.nextID())
	var pl *placer
	if g != nil {
		pl = fixedPlacer(g.BucketSeq)
		gs.addTable(g, t)
	} else {
		if pl, err = c.newPlacer(t.Dist.Buckets, t.ReplicationNum, nil); err != nil {
			return nil, err
		}
		if t.ColocateGroup != "" {
			pl = fixedPlacer(pl.groupSeq())
			gs.create(b, t, pl.fixed)
		}
	}
	t.Partitions, err = buildPartitions(t.PartKind, t.partColumn(), specs)
	if err != nil {
		return nil, err
	}
	if t.PartKind == PartNone {
		t.Partitions = []*Partition{{Name: t.Name, VisibleVersion: 1, NextVersion: 2}}
	}
	for _, p := range t.Partitions {
		p.ID = PartitionID(b.nextID())
	}
	placeTablets(b, t.Partitions, pl)
	b.put(idKey(keyTable, int64(t.ID)), t)
	gs.stage(b)
	if err := c.commit(b); err != nil {
		return nil, err
	}
	c.tables[t.ID] = t
	c.indexTable(t)
	gs.apply()
	return t, nil
}

// placeTablets gives every partition one tablet per bucket, placed by pl,
// with consecutive tablet ids (partition by partition, bucket by bucket).
func placeTablets(b *batch, parts []*Partition, pl *placer) {
	for _, p := range parts {
		seq := pl.next()
		p.Tablets = make([]*Tablet, len(seq))
		for i, bes := range seq {
			tb := &Tablet{ID: b.nextTablet(), Bucket: i, Replicas: make([]Replica, len(bes))}
			for r, be := range bes {
				tb.Replicas[r] = Replica{ID: b.nextReplica(), BackendID: be}
			}
			p.Tablets[i] = tb
		}
	}
}

func (t *Table) partColumn() Column {
	if t.PartKind == PartNone {
		return Column{}
	}
	return t.Columns[t.PartColumn]
}

// buildTable validates spec into a table without ids, partitions or
// placement; it also returns the partition specs to build.
func buildTable(db DBID, spec *TableSpec) (*Table, []PartitionSpec, error) {
	t := &Table{
		DBID:           db,
		Name:           spec.Name,
		Keys:           spec.Keys,
		PartKind:       spec.PartKind,
		ReplicationNum: spec.ReplicationNum,
		ColocateGroup:  spec.ColocateWith,
		Properties:     nilIfEmpty(maps.Clone(spec.Properties)),
		Comment:        spec.Comment,
	}
	if t.ReplicationNum == 0 {
		t.ReplicationNum = DefaultReplicationNum
	}
	if t.ReplicationNum < 0 {
		return nil, nil, sqlerr.Doris.New(fmt.Sprintf("Invalid replication_num: %d", t.ReplicationNum))
	}
	if len(spec.Columns) == 0 {
		return nil, nil, sqlerr.Doris.New("Table should have at least one column")
	}
	if t.Keys > storage.AggKeys {
		return nil, nil, sqlerr.Assertf("catalog: unknown keys type %d", t.Keys)
	}
	seen := map[string]bool{}
	for _, col := range spec.Columns {
		if col.Name == "" {
			return nil, nil, sqlerr.WrongColumnName.New(col.Name)
		}
		if seen[strings.ToLower(col.Name)] {
			return nil, nil, sqlerr.DupFieldName.New(col.Name)
		}
		seen[strings.ToLower(col.Name)] = true
		col.IsKey = false
		t.Columns = append(t.Columns, col)
	}
	if err := t.setKeys(spec.KeyColumns); err != nil {
		return nil, nil, err
	}
	if err := t.setDist(spec.Dist); err != nil {
		return nil, nil, err
	}
	if err := t.setPartColumn(spec); err != nil {
		return nil, nil, err
	}
	if t.ColocateGroup != "" && t.Dist.Kind == DistRandom {
		return nil, nil, sqlerr.Doris.New("Random distribution for colocate table is unsupported")
	}
	if err := t.setMergeOnWrite(); err != nil {
		return nil, nil, err
	}
	if t.Keys == storage.UniqueKeys {
		if seen[strings.ToLower(DeleteSignColumn)] {
			return nil, nil, sqlerr.DupFieldName.New(DeleteSignColumn)
		}
		// Doris's batch delete column (enable_batch_delete_by_default).
		zero := "0"
		t.Columns = append(t.Columns, Column{Column: types.Column{Name: DeleteSignColumn, Type: types.TinyIntT}, Default: &zero, Hidden: true})
		// Doris's enable_hidden_version_column_by_default: merge-on-write
		// and merge-on-read alike (on the latter it is merged as REPLACE,
		// so a key reads the version of its winning row).
		if seen[strings.ToLower(VersionColumn)] {
			return nil, nil, sqlerr.DupFieldName.New(VersionColumn)
		}
		t.Columns = append(t.Columns, Column{Column: types.Column{Name: VersionColumn, Type: types.BigIntT}, Default: &zero, Hidden: true})
	}
	assignColumnIDs(t)
	return t, spec.Partitions, nil
}

func (t *Table) setKeys(keys []string) error {
	if len(keys) == 0 {
		switch t.Keys {
		case storage.DupKeys:
			keys = []string{t.Columns[0].Name}
		case storage.AggKeys:
			for _, col := range t.Columns {
				if col.Agg != storage.AggNone {
					break
				}
				keys = append(keys, col.Name)
			}
		}
		if len(keys) == 0 {
			return sqlerr.Doris.New(fmt.Sprintf("%s KEY table must specify key columns", t.Keys))
		}
	}
	for i, k := range keys {
		idx := t.ColumnIndex(k)
		if idx < 0 {
			return sqlerr.KeyColumnMissing.New(k)
		}
		if idx != i {
			return sqlerr.Doris.New(fmt.Sprintf("Key columns should be a ordered prefix of the schema. KeyColumns[%d] (starts from zero) is %s, "+
				"but corresponding column is %s in the previous columns declaration.", i, k, t.Columns[i].Name))
		}
		t.Columns[i].IsKey = true
	}
	t.NumKeys = len(keys)
	for _, col := range t.Columns {
		switch {
		case col.IsKey && col.Agg != storage.AggNone:
			return sqlerr.Doris.New(fmt.Sprintf("Key column %s can not set aggregation type", col.Name))
		case col.IsKey && (col.Type.Kind == types.Bitmap || col.Type.Kind == types.HLL):
			return sqlerr.Doris.New(fmt.Sprintf("Key column can not set bitmap or hll type:%s", col.Name))
		case col.Type.Kind == types.Bitmap && col.Agg != storage.AggNone && col.Agg != storage.AggBitmapUnion,
			col.Type.Kind == types.HLL && col.Agg != storage.AggNone && col.Agg != storage.AggHLLUnion,
			col.Agg == storage.AggBitmapUnion && col.Type.Kind != types.Bitmap,
			col.Agg == storage.AggHLLUnion && col.Type.Kind != types.HLL:
			return sqlerr.Doris.New(fmt.Sprintf("Aggregate type %s is not compatible with primitive type %s", col.Agg, col.Type))
		case col.Type.IsNested() && (col.IsKey || t.Keys != storage.DupKeys):
			return sqlerr.Doris.New(nestedTypeName(col.Type) + " can only be used in the non-key column of the duplicate table at present.")
		case col.IsKey && col.Type.Kind == types.JSON:
			return sqlerr.Doris.New(fmt.Sprintf("JSONB type should not be used in key column[%s].", col.Name))
		case !col.IsKey && t.Keys == storage.AggKeys && col.Agg == storage.AggNone:
			return sqlerr.Doris.New(fmt.Sprintf("The value column %s of an AGGREGATE KEY table must have an aggregation type", col.Name))
		case col.Agg != storage.AggNone && t.Keys != storage.AggKeys:
			return sqlerr.Doris.New(fmt.Sprintf("Aggregation type %s of column %s is only allowed in an AGGREGATE KEY table", col.Agg, col.Name))
		}
	}
	return nil
}

func (t *Table) setDist(d DistSpec) error {
	if d.Buckets < 0 {
		return sqlerr.Doris.New("Number of buckets should be positive.")
	}
	t.Dist = Distribution{Kind: d.Kind, Buckets: d.Buckets}
	switch d.Kind {
	case DistRandom:
		if t.Keys != storage.DupKeys {
			return sqlerr.Doris.New(fmt.Sprintf("Random distribution is only supported for DUPLICATE KEY tables, not %s KEY", t.Keys))
		}
		if len(d.Columns) > 0 {
			return sqlerr.Doris.New("Random distribution takes no columns")
		}
	case DistHash:
		if len(d.Columns) == 0 {
			return sqlerr.Doris.New("Hash distribution needs at least one column")
		}
		for _, name := range d.Columns {
			idx := t.ColumnIndex(name)
			if idx < 0 {
				return sqlerr.Doris.New(fmt.Sprintf("Distribution column[%s] is not found", name))
			}
			for _, prev := range t.Dist.Columns {
				if prev == idx {
					return sqlerr.Doris.New(fmt.Sprintf("Duplicated distribution column: %s", name))
				}
			}
			if ct := t.Columns[idx].Type; ct.IsNested() {
				return sqlerr.Doris.New(fmt.Sprintf("%s Type should not be used in distribution column[%s].", nestedTypeName(ct), name))
			}
			if t.Keys != storage.DupKeys && !t.Columns[idx].IsKey {
				return sqlerr.Doris.New(fmt.Sprintf("Distribution column[%s] is not key column", name))
			}
			t.Dist.Columns = append(t.Dist.Columns, idx)
		}
	default:
		return sqlerr.Assertf("catalog: unknown distribution kind %d", d.Kind)
	}
	return nil
}

func (t *Table) setPartColumn(spec *TableSpec) error {
	switch spec.PartKind {
	case PartNone:
		if len(spec.Partitions) > 0 || spec.PartColumn != "" {
			return sqlerr.Assertf("catalog: partitions given for an unpartitioned table")
		}
		return nil
	case PartRange, PartList:
	default:
		return sqlerr.Assertf("catalog: unknown partition kind %d", spec.PartKind)
	}
	idx := t.ColumnIndex(spec.PartColumn)
	if idx < 0 {
		return sqlerr.Doris.New(fmt.Sprintf("Partition column[%s] is not found", spec.PartColumn))
	}
	col := t.Columns[idx]
	if t.Keys != storage.DupKeys && !col.IsKey {
		return sqlerr.Doris.New("The partition column could not be aggregated column")
	}
	if spec.PartKind == PartRange && !rangeKeyOK(col.Type) {
		return sqlerr.Doris.New(fmt.Sprintf("Column[%s] type[%s] cannot be a range partition key.", col.Name, col.Type))
	}
	if spec.PartKind == PartList && !listKeyOK(col.Type) {
		return sqlerr.Doris.New(fmt.Sprintf("Column[%s] type[%s] cannot be a list partition key.", col.Name, col.Type))
	}
	t.PartColumn = idx
	return nil
}

// DropTable drops a table (1051 if missing, unless ifExists) and returns it
// so the caller can drop its tablets on the backends. Dropping the last
// member of a colocate group drops the group. A view's name is 1347 with
// Doris's hint, IF EXISTS or not (Doris's dropTable).
func (c *Catalog) DropTable(db, name string, ifExists bool) (*Table, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err := c.tableLocked(db, name)
	if d, ok := c.dbNames[db]; ok && err != nil {
		if _, isView := c.viewOf(d, name); isView {
			return nil, sqlerr.WrongObject.New(db, name, "TABLE", ". Use 'DROP VIEW "+db+"."+name+"'.")
		}
	}
	if err != nil {
		if ifExists && sqlerr.As(err).Code == sqlerr.NoSuchTable.Code {
			return nil, nil
		}
		if sqlerr.As(err).Code == sqlerr.NoSuchTable.Code {
			return nil, sqlerr.BadTable.New(db + "." + name)
		}
		return nil, err
	}
	b := c.newBatch()
	b.del(idKey(keyTable, int64(t.ID)))
	if c.stats[t.ID] != nil {
		b.del(idKey(keyStats, int64(t.ID)))
	}
	gs := newGroupEdits(c)
	gs.removeTable(t)
	gs.stage(b)
	if err := c.commit(b); err != nil {
		return nil, err
	}
	delete(c.tables, t.ID)
	delete(c.stats, t.ID)
	delete(c.tableNames[t.DBID], t.Name)
	gs.apply()
	return t, nil
}

// TruncateTable replaces every partition by an empty one: new partition and
// tablet ids, placed by the same rules as CREATE (the group's sequence for a
// colocate table), versions reset and row counts 0. The table id stays.
//
// create makes the new tablets on their backends before the table is
// switched, so a query never plans over tablets that do not exist yet; the
// ids are reserved (persisted) first, and create runs without the catalog
// lock. If the table changed meanwhile (another TRUNCATE, a DROP), the
// switch fails and new is still returned so the caller can drop its tablets.
func (c *Catalog) TruncateTable(db, name string, create func(*Table) error) (old, new *Table, err error) {
	c.mu.Lock()
	old, err = c.tableLocked(db, name)
	if err != nil {
		c.mu.Unlock()
		return nil, nil, err
	}
	if c.runningAlterLocked(old.ID) != nil {
		c.mu.Unlock()
		return nil, nil, errNotNormal(old.Name, "TRUNCATE")
	}
	var pl *placer
	if g, ok := c.groupLocked(old.DBID, old.ColocateGroup); ok && old.ColocateGroup != "" {
		pl = fixedPlacer(g.BucketSeq)
	} else if pl, err = c.newPlacer(old.Dist.Buckets, old.ReplicationNum, partitionSet(old.Partitions)); err != nil {
		c.mu.Unlock()
		return nil, nil, err
	}
	t := old.clone()
	b := c.newBatch()
	t.Partitions = make([]*Partition, len(old.Partitions))
	for i, p := range old.Partitions {
		t.Partitions[i] = &Partition{
			ID: PartitionID(b.nextID()), Name: p.Name, Lower: p.Lower, Upper: p.Upper, Values: p.Values,
			VisibleVersion: 1, NextVersion: 2,
		}
	}
	placeTablets(b, t.Partitions, pl)
	b.ops = nil // reserve the ids only; the table is written below
	err = c.commit(b)
	c.mu.Unlock()
	if err != nil {
		return nil, nil, err
	}
	if err := create(t); err != nil {
		return nil, t, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tables[old.ID] != old {
		return nil, t, sqlerr.Doris.New(fmt.Sprintf("table %s was changed while being truncated", name))
	}
	b = c.newBatch()
	b.put(idKey(keyTable, int64(t.ID)), t)
	if err := c.commit(b); err != nil {
		return nil, t, err
	}
	c.tables[t.ID] = t
	c.refreshGroups()
	return old, t, nil
}

// clone copies the table header; partitions are shared (they are immutable)
// until the caller replaces the ones it changes.
func (t *Table) clone() *Table {
	n := *t
	n.Partitions = append([]*Partition(nil), t.Partitions...)
	return &n
}

// DistColumns returns the distribution columns in declared order.
func (t *Table) DistColumns() []Column {
	out := make([]Column, len(t.Dist.Columns))
	for i, ci := range t.Dist.Columns {
		out[i] = t.Columns[ci]
	}
	return out
}

// ColumnIndex finds a column by name, case-insensitively; -1 if none.
func (t *Table) ColumnIndex(name string) int {
	for i, c := range t.Columns {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

// BucketOf returns the bucket of a row whose distribution column values are
// vals (in Dist.Columns order), with the one distribution hash.
func (c *Catalog) BucketOf(t *Table, vals []types.Datum) int {
	return types.Bucket(types.HashDatums(vals), t.Dist.Buckets)
}

func nilIfEmpty(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

// nestedTypeName is Doris's capitalized name of a nested type in its
// messages: Array, Map, Struct.
func nestedTypeName(t types.T) string {
	n := t.Kind.String()
	return n[:1] + strings.ToLower(n[1:])
}

// setMergeOnWrite checks enable_unique_key_merge_on_write as Doris 2.1
// does: true or false, UNIQUE KEY tables only, true when not given.
func (t *Table) setMergeOnWrite() error {
	v, ok := t.Properties[PropMergeOnWrite]
	if !ok {
		if t.Keys == storage.UniqueKeys {
			if t.Properties == nil {
				t.Properties = map[string]string{}
			}
			t.Properties[PropMergeOnWrite] = "true"
		}
		return nil
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		if t.Keys != storage.UniqueKeys {
			return sqlerr.Doris.New("enable_unique_key_merge_on_write property only support unique key table")
		}
		t.Properties[PropMergeOnWrite] = "true"
	case "false":
		t.Properties[PropMergeOnWrite] = "false"
	default:
		return sqlerr.Doris.New("Invalid enable_unique_key_merge_on_write property value: " + v)
	}
	return nil
}
