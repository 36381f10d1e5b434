package storage

import (
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/cockroachdb/pebble/v2"
)

// segmentRows is the maximum rows of one segment: big enough that per-key
// overhead vanishes, small enough that a zone map still prunes.
const segmentRows = 65536

// rowsetWriter buffers the records of one rowset (a load's pending rowset or
// a compaction's output) and writes them as segments of segmentRows rows.
// Each segment is one unsynced Pebble batch holding its column values, its
// metadata and the rowset's marker key (pending or compaction), so after a
// crash the marker always describes exactly the segments that survived.
type rowsetWriter struct {
	mu      sync.Mutex
	s       *Store
	tab     *tablet
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
}

func newRowsetWriter(s *Store, tab *tablet, id rowsetID, marker []byte) *rowsetWriter {
	return &rowsetWriter{s: s, tab: tab, id: id, marker: marker}
}

func (w *rowsetWriter) pendingMeta() pendingMeta {
	return pendingMeta{ID: w.id, Segs: w.segs, Rows: w.rows, Bytes: w.bytes, Prepared: w.prepped}
}

// add buffers rec (retained) and writes every full segment. Caller holds w.mu.
func (w *rowsetWriter) add(rec arrow.Record) error {
	if rec.NumRows() == 0 {
		return nil
	}
	rec.Retain()
	w.buf = append(w.buf, rec)
	w.bufRows += int(rec.NumRows())
	w.prepped = false
	for w.bufRows >= segmentRows {
		if err := w.writeSegment(segmentRows); err != nil {
			return err
		}
	}
	return nil
}

// flush writes the buffered rest as a final (short) segment. Caller holds w.mu.
func (w *rowsetWriter) flush() error {
	if w.bufRows == 0 {
		return nil
	}
	return w.writeSegment(w.bufRows)
}

// writeSegment writes the first n buffered rows as segment w.segs.
func (w *rowsetWriter) writeSegment(n int) error {
	cols := w.tab.schema.Columns
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
	b := w.s.db.NewBatchWithSize(w.segBytes + w.segBytes/8 + 1024)
	defer b.Close()
	meta := segMeta{Rows: n, Zones: make([]zone, len(cols))}
	var key [25]byte
	var bytes int64
	for c, col := range cols {
		w.scratch = encodeColumn(w.scratch[:0], col.Type.Arrow(), w.chunks[c], n)
		bytes += int64(len(w.scratch))
		if err := b.Set(appendDataKey(key[:0], w.tab.id, w.id, w.segs, c+1), w.scratch, nil); err != nil {
			return err
		}
		z := zoneAcc{t: col.Type}
		for _, ch := range w.chunks[c] {
			z.add(ch)
		}
		meta.Zones[c] = z.zone()
	}
	if err := b.Set(dataKey(w.tab.id, w.id, w.segs, segMetaTag), meta.encode(cols), nil); err != nil {
		return err
	}
	w.segs++
	w.rows += int64(n)
	w.bytes += bytes
	w.segBytes = int(bytes)
	if err := b.Set(w.marker, w.markerValue(), nil); err != nil {
		return err
	}
	if err := b.Commit(pebble.NoSync); err != nil {
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
	w.done = true
}
