package storage

import (
	"context"
	"math"
	"slices"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cockroachdb/pebble/v2"
	"github.com/dorisgo/dorisgo/sql/types"
)

// staleGCInterval is how often the background goroutine looks for stale
// rowsets whose grace period has passed.
const staleGCInterval = 30 * time.Second

// Compact merges every rowset a scan at upTo reads into one rowset covering
// their versions (UNIQUE/AGGREGATE rows merged, DUPLICATE rows re-chunked into
// full segments). The inputs stay on disk as stale rowsets for the grace
// period so scans at older versions still see them.
//
//	before:  [2] [3] [5] [6]          scan@6 reads 4 rowsets
//	after:   [2..6]                   scan@6 reads 1; scan@3 still reads [2] [3]
func (s *Store) Compact(id TabletID, upTo Version) error {
	return s.compact(id, upTo, false)
}

// compactSmallRows: rowsets below this many rows are what background
// (cumulative) compaction merges.
const compactSmallRows = segmentRows / 4

// compact is Compact; cumulative (the background's choice) merges only the
// newest run of small rowsets, so frequent small loads (single-row
// INSERTs) are merged while bulk loads and the base rowset are not
// rewritten each time (Doris' cumulative vs base compaction).
func (s *Store) compact(id TabletID, upTo Version, cumulative bool) error {
	t, err := s.tablet(id)
	if err != nil {
		return err
	}
	t.compactMu.Lock()
	defer t.compactMu.Unlock()
	s.mu.Lock()
	t.published = 0
	sc := t.schema // the output is written in the current schema
	s.mu.Unlock()

	it := &scanIter{ctx: context.Background(), s: s, tab: id, schema: sc, batch: segmentRows, noCache: true}
	it.snap = s.db.NewSnapshot()
	defer it.Close()
	all, err := readRowsets(it.snap, id)
	if err != nil {
		return err
	}
	in := visibleRowsets(all, upTo)
	if cumulative {
		// Only the newest run of small rowsets: a rowset of a few full
		// segments costs a scan no more than its parts merged would, so
		// rewriting bulk loads (and a big base) is work for nothing, and
		// on a busy backend it competed with the loads themselves.
		k := len(in)
		for k > 0 && in[k-1].Rows < compactSmallRows {
			k--
		}
		if k > 0 && foldDeletes(in, k, s.foldRows) {
			k = 0
		}
		in = in[k:]
	}
	if len(in) <= 1 {
		return nil
	}
	// Deletes among the inputs are applied to the older inputs (delete.go);
	// the output carries them on unless nothing older than it remains.
	dels, err := s.liveDeletes(t, sc, in)
	if err != nil {
		return err
	}
	var carried []rowsetDelete
	if in[0].ID != firstVisible(all, upTo) {
		for _, m := range in {
			carried = append(carried, m.Deletes...)
		}
	}
	var dead map[segID]*roaring.Bitmap
	if sc.mergeOnWrite() {
		// The inputs' rows dead at the newest input version; marks of
		// loads published later are redone on the output at install.
		if dead, err = readBitmaps(it.snap, id, in[len(in)-1].End); err != nil {
			return err
		}
	}
	if err := it.planRowsets(in, nil, dels, dead); err != nil {
		return err
	}
	outID := rowsetID(s.nextRowset.Add(1))
	w := newRowsetWriter(s, t, sc, outID, compactKey(id, outID))
	defer w.release()
	if err := s.writeCompacted(it, w, in[0].ID == firstVisible(all, upTo)); err != nil {
		s.discardCompaction(id, outID)
		return err
	}
	if s.beforeInstall != nil {
		s.beforeInstall(id)
	}
	return s.installCompaction(t, in, w, carried)
}

// firstVisible is the id of the oldest rowset a scan at v reads (-1 if none).
func firstVisible(all []rowsetMeta, v Version) rowsetID {
	vis := visibleRowsets(all, v)
	if len(vis) == 0 {
		return -1
	}
	return vis[0].ID
}

