package storage

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/pebble/v2"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Light schema change (Doris's light_schema_change, col_unique_id).
//
// Every schema column has a unique id that never changes and is never
// reused (TabletSchema.ColumnIDs), and every rowset records the ids of the
// columns its segments hold, in stored order (rowsetMeta.Cols). A scan maps
// the schema it reads with onto each rowset by id, so ADD, DROP, RENAME
// and default/comment changes take effect at once over existing data with
// nothing rewritten:
//
//	schema v1: k(0) a(1)          rowset [2] stores ids 0 1
//	ADD b      k(0) a(1) b(2)     [2] reads b as its default; [3] stores 0 1 2
//	DROP a     k(0) b(2)          [2] and [3] skip their stored id 1
//	ADD a      k(0) b(2) a(3)     id 3 is new: no old row shows its old values
//
// Data written before ids existed has none: a schema without ColumnIDs
// has id = position, and a rowset without Cols stores ids 0..n-1 (tablets
// got ids only with this format, from their original, never-changed
// schema, so both hold). Dropped columns stay in TabletSchema.Dropped so
// that old segments' zone maps (encoded by type) still decode. Compaction
// writes the current schema, so dropped columns disappear from disk as
// rowsets are compacted.
//
// A load's pending rowset keeps the schema it started with (the writer's
// snapshot): a load that began before AlterTablet finishes under the old
// schema and its rowset says so; a batch whose columns do not match the
// writer's schema (planned against another one) fails the load cleanly.

// DroppedColumn is a column no longer in the schema whose values older
// segments still hold.
type DroppedColumn struct {
	ID      int32        `json:"id"`
	Column  types.Column `json:"column"`
	Default *types.Datum `json:"default,omitempty"`
}

// Read positions: a scan addresses the schema's columns by position and,
// past them, the dropped columns (position len(Columns)+j is Dropped[j]),
// which only delete conditions written before the drop read: their rows
// must stay deleted.

// readColumn is the column at read position p and its unique id.
func (sc *TabletSchema) readColumn(p int) (types.Column, int32) {
	if p < len(sc.Columns) {
		return sc.Columns[p], sc.ColumnID(p)
	}
	d := sc.Dropped[p-len(sc.Columns)]
	return d.Column, d.ID
}

// readWidth is the number of read positions.
func (sc *TabletSchema) readWidth() int { return len(sc.Columns) + len(sc.Dropped) }

// ColumnID is the unique id of schema column i.
func (sc *TabletSchema) ColumnID(i int) int32 {
	if sc.ColumnIDs == nil {
		return int32(i)
	}
	return sc.ColumnIDs[i]
}

// ids returns the unique id of every column, in schema order.
func (sc *TabletSchema) ids() []int32 {
	out := make([]int32, len(sc.Columns))
	for i := range out {
		out[i] = sc.ColumnID(i)
	}
	return out
}

// indexOfID is the schema position of column id, -1 if not in the schema.
func (sc *TabletSchema) indexOfID(id int32) int {
	if sc.ColumnIDs == nil {
		if int(id) < len(sc.Columns) && id >= 0 {
			return int(id)
		}
		return -1
	}
	return slices.Index(sc.ColumnIDs, id)
}

// typeOfID is the type of column id, current or dropped.
func (sc *TabletSchema) typeOfID(id int32) (types.T, bool) {
	if i := sc.indexOfID(id); i >= 0 {
		return sc.Columns[i].Type, true
	}
	for _, d := range sc.Dropped {
		if d.ID == id {
			return d.Column.Type, true
		}
	}
	return types.T{}, false
}

// defaultOf is the value column i reads as in rows written before it
// existed (NULL if it has no default).
func (sc *TabletSchema) defaultOf(i int) types.Datum {
	if i >= len(sc.Columns) {
		d := sc.Dropped[i-len(sc.Columns)]
		if d.Default != nil {
			v := *d.Default
			v.T = d.Column.Type
			return v
		}
		return types.NullDatum(d.Column.Type)
	}
	if i < len(sc.Defaults) && sc.Defaults[i] != nil {
		d := *sc.Defaults[i]
		d.T = sc.Columns[i].Type
		return d
	}
	return types.NullDatum(sc.Columns[i].Type)
}

