package storage

import (
	"bytes"
	"context"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dorisgo/dorisgo/sql/types"
)

// Publish-time conflict resolution of partial column updates (Doris's
// BaseTablet::update_delete_bitmap with a partial update's rowset writer).
//
// A partial update fills its missing columns when its rows arrive, from
// whatever the replica has published then. Replicas differ in that: one
// may have published a concurrent load a moment before the rows came and
// another a moment after, and a lagging replica, or one a clone just
// filled, lacks versions or has them only since. Filled as they came, the
// replicas would hold different rows for the same committed load, and a
// concurrent update of other columns of the key would be lost. So at
// Publish, when every version below v is in place on a healthy replica
// (publishes come in version order), the keys that a rowset the fill did
// not read holds (every key, once a rowset it read is gone: compacted or
// cloned away) are filled again from the tablet as it is now, and the
// new rows are appended to the rowset as a last segment: the rowset's own
// marks (rowsetPKs, the later row of a key wins) retire the rows first
// written for them. Every replica with versions 2..v-1 thus writes the
// same rows at v, whatever order its rows and publishes came in; one that
// lacks versions is lagging and its clone replaces what it published.

// refillPartial fills again the rows of w (about to be published at v)
// whose keys a rowset outside w.base holds, or all of them if a rowset of
// w.base is no longer visible. Caller holds commitMu and w.mu.
func (s *Store) refillPartial(w *rowsetWriter, v Version) error {
	tab := w.tab.id
	g := dbGetter{s.db}
	all, err := readRowsets(s.db, tab)
	if err != nil {
		return err
	}
	var newer []rowsetMeta
	vis := visibleRowsets(all, v-1)
	seen := 0
	for _, m := range vis {
		if w.base[m.ID] {
			seen++
		} else if m.Segs > 0 {
			newer = append(newer, m)
		}
	}
	// A rowset the fill read is gone (a compaction or a clone replaced
	// it): every key is filled again, since what replaced it need not hold
	// a key deleted since the fill (a base compaction drops deleted rows),
	// and the fill's values of such a key are the deleted row's.
	gone := seen < len(w.base)
	if len(newer) == 0 && !gone {
		return nil
	}
	keys, self, err := rowsetPKs(g, tab, w.id, w.segs)
	if err != nil {
		return err
	}
	hit := make([]bool, len(keys))
	any := false
	if gone {
		for i := range hit {
			hit[i] = true
		}
		any = len(keys) > 0
		newer = nil
	}
	for _, m := range newer {
		for seg := 0; seg < m.Segs; seg++ {
			ix, c, err := readPKIndex(g, tab, m.ID, seg)
			if err != nil {
				return err
			}
			ix.lookup(keys, func(ki int, _ uint32) { hit[ki], any = true, true })
			_ = c.Close()
		}
	}
	if !any {
		return nil
	}
	own := rowsetMeta{ID: w.id, Start: v, End: v, Segs: w.segs, Cols: w.cols}
	it := &scanIter{ctx: context.Background(), s: s, tab: tab, schema: w.schema, noCache: true}
	it.snap = s.db.NewSnapshot()
	defer it.Close()
	all32 := make([]int, len(w.schema.Columns))
	for i := range all32 {
		all32[i] = i
	}
	schema := types.ArrowSchema(w.schema.Columns)
	segs := w.segs // the appended segments are not read again
	for seg := 0; seg < segs; seg++ {
		rows, err := conflictRows(g, tab, w.id, seg, keys, hit, self[seg])
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			continue
		}
		val, closer, err := it.snap.Get(dataKey(tab, w.id, seg, segMetaTag))
		if err != nil {
			return err
		}
		m, lay, err := decodeStoredSegMeta(val, w.schema, own)
		_ = closer.Close()
		if err != nil {
			return err
		}
		arrs, err := it.readColumns(segRef{rs: w.id, seg: seg, rows: m.Rows, lay: lay, ver: v}, all32)
		if err != nil {
			return err
		}
		rec := w.placeholderRows(schema, arrs, rows)
		releaseAll(arrs)
		filled, _, err := s.fillPartial(w.schema, tab, rec, *w.partial)
		rec.Release()
		if err != nil {
			return err
		}
		w.publishing = true
		err = w.add(filled)
		w.publishing = false
		filled.Release()
		if err != nil {
			return err
		}
	}
	w.publishing = true
	defer func() { w.publishing = false }()
	return w.flush()
}

// conflictRows lists, in order, the rows of segment seg of rowset rs whose
// key is keys[i] with hit[i], except those the rowset itself supersedes.
func conflictRows(g getter, tab TabletID, rs rowsetID, seg int, keys [][]byte, hit []bool, superseded *roaring.Bitmap) ([]int32, error) {
	ix, c, err := readPKIndex(g, tab, rs, seg)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var rows []int32
	ki := 0
	for i := 0; i < ix.n; i++ {
		e, r := ix.entry(i)
		for ki < len(keys) && bytes.Compare(keys[ki], e) < 0 {
			ki++
		}
		if ki < len(keys) && hit[ki] && bytes.Equal(keys[ki], e) && (superseded == nil || !superseded.Contains(r)) {
			rows = append(rows, int32(r))
		}
	}
	slices.Sort(rows)
	return rows, nil
}

// placeholderRows is rows of the segment columns arrs with the Fill
// columns reset to what the load gave a new key, ready to be filled again.
func (w *rowsetWriter) placeholderRows(schema *arrow.Schema, arrs []arrow.Array, rows []int32) arrow.Record {
	n := len(rows)
	cols := make([]arrow.Array, len(arrs))
	for c := range arrs {
		cols[c] = take(arrs[c], rows)
	}
	for fi, c := range w.partial.Fill {
		cols[c].Release()
		if fi < len(w.placeholder) {
			cols[c] = take(w.placeholder[fi], make([]int32, n))
		} else {
			// Restarted since the rows came: the column's default.
			cols[c] = constColumn(w.schema.Columns[c].Type, w.schema.defaultOf(c), n)
		}
	}
	out := array.NewRecord(schema, cols, int64(n))
	releaseAll(cols)
	return out
}
