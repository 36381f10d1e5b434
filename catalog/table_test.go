package catalog

import (
	"reflect"
	"testing"

	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

func TestCreateTableValidation(t *testing.T) {
	mod := func(f func(s *TableSpec)) *TableSpec {
		s := dupSpec("t", 4, 1)
		f(s)
		return s
	}
	agg := func(f func(s *TableSpec)) *TableSpec {
		s := &TableSpec{
			Name:       "t",
			Columns:    []Column{col("k1", types.IntT), col("k2", types.DateT), aggCol("v", types.BigIntT, storage.AggSum)},
			Keys:       storage.AggKeys,
			KeyColumns: []string{"k1", "k2"},
			Dist:       DistSpec{Kind: DistHash, Columns: []string{"k1"}, Buckets: 4}, ReplicationNum: 1,
		}
		f(s)
		return s
	}
	rng := func(parts ...PartitionSpec) func(s *TableSpec) {
		return func(s *TableSpec) {
			s.Columns = append(s.Columns, col("dt", types.DateT))
			s.PartKind, s.PartColumn, s.Partitions = PartRange, "dt", parts
		}
	}
	cases := []struct {
		name string
		spec *TableSpec
		code uint16
		msg  string // "" = any message
	}{
		{"keys not a prefix", mod(func(s *TableSpec) { s.KeyColumns = []string{"k2"} }), 1105,
			"Key columns should be a ordered prefix of the schema. KeyColumns[0] (starts from zero) is k2, but corresponding column is k1 in the previous columns declaration."},
		{"unknown key", mod(func(s *TableSpec) { s.KeyColumns = []string{"zz"} }), 1072, "Key column 'zz' doesn't exist in table"},
		{"dup column", mod(func(s *TableSpec) { s.Columns[1].Name = "K1" }), 1060, "Duplicate column name 'K1'"},
		{"no columns", mod(func(s *TableSpec) { s.Columns = nil }), 1105, ""},
		{"agg on duplicate table", mod(func(s *TableSpec) { s.Columns[2].Agg = storage.AggSum }), 1105,
			"Aggregation type SUM of column v is only allowed in an AGGREGATE KEY table"},
		{"agg value without agg type", agg(func(s *TableSpec) {
			s.Columns[2].Agg = storage.AggNone
			s.KeyColumns = []string{"k1"}
			s.Columns[1].Agg = storage.AggNone
		}), 1105,
			"The value column k2 of an AGGREGATE KEY table must have an aggregation type"},
		{"agg on key column", agg(func(s *TableSpec) { s.Columns[1].Agg = storage.AggMax }), 1105, "Key column k2 can not set aggregation type"},
		{"agg hash on value", agg(func(s *TableSpec) { s.Dist.Columns = []string{"v"} }), 1105, "Distribution column[v] is not key column"},
		{"unique hash on value", mod(func(s *TableSpec) { s.Keys = storage.UniqueKeys; s.Dist.Columns = []string{"v"} }), 1105, "Distribution column[v] is not key column"},
		{"unique without keys", mod(func(s *TableSpec) { s.Keys = storage.UniqueKeys; s.KeyColumns = nil }), 1105, ""},
		{"random unique", mod(func(s *TableSpec) { s.Keys = storage.UniqueKeys; s.Dist = DistSpec{Kind: DistRandom, Buckets: 2} }), 1105, ""},
		{"random colocate", mod(func(s *TableSpec) { s.Dist = DistSpec{Kind: DistRandom, Buckets: 2}; s.ColocateWith = "g" }), 1105,
			"Random distribution for colocate table is unsupported"},
		{"unknown dist column", mod(func(s *TableSpec) { s.Dist.Columns = []string{"zz"} }), 1105, "Distribution column[zz] is not found"},
		{"dup dist column", mod(func(s *TableSpec) { s.Dist.Columns = []string{"k1", "K1"} }), 1105, ""},
		{"negative buckets", mod(func(s *TableSpec) { s.Dist.Buckets = -1 }), 1105, ""},
		{"too few backends", mod(func(s *TableSpec) { s.ReplicationNum = 4 }), 1105, ""},
		{"default replication 3 > 2 alive", mod(func(s *TableSpec) { s.ReplicationNum = 0; s.Name = "t3" }), 0, ""},
		{"range on varchar", mod(func(s *TableSpec) {
			s.PartKind, s.PartColumn, s.Partitions = PartRange, "k2", []PartitionSpec{{Name: "p", Upper: strDatum("a")}}
		}), 1105, "Column[k2] type[VARCHAR(32)] cannot be a range partition key."},
		{"partition column missing", mod(func(s *TableSpec) { s.PartKind, s.PartColumn = PartRange, "zz" }), 1105, "Partition column[zz] is not found"},
		{"agg partition on value", agg(func(s *TableSpec) {
			s.PartKind, s.PartColumn, s.Partitions = PartRange, "v", []PartitionSpec{{Name: "p", Upper: strDatum("1")}}
		}), 1105, "The partition column could not be aggregated column"},
		{"less than not increasing", mod(rng(PartitionSpec{Name: "p1", Upper: strDatum("2024-02-01")}, PartitionSpec{Name: "p2", Upper: strDatum("2024-01-01")})), 1105, ""},
		{"after maxvalue", mod(rng(PartitionSpec{Name: "p1"}, PartitionSpec{Name: "p2", Upper: strDatum("2024-01-01")})), 1105, ""},
		{"fixed ranges overlap", mod(rng(
			PartitionSpec{Name: "p1", Lower: strDatum("2024-01-01"), Upper: strDatum("2024-03-01")},
			PartitionSpec{Name: "p2", Lower: strDatum("2024-02-01"), Upper: strDatum("2024-04-01")})), 1105,
			"Range [2024-02-01, 2024-04-01) is intersected with range: [2024-01-01, 2024-03-01)"},
		{"fixed range empty", mod(rng(PartitionSpec{Name: "p1", Lower: strDatum("2024-03-01"), Upper: strDatum("2024-03-01")})), 1105,
			"The lower values must smaller than upper values"},
		{"less than overlaps fixed", mod(rng(
			PartitionSpec{Name: "p1", Lower: strDatum("2024-01-01"), Upper: strDatum("2024-03-01")},
			PartitionSpec{Name: "p0", Lower: strDatum("2023-01-01"), Upper: strDatum("2024-01-02")})), 1105, ""},
		{"bad date bound", mod(rng(PartitionSpec{Name: "p1", Upper: strDatum("2024-13-01")})), 1105, ""},
		{"dup partition name", mod(rng(PartitionSpec{Name: "p1", Upper: strDatum("2024-01-01")}, PartitionSpec{Name: "P1", Upper: strDatum("2024-02-01")})), 1105,
			"Duplicate partition name P1"},
		{"list duplicate value", mod(func(s *TableSpec) {
			s.PartKind, s.PartColumn = PartList, "k2"
			s.Partitions = []PartitionSpec{{Name: "a", Values: []types.Datum{types.StringDatum("x")}}, {Name: "b", Values: []types.Datum{types.StringDatum("x")}}}
		}), 1105, ""},
		{"list without values", mod(func(s *TableSpec) {
			s.PartKind, s.PartColumn = PartList, "k2"
			s.Partitions = []PartitionSpec{{Name: "a"}}
		}), 1105, ""},
		{"int bound out of range", mod(func(s *TableSpec) {
			s.Columns[2].Type = types.TinyIntT
			s.PartKind, s.PartColumn, s.Partitions = PartRange, "v", []PartitionSpec{{Name: "p", Upper: strDatum("300")}}
		}), 1105, ""},
		{"valid agg", agg(func(*TableSpec) {}), 0, ""},
		{"valid agg inferred keys", agg(func(s *TableSpec) { s.KeyColumns = nil; s.Name = "t4" }), 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newTestCatalog(t, 2)
			_, err := c.CreateTable("db", tc.spec, false)
			if tc.code == 0 && tc.name != "default replication 3 > 2 alive" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if tc.code == 0 {
				wantCode(t, err, 1105, "")
				return
			}
			wantCode(t, err, sqlerrCode(tc.code), tc.msg)
			if _, err := c.Table("db", tc.spec.Name); err == nil {
				t.Fatal("failed create left a table")
			}
		})
	}
}

