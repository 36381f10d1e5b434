package storage

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestConcurrentPublishScan checks every scan at a published version sees
// exactly that version's rows while publishes and auto compactions run.
func TestConcurrentPublishScan(t *testing.T) {
	s := openStore(t)
	if err := s.CreateTablet(1, intSchema(DupKeys, "k", "v")); err != nil {
		t.Fatal(err)
	}
	const loads = 40
	var visible atomic.Int64
	visible.Store(1)
	var wg sync.WaitGroup
	var loadErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer visible.Store(loads + 1) // also ends the scan loop on error
		for v := int64(2); v <= loads+1; v++ {
			rec := intRecord(3, func(int) int64 { return v }, func(i int) int64 { return int64(i) })
			loadErr = s.Write(TxnID(v), 1, rec)
			rec.Release()
			if loadErr == nil {
				loadErr = s.Publish(TxnID(v), map[TabletID]Version{1: Version(v)})
			}
			if loadErr != nil {
				return
			}
			visible.Store(v)
		}
	}()
	for done := false; !done; {
		v := visible.Load()
		done = v == loads+1
		got := scanRows(t, s, ScanRequest{Tablet: 1, Version: Version(v), Columns: []int{0}})
		if len(got) != int(3*(v-1)) {
			t.Fatalf("scan at %d saw %d rows, want %d", v, len(got), 3*(v-1))
		}
	}
	wg.Wait()
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	if err := s.Compact(1, loads+1); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.TabletStats(1, loads+1); st.Rowsets != 1 || st.Rows != 3*loads {
		t.Fatalf("stats %+v", st)
	}
	if p := s.lastBgErr.Load(); p != nil {
		t.Fatal(*p)
	}
}

// TestCumulativeCompaction: the background keeps a big base rowset and
// merges only the small newer ones; two big rowsets are left alone.
func TestCumulativeCompaction(t *testing.T) {
	s := openStore(t)
	if err := s.CreateTablet(1, intSchema(UniqueKeys, "k", "v")); err != nil {
		t.Fatal(err)
	}
	const base = compactSmallRows + 100
	loadInts(t, s, 1, 1, 2, base, func(i int) int64 { return int64(i) }, func(int) int64 { return 0 })
	for v := int64(3); v < 8; v++ {
		loadInts(t, s, 1, TxnID(v), Version(v), 1, func(int) int64 { return v }, func(int) int64 { return v })
	}
	if err := s.compact(1, 100, true); err != nil {
		t.Fatal(err)
	}
	all, _ := readRowsets(s.db, 1)
	vis := visibleRowsets(all, 100)
	if len(vis) != 2 || vis[0].Rows != base || vis[1].Start != 3 || vis[1].End != 7 {
		t.Fatalf("visible after cumulative compaction: %+v", vis)
	}
	got := scanRows(t, s, ScanRequest{Tablet: 1, Version: 7, Columns: []int{0, 1}})
	if len(got) != base || got[5][1].I != 5 || got[8][1].I != 0 {
		t.Fatalf("got %d rows: %v %v", len(got), got[5], got[8])
	}
	// A second big load: nothing small to merge.
	loadInts(t, s, 1, 8, 8, base, func(i int) int64 { return int64(base + i) }, func(int) int64 { return 1 })
	if err := s.compact(1, 100, true); err != nil {
		t.Fatal(err)
	}
	all, _ = readRowsets(s.db, 1)
	if vis := visibleRowsets(all, 100); len(vis) != 3 {
		t.Fatalf("big rowsets were merged: %+v", vis)
	}
}