// Thresholds of foldDeletes. A delete condition carried by a newer rowset
// costs every scan of the older ones an evaluation per segment its ranges
// do not prune, until a compaction from the first rowset drops the deleted
// rows for good; rewriting the older rowsets costs their size once.
const (
	// defaultFoldRows: older rowsets up to this many rows are rewritten
	// at once. Measured on four full segments of four BIGINT columns: the
	// compaction took 22-60 ms, and each scan of two columns cost 3 ms with
	// one condition left to evaluate against 0.1 ms once folded, so the
	// rewrite pays for itself within a few dozen scans.
	defaultFoldRows = 4 * segmentRows
	// foldConds: this many pending conditions are worth any rewrite.
	foldConds = 8
)

// foldDeletes reports whether a background compaction of in[k:] should
// instead start at the first rowset, so that delete conditions applying
// to in[:k] are folded away rather than carried: when in[:k] holds at most
// foldRows rows or foldConds conditions wait for it.
func foldDeletes(in []rowsetMeta, k int, foldRows int64) bool {
	conds := 0
	for _, m := range in[1:] { // the first rowset's conditions apply to nothing
		conds += len(m.Deletes)
	}
	if conds == 0 {
		return false
	}
	var rows int64
	for _, m := range in[:k] {
		rows += m.Rows
	}
	return rows <= foldRows || conds >= foldConds
}

