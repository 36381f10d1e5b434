package storage

import (
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/cockroachdb/pebble/v2"
)

// segmentRows is the maximum rows of one segment: big enough that per-key
// overhead vanishes, small enough that a zone map still prunes.
const segmentRows = 65536

// rowsetWriter buffers the records of one rowset (a load's pending rowset or
// a compaction's output) and writes them as segments of segmentRows rows.
// A small segment is one unsynced Pebble batch holding its column values,
// its metadata and the rowset's marker key (pending or compaction), so after
// a crash the marker always describes exactly the segments that survived.
// Big segments go into an sstable ingested at flush (ingest.go), after the
// marker is synced; both kinds may mix within a rowset.
type rowsetWriter struct {
	mu  sync.Mutex
	s   *Store
	tab *tablet
	// schema is the tablet's schema when the rowset began: every segment
	// of the rowset stores its columns, whose ids cols records.
	schema  *TabletSchema
	cols    []int32
	id      rowsetID
	marker  []byte
	segs    int
	rows    int64
	bytes   int64
	prepped bool
	buf     []arrow.Record
	bufOff  int // rows of buf[0] already written
	bufRows int // unwritten rows in buf
	scratch []byte
	// segBytes is the last segment's encoded size: the next segment's
	// Pebble batch is allocated at about that size instead of growing.
	segBytes int
	chunks   [][]chunk // per column, reused
	done     bool      // published, aborted or installed: no more writes
	// sst is the open sstable of segments not yet ingested (nil: none);
	// fileBytes counts its encoded bytes and files the files begun.
	sst       *segFile
	fileBytes int64
	files     int
	// markerSynced: the marker is durable, so ingesting is crash-safe.
	markerSynced bool
	// del is the condition of a delete transaction's rowset (delete.go),
	// which has no rows.
	del []byte
	// partial marks a partial column update's rowset (partial.go): its
	// Fill columns were taken from the rows of the rowsets in base, so
	// Publish fills again the keys a rowset published since holds
	// (partial_publish.go). placeholder holds, per Fill column, the one
	// value a key absent then gets (nil after a restart: the default).
	partial     *PartialUpdate
	base        map[rowsetID]bool
	placeholder []arrow.Array
	// publishing: Publish is appending rows to the prepared rowset, which
	// stays prepared (its marker must not say otherwise to a crash).
	publishing bool
}

func newRowsetWriter(s *Store, tab *tablet, sc *TabletSchema, id rowsetID, marker []byte) *rowsetWriter {
	return &rowsetWriter{s: s, tab: tab, schema: sc, cols: sc.ids(), id: id, marker: marker}
}

func (w *rowsetWriter) pendingMeta() pendingMeta {
	m := pendingMeta{ID: w.id, Segs: w.segs, Rows: w.rows, Bytes: w.bytes, Prepared: w.prepped, Delete: w.del, Cols: w.cols, Partial: w.partial}
	if w.partial != nil {
		for id := range w.base {
			m.Base = append(m.Base, id)
		}
		slices.Sort(m.Base)
	}
	return m
}

// add buffers rec (retained) and writes every full segment. Caller holds w.mu.
func (w *rowsetWriter) add(rec arrow.Record) error {
	if rec.NumRows() == 0 {
		return nil
	}
	rec.Retain()
	w.buf = append(w.buf, rec)
	w.bufRows += int(rec.NumRows())
	if !w.publishing {
		w.prepped = false
	}
	for w.bufRows >= segmentRows {
		if err := w.writeSegment(segmentRows); err != nil {
			return err
		}
	}
	return nil
}

// flush writes the buffered rest as a final (short) segment and ingests the
// open sstable, if any. Caller holds w.mu.
func (w *rowsetWriter) flush() error {
	path, err := w.finish()
	if err != nil || path == "" {
		return err
	}
	return w.ingest(path)
}

// finish writes the buffered rest as a final (short) segment and closes
// the open sstable, if any, returning its path for the caller to ingest.
// Caller holds w.mu.
func (w *rowsetWriter) finish() (path string, err error) {
	if w.bufRows > 0 {
		if err := w.writeSegment(w.bufRows); err != nil {
			return "", err
		}
	}
	return w.closeSegFile()
}

