package storage

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// cloneFrom feeds InstallClone a scan of src's tablet at v.
func cloneFrom(t *testing.T, src, dst *Store, tab TabletID, v Version) RowsetStats {
	t.Helper()
	sc, _ := src.Schema(tab)
	it, err := src.Scan(context.Background(), ScanRequest{Tablet: tab, Version: v, Columns: allCols(len(sc.Columns))})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	st, err := dst.InstallClone(tab, sc, v, func() (arrow.Record, error) { return it.Next() })
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// A clone replaces every published rowset of the replica by the source's
// rows at v (UNIQUE keys merged), keeps pending rowsets, which publish on
// top of it, and refuses scans older than v.
func TestInstallClone(t *testing.T) {
	src, dst := openStore(t), openStore(t)
	sc := intSchema(UniqueKeys, "k", "v")
	for _, s := range []*Store{src, dst} {
		if err := s.CreateTablet(5, sc); err != nil {
			t.Fatal(err)
		}
	}
	load(t, src, 5, 1, 2, []row{ints(1, 10), ints(2, 20)})
	load(t, src, 5, 2, 3, []row{ints(2, 21), ints(3, 30)})
	// The lagging replica has version 2 only, and a stale row.
	load(t, dst, 5, 1, 2, []row{ints(1, 10), ints(9, 90)})
	// A load in flight on it: written, prepared, not yet published.
	rec := buildRecord(t, sc.Columns, []row{ints(4, 40)})
	if err := dst.Write(7, 5, rec); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	if _, err := dst.Prepare(7); err != nil {
		t.Fatal(err)
	}
	if st := cloneFrom(t, src, dst, 5, 3); st.Rows != 3 {
		t.Fatalf("clone installed %d rows, want 3", st.Rows)
	}
	equalRows(t, scanRows(t, dst, ScanRequest{Tablet: 5, Version: 3, Columns: []int{0, 1}}),
		[]row{ints(1, 10), ints(2, 21), ints(3, 30)})
	if err := dst.Publish(7, map[TabletID]Version{5: 4}); err != nil {
		t.Fatal(err)
	}
	equalRows(t, scanRows(t, dst, ScanRequest{Tablet: 5, Version: 4, Columns: []int{0, 1}}),
		[]row{ints(1, 10), ints(2, 21), ints(3, 30), ints(4, 40)})
	it, err := dst.Scan(context.Background(), ScanRequest{Tablet: 5, Version: 2, Columns: []int{0}})
	if err == nil { // the check may come with the first batch
		_, err = it.Next()
		it.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "E-230") {
		t.Fatalf("scan older than the clone: %v, want E-230", err)
	}
	// A clone into a store without the tablet creates it; a failing feed
	// installs nothing.
	other := openStore(t)
	boom := errors.New("stream broke")
	if _, err := other.InstallClone(5, sc, 3, func() (arrow.Record, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("broken clone: %v", err)
	}
	if st, _ := other.TabletStats(5, 3); st.Rows != 0 {
		t.Fatalf("a broken clone left %d rows", st.Rows)
	}
	cloneFrom(t, src, other, 5, 3)
	equalRows(t, scanRows(t, other, ScanRequest{Tablet: 5, Version: 3, Columns: []int{0, 1}}),
		[]row{ints(1, 10), ints(2, 21), ints(3, 30)})
}
