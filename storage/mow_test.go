package storage

import (
	"cmp"
	"math"
	"slices"
	"testing"

	"github.com/dorisgo/dorisgo/sql/types"
)

var mowCols = []types.Column{
	{Name: "k", Type: types.BigIntT},
	{Name: "v", Type: types.VarcharT(16), Nullable: true},
}

func mowSchema() *TabletSchema {
	return &TabletSchema{Keys: UniqueKeys, NumKeys: 1, MergeOnWrite: true, Columns: mowCols}
}

func kv(k int64, v string) row {
	return row{types.IntDatum(k), {T: mowCols[1].Type, S: v}}
}

func sortedScan(t *testing.T, s *Store, tab TabletID, v Version) []row {
	t.Helper()
	got := scanRows(t, s, ScanRequest{Tablet: tab, Version: v, Columns: []int{0, 1}})
	slices.SortFunc(got, func(a, b row) int { return cmp.Compare(a[0].I, b[0].I) })
	return got
}

// countPrefix counts the store's keys with prefix p of tablet t.
func countPrefix(t *testing.T, s *Store, p byte, tab TabletID) int {
	t.Helper()
	n := 0
	if err := scanPrefix(s.db, tabletPrefix(p, tab), func(k, v []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestMergeOnWriteBitmaps: a load replacing keys marks the older rows in
// delete bitmaps at its version, so a scan at that version sees each key
// once (newest value) without merging and a scan at the older version
// still sees the old rows; a key written twice in one load keeps its
// later row; compaction writes only the live rows and, once its inputs
// are collected, no bitmap is left; the state survives a reopen.
func TestMergeOnWriteBitmaps(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	const tab = TabletID(7)
	if err := s.CreateTablet(tab, mowSchema()); err != nil {
		t.Fatal(err)
	}
	load(t, s, tab, 1, 2, []row{kv(1, "a"), kv(2, "b"), kv(3, "c"), kv(4, "d"), kv(5, "e")})
	load(t, s, tab, 2, 3, []row{kv(4, "D"), kv(3, "x"), kv(6, "f"), kv(3, "y"), kv(2, "B")})
	want3 := []row{kv(1, "a"), kv(2, "B"), kv(3, "y"), kv(4, "D"), kv(5, "e"), kv(6, "f")}
	equalRows(t, sortedScan(t, s, tab, 3), want3)
	equalRows(t, sortedScan(t, s, tab, 2), []row{kv(1, "a"), kv(2, "b"), kv(3, "c"), kv(4, "d"), kv(5, "e")})
	if n := countPrefix(t, s, pfxBitmap, tab); n != 2 {
		t.Fatalf("%d bitmap keys, want 2 (the old rowset's segment and the load's own)", n)
	}
	// A value-column range prunes segments of a merge-on-write tablet:
	// the first rowset holds only lower-case values.
	before := s.segmentsPruned.Load()
	got := scanRows(t, s, ScanRequest{Tablet: tab, Version: 3, Columns: []int{0, 1},
		Ranges: []ColumnRange{{Column: 1, Lo: &types.Datum{T: mowCols[1].Type, S: "A"}, LoIncl: true, Hi: &types.Datum{T: mowCols[1].Type, S: "Z"}, HiIncl: true}}})
	if s.segmentsPruned.Load()-before != 1 || len(got) != 4 {
		t.Fatalf("value range: %d segments pruned, %d rows; want 1 and the second rowset's 4 live rows", s.segmentsPruned.Load()-before, len(got))
	}

	// Reopen: the bitmaps were published with the rowset.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	equalRows(t, sortedScan(t, s, tab, 3), want3)

	s.staleGrace = 0
	if err := s.Compact(tab, math.MaxInt64); err != nil {
		t.Fatal(err)
	}
	st, err := s.TabletStats(tab, 3)
	if err != nil {
		t.Fatal(err)
	}
	if st.Rowsets != 1 || st.Rows != 6 {
		t.Fatalf("after compaction: %+v, want 1 rowset of the 6 live rows", st)
	}
	if n := countPrefix(t, s, pfxBitmap, tab); n != 0 {
		t.Fatalf("%d bitmap keys after compaction, want 0", n)
	}
	equalRows(t, sortedScan(t, s, tab, 3), want3)
	load(t, s, tab, 3, 4, []row{kv(1, "z")})
	want4 := append([]row{kv(1, "z")}, want3[1:]...)
	equalRows(t, sortedScan(t, s, tab, 4), want4)
}

// TestMergeOnWriteCompactionRace: a load published while a compaction
// runs marks the compaction's inputs; installing the output marks the
// same keys in it, so no key shows twice.
func TestMergeOnWriteCompactionRace(t *testing.T) {
	s := openStore(t)
	const tab = TabletID(8)
	if err := s.CreateTablet(tab, mowSchema()); err != nil {
		t.Fatal(err)
	}
	load(t, s, tab, 1, 2, []row{kv(1, "a"), kv(2, "b")})
	load(t, s, tab, 2, 3, []row{kv(2, "c"), kv(3, "d")})
	s.beforeInstall = func(TabletID) {
		s.beforeInstall = nil
		load(t, s, tab, 3, 4, []row{kv(1, "e"), kv(3, "f")})
	}
	if err := s.Compact(tab, 3); err != nil {
		t.Fatal(err)
	}
	st, _ := s.TabletStats(tab, 4)
	if st.Rowsets != 2 {
		t.Fatalf("%d rowsets, want the compacted one and the racing load", st.Rowsets)
	}
	equalRows(t, sortedScan(t, s, tab, 4), []row{kv(1, "e"), kv(2, "c"), kv(3, "f")})
	equalRows(t, sortedScan(t, s, tab, 3), []row{kv(1, "a"), kv(2, "c"), kv(3, "d")})
}

// TestMergeOnWriteBigLoad: loads of several segments (written through an
// ingested sstable) look their keys up per segment.
func TestMergeOnWriteBigLoad(t *testing.T) {
	s := openStore(t)
	const tab = TabletID(9)
	sc := &TabletSchema{Keys: UniqueKeys, NumKeys: 1, MergeOnWrite: true, Columns: []types.Column{
		{Name: "a", Type: types.BigIntT}, {Name: "b", Type: types.BigIntT, Nullable: true}}}
	if err := s.CreateTablet(tab, sc); err != nil {
		t.Fatal(err)
	}
	const n = 150000
	loadInts(t, s, tab, 1, 2, n, func(i int) int64 { return int64(i) }, func(i int) int64 { return 0 })
	// Every 7th key again, plus keys past the end.
	loadInts(t, s, tab, 2, 3, n/7+10, func(i int) int64 { return int64(i * 7) }, func(i int) int64 { return 1 })
	got := scanRows(t, s, ScanRequest{Tablet: tab, Version: 3, Columns: []int{0, 1}})
	seen := map[int64]int64{}
	for _, r := range got {
		if _, dup := seen[r[0].I]; dup {
			t.Fatalf("key %d twice", r[0].I)
		}
		seen[r[0].I] = r[1].I
	}
	extra := 0 // multiples of 7 loaded past the first load's keys
	for i := 0; i < n/7+10; i++ {
		if i*7 >= n {
			extra++
		}
	}
	if len(seen) != n+extra {
		t.Fatalf("%d keys, want %d", len(seen), n+extra)
	}
	for k, v := range seen {
		want := int64(0)
		if k%7 == 0 {
			want = 1
		}
		if v != want {
			t.Fatalf("key %d = %d, want %d", k, v, want)
		}
	}
}

// TestWritePartial: a partial update takes the columns it does not give
// from each key's live row; a new key, or one whose live row carries the
// delete sign, keeps what the record holds.
func TestWritePartial(t *testing.T) {
	s := openStore(t)
	const tab = TabletID(10)
	cols := []types.Column{
		{Name: "k", Type: types.BigIntT},
		{Name: "a", Type: types.BigIntT, Nullable: true},
		{Name: "b", Type: types.VarcharT(16), Nullable: true},
		{Name: "sign", Type: types.TinyIntT},
	}
	if err := s.CreateTablet(tab, &TabletSchema{Keys: UniqueKeys, NumKeys: 1, MergeOnWrite: true, Columns: cols}); err != nil {
		t.Fatal(err)
	}
	r := func(k int64, a int64, b string, sign int64) row {
		return row{types.IntDatum(k), types.IntDatum(a), {T: cols[2].Type, S: b}, {T: types.TinyIntT, I: sign}}
	}
	load(t, s, tab, 1, 2, []row{r(1, 10, "x", 0), r(2, 20, "y", 0), r(3, 30, "z", 1)})
	load(t, s, tab, 2, 3, []row{r(2, 21, "yy", 0)}) // key 2's live row is now the newer one
	// Partial load giving k and a (b filled): 1 and 2 exist, 3 is deleted, 4 is new.
	rec := buildRecord(t, cols, []row{r(1, 11, "dflt", 0), r(2, 22, "dflt", 0), r(3, 33, "dflt", 0), r(4, 44, "dflt", 0)})
	defer rec.Release()
	if err := s.WritePartial(3, tab, rec, PartialUpdate{Fill: []int{2}, Sign: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prepare(3); err != nil {
		t.Fatal(err)
	}
	if err := s.Publish(3, map[TabletID]Version{tab: 4}); err != nil {
		t.Fatal(err)
	}
	got := scanRows(t, s, ScanRequest{Tablet: tab, Version: 4, Columns: []int{0, 1, 2, 3}})
	slices.SortFunc(got, func(a, b row) int { return cmp.Compare(a[0].I, b[0].I) })
	equalRows(t, got, []row{r(1, 11, "x", 0), r(2, 22, "yy", 0), r(3, 33, "dflt", 0), r(4, 44, "dflt", 0)})
	// Merge-on-read tablets refuse.
	if err := s.CreateTablet(11, &TabletSchema{Keys: UniqueKeys, NumKeys: 1, Columns: cols}); err != nil {
		t.Fatal(err)
	}
	if err := s.WritePartial(4, 11, rec, PartialUpdate{Fill: []int{2}, Sign: 3}); err == nil {
		t.Fatal("partial update of a merge-on-read tablet succeeded")
	}
}

// TestCompactionDropsDeleteSign: a compaction from the first rowset drops
// the rows whose delete sign is 1 (merge-on-write and merge-on-read), as
// nothing older is left for them to delete; one that starts later keeps
// them.
func TestCompactionDropsDeleteSign(t *testing.T) {
	cols := []types.Column{{Name: "k", Type: types.BigIntT}, {Name: "v", Type: types.BigIntT, Nullable: true}, {Name: "sign", Type: types.TinyIntT}}
	r := func(k, v, sign int64) row {
		return row{types.IntDatum(k), types.IntDatum(v), {T: types.TinyIntT, I: sign}}
	}
	for _, mow := range []bool{true, false} {
		s := openStore(t)
		s.staleGrace = 0
		if err := s.CreateTablet(1, &TabletSchema{Keys: UniqueKeys, NumKeys: 1, MergeOnWrite: mow, DeleteSign: 3, Columns: cols}); err != nil {
			t.Fatal(err)
		}
		// A first rowset too big for cumulative compaction to rewrite.
		first := []row{r(1, 10, 0), r(2, 20, 0), r(3, 30, 0)}
		for k := int64(100); len(first) < compactSmallRows; k++ {
			first = append(first, r(k, k, 1)) // deleting rows of keys never loaded
		}
		load(t, s, 1, 1, 2, first)
		load(t, s, 1, 2, 3, []row{r(1, 0, 1)})
		load(t, s, 1, 3, 4, []row{r(2, 0, 1)})
		// Only the two newest: the sign rows must stay (they delete 1 and 2).
		if err := s.compact(1, 4, true); err != nil {
			t.Fatal(err)
		}
		got := scanRows(t, s, ScanRequest{Tablet: 1, Version: 4, Columns: []int{0, 2}})
		slices.SortFunc(got, func(a, b row) int { return cmp.Compare(a[0].I, b[0].I) })
		equalRows(t, got[:3], []row{{types.IntDatum(1), {T: types.TinyIntT, I: 1}}, {types.IntDatum(2), {T: types.TinyIntT, I: 1}}, {types.IntDatum(3), {T: types.TinyIntT, I: 0}}})
		if st, _ := s.TabletStats(1, 4); st.Rowsets != 2 {
			t.Fatalf("mow=%v: after cumulative compaction %d rowsets, want the first and the merged newer two", mow, st.Rowsets)
		}
		if err := s.Compact(1, 4); err != nil {
			t.Fatal(err)
		}
		got = scanRows(t, s, ScanRequest{Tablet: 1, Version: 4, Columns: []int{0, 1, 2}})
		equalRows(t, got, []row{r(3, 30, 0)})
		if st, _ := s.TabletStats(1, 4); st.Rows != 1 || st.Rowsets != 1 {
			t.Fatalf("mow=%v: after base compaction %+v, want one rowset of one row", mow, st)
		}
	}
}
