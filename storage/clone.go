package storage

import (
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/cockroachdb/pebble/v2"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// InstallClone makes this store's replica of tablet id a copy of another
// replica at version v (Doris's clone): next yields the source's rows as a
// scan at v read them (every column of sc, in schema order; io.EOF ends),
// which become one rowset covering versions [2, v] in place of every
// published rowset the replica had, in one synced write. Pending
// (unpublished) rowsets stay. The tablet is created with sc if missing.
// Scans older than v fail afterwards (the versions are merged, E-230).
func (s *Store) InstallClone(id TabletID, sc *TabletSchema, v Version, next func() (arrow.Record, error)) (RowsetStats, error) {
	if _, err := s.tablet(id); err != nil {
		if err := s.CreateTablet(id, sc); err != nil {
			return RowsetStats{}, err
		}
	} else if cur, _ := s.Schema(id); cur != nil && sc.Version > cur.Version {
		if err := s.AlterTablet(id, sc); err != nil {
			return RowsetStats{}, err
		}
	}
	t, err := s.tablet(id)
	if err != nil {
		return RowsetStats{}, err
	}
	t.compactMu.Lock() // no compaction rewrites the rowsets being replaced
	defer t.compactMu.Unlock()
	s.mu.Lock()
	wsc := t.schema
	s.mu.Unlock()
	if wsc.Version != sc.Version || len(wsc.Columns) != len(sc.Columns) {
		return RowsetStats{}, sqlerr.Doris.New(fmt.Sprintf("clone of tablet %d: schema version %d here, %d at the source", id, wsc.Version, sc.Version))
	}
	outID := rowsetID(s.nextRowset.Add(1))
	w := newRowsetWriter(s, t, wsc, outID, compactKey(id, outID))
	defer w.release()
	fail := func(err error) (RowsetStats, error) {
		s.discardCompaction(id, outID)
		return RowsetStats{}, err
	}
	for {
		rec, err := next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fail(err)
		}
		if err := checkRecord(id, wsc, rec); err != nil {
			rec.Release()
			return fail(err)
		}
		err = w.add(rec)
		rec.Release()
		if err != nil {
			return fail(err)
		}
	}
	if err := w.flush(); err != nil {
		return fail(err)
	}
	if err := s.installClone(t, w, v); err != nil {
		return fail(err)
	}
	return RowsetStats{Rows: w.rows, Bytes: w.bytes}, nil
}

// installClone swaps w's rowset in for every published rowset of t.
func (s *Store) installClone(t *tablet, w *rowsetWriter, v Version) error {
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	old, err := readRowsets(s.db, t.id)
	if err != nil {
		return err
	}
	b := s.db.NewBatch()
	defer b.Close()
	for _, m := range old {
		deleteRowsetData(b, t.id, m.ID)
		pre := rowsetBitmapPrefix(t.id, m.ID) // merge-on-write marks (mow.go)
		_ = b.DeleteRange(pre, prefixEnd(pre), nil)
		_ = b.Delete(rowsetKey(t.id, m.End, m.ID), nil)
	}
	_ = b.Delete(w.marker, nil)
	if v >= 2 && w.rows > 0 {
		m := rowsetMeta{ID: w.id, Start: 2, End: v, Segs: w.segs, Rows: w.rows, Bytes: w.bytes, Cols: w.cols}
		if err := b.Set(rowsetKey(t.id, v, w.id), m.encode(), nil); err != nil {
			return err
		}
	} else {
		deleteRowsetData(b, t.id, w.id)
	}
	if err := b.Commit(pebble.Sync); err != nil {
		return err
	}
	s.mu.Lock()
	for _, m := range old {
		delete(s.staleSince, m.ID)
	}
	s.compactedTo[t.id] = max(s.compactedTo[t.id], v)
	t.published = 0
	s.mu.Unlock()
	return nil
}
