package storage

import (
	"testing"
	"time"
)

// A dropped tablet's disk comes back soon after the drop, without further
// writes to the store (the background loop compacts its data away); the
// other tablet's rows stay readable.
func TestDropTabletReclaimsDisk(t *testing.T) {
	s := openStore(t)
	sc := intSchema(DupKeys, "k", "v")
	for _, id := range []TabletID{1, 2} {
		if err := s.CreateTablet(id, sc); err != nil {
			t.Fatal(err)
		}
	}
	// Values that do not compress away: a multiplicative hash of the row.
	for i := 0; i < 4; i++ {
		loadInts(t, s, 1, TxnID(i+1), Version(i+2), 100_000,
			func(r int) int64 { return int64(i*100_000 + r) }, func(r int) int64 { return int64(uint64(i*100_000+r) * 0x9E3779B97F4A7C15) })
	}
	loadInts(t, s, 2, 9, 2, 10, func(r int) int64 { return int64(r) }, func(r int) int64 { return int64(r * 3) })
	if err := s.db.Flush(); err != nil {
		t.Fatal(err)
	}
	before := s.DiskUsage()
	if before < 3<<20 { // the hashes take 8 bytes a row, the keys 4 (FOR)
		t.Fatalf("%d bytes on disk after 400000 rows, want several MB", before)
	}
	if err := s.DropTablet(1); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for s.DiskUsage() > before/4 {
		if time.Now().After(deadline) {
			t.Fatalf("disk usage %d bytes 15 s after dropping the tablet, %d before", s.DiskUsage(), before)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := scanRows(t, s, ScanRequest{Tablet: 2, Version: 2, Columns: []int{0, 1}}); len(got) != 10 {
		t.Errorf("the other tablet has %d rows after the drop, want 10", len(got))
	}
	if _, err := s.Schema(1); err == nil {
		t.Error("the dropped tablet still has a schema")
	}
}
