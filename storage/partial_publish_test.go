package storage

import (
	"cmp"
	"slices"
	"testing"

	"github.com/dorisgo/dorisgo/sql/types"
)

// partialCols: key k, two value columns a and b, the delete sign.
var partialCols = []types.Column{
	{Name: "k", Type: types.BigIntT},
	{Name: "a", Type: types.BigIntT, Nullable: true},
	{Name: "b", Type: types.BigIntT, Nullable: true},
	{Name: "sign", Type: types.TinyIntT},
}

func pRow(k, a, b, sign int64) row {
	return row{types.IntDatum(k), types.IntDatum(a), types.IntDatum(b), {T: types.TinyIntT, I: sign}}
}

func partialStore(t *testing.T, dir string) *Store {
	t.Helper()
	var s *Store
	var err error
	if dir == "" {
		s = openStore(t)
	} else if s, err = Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Schema(1); err != nil {
		if err := s.CreateTablet(1, &TabletSchema{Keys: UniqueKeys, NumKeys: 1, MergeOnWrite: true, DeleteSign: 4, Columns: partialCols}); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// writePartial writes a partial update of column col (1: a, 2: b) of the
// keys to val, the other value column filled, and prepares it.
func writePartial(t *testing.T, s *Store, txn TxnID, col int, val int64, keys ...int64) {
	t.Helper()
	var rows []row
	for _, k := range keys {
		r := pRow(k, -1, -1, 0) // -1: the placeholder a new key keeps
		r[col] = types.IntDatum(val)
		rows = append(rows, r)
	}
	rec := buildRecord(t, partialCols, rows)
	defer rec.Release()
	if err := s.WritePartial(txn, 1, rec, PartialUpdate{Fill: []int{3 - col}, Sign: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prepare(txn); err != nil {
		t.Fatal(err)
	}
}

func publish(t *testing.T, s *Store, txn TxnID, v Version) {
	t.Helper()
	if err := s.Publish(txn, map[TabletID]Version{1: v}); err != nil {
		t.Fatal(err)
	}
}

func partialRows(t *testing.T, s *Store, v Version) []row {
	t.Helper()
	got := scanRows(t, s, ScanRequest{Tablet: 1, Version: v, Columns: []int{0, 1, 2, 3}})
	slices.SortFunc(got, func(a, b row) int { return cmp.Compare(a[0].I, b[0].I) })
	return got
}

// Two concurrent partial updates of different columns of the same keys,
// A (a = 11, version 3) and B (b = 200, version 4), on three replicas
// that saw them in different orders: one filled B after publishing A,
// one filled B before publishing A, and one lagged (it missed A, and a
// clone from a healthy replica caught it up between B's fill and B's
// publish). Each ends with A's a and B's b on every key, as if the loads
// had run one after the other; before publish-time refilling the second
// replica kept the old a (A's update lost) and the third kept its stale b.
func TestPartialUpdateConflictsAtPublish(t *testing.T) {
	base := []row{pRow(1, 10, 100, 0), pRow(2, 20, 200, 0), pRow(3, 30, 300, 0)}
	want := []row{pRow(1, 11, 1000, 0), pRow(2, 11, 1000, 0), pRow(3, 30, 1000, 0), pRow(4, -1, 1000, 0)}

	// After: A published before B's rows came.
	after := partialStore(t, "")
	load(t, after, 1, 1, 2, base)
	writePartial(t, after, 2, 1, 11, 1, 2)
	publish(t, after, 2, 3)
	writePartial(t, after, 3, 2, 1000, 1, 2, 3, 4)
	publish(t, after, 3, 4)
	equalRows(t, partialRows(t, after, 4), want)

	// Before: B's rows came (filled from version 2), then A published.
	before := partialStore(t, "")
	load(t, before, 1, 1, 2, base)
	writePartial(t, before, 2, 1, 11, 1, 2)
	writePartial(t, before, 3, 2, 1000, 1, 2, 3, 4)
	publish(t, before, 2, 3)
	publish(t, before, 3, 4)
	equalRows(t, partialRows(t, before, 4), want)

	// Lagging: a stale b on key 3 (it missed a version that set it), no
	// A; B filled from that; then cloned at version 3 from a healthy one.
	lag := partialStore(t, "")
	load(t, lag, 1, 1, 2, []row{pRow(1, 10, 100, 0), pRow(2, 20, 200, 0), pRow(3, 7, 7, 0)})
	writePartial(t, lag, 3, 2, 1000, 1, 2, 3, 4)
	cloneFrom(t, after, lag, 1, 3)
	publish(t, lag, 3, 4)
	equalRows(t, partialRows(t, lag, 4), want)

	// Publishing again is a no-op; the versions below stay readable.
	publish(t, before, 3, 4)
	equalRows(t, partialRows(t, before, 3), []row{pRow(1, 11, 100, 0), pRow(2, 11, 200, 0), pRow(3, 30, 300, 0)})
}

// A key deleted (delete sign) by a load published between a partial
// update's fill and its publish is a new key again: it gets the load's
// placeholder, not the deleted row's values. And a replica restarted
// between its fill and its publish still fills again at publish (the
// rowset's base is in its pending marker): the restarted one gets the
// column default for the deleted key (the placeholder is gone with the
// process) and the right values for the others.
func TestPartialUpdateRefillDeletedAndRestart(t *testing.T) {
	s := partialStore(t, "")
	load(t, s, 1, 1, 2, []row{pRow(1, 10, 100, 0), pRow(2, 20, 200, 0)})
	writePartial(t, s, 3, 2, 1000, 1, 2)
	load(t, s, 1, 2, 3, []row{pRow(1, 10, 100, 1), pRow(2, 21, 201, 0)})
	publish(t, s, 3, 4)
	equalRows(t, partialRows(t, s, 4), []row{pRow(1, -1, 1000, 0), pRow(2, 21, 1000, 0)})

	dir := t.TempDir()
	r := partialStore(t, dir)
	load(t, r, 1, 1, 2, []row{pRow(1, 10, 100, 0), pRow(2, 20, 200, 0)})
	writePartial(t, r, 3, 2, 1000, 1, 2)
	// A prepared, not yet published load that sets a on key 2 and deletes 1.
	rec := buildRecord(t, partialCols, []row{pRow(1, 10, 100, 1), pRow(2, 21, 201, 0)})
	if err := r.Write(2, 1, rec); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	if _, err := r.Prepare(2); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	r = partialStore(t, dir)
	defer r.Close()
	publish(t, r, 2, 3)
	publish(t, r, 3, 4)
	got := partialRows(t, r, 4)
	if len(got) != 2 || !got[0][1].Null || got[0][2].I != 1000 || got[1][1].I != 21 || got[1][2].I != 1000 {
		t.Fatalf("after a restart: %v, want key 1 (NULL, 1000) and key 2 (21, 1000)", got)
	}
}

// A big partial update (its refilled rows go through an ingested sstable)
// whose base a compaction rewrote and a concurrent load changed before it
// published: every key is filled again from the compacted rowset, and the
// concurrently loaded value wins on the keys that load touched.
func TestPartialUpdateRefillBigAfterCompaction(t *testing.T) {
	const n = 20000 // × 4 columns: past ingestMinCells
	s := partialStore(t, "")
	var base []row
	keys := make([]int64, n)
	for k := range keys {
		keys[k] = int64(k)
		base = append(base, pRow(int64(k), 1, 1, 0))
	}
	load(t, s, 1, 1, 2, base)
	writePartial(t, s, 9, 2, 5, keys...) // b = 5, a filled from version 2
	load(t, s, 1, 2, 3, []row{pRow(7, 70, 70, 0), pRow(8, 80, 80, 0)})
	if err := s.Compact(1, 3); err != nil {
		t.Fatal(err)
	}
	publish(t, s, 9, 4)
	got := partialRows(t, s, 4)
	if len(got) != n {
		t.Fatalf("%d rows, want %d", len(got), n)
	}
	for _, r := range got {
		wantA := int64(1)
		if r[0].I == 7 || r[0].I == 8 {
			wantA = r[0].I * 10
		}
		if r[1].I != wantA || r[2].I != 5 {
			t.Fatalf("key %d: a %d, b %d; want %d, 5", r[0].I, r[1].I, r[2].I, wantA)
		}
	}
}

// A key deleted (delete sign) after a partial update's fill and then
// compacted away before its publish (a base compaction drops the deleted
// rows, so no rowset the fill did not read holds the key any more) is
// still a new key at publish: it gets the load's placeholder, not the
// values its fill read from the row the delete removed. So does a replica
// cloned, between the fill and the publish, from one that compacted so.
func TestPartialUpdateRefillDeletedThenCompacted(t *testing.T) {
	want := []row{pRow(1, -1, 1000, 0), pRow(2, 21, 1000, 0)}
	s := partialStore(t, "")
	load(t, s, 1, 1, 2, []row{pRow(1, 10, 100, 0), pRow(2, 20, 200, 0)})
	writePartial(t, s, 3, 2, 1000, 1, 2) // a filled from version 2
	load(t, s, 1, 2, 3, []row{pRow(1, 10, 100, 1), pRow(2, 21, 201, 0)})
	if err := s.Compact(1, 3); err != nil {
		t.Fatal(err)
	}
	publish(t, s, 3, 4)
	equalRows(t, partialRows(t, s, 4), want)

	c := partialStore(t, "")
	load(t, c, 1, 1, 2, []row{pRow(1, 10, 100, 0), pRow(2, 20, 200, 0)})
	writePartial(t, c, 3, 2, 1000, 1, 2)
	cloneFrom(t, s, c, 1, 3)
	publish(t, c, 3, 4)
	equalRows(t, partialRows(t, c, 4), want)
}