// writeSegment writes the first n buffered rows as segment w.segs.
func (w *rowsetWriter) writeSegment(n int) error {
	cols := w.schema.Columns
	if w.chunks == nil {
		w.chunks = make([][]chunk, len(cols))
	}
	for c := range w.chunks {
		w.chunks[c] = w.chunks[c][:0]
	}
	// Cut n rows off the front of the buffer into per-column chunks.
	left, used, off := n, 0, w.bufOff
	for left > 0 {
		rec := w.buf[used]
		k := min(int(rec.NumRows())-off, left)
		for c := range cols {
			w.chunks[c] = append(w.chunks[c], chunk{arr: rec.Column(c), off: off, n: k})
		}
		left -= k
		off += k
		if off == int(rec.NumRows()) {
			used++
			off = 0
		}
	}
	meta := segMeta{Rows: n, Zones: make([]zone, len(cols))}
	for c, col := range cols {
		z := zoneAcc{t: col.Type}
		for _, ch := range w.chunks[c] {
			z.add(ch)
		}
		meta.Zones[c] = z.zone()
	}
	var err error
	if w.sst != nil || n*len(cols) >= ingestMinCells {
		err = w.writeSegmentFile(meta)
	} else {
		err = w.writeSegmentBatch(meta)
	}
	if err != nil {
		return err
	}
	// Drop the records now fully written.
	for i := 0; i < used; i++ {
		w.buf[i].Release()
		w.buf[i] = nil
	}
	w.buf = w.buf[used:]
	w.bufOff = off
	w.bufRows -= n
	for c := range w.chunks {
		clear(w.chunks[c])
	}
	return nil
}

// writeSegmentBatch writes segment w.segs, described by meta, in one
// unsynced batch together with the marker.
func (w *rowsetWriter) writeSegmentBatch(meta segMeta) error {
	cols := w.schema.Columns
	b := w.s.db.NewBatchWithSize(w.segBytes + w.segBytes/8 + 1024)
	defer b.Close()
	var key [25]byte
	var bytes int64
	for c, col := range cols {
		w.scratch = encodeColumn(w.scratch[:0], col.Type.Arrow(), w.chunks[c], meta.Rows)
		bytes += int64(len(w.scratch))
		if err := b.Set(appendDataKey(key[:0], w.tab.id, w.id, w.segs, c+1), w.scratch, nil); err != nil {
			return err
		}
	}
	if err := b.Set(dataKey(w.tab.id, w.id, w.segs, segMetaTag), meta.encode(cols), nil); err != nil {
		return err
	}
	if w.schema.mergeOnWrite() {
		ix := buildPKIndex(w.chunks, w.schema.NumKeys, meta.Rows)
		bytes += int64(len(ix))
		if err := b.Set(dataKey(w.tab.id, w.id, w.segs, pkTag), ix, nil); err != nil {
			return err
		}
	}
	w.segDone(meta.Rows, bytes)
	if err := b.Set(w.marker, w.markerValue(), nil); err != nil {
		return err
	}
	return b.Commit(pebble.NoSync)
}

// writeSegmentFile adds segment w.segs to the rowset's sstable (keys in
// order: the meta tag 0, then the columns), ingesting the file once big.
func (w *rowsetWriter) writeSegmentFile(meta segMeta) error {
	cols := w.schema.Columns
	if w.sst == nil {
		if err := w.openSegFile(); err != nil {
			return err
		}
	}
	var key [25]byte
	if err := w.sst.w.Set(appendDataKey(key[:0], w.tab.id, w.id, w.segs, segMetaTag), meta.encode(cols)); err != nil {
		return err
	}
	var bytes int64
	for c, col := range cols {
		w.scratch = encodeColumn(w.scratch[:0], col.Type.Arrow(), w.chunks[c], meta.Rows)
		bytes += int64(len(w.scratch))
		if err := w.sst.w.Set(appendDataKey(key[:0], w.tab.id, w.id, w.segs, c+1), w.scratch); err != nil {
			return err
		}
	}
	if w.schema.mergeOnWrite() {
		ix := buildPKIndex(w.chunks, w.schema.NumKeys, meta.Rows)
		bytes += int64(len(ix))
		if err := w.sst.w.Set(appendDataKey(key[:0], w.tab.id, w.id, w.segs, pkTag), ix); err != nil {
			return err
		}
	}
	w.segDone(meta.Rows, bytes)
	w.fileBytes += bytes
	if w.fileBytes >= ingestFileBytes {
		path, err := w.closeSegFile()
		if err != nil {
			return err
		}
		return w.ingest(path)
	}
	return nil
}

// segDone counts a written segment of rows rows and bytes encoded bytes.
func (w *rowsetWriter) segDone(rows int, bytes int64) {
	w.segs++
	w.rows += int64(rows)
	w.bytes += bytes
	w.segBytes = int(bytes)
}

func (w *rowsetWriter) markerValue() []byte {
	if w.marker[0] == pfxPending {
		return w.pendingMeta().encode()
	}
	return nil
}

// release drops buffered records. Caller holds w.mu.
func (w *rowsetWriter) release() {
	for _, r := range w.buf {
		r.Release()
	}
	w.buf, w.bufRows, w.bufOff = nil, 0, 0
	for _, a := range w.placeholder {
		a.Release()
	}
	w.placeholder = nil
	w.dropSegFile()
	w.done = true
}