func TestInferredKeys(t *testing.T) {
	c, _ := newTestCatalog(t, 1)
	s := &TableSpec{
		Name:    "a",
		Columns: []Column{col("k1", types.IntT), col("k2", types.IntT), aggCol("v", types.BigIntT, storage.AggMax)},
		Keys:    storage.AggKeys, Dist: DistSpec{Kind: DistHash, Columns: []string{"k2"}, Buckets: 1}, ReplicationNum: 1,
	}
	tb := mustCreate(t, c, "db", s)
	if tb.NumKeys != 2 || tb.Dist.Columns[0] != 1 {
		t.Fatal("agg keys not inferred", tb.NumKeys)
	}
	d := dupSpec("d", 1, 1)
	d.KeyColumns = nil
	if tb := mustCreate(t, c, "db", d); tb.NumKeys != 1 {
		t.Fatal("duplicate key not defaulted to the first column")
	}
}

// New tablets go to the least loaded backends: fewest replicas, then
// least data, then lowest id, each placed replica counting at once; never
// two replicas of a tablet on one backend; dead and decommissioned
// backends get none. In a fresh catalog the first table's bucket i is on
// the (i mod n)-th backend (DORIS-PLANNING.md's worked example).
func TestPlacementLeastLoaded(t *testing.T) {
	c, _ := newTestCatalog(t, 3) // backends 10000, 10001, 10002
	counts := func() map[BackendID]int {
		out := map[BackendID]int{}
		for _, tb := range c.tables {
			for _, p := range tb.Partitions {
				for _, tab := range p.Tablets {
					for _, r := range tab.Replicas {
						out[r.BackendID]++
					}
				}
			}
		}
		return out
	}
	t1 := mustCreate(t, c, "db", dupSpec("t1", 8, 1))
	if got := tabletIDs(t1.Partitions[0]); got[0] != 10100 || got[7] != 10107 {
		t.Fatalf("first table tablets %v", got)
	}
	want := []BackendID{10000, 10001, 10002, 10000, 10001, 10002, 10000, 10001}
	if got := firstBackends(t1.Partitions[0]); !reflect.DeepEqual(got, want) {
		t.Fatalf("first table on %v, want %v", got, want)
	}
	// The next table starts where the first left off (10002 holds 2, the
	// others 3), not at the lowest id.
	t2 := mustCreate(t, c, "db", dupSpec("t2", 2, 2))
	if got := tabletIDs(t2.Partitions[0]); got[0] != 10108 || got[1] != 10109 {
		t.Fatalf("second table tablets %v", got)
	}
	wantSets := [][]BackendID{{10002, 10000}, {10001, 10002}}
	for i, tb := range t2.Partitions[0].Tablets {
		var got []BackendID
		for _, r := range tb.Replicas {
			got = append(got, r.BackendID)
		}
		if !reflect.DeepEqual(got, wantSets[i]) {
			t.Fatalf("t2 bucket %d on %v, want %v", i, got, wantSets[i])
		}
	}
	if m := counts(); m[10000] != 4 || m[10001] != 4 || m[10002] != 4 {
		t.Fatalf("replicas per backend %v, want 4 each", m)
	}
	// Equal counts: the backend with the least data first. t3's one
	// tablet (on 10000) gets 1000 bytes; t4 evens the counts, and the
	// partitions below go to 10000 last among equals.
	t3 := mustCreate(t, c, "db", dupSpec("t3", 1, 1))
	if be := t3.Partitions[0].Tablets[0].Replicas[0].BackendID; be != 10000 {
		t.Fatalf("t3 on %d, want 10000 (all tied: lowest id)", be)
	}
	tx, err := c.BeginTxn("db", "l3", []TableID{t3.ID})
	if err != nil {
		t.Fatal(err)
	}
	tab := t3.Partitions[0].Tablets[0].ID
	if _, err := c.CommitTxn(tx.ID, []PartitionID{t3.Partitions[0].ID}, map[storage.TabletID]int64{tab: 10}, map[storage.TabletID]int64{tab: 1000}); err != nil {
		t.Fatal(err)
	}
	if err := c.FinishTxn(tx.ID); err != nil {
		t.Fatal(err)
	}
	t4 := mustCreate(t, c, "db", dupSpec("t4", 2, 1))
	if got := firstBackends(t4.Partitions[0]); !reflect.DeepEqual(got, []BackendID{10001, 10002}) {
		t.Fatalf("t4 on %v, want [10001 10002] (fewer replicas)", got)
	}
	// A partitioned table: each partition continues from the one before,
	// so the counts stay within one.
	rp := dupSpec("rp", 2, 1)
	rp.PartKind, rp.PartColumn = PartRange, "k1"
	rp.Partitions = []PartitionSpec{{Name: "p1", Upper: strDatum("10")}, {Name: "p2", Upper: strDatum("20")}, {Name: "p3", Upper: strDatum("30")}}
	trp := mustCreate(t, c, "db", rp)
	var got []BackendID
	for _, p := range trp.Partitions {
		got = append(got, firstBackends(p)...)
	}
	// 5 replicas each, 10000 holding data: 10001, 10002, then 10000 (one
	// fewer), 10001 (no data), 10002, 10000.
	if want := []BackendID{10001, 10002, 10000, 10001, 10002, 10000}; !reflect.DeepEqual(got, want) {
		t.Fatalf("partitions on %v, want %v", got, want)
	}
	// Replica ids are their own sequence, unique.
	ids := map[ReplicaID]bool{}
	for _, tb := range append(t1.Partitions[0].Tablets, t2.Partitions[0].Tablets...) {
		for _, r := range tb.Replicas {
			if ids[r.ID] {
				t.Fatal("duplicate replica id", r.ID)
			}
			ids[r.ID] = true
		}
	}

	// Dead and decommissioned backends get nothing; AUTO = alive count.
	c.SetBackendState(10001, false, "down", testNow)
	if err := c.SetBackendDecommissioned(10002, true); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateTable("db", dupSpec("t5", 2, 2), false); err == nil {
		t.Fatal("placed 2 replicas on 1 usable backend")
	}
	t5 := mustCreate(t, c, "db", dupSpec("t5", 0, 1))
	if t5.Dist.Buckets != 1 || t5.Partitions[0].Tablets[0].Replicas[0].BackendID != 10000 {
		t.Fatalf("AUTO buckets %d on %v", t5.Dist.Buckets, firstBackends(t5.Partitions[0]))
	}
	if err := c.SetBackendDecommissioned(10002, false); err != nil {
		t.Fatal(err)
	}
	// 10002 missed t5: it is the lighter one; then, counts equal, it
	// still holds less data than 10000 (10001 is still down).
	t6 := mustCreate(t, c, "db", dupSpec("t6", 0, 1))
	if t6.Dist.Buckets != 2 || !reflect.DeepEqual(firstBackends(t6.Partitions[0]), []BackendID{10002, 10002}) {
		t.Fatalf("AUTO buckets %d on %v", t6.Dist.Buckets, firstBackends(t6.Partitions[0]))
	}
}