// clone deep-copies the schema's slices.
func (sc *TabletSchema) clone() *TabletSchema {
	n := *sc
	n.Columns = slices.Clone(sc.Columns)
	n.Agg = slices.Clone(sc.Agg)
	n.ColumnIDs = slices.Clone(sc.ColumnIDs)
	n.Dropped = slices.Clone(sc.Dropped)
	for i, d := range n.Dropped {
		if d.Default != nil {
			v := *d.Default
			n.Dropped[i].Default = &v
		}
	}
	n.Defaults = make([]*types.Datum, len(sc.Defaults))
	for i, d := range sc.Defaults {
		if d != nil {
			c := *d
			n.Defaults[i] = &c
		}
	}
	if len(n.Defaults) == 0 {
		n.Defaults = nil
	}
	return &n
}

// encodeSchema is the schema's JSON, decimals made serializable.
func encodeSchema(sc *TabletSchema) ([]byte, error) {
	c := sc.clone()
	for _, d := range c.Defaults {
		if d != nil {
			d.Prepare()
		}
	}
	for _, d := range c.Dropped {
		if d.Default != nil {
			d.Default.Prepare()
		}
	}
	return json.Marshal(c)
}

// restoreSchema rebuilds what JSON cannot carry (decimal defaults).
func restoreSchema(sc *TabletSchema) {
	for _, d := range sc.Defaults {
		if d != nil {
			d.Restore()
		}
	}
	for _, d := range sc.Dropped {
		if d.Default != nil {
			d.Default.Restore()
		}
	}
}

// storedIDs is the ids of a rowset's stored columns, n of them.
func storedIDs(m rowsetMeta, n int) []int32 {
	if m.Cols != nil {
		return m.Cols
	}
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(i)
	}
	return out
}

// layout maps read position p to the stored column of a segment holding
// ids (-1: the segment predates the column).
func (sc *TabletSchema) layout(ids []int32) []int {
	out := make([]int, sc.readWidth())
	for p := range out {
		_, id := sc.readColumn(p)
		out[p] = slices.Index(ids, id)
	}
	return out
}

// decodeStoredSegMeta decodes a segment meta whose rowset stores the
// columns m.Cols (nil: legacy, ids by position) and returns it with one
// zone per schema column, plus the schema→stored layout. A column the
// segment predates gets its default's zone.
func decodeStoredSegMeta(val []byte, sc *TabletSchema, m rowsetMeta) (segMeta, []int, error) {
	r := reader{b: val}
	rows := int(r.uvarint())
	n := int(r.uvarint())
	if r.err != nil || (m.Cols != nil && n != len(m.Cols)) {
		return segMeta{}, nil, errCorrupt
	}
	ids := storedIDs(m, n)
	cols := make([]types.Column, n)
	for i, id := range ids {
		t, ok := sc.typeOfID(id)
		if !ok {
			return segMeta{}, nil, fmt.Errorf("storage: segment column id %d is in no schema: %w", id, errCorrupt)
		}
		cols[i].Type = t
	}
	stored, err := decodeSegMeta(val, cols)
	if err != nil {
		return segMeta{}, nil, err
	}
	lay := sc.layout(ids)
	out := segMeta{Rows: rows, Zones: make([]zone, len(sc.Columns))}
	for p, s := range lay[:len(sc.Columns)] {
		if s >= 0 {
			z := stored.Zones[s]
			z.Min.T, z.Max.T = sc.Columns[p].Type, sc.Columns[p].Type
			out.Zones[p] = z
			continue
		}
		d := sc.defaultOf(p)
		if d.Null {
			out.Zones[p] = zone{Nulls: int64(rows)}
		} else {
			out.Zones[p] = zone{HasMinMax: true, Min: d, Max: d}
		}
	}
	return out, lay, nil
}

