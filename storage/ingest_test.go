package storage

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// rowsetKeys counts the live data keys of one rowset.
func rowsetKeys(t *testing.T, s *Store, tab TabletID, id rowsetID) int {
	t.Helper()
	n := 0
	if err := scanPrefix(s.db, rowsetDataPrefix(tab, id), func(k, v []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestIngestPath checks that a big rowset is written as an ingested sstable
// placed in the bottom level, reads back exactly, and that every crash
// point of the ingest path leaves either the whole prepared rowset or no
// trace of an unprepared one (no data keys, no leftover files).
func TestIngestPath(t *testing.T) {
	fs := vfs.NewCrashableMem()
	s, err := Open("db", Options{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateTablet(1, intSchema(DupKeys, "k", "v")); err != nil {
		t.Fatal(err)
	}
	n := 2*segmentRows + 100 // two full segments and a short one
	write := func(txn TxnID, v int64) *rowsetWriter {
		rec := intRecord(n, func(i int) int64 { return int64(i) }, func(int) int64 { return v })
		defer rec.Release()
		if err := s.Write(txn, 1, rec); err != nil {
			t.Fatal(err)
		}
		return s.writers(txn)[1]
	}
	// Txn 1: prepared (ingested, then marked prepared).
	w1 := write(1, 1)
	if _, err := s.Prepare(1); err != nil {
		t.Fatal(err)
	}
	if m := s.db.Metrics(); m.Levels[6].TablesIngested != 1 || m.Levels[0].TablesIngested != 0 {
		t.Errorf("ingested tables: L0 %d, L6 %d; want the file in L6",
			m.Levels[0].TablesIngested, m.Levels[6].TablesIngested)
	}
	if got := rowsetKeys(t, s, 1, w1.id); got != 3*3+1 {
		t.Fatalf("prepared rowset has %d data keys, want 3 segments × 3 and the file's end key", got)
	}
	// Txn 2: ingested but never prepared.
	w2 := write(2, 2)
	w2.mu.Lock()
	if err := w2.flush(); err != nil {
		t.Fatal(err)
	}
	w2.mu.Unlock()
	// Txn 3: marker synced, file finished but not yet ingested.
	w3 := write(3, 3)
	w3.mu.Lock()
	if err := w3.writeSegment(w3.bufRows); err != nil {
		t.Fatal(err)
	}
	if err := w3.sst.w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.db.Set(w3.marker, w3.markerValue(), pebble.Sync); err != nil {
		t.Fatal(err)
	}
	w3.sst = nil
	w3.mu.Unlock()
	// Txn 4: segments in an open file only.
	w4 := write(4, 4)
	if w4.sst == nil {
		t.Fatal("big segments did not go to an sstable")
	}
	// Txn 5: a crash inside Prepare after its synced prepared marker, before
	// its file is ingested.
	w5 := write(5, 5)
	w5.mu.Lock()
	if _, err := w5.finish(); err != nil {
		t.Fatal(err)
	}
	w5.prepped = true
	if err := s.db.Set(w5.marker, w5.pendingMeta().encode(), pebble.Sync); err != nil {
		t.Fatal(err)
	}
	w5.mu.Unlock()

	crashed := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 50, RNG: rand.New(rand.NewPCG(1, 2))})
	_ = s.Close()
	s, err = Open("db", Options{FS: crashed})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if p, _ := s.PendingTxns(); !slices.Equal(p, []TxnID{1}) {
		t.Fatalf("pending after crash: %v, want [1]", p)
	}
	for _, w := range []*rowsetWriter{w2, w3, w4, w5} {
		if got := rowsetKeys(t, s, 1, w.id); got != 0 {
			t.Errorf("unprepared rowset %d left %d data keys", w.id, got)
		}
	}
	if files, err := crashed.List("db/" + ingestDirName); err != nil || len(files) != 0 {
		t.Errorf("ingest directory after recovery: %v %v", files, err)
	}
	if err := s.Publish(1, map[TabletID]Version{1: 2}); err != nil {
		t.Fatal(err)
	}
	st, err := s.TabletStats(1, 2)
	if err != nil || st.Rows != int64(n) {
		t.Fatalf("stats %+v %v, want %d rows", st, err, n)
	}
	got := scanRows(t, s, ScanRequest{Tablet: 1, Version: 2, Columns: []int{0, 1}})
	if len(got) != n {
		t.Fatalf("scanned %d rows, want %d", len(got), n)
	}
	for i, r := range got {
		if r[1].I != 1 {
			t.Fatalf("row %d = %v", i, r)
		}
	}
}

// TestIngestAbortAndSmallRowsets checks that Abort drops an open sstable
// and ingested data, and that small rowsets stay on the batch path.
func TestIngestAbortAndSmallRowsets(t *testing.T) {
	s := openStore(t)
	if err := s.CreateTablet(1, intSchema(DupKeys, "k", "v")); err != nil {
		t.Fatal(err)
	}
	loadInts(t, s, 1, 1, 2, 10, func(i int) int64 { return int64(i) }, func(int) int64 { return 0 })
	if m := s.db.Metrics(); m.Levels[6].TablesIngested != 0 {
		t.Errorf("a 10-row rowset was ingested as a file")
	}
	rec := intRecord(segmentRows+5, func(i int) int64 { return int64(i) }, func(int) int64 { return 1 })
	defer rec.Release()
	if err := s.Write(2, 1, rec); err != nil {
		t.Fatal(err)
	}
	w := s.writers(2)[1]
	w.mu.Lock()
	if err := w.flush(); err != nil { // ingested
		t.Fatal(err)
	}
	w.mu.Unlock()
	if err := s.Write(2, 1, rec); err != nil { // an open file again
		t.Fatal(err)
	}
	if err := s.Abort(2); err != nil {
		t.Fatal(err)
	}
	if got := rowsetKeys(t, s, 1, w.id); got != 0 {
		t.Errorf("aborted rowset left %d data keys", got)
	}
	if files, err := s.ing.fs.List(s.ing.dir); err != nil || len(files) != 0 {
		t.Errorf("ingest directory after abort: %v %v", files, err)
	}
	if st, _ := s.TabletStats(1, 10); st.Rows != 10 {
		t.Errorf("stats after abort %+v", st)
	}
}
