package storage

import (
	"cmp"
	"slices"
	"testing"

	"github.com/dorisgo/dorisgo/sql/types"
)

// TestVersionColumn: a merge-on-write tablet's version column, stored as
// 0 by every load, reads as the version of the load that wrote the row;
// a stored value other than 0 reads as stored; after a full compaction
// into one rowset each row keeps the version it was written at, and a key
// replaced later shows the newer version.
func TestVersionColumn(t *testing.T) {
	cols := []types.Column{{Name: "k", Type: types.BigIntT}, {Name: "ver", Type: types.BigIntT}}
	r := func(k, ver int64) row { return row{types.IntDatum(k), types.IntDatum(ver)} }
	s := openStore(t)
	s.staleGrace = 0
	if err := s.CreateTablet(1, &TabletSchema{Keys: UniqueKeys, NumKeys: 1, MergeOnWrite: true, VersionCol: 2, Columns: cols}); err != nil {
		t.Fatal(err)
	}
	load(t, s, 1, 1, 2, []row{r(1, 0), r(2, 0), r(3, 0)})
	load(t, s, 1, 2, 3, []row{r(4, 0), r(5, 77)})
	load(t, s, 1, 3, 4, []row{r(2, 0)}) // replaces key 2
	want := []row{r(1, 2), r(2, 4), r(3, 2), r(4, 3), r(5, 77)}
	scan := func(v Version) []row {
		got := scanRows(t, s, ScanRequest{Tablet: 1, Version: v, Columns: []int{0, 1}})
		slices.SortFunc(got, func(a, b row) int { return cmp.Compare(a[0].I, b[0].I) })
		return got
	}
	equalRows(t, scan(4), want)
	equalRows(t, scan(3), []row{r(1, 2), r(2, 2), r(3, 2), r(4, 3), r(5, 77)})
	// The version column asked twice reads the same.
	twice := scanRows(t, s, ScanRequest{Tablet: 1, Version: 2, Columns: []int{1, 0, 1}})
	for _, x := range twice {
		if x[0].I != 2 || x[2].I != 2 {
			t.Fatalf("version column asked twice: %v", x)
		}
	}
	if err := s.Compact(1, 4); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.TabletStats(1, 4); st.Rowsets != 1 {
		t.Fatalf("after compaction %d rowsets, want 1", st.Rowsets)
	}
	equalRows(t, scan(4), want)
}
