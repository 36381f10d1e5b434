package storage

import (
	"cmp"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/dorisgo/dorisgo/sql/types"
)

func col(name string, t types.T) types.Column {
	return types.Column{Name: name, Type: t, Nullable: true}
}

func irow(vs ...any) row {
	r := make(row, len(vs))
	for i, v := range vs {
		switch x := v.(type) {
		case nil:
			r[i] = types.NullDatum(types.BigIntT)
		case int:
			r[i] = types.IntDatum(int64(x))
		case string:
			r[i] = types.Datum{T: types.StringT, S: x}
		}
	}
	return r
}

// alter gives tablet tab a new schema derived from its current one.
func alter(t *testing.T, s *Store, tab TabletID, f func(sc *TabletSchema)) {
	t.Helper()
	cur, err := s.Schema(tab)
	if err != nil {
		t.Fatal(err)
	}
	n := cur.clone()
	n.Dropped = nil
	n.Version++
	f(n)
	if err := s.AlterTablet(tab, n); err != nil {
		t.Fatal(err)
	}
}

func TestSchemaEvolution(t *testing.T) {
	for _, keys := range []KeysType{DupKeys, UniqueKeys, AggKeys} {
		t.Run(keys.String(), func(t *testing.T) {
			dir := t.TempDir()
			s, err := Open(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = s.Close() }()
			sc := &TabletSchema{Columns: []types.Column{col("k", types.BigIntT), col("a", types.BigIntT)}, Keys: keys, NumKeys: 1}
			if keys == AggKeys {
				sc.Agg = []AggType{AggNone, AggSum}
			}
			if err := s.CreateTablet(1, sc); err != nil {
				t.Fatal(err)
			}
			load(t, s, 1, 1, 2, []row{irow(1, 10), irow(2, 20)})
			load(t, s, 1, 2, 3, []row{irow(3, 30)})

			// ADD b DEFAULT 7: old rows read 7.
			seven := types.IntDatum(7)
			alter(t, s, 1, func(n *TabletSchema) {
				n.Columns = append(n.Columns, col("b", types.BigIntT))
				n.ColumnIDs = append(n.ColumnIDs, 2)
				n.Defaults = []*types.Datum{nil, nil, &seven}
				if keys == AggKeys {
					n.Agg = append(n.Agg, AggMax)
				}
			})
			load(t, s, 1, 3, 4, []row{irow(4, 40, 400)})
			want := []row{irow(1, 10, 7), irow(2, 20, 7), irow(3, 30, 7), irow(4, 40, 400)}
			equalRows(t, sortRows(scanRows(t, s, ScanRequest{Tablet: 1, Version: 4, Columns: allCols(3)})), want)
			// Zone maps of the default: b = 400 prunes the old segments.
			four := types.IntDatum(400)
			got := scanRows(t, s, ScanRequest{Tablet: 1, Version: 4, Columns: []int{0, 2}, Ranges: []ColumnRange{{Column: 2, Lo: &four, LoIncl: true, Hi: &four, HiIncl: true}}})
			if keys == DupKeys {
				equalRows(t, got, []row{irow(4, 400)})
			}

			// DROP a, then ADD a again (a new id): no old value comes back.
			alter(t, s, 1, func(n *TabletSchema) {
				n.Columns = []types.Column{n.Columns[0], n.Columns[2]}
				n.ColumnIDs = []int32{0, 2}
				n.Defaults = []*types.Datum{nil, &seven}
				if keys == AggKeys {
					n.Agg = []AggType{AggNone, AggMax}
				}
			})
			equalRows(t, sortRows(scanRows(t, s, ScanRequest{Tablet: 1, Version: 4, Columns: allCols(2)})),
				[]row{irow(1, 7), irow(2, 7), irow(3, 7), irow(4, 400)})
			alter(t, s, 1, func(n *TabletSchema) {
				n.Columns = append(n.Columns, col("a", types.BigIntT))
				n.ColumnIDs = append(n.ColumnIDs, 3)
				n.Defaults = append(n.Defaults, nil)
				if keys == AggKeys {
					n.Agg = append(n.Agg, AggSum)
				}
			})
			load(t, s, 1, 4, 5, []row{irow(5, 500, 5000)})
			want = []row{irow(1, 7, nil), irow(2, 7, nil), irow(3, 7, nil), irow(4, 400, nil), irow(5, 500, 5000)}
			equalRows(t, sortRows(scanRows(t, s, ScanRequest{Tablet: 1, Version: 5, Columns: allCols(3)})), want)

			// A stale or repeated schema is ignored; a type change is refused.
			cur, _ := s.Schema(1)
			old := cur.clone()
			old.Version--
			if err := s.AlterTablet(1, old); err != nil {
				t.Fatal(err)
			}
			bad := cur.clone()
			bad.Version++
			bad.Columns[1].Type = types.StringT
			if err := s.AlterTablet(1, bad); err == nil {
				t.Fatal("type change accepted")
			}

			// Restart, then compaction writes the current schema.
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if s, err = Open(dir, Options{}); err != nil {
				t.Fatal(err)
			}
			s.staleGrace = 0
			equalRows(t, sortRows(scanRows(t, s, ScanRequest{Tablet: 1, Version: 5, Columns: allCols(3)})), want)
			if err := s.Compact(1, 5); err != nil {
				t.Fatal(err)
			}
			all, err := readRowsets(s.db, 1)
			if err != nil {
				t.Fatal(err)
			}
			vis := visibleRowsets(all, math.MaxInt64)
			if len(vis) != 1 || len(vis[0].Cols) != 3 || vis[0].Cols[0] != 0 || vis[0].Cols[1] != 2 || vis[0].Cols[2] != 3 {
				t.Fatalf("after compaction: %+v", vis)
			}
			equalRows(t, sortRows(scanRows(t, s, ScanRequest{Tablet: 1, Version: 5, Columns: allCols(3)})), want)
		})
	}
}

