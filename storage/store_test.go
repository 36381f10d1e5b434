package storage

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/dorisgo/dorisgo/sql/types"
)

func TestRoundTripAllTypes(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sc := &TabletSchema{Columns: allTypes, Keys: DupKeys, NumKeys: 1}
	if err := s.CreateTablet(7, sc); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateTablet(7, sc); err != nil { // idempotent
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var want []row
	for i := 0; i < 3000; i++ {
		r := row{types.IntDatum(int64(i))}
		for _, c := range allTypes[1:] {
			r = append(r, randomDatum(rng, c.Type))
		}
		want = append(want, r)
	}
	// Empty strings and an all-NULL row.
	want[5][11], want[5][12], want[5][13] = types.Datum{T: allTypes[11].Type}, types.Datum{T: allTypes[12].Type}, types.Datum{T: allTypes[13].Type}
	for c := 1; c < len(allTypes); c++ {
		want[6][c] = types.NullDatum(allTypes[c].Type)
	}
	// Write through sliced records (non-zero Arrow offsets) in uneven pieces.
	rec := buildRecord(t, allTypes, append([]row{want[0]}, want...))
	for _, hi := range [][2]int64{{1, 1000}, {1000, 1001}, {1001, 3001}} {
		sl := rec.NewSlice(hi[0], hi[1])
		if err := s.Write(1, 7, sl); err != nil {
			t.Fatal(err)
		}
		sl.Release()
	}
	rec.Release()
	st, err := s.Prepare(1)
	if err != nil {
		t.Fatal(err)
	}
	if st[7].Rows != 3000 || st[7].Bytes <= 0 {
		t.Fatalf("prepare stats %+v", st)
	}
	if err := s.Publish(1, map[TabletID]Version{7: 2}); err != nil {
		t.Fatal(err)
	}
	req := ScanRequest{Tablet: 7, Version: 2, Columns: allCols(len(allTypes)), BatchRows: 700}
	equalRows(t, scanRows(t, s, req), want)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// A restart knows the schema and the rows.
	s, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, _ := s.Schema(7); !slices.Equal(got.Columns, allTypes) {
		t.Fatalf("schema after reopen: %+v", got)
	}
	if ids := s.Tablets(); !slices.Equal(ids, []TabletID{7}) {
		t.Fatalf("tablets %v", ids)
	}
	equalRows(t, scanRows(t, s, req), want)
	if ts, _ := s.TabletStats(7, 2); ts.Rows != 3000 || ts.Rowsets != 1 {
		t.Fatalf("stats %+v", ts)
	}
}

func intSchema(keys KeysType, names ...string) *TabletSchema {
	cols := make([]types.Column, len(names))
	for i, n := range names {
		cols[i] = types.Column{Name: n, Type: types.BigIntT, Nullable: i > 0}
	}
	return &TabletSchema{Columns: cols, Keys: keys, NumKeys: 1}
}

func ints(vs ...int64) row {
	r := make(row, len(vs))
	for i, v := range vs {
		r[i] = types.IntDatum(v)
	}
	return r
}

func TestProjectionAndEmptyColumns(t *testing.T) {
	s := openStore(t)
	if err := s.CreateTablet(1, intSchema(DupKeys, "a", "b", "c")); err != nil {
		t.Fatal(err)
	}
	var rows []row
	for i := int64(0); i < 100; i++ {
		rows = append(rows, ints(i, i*10, i*100))
	}
	load(t, s, 1, 1, 2, rows)
	got := scanRows(t, s, ScanRequest{Tablet: 1, Version: 2, Columns: []int{2, 0, 2}})
	for i, r := range got {
		if !slices.Equal(r, ints(int64(i)*100, int64(i), int64(i)*100)) {
			t.Fatalf("row %d = %v", i, r)
		}
	}
	it, err := s.Scan(context.Background(), ScanRequest{Tablet: 1, Version: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	n := int64(0)
	for {
		rec, err := it.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n += rec.NumRows()
		rec.Release()
	}
	if n != 100 {
		t.Fatalf("count(*) scan saw %d rows", n)
	}
	if _, err := s.Scan(context.Background(), ScanRequest{Tablet: 1, Version: 2, Columns: []int{3}}); err == nil {
		t.Fatal("want error for a column out of range")
	}
	if _, err := s.Scan(context.Background(), ScanRequest{Tablet: 99, Version: 2}); err == nil {
		t.Fatal("want error for an unknown tablet")
	}
}

func TestZoneMapPruning(t *testing.T) {
	s := openStore(t)
	if err := s.CreateTablet(1, intSchema(DupKeys, "k", "v")); err != nil {
		t.Fatal(err)
	}
	const n = 4 * segmentRows
	loadInts(t, s, 1, 1, 2, n, func(i int) int64 { return int64(i) }, func(i int) int64 { return int64(i % 7) })
	lo := types.IntDatum(3*segmentRows + 5)
	hi := types.Datum{T: types.DecimalT(20, 2), Dec: decimal128.FromI64(int64(3*segmentRows+9) * 100)}
	before := s.segmentsPruned.Load()
	got := scanRows(t, s, ScanRequest{Tablet: 1, Version: 2, Columns: []int{0},
		Ranges: []ColumnRange{{Column: 0, Lo: &lo, LoIncl: true, Hi: &hi, HiIncl: true}}})
	if p := s.segmentsPruned.Load() - before; p != 3 {
		t.Fatalf("pruned %d segments, want 3", p)
	}
	if len(got) != segmentRows || got[0][0].I != 3*segmentRows {
		t.Fatalf("read %d rows from %v", len(got), got[0])
	}
	// An exclusive bound at a segment's max prunes it too.
	edge := types.IntDatum(segmentRows - 1)
	before = s.segmentsPruned.Load()
	scanRows(t, s, ScanRequest{Tablet: 1, Version: 2, Columns: []int{0},
		Ranges: []ColumnRange{{Column: 0, Lo: &edge}}})
	if p := s.segmentsPruned.Load() - before; p != 1 {
		t.Fatalf("pruned %d segments, want 1", p)
	}
	// Incomparable bounds never prune.
	str := types.StringDatum("x")
	before = s.segmentsPruned.Load()
	scanRows(t, s, ScanRequest{Tablet: 1, Version: 2, Columns: []int{0},
		Ranges: []ColumnRange{{Column: 0, Lo: &str}}})
	if p := s.segmentsPruned.Load() - before; p != 0 {
		t.Fatalf("pruned %d segments with an incomparable bound", p)
	}
}

func TestCompareDatum(t *testing.T) {
	dec := func(v int64, s int) types.Datum {
		return types.Datum{T: types.DecimalT(30, s), Dec: decimal128.FromI64(v)}
	}
	date := types.Datum{T: types.DateT, I: 1}
	dt := types.Datum{T: types.DateTimeT, I: 86400e6}
	for _, c := range []struct {
		a, b types.Datum
		want int
		ok   bool
	}{
		{types.IntDatum(5), types.IntDatum(7), -1, true},
		{dec(150, 2), dec(15, 1), 0, true},
		{dec(150, 2), types.IntDatum(2), -1, true},
		{types.IntDatum(3), types.FloatDatum(2.5), 1, true},
		{types.StringDatum("ab"), types.StringDatum("b"), -1, true},
		{date, dt, 0, true},
		{types.StringDatum("1"), types.IntDatum(1), 0, false},
		{date, types.IntDatum(1), 0, false},
		{types.NullDatum(types.IntT), types.IntDatum(1), 0, false},
	} {
		got, ok := compareDatum(c.a, c.b)
		if got != c.want || ok != c.ok {
			t.Errorf("compare(%v, %v) = %d,%v want %d,%v", c.a, c.b, got, ok, c.want, c.ok)
		}
	}
}

func TestUniqueMerge(t *testing.T) {
	s := openStore(t)
	sc := &TabletSchema{Keys: UniqueKeys, NumKeys: 2, Columns: []types.Column{
		{Name: "k1", Type: types.IntT}, {Name: "k2", Type: types.VarcharT(10), Nullable: true},
		{Name: "v", Type: types.BigIntT, Nullable: true},
	}}
	if err := s.CreateTablet(1, sc); err != nil {
		t.Fatal(err)
	}
	k := func(a int64, b string, v int64) row {
		r := row{{T: types.IntT, I: a}, {T: sc.Columns[1].Type, S: b}, types.IntDatum(v)}
		if b == "NULL" {
			r[1] = types.NullDatum(sc.Columns[1].Type)
		}
		return r
	}
	load(t, s, 1, 1, 2, []row{k(2, "a", 1), k(1, "b", 2), k(1, "a", 3), k(1, "NULL", 4), k(-5, "", 5)})
	load(t, s, 1, 2, 3, []row{k(1, "b", 20), k(9, "z", 9), k(9, "z", 90)}) // last written wins within a rowset
	load(t, s, 1, 3, 5, []row{k(1, "NULL", 40), k(2, "a", 10)})
	v2 := []row{k(-5, "", 5), k(1, "NULL", 4), k(1, "a", 3), k(1, "b", 2), k(2, "a", 1)}
	v5 := []row{k(-5, "", 5), k(1, "NULL", 40), k(1, "a", 3), k(1, "b", 20), k(2, "a", 10), k(9, "z", 90)}
	all := []int{0, 1, 2}
	equalRows(t, scanRows(t, s, ScanRequest{Tablet: 1, Version: 2, Columns: all}), v2)
	// Version 4 has no rowset of this tablet: it reads as version 3.
	v3 := []row{k(-5, "", 5), k(1, "NULL", 4), k(1, "a", 3), k(1, "b", 20), k(2, "a", 1), k(9, "z", 90)}
	v3got := scanRows(t, s, ScanRequest{Tablet: 1, Version: 4, Columns: all})
	equalRows(t, v3got, v3)
	equalRows(t, scanRows(t, s, ScanRequest{Tablet: 1, Version: 5, Columns: all}), v5)
	// Projection without key columns still merges by key.
	got := scanRows(t, s, ScanRequest{Tablet: 1, Version: 5, Columns: []int{2}, BatchRows: 2})
	var want []row
	for _, r := range v5 {
		want = append(want, r[2:])
	}
	equalRows(t, got, want)
	// Compaction keeps the merged result; older versions still read.
	if err := s.Compact(1, 5); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.TabletStats(1, 5); st.Rowsets != 1 || st.Rows != 6 {
		t.Fatalf("after compaction: %+v", st)
	}
	equalRows(t, scanRows(t, s, ScanRequest{Tablet: 1, Version: 5, Columns: all}), v5)
	equalRows(t, scanRows(t, s, ScanRequest{Tablet: 1, Version: 3, Columns: all}), v3)
	// Key-range pruning is allowed on UNIQUE keys, value ranges are ignored.
	lo := types.IntDatum(100)
	equalRows(t, scanRows(t, s, ScanRequest{Tablet: 1, Version: 5, Columns: all,
		Ranges: []ColumnRange{{Column: 2, Lo: &lo}}}), v5)
	if got := scanRows(t, s, ScanRequest{Tablet: 1, Version: 5, Columns: all,
		Ranges: []ColumnRange{{Column: 0, Lo: &lo}}}); len(got) != 0 {
		t.Fatalf("key range beyond max returned %v", got)
	}
}