// writeCompacted copies the planned segments through w, merging equal keys
// for UNIQUE/AGGREGATE tablets.
func (s *Store) writeCompacted(it *scanIter, w *rowsetWriter, base bool) error {
	all := make([]int, len(it.schema.Columns))
	for i := range all {
		all[i] = i
	}
	it.cols = all
	it.out = types.ArrowSchema(it.schema.Columns)
	sign := -1 // base: rows with the delete sign have nothing left to delete
	if base && it.schema.DeleteSign > 0 && it.schema.DeleteSign <= len(all) {
		sign = it.schema.DeleteSign - 1
	}
	if it.schema.mergesOnRead() {
		merged, rows, err := readAndMerge(it, all)
		if err != nil {
			return err
		}
		rec := dropDeleteSigned(newRecord(it.out, merged, rows), sign)
		defer rec.Release()
		if err := w.add(rec); err != nil {
			return err
		}
		return w.flush()
	}
	// DUPLICATE and merge-on-write UNIQUE (one live row per key): stream
	// one segment at a time.
	for _, seg := range it.segs {
		arrs, rows, err := it.readLive(seg, all)
		if err != nil {
			return err
		}
		rec := dropDeleteSigned(newRecord(it.out, arrs, rows), sign)
		err = w.add(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return w.flush()
}

// installCompaction makes w's rowset, carrying the delete conditions
// carried, visible in place of in, unless the tablet changed meanwhile
// (dropped, or a rowset inside the range appeared).
func (s *Store) installCompaction(t *tablet, in []rowsetMeta, w *rowsetWriter, carried []rowsetDelete) error {
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	start, end := in[0].Start, in[0].End
	for _, m := range in {
		start, end = min(start, m.Start), max(end, m.End)
	}
	s.mu.Lock()
	dropped := t.dropped
	s.mu.Unlock()
	now, err := readRowsets(s.db, t.id)
	if err != nil {
		return err
	}
	// The inputs must still be exactly what a scan at end reads within [start, end].
	var cur []rowsetMeta
	for _, m := range visibleRowsets(now, end) {
		if m.End >= start {
			cur = append(cur, m)
		}
	}
	if dropped || !sameIDs(cur, in) {
		s.discardCompaction(t.id, w.id)
		return nil
	}
	m := rowsetMeta{ID: w.id, Start: start, End: end, Segs: w.segs, Rows: w.rows, Bytes: w.bytes, Deletes: carried, Cols: w.cols}
	b := s.db.NewBatch()
	defer b.Close()
	if w.schema.mergeOnWrite() {
		var later []rowsetMeta
		for _, o := range visibleRowsets(now, math.MaxInt64) {
			if o.End > end {
				later = append(later, o)
			}
		}
		if err := s.remarkCompacted(b, t.id, w.schema, m, later); err != nil {
			s.discardCompaction(t.id, w.id)
			return err
		}
	}
	_ = b.Delete(w.marker, nil)
	if err := b.Set(rowsetKey(t.id, end, w.id), m.encode(), nil); err != nil {
		return err
	}
	if err := b.Commit(pebble.Sync); err != nil {
		return err
	}
	stamp := time.Now()
	for _, m := range staleRowsets(append(now, m)) {
		if _, ok := s.staleSince[m.ID]; !ok {
			s.staleSince[m.ID] = stamp
		}
	}
	if s.staleGrace == 0 {
		return s.gcStaleLocked(stamp)
	}
	return nil
}

func sameIDs(a, b []rowsetMeta) bool {
	return slices.EqualFunc(a, b, func(x, y rowsetMeta) bool { return x.ID == y.ID })
}

func (s *Store) discardCompaction(t TabletID, id rowsetID) {
	b := s.db.NewBatch()
	defer b.Close()
	deleteRowsetData(b, t, id)
	_ = b.Delete(compactKey(t, id), nil)
	_ = b.Commit(pebble.NoSync)
}

// gcStale deletes stale rowsets older than the grace period.
func (s *Store) gcStale(now time.Time) error {
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	return s.gcStaleLocked(now)
}

func (s *Store) gcStaleLocked(now time.Time) error {
	b := s.db.NewBatch()
	defer b.Close()
	for _, id := range s.Tablets() {
		all, err := readRowsets(s.db, id)
		if err != nil {
			return err
		}
		live := visibleRowsets(all, math.MaxInt64)
		for _, m := range staleRowsets(all) {
			since, ok := s.staleSince[m.ID]
			if !ok {
				s.staleSince[m.ID] = now
				continue
			}
			if now.Sub(since) < s.staleGrace {
				continue
			}
			deleteRowsetData(b, id, m.ID)
			pre := rowsetBitmapPrefix(id, m.ID)
			_ = b.DeleteRange(pre, prefixEnd(pre), nil)
			_ = b.Delete(rowsetKey(id, m.End, m.ID), nil)
			delete(s.staleSince, m.ID)
			for _, o := range live { // the output that covered m
				if o.Start <= m.Start && o.End >= m.End {
					s.mu.Lock()
					s.compactedTo[id] = max(s.compactedTo[id], o.End)
					s.mu.Unlock()
				}
			}
		}
	}
	if b.Empty() {
		return nil
	}
	return b.Commit(pebble.NoSync)
}

// background runs queued compactions and the stale-rowset GC until Close.
func (s *Store) background() {
	defer s.wg.Done()
	tick := time.NewTicker(staleGCInterval)
	defer tick.Stop()
	for {
		select {
		case <-s.stop:
			return
		case id := <-s.compactCh:
			s.mu.Lock()
			if t := s.tablets[id]; t != nil {
				t.queued = false
			}
			s.mu.Unlock()
			if err := s.compact(id, math.MaxInt64, true); err != nil {
				s.lastBgErr.Store(&err)
			}
			if s.onCompacted != nil {
				s.onCompacted(id)
			}
		case <-s.reclaimCh:
			if err := s.reclaim(); err != nil {
				s.lastBgErr.Store(&err)
			}
		case now := <-tick.C:
			if err := s.gcStale(now); err != nil {
				s.lastBgErr.Store(&err)
			}
		}
	}
}

// dropDeleteSigned returns rec without the rows whose column sign is 1
// (rec itself when sign is -1 or no row has it), releasing rec if not.
func dropDeleteSigned(rec arrow.Record, sign int) arrow.Record {
	if sign < 0 {
		return rec
	}
	col, ok := rec.Column(sign).(*array.Int8)
	if !ok {
		return rec
	}
	keep := make([]int32, 0, rec.NumRows())
	for i := 0; i < col.Len(); i++ {
		if !(col.IsValid(i) && col.Value(i) == 1) {
			keep = append(keep, int32(i))
		}
	}
	if len(keep) == col.Len() {
		return rec
	}
	arrs := make([]arrow.Array, rec.NumCols())
	for c := range arrs {
		arrs[c] = take(rec.Column(c), keep)
	}
	out := newRecord(rec.Schema(), arrs, len(keep))
	rec.Release()
	return out
}