// constColumn is n copies of d as an array of type t.
func constColumn(t types.T, d types.Datum, n int) arrow.Array {
	if d.Null {
		return array.MakeArrayOfNull(memory.DefaultAllocator, t.Arrow(), n)
	}
	b := array.NewBuilder(memory.DefaultAllocator, t.Arrow())
	defer b.Release()
	b.Reserve(n)
	for i := 0; i < n; i++ {
		types.AppendDatum(b, d)
	}
	return b.NewArray()
}

// AlterTablet replaces a tablet's schema by a newer one (a light schema
// change: the same keys, the columns of the same ids keeping their
// physical type). A schema whose Version is not above the tablet's is
// ignored, so the FE may send it again (restart reconciliation). Columns
// the new schema lacks are remembered as dropped. The new schema is synced
// before AlterTablet returns; loads that already wrote to the tablet
// finish under the schema they began with. A tablet the store does not
// have is skipped: whoever creates it gives it its schema.
func (s *Store) AlterTablet(id TabletID, schema *TabletSchema) error {
	if err := validateSchema(schema); err != nil {
		return err
	}
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	s.mu.Lock()
	t := s.tablets[id]
	s.mu.Unlock()
	if t == nil {
		return nil
	}
	old := t.schema
	if schema.Version <= old.Version {
		return nil
	}
	n := schema.clone()
	restoreSchema(n)
	n.ColumnIDs = n.ids()
	n.MergeOnWrite = old.MergeOnWrite // fixed at creation
	if n.Keys != old.Keys || n.NumKeys != old.NumKeys {
		return sqlerr.Assertf("storage: tablet %d: a light schema change cannot change the keys", id)
	}
	for p := range n.Columns {
		i := old.indexOfID(n.ColumnIDs[p])
		if p < n.NumKeys && i != p {
			return sqlerr.Assertf("storage: tablet %d: key column %d changed", id, p)
		}
		if i >= 0 && !arrow.TypeEqual(old.Columns[i].Type.Arrow(), n.Columns[p].Type.Arrow()) {
			return sqlerr.Assertf("storage: tablet %d: column %s changes type from %s to %s", id, n.Columns[p].Name, old.Columns[i].Type, n.Columns[p].Type)
		}
		if i < 0 {
			if _, dropped := old.typeOfID(n.ColumnIDs[p]); dropped {
				return sqlerr.Assertf("storage: tablet %d: column id %d was dropped and cannot come back", id, n.ColumnIDs[p])
			}
		}
	}
	n.Dropped = slices.Clone(old.Dropped)
	for i := range old.Columns {
		if cid := old.ColumnID(i); n.indexOfID(cid) < 0 {
			d := DroppedColumn{ID: cid, Column: old.Columns[i]}
			if i < len(old.Defaults) && old.Defaults[i] != nil {
				v := *old.Defaults[i]
				d.Default = &v
			}
			n.Dropped = append(n.Dropped, d)
		}
	}
	v, err := encodeSchema(n)
	if err != nil {
		return err
	}
	if err := s.db.Set(schemaKey(id), v, pebble.Sync); err != nil {
		return err
	}
	s.mu.Lock()
	if !t.dropped {
		t.schema = n
	}
	s.mu.Unlock()
	return nil
}

// checkRecord requires rec to carry the columns of sc (their number and
// physical types; names are not checked, loads name them freely), the
// schema the load writes under; a batch planned against another schema
// of the table is refused.
func checkRecord(tab TabletID, sc *TabletSchema, rec arrow.Record) error {
	changed := func(detail string) error {
		return sqlerr.Doris.New(fmt.Sprintf("the schema of tablet %d changed during the load (ALTER TABLE): %s; the load is aborted, retry it", tab, detail))
	}
	if int(rec.NumCols()) != len(sc.Columns) {
		return changed(fmt.Sprintf("the load sent %d columns, the tablet has %d", rec.NumCols(), len(sc.Columns)))
	}
	for i, c := range sc.Columns {
		if got := rec.Column(i).DataType(); !arrow.TypeEqual(got, c.Type.Arrow()) {
			return changed(fmt.Sprintf("column %s is %s, the load sent %s", c.Name, c.Type.Arrow(), got))
		}
	}
	return nil
}