func TestRangeAndListPartitions(t *testing.T) {
	c, _ := newTestCatalog(t, 3)
	s := dupSpec("r", 2, 1)
	s.Columns = append(s.Columns, col("dt", types.DateT))
	s.PartKind, s.PartColumn = PartRange, "dt"
	s.Partitions = []PartitionSpec{
		{Name: "p1", Upper: strDatum("2024-01-01")},
		{Name: "p2", Upper: strDatum("2024-02-01")},
		{Name: "p4", Lower: strDatum("2024-03-01"), Upper: strDatum("2024-04-01")},
		{Name: "pmax", Lower: strDatum("2024-04-01")},
	}
	tb := mustCreate(t, c, "db", s)
	wantBounds := [][2]string{{"MIN", "2024-01-01"}, {"2024-01-01", "2024-02-01"}, {"2024-03-01", "2024-04-01"}, {"2024-04-01", "MAX"}}
	for i, p := range tb.Partitions {
		lo, hi := "MIN", "MAX"
		if p.Lower != nil {
			lo = p.Lower.String()
			if p.Lower.T.Kind != types.Date {
				t.Fatal("bound not coerced to DATE")
			}
		}
		if p.Upper != nil {
			hi = p.Upper.String()
		}
		if [2]string{lo, hi} != wantBounds[i] {
			t.Fatalf("partition %s: [%s, %s)", p.Name, lo, hi)
		}
		if len(p.Tablets) != 2 {
			t.Fatal("tablets per partition")
		}
	}
	// Tablets consecutive across partitions of one table.
	var all []int64
	for _, p := range tb.Partitions {
		for _, id := range tabletIDs(p) {
			all = append(all, int64(id))
		}
	}
	for i := range all {
		if all[i] != 10100+int64(i) {
			t.Fatalf("tablet ids %v", all)
		}
	}
	if tb.PartitionByName("P2") != tb.Partitions[1] || tb.PartitionByID(tb.Partitions[3].ID) != tb.Partitions[3] {
		t.Fatal("partition lookup")
	}

	l := dupSpec("l", 1, 1)
	l.PartKind, l.PartColumn = PartList, "k1"
	l.Partitions = []PartitionSpec{{Name: "a", Values: []types.Datum{types.IntDatum(1), *strDatum("2")}}, {Name: "b", Values: []types.Datum{types.IntDatum(3)}}}
	lt := mustCreate(t, c, "db", l)
	if v := lt.Partitions[0].Values; len(v) != 2 || v[1].T.Kind != types.BigInt || v[1].I != 2 {
		t.Fatalf("list values %+v", v)
	}
	// Partitioned with no partitions is allowed (Doris too).
	e := dupSpec("empty", 1, 1)
	e.PartKind, e.PartColumn = PartList, "k1"
	if et := mustCreate(t, c, "db", e); len(et.Partitions) != 0 {
		t.Fatal("partitions appeared")
	}
}
