package catalog

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

func uids(t *Table) []int32 {
	var out []int32
	for _, c := range t.Columns {
		out = append(out, c.UID)
	}
	return out
}

func TestAlterColumnIDs(t *testing.T) {
	c, kv := newTestCatalog(t, 3)
	tb := mustCreate(t, c, "db", dupSpec("t", 4, 1))
	if !slices.Equal(uids(tb), []int32{0, 1, 2}) || tb.NextColumnID != 3 || tb.SchemaVersion != 0 {
		t.Fatalf("ids at CREATE: %v next %d", uids(tb), tb.NextColumnID)
	}
	seven := types.IntDatum(7)
	_, nt, err := c.AlterTable("db", "t", func(t *Table) error {
		return t.AddColumn(col("c", types.IntT), ColumnPos{After: "k1"}, &seven)
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(uids(nt), []int32{0, 3, 1, 2}) || nt.SchemaVersion != 1 || nt.Dist.Columns[0] != 0 {
		t.Fatalf("after ADD: %v v%d dist %v", uids(nt), nt.SchemaVersion, nt.Dist.Columns)
	}
	sc := nt.Schema()
	if !slices.Equal(sc.ColumnIDs, []int32{0, 3, 1, 2}) || sc.Version != 1 || sc.Defaults[1] == nil || sc.Defaults[1].I != 7 || sc.Defaults[0] != nil {
		t.Fatalf("storage schema: %+v", sc)
	}
	// Drop and re-add: a new id.
	for _, e := range []func(t *Table) error{
		func(t *Table) error { return t.DropColumn("v") },
		func(t *Table) error { return t.AddColumn(col("v", types.IntT), ColumnPos{}, nil) },
		func(t *Table) error { return t.RenameColumn("k2", "kk") },
	} {
		if _, nt, err = c.AlterTable("db", "t", e); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(uids(nt), []int32{0, 3, 1, 4}) || nt.Columns[2].Name != "kk" || nt.SchemaVersion != 4 {
		t.Fatalf("after DROP/ADD/RENAME: %v %v v%d", uids(nt), nt.Columns, nt.SchemaVersion)
	}
	// Errors leave the table as it was.
	wantCode(t, alterErr(c, func(t *Table) error { return t.DropColumn("k1") }), 1105, "Can not drop partition or distribution column : k1")
	wantCode(t, alterErr(c, func(t *Table) error { return t.AddColumn(col("kk", types.IntT), ColumnPos{}, nil) }), 1105,
		"Can not add column which already exists in base table: kk")
	wantCode(t, alterErr(c, func(t *Table) error {
		return t.ModifyColumn(Column{Column: types.Column{Name: "v", Type: types.BigIntT, Nullable: true}}, ColumnPos{})
	}), 1235, "This version of MySQL doesn't yet support 'MODIFY COLUMN v from INT to BIGINT (a heavy schema change)'")
	// Reopen: the same ids and version.
	c2 := openTest(t, kv)
	rt, _ := c2.Table("db", "t")
	if !slices.Equal(uids(rt), uids(nt)) || rt.NextColumnID != 5 || rt.SchemaVersion != 4 || rt.Columns[1].FillValue == nil || rt.Columns[1].FillValue.I != 7 {
		t.Fatalf("reopened: %v next %d v%d", uids(rt), rt.NextColumnID, rt.SchemaVersion)
	}
}

func alterErr(c *Catalog, e func(t *Table) error) error {
	_, _, err := c.AlterTable("db", "t", e)
	return err
}

// TestAlterLegacyTable: a table written before column ids gets id =
// position at load, as storage assumes for its data.
func TestAlterLegacyTable(t *testing.T) {
	c, kv := newTestCatalog(t, 3)
	tb := mustCreate(t, c, "db", dupSpec("t", 2, 1))
	var raw map[string]any
	js, _ := json.Marshal(tb)
	_ = json.Unmarshal(js, &raw)
	delete(raw, "next_column_id")
	for _, col := range raw["columns"].([]any) {
		delete(col.(map[string]any), "uid")
	}
	js, _ = json.Marshal(raw)
	if err := kv.Apply([]storage.MetaOp{{Key: idKey(keyTable, int64(tb.ID)), Value: js}}); err != nil {
		t.Fatal(err)
	}
	c2 := openTest(t, kv)
	lt, _ := c2.Table("db", "t")
	if !slices.Equal(uids(lt), []int32{0, 1, 2}) || lt.NextColumnID != 3 {
		t.Fatalf("legacy ids %v next %d", uids(lt), lt.NextColumnID)
	}
}

func TestAlterPartitions(t *testing.T) {
	c, kv := newTestCatalog(t, 3)
	s := dupSpec("r", 2, 1)
	s.PartKind, s.PartColumn = PartRange, "v"
	s.Partitions = []PartitionSpec{{Name: "p1", Upper: intDatum(10)}, {Name: "p2", Upper: intDatum(20)}}
	mustCreate(t, c, "db", s)
	noop := func(*Table, *Partition) error { return nil }
	_, err := c.AddPartition("db", "r", PartitionSpec{Name: "p3", Upper: intDatum(15)}, 0, noop)
	wantCode(t, err, 1105, "Range [10, 15) is intersected with range: [10, 20)")
	_, err = c.AddPartition("db", "r", PartitionSpec{Name: "p1", Upper: intDatum(30)}, 0, noop)
	wantCode(t, err, 1517, "Duplicate partition name p1")
	p, err := c.AddPartition("db", "r", PartitionSpec{Name: "p3", Upper: intDatum(30)}, 0, noop)
	if err != nil {
		t.Fatal(err)
	}
	if formatRange(p) != "[20, 30)" || len(p.Tablets) != 2 {
		t.Fatalf("p3 = %s with %d tablets", formatRange(p), len(p.Tablets))
	}
	_, err = c.AddPartition("db", "r", PartitionSpec{Name: "p4", Lower: intDatum(25), Upper: intDatum(40)}, 0, noop)
	wantCode(t, err, 1105, "Range [25, 40) is intersected with range: [20, 30)")
	if _, err := c.DropPartition("db", "r", "p2", false); err != nil {
		t.Fatal(err)
	}
	_, err = c.DropPartition("db", "r", "p2", false)
	wantCode(t, err, 1507, "Error in list of partitions to p2")
	if p, err := c.DropPartition("db", "r", "p2", true); p != nil || err != nil {
		t.Fatal(p, err)
	}
	// The gap p2 left can be filled again.
	if _, err := c.AddPartition("db", "r", PartitionSpec{Name: "p2b", Upper: intDatum(20)}, 0, noop); err != nil {
		t.Fatal(err)
	}
	rt, _ := openTest(t, kv).Table("db", "r")
	var names []string
	for _, p := range rt.Partitions {
		names = append(names, p.Name+formatRange(p))
	}
	if !slices.Equal(names, []string{"p1[MINVALUE, 10)", "p3[20, 30)", "p2b[10, 20)"}) {
		t.Fatalf("partitions after reopen: %v", names)
	}
	if _, err := c.RenameTable("db", "r", "r2"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Table("db", "r"); err == nil {
		t.Fatal("old name still resolves")
	}
	mustCreate(t, c, "db", dupSpec("x", 2, 1))
	_, err = c.RenameTable("db", "r2", "x")
	wantCode(t, err, 1050, "Table 'x' already exists")
}

func intDatum(v int64) *types.Datum { d := types.IntDatum(v); return &d }