// TestSchemaLegacyData: rowsets and schemas written before column ids
// (no Cols, no col_ids) read as id = position, also after a change.
func TestSchemaLegacyData(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sc := &TabletSchema{Columns: []types.Column{col("k", types.BigIntT), col("a", types.BigIntT), col("b", types.StringT)}, Keys: DupKeys, NumKeys: 1}
	if err := s.CreateTablet(1, sc); err != nil {
		t.Fatal(err)
	}
	load(t, s, 1, 1, 2, []row{irow(1, 10, "x"), irow(2, 20, "y")})
	// Rewrite as the old format wrote it.
	all, err := readRowsets(s.db, 1)
	if err != nil {
		t.Fatal(err)
	}
	b := s.db.NewBatch()
	for _, m := range all {
		m.Cols = nil
		if err := b.Set(rowsetKey(1, m.End, m.ID), m.encode(), nil); err != nil {
			t.Fatal(err)
		}
	}
	js, _ := json.Marshal(struct {
		Columns []types.Column `json:"columns"`
		Keys    KeysType       `json:"keys"`
		NumKeys int            `json:"num_keys"`
	}{sc.Columns, DupKeys, 1})
	if err := b.Set(schemaKey(1), js, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(pebble.Sync); err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	if s, err = Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	equalRows(t, sortRows(scanRows(t, s, ScanRequest{Tablet: 1, Version: 2, Columns: allCols(3)})), []row{irow(1, 10, "x"), irow(2, 20, "y")})
	// DROP a (id 1): the legacy segment's zone of a still decodes.
	alter(t, s, 1, func(n *TabletSchema) {
		n.Columns = []types.Column{n.Columns[0], n.Columns[2]}
		n.ColumnIDs = []int32{0, 2}
	})
	equalRows(t, sortRows(scanRows(t, s, ScanRequest{Tablet: 1, Version: 2, Columns: allCols(2)})), []row{irow(1, "x"), irow(2, "y")})
}

// TestSchemaChangeDuringLoad: a load that wrote before the change finishes
// under its schema; one whose first batch comes after it, with the old
// columns, fails cleanly.
func TestSchemaChangeDuringLoad(t *testing.T) {
	s := openStore(t)
	sc := &TabletSchema{Columns: []types.Column{col("k", types.BigIntT), col("a", types.BigIntT)}, Keys: DupKeys, NumKeys: 1}
	for _, id := range []TabletID{1, 2} {
		if err := s.CreateTablet(id, sc); err != nil {
			t.Fatal(err)
		}
	}
	rec := buildRecord(t, sc.Columns, []row{irow(1, 10)})
	defer rec.Release()
	if err := s.Write(7, 1, rec); err != nil {
		t.Fatal(err)
	}
	for _, id := range []TabletID{1, 2} {
		alter(t, s, id, func(n *TabletSchema) {
			n.Columns = append([]types.Column{n.Columns[0], col("b", types.BigIntT)}, n.Columns[1:]...)
			n.ColumnIDs = []int32{0, 2, 1}
		})
	}
	if err := s.Write(7, 1, rec); err != nil { // same writer: old schema
		t.Fatal(err)
	}
	if err := s.Write(8, 2, rec); err == nil || !strings.Contains(err.Error(), "changed during the load") {
		t.Fatalf("write with the old schema to an altered tablet: %v", err)
	}
	if err := s.Abort(8); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prepare(7); err != nil {
		t.Fatal(err)
	}
	if err := s.Publish(7, map[TabletID]Version{1: 2}); err != nil {
		t.Fatal(err)
	}
	equalRows(t, scanRows(t, s, ScanRequest{Tablet: 1, Version: 2, Columns: allCols(3)}), []row{irow(1, nil, 10), irow(1, nil, 10)})
	// A scan planned against another schema version is refused.
	if _, err := s.Scan(t.Context(), ScanRequest{Tablet: 1, Version: 2, Columns: allCols(2), SchemaVersion: 5}); err == nil {
		t.Fatal("scan at a stale schema version accepted")
	}
}

func sortRows(rows []row) []row {
	slices.SortStableFunc(rows, func(a, b row) int { return cmp.Compare(a[0].I, b[0].I) })
	return rows
}

// TestSchemaDeleteAfterRename: a delete condition written before a RENAME
// and a DROP of an earlier column still applies to its rows.
func TestSchemaDeleteAfterRename(t *testing.T) {
	s := openDeleteStore(t, nil, "", nil)
	sc := &TabletSchema{Columns: []types.Column{col("k", types.BigIntT), col("x", types.BigIntT), col("v", types.BigIntT)}, Keys: DupKeys, NumKeys: 1}
	if err := s.CreateTablet(1, sc); err != nil {
		t.Fatal(err)
	}
	load(t, s, 1, 1, 2, []row{irow(1, 0, 10), irow(2, 0, 20), irow(3, 0, 30)})
	c := cond(t, "v", "eq", 20)
	c.Ranges[0].Column = 2
	deleteAt(t, s, 1, 2, 3, c)
	alter(t, s, 1, func(n *TabletSchema) {
		n.Columns = []types.Column{n.Columns[0], n.Columns[2]}
		n.Columns[1].Name = "w"
		n.ColumnIDs = []int32{0, 2}
	})
	equalRows(t, sortRows(scanRows(t, s, ScanRequest{Tablet: 1, Version: 3, Columns: allCols(2)})), []row{irow(1, 10), irow(3, 30)})
	s.staleGrace = 0
	if err := s.Compact(1, 3); err != nil {
		t.Fatal(err)
	}
	equalRows(t, sortRows(scanRows(t, s, ScanRequest{Tablet: 1, Version: 3, Columns: allCols(2)})), []row{irow(1, 10), irow(3, 30)})

	// The condition's column dropped and a new v added: old deleted rows
	// stay deleted (the condition reads the dropped column), the new v's
	// rows are not touched by it.
	load(t, s, 1, 3, 4, []row{irow(4, 20)})
	alter(t, s, 1, func(n *TabletSchema) {
		n.Columns = []types.Column{n.Columns[0], col("v", types.BigIntT)}
		n.ColumnIDs = []int32{0, 3}
	})
	load(t, s, 1, 4, 5, []row{irow(5, 20)})
	equalRows(t, sortRows(scanRows(t, s, ScanRequest{Tablet: 1, Version: 5, Columns: allCols(2)})), []row{irow(1, nil), irow(3, nil), irow(4, nil), irow(5, 20)})
}

// TestSchemaDeleteOnDroppedColumn: a delete condition on a column dropped
// since keeps its rows deleted, and does not touch a new column of the
// same name.
func TestSchemaDeleteOnDroppedColumn(t *testing.T) {
	s := openDeleteStore(t, nil, "", nil)
	sc := &TabletSchema{Columns: []types.Column{col("k", types.BigIntT), col("v", types.BigIntT)}, Keys: DupKeys, NumKeys: 1}
	if err := s.CreateTablet(1, sc); err != nil {
		t.Fatal(err)
	}
	load(t, s, 1, 1, 2, []row{irow(1, 10), irow(2, 20)})
	deleteAt(t, s, 1, 2, 3, cond(t, "v", "eq", 20))
	alter(t, s, 1, func(n *TabletSchema) {
		n.Columns = []types.Column{n.Columns[0], col("w", types.BigIntT)}
		n.ColumnIDs = []int32{0, 2}
	})
	alter(t, s, 1, func(n *TabletSchema) {
		n.Columns = []types.Column{n.Columns[0], col("v", types.BigIntT)}
		n.ColumnIDs = []int32{0, 3}
	})
	load(t, s, 1, 3, 4, []row{irow(3, 20)})
	want := []row{irow(1, nil), irow(3, 20)}
	equalRows(t, sortRows(scanRows(t, s, ScanRequest{Tablet: 1, Version: 4, Columns: allCols(2)})), want)
	s.staleGrace = 0
	if err := s.Compact(1, 4); err != nil {
		t.Fatal(err)
	}
	equalRows(t, sortRows(scanRows(t, s, ScanRequest{Tablet: 1, Version: 4, Columns: allCols(2)})), want)
}

// TestSchemaPreparedLoadSurvivesAlterAndRestart: a load prepared under the
// old schema, then ALTER, then a restart, then its publish: its rowset
// still says which columns it holds.
func TestSchemaPreparedLoadSurvivesAlterAndRestart(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sc := &TabletSchema{Columns: []types.Column{col("k", types.BigIntT), col("a", types.BigIntT), col("b", types.BigIntT)}, Keys: DupKeys, NumKeys: 1}
	if err := s.CreateTablet(1, sc); err != nil {
		t.Fatal(err)
	}
	rec := buildRecord(t, sc.Columns, []row{irow(1, 10, 100)})
	defer rec.Release()
	if err := s.Write(5, 1, rec); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prepare(5); err != nil {
		t.Fatal(err)
	}
	alter(t, s, 1, func(n *TabletSchema) { // DROP a, ADD c
		n.Columns = []types.Column{n.Columns[0], n.Columns[2], col("c", types.BigIntT)}
		n.ColumnIDs = []int32{0, 2, 3}
	})
	_ = s.Close()
	if s, err = Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	if err := s.Publish(5, map[TabletID]Version{1: 2}); err != nil {
		t.Fatal(err)
	}
	equalRows(t, scanRows(t, s, ScanRequest{Tablet: 1, Version: 2, Columns: allCols(3)}), []row{irow(1, 100, nil)})
}
