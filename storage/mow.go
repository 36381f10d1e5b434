package storage

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"io"
	"math"
	"math/bits"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cockroachdb/pebble/v2"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Merge-on-write UNIQUE KEY tablets (Doris's enable_unique_key_merge_on_write).
//
// Every segment of such a tablet stores a primary-key index next to its
// columns: its rows' keys, encoded so that equal keys are equal bytes,
// sorted, each with its row number. Publishing a load at version v looks
// the load's keys up in the indexes of every visible segment whose key zone
// maps overlap the load's (one sorted merge or binary search per segment,
// never a scan per row) and marks the matched older rows in a delete bitmap
// keyed by (rowset, segment, v); rows a load supersedes itself (the same key
// twice) are marked in its own rowset at v. The bitmaps go into Publish's
// one synced batch with the rowset key, so a crash leaves the load with its
// marks or neither:
//
//	'B' tablet rowset seg:4 version → roaring bitmap of dead row numbers
//
// A scan at version v drops the rows marked at versions <= v and never
// merges: each key has one live row, so segments stream one by one and
// value-column ranges prune segments too (the merge-on-read model must read
// all and merge, since a value's newest row decides). Publishes of a
// partition come in version order (the FE publishes under the table's
// publish lock), so a publish at v sees every rowset below v.
//
// Compaction writes only live rows, so the output needs no bitmap of its
// own; marks that loads published while it ran put on its inputs are
// computed again against the output before it is installed (same lock as
// Publish), and the inputs' bitmaps go with the inputs' data when the stale
// rowsets are collected.

// pkTag is the data-key tag of a segment's primary-key index (after the
// columns' tags, so an sstable writes it last).
const pkTag = math.MaxInt32

// mergesOnRead reports whether scans of the tablet merge equal keys.
func (sc *TabletSchema) mergesOnRead() bool {
	return sc.Keys == AggKeys || (sc.Keys == UniqueKeys && !sc.MergeOnWrite)
}

func (sc *TabletSchema) mergeOnWrite() bool { return sc.Keys == UniqueKeys && sc.MergeOnWrite }

func bitmapKey(t TabletID, rs rowsetID, seg int, v Version) []byte {
	k := make([]byte, 0, 29)
	k = append(k, pfxBitmap)
	k = putID(k, int64(t))
	k = putID(k, int64(rs))
	k = binary.BigEndian.AppendUint32(k, uint32(seg))
	return putID(k, int64(v))
}

func rowsetBitmapPrefix(t TabletID, rs rowsetID) []byte {
	k := make([]byte, 0, 17)
	k = append(k, pfxBitmap)
	k = putID(k, int64(t))
	return putID(k, int64(rs))
}

// segID names one segment of a tablet.
type segID struct {
	rs  rowsetID
	seg int
}

// readBitmaps returns, per segment of tablet t, the union of its delete
// bitmaps marked at versions <= v.
func readBitmaps(src iterSource, t TabletID, v Version) (map[segID]*roaring.Bitmap, error) {
	out := map[segID]*roaring.Bitmap{}
	err := scanPrefix(src, tabletPrefix(pfxBitmap, t), func(k, val []byte) error {
		if len(k) != 29 {
			return errCorrupt
		}
		if Version(getID(k[21:])) > v {
			return nil
		}
		id := segID{rs: rowsetID(getID(k[9:])), seg: int(binary.BigEndian.Uint32(k[17:]))}
		bm := roaring.New()
		if err := bm.UnmarshalBinary(val); err != nil {
			return errCorrupt
		}
		if cur := out[id]; cur != nil {
			cur.Or(bm)
		} else {
			out[id] = bm
		}
		return nil
	})
	return out, err
}

// appendKeyValue appends row i of a in an encoding where equal values are
// equal bytes and distinct ones differ (a NULL flag, then fixed-width bytes
// or a length-prefixed string).
func appendKeyValue(b []byte, a arrow.Array, i int) []byte {
	if a.IsNull(i) {
		return append(b, 0)
	}
	b = append(b, 1)
	switch x := a.(type) {
	case *array.Boolean:
		if x.Value(i) {
			return append(b, 1)
		}
		return append(b, 0)
	case *array.Int8:
		return append(b, byte(x.Value(i)))
	case *array.Int16:
		return binary.BigEndian.AppendUint16(b, uint16(x.Value(i)))
	case *array.Int32:
		return binary.BigEndian.AppendUint32(b, uint32(x.Value(i)))
	case *array.Int64:
		return binary.BigEndian.AppendUint64(b, uint64(x.Value(i)))
	case *array.Date32:
		return binary.BigEndian.AppendUint32(b, uint32(x.Value(i)))
	case *array.Timestamp:
		return binary.BigEndian.AppendUint64(b, uint64(x.Value(i)))
	case *array.Float32:
		return binary.BigEndian.AppendUint32(b, math.Float32bits(x.Value(i)))
	case *array.Float64:
		return binary.BigEndian.AppendUint64(b, math.Float64bits(x.Value(i)))
	case *array.Decimal128:
		v := x.Value(i)
		b = binary.BigEndian.AppendUint64(b, uint64(v.HighBits()))
		return binary.BigEndian.AppendUint64(b, v.LowBits())
	case *array.String:
		s := x.Value(i)
		b = binary.AppendUvarint(b, uint64(len(s)))
		return append(b, s...)
	case *array.Binary:
		s := x.Value(i)
		b = binary.AppendUvarint(b, uint64(len(s)))
		return append(b, s...)
	}
	return b
}

// buildPKIndex encodes the primary-key index of one segment of n rows
// whose key columns are the first numKeys entries of chunks: the keys
// sorted (ties by row), each followed by its row as 4 bytes.
//
//	n:4, offsets:(n+1)×4 into data, data: (key, row:4)…
func buildPKIndex(chunks [][]chunk, numKeys, n int) []byte {
	data := make([]byte, 0, n*(numKeys*9+4))
	offs := make([]uint32, 0, n+1)
	row := 0
	for k := range chunks[0] {
		for j := 0; j < chunks[0][k].n; j++ {
			offs = append(offs, uint32(len(data)))
			for c := 0; c < numKeys; c++ {
				ch := chunks[c][k]
				data = appendKeyValue(data, ch.arr, ch.off+j)
			}
			data = binary.BigEndian.AppendUint32(data, uint32(row))
			row++
		}
	}
	offs = append(offs, uint32(len(data)))
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	entry := func(i int32) []byte { return data[offs[i]:offs[i+1]] }
	slices.SortFunc(perm, func(a, b int32) int {
		ea, eb := entry(a), entry(b)
		if c := bytes.Compare(ea[:len(ea)-4], eb[:len(eb)-4]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	out := make([]byte, 0, 4+4*(n+1)+len(data))
	out = binary.BigEndian.AppendUint32(out, uint32(n))
	pos := uint32(0)
	for _, p := range perm {
		out = binary.BigEndian.AppendUint32(out, pos)
		pos += offs[p+1] - offs[p]
	}
	out = binary.BigEndian.AppendUint32(out, pos)
	for _, p := range perm {
		out = append(out, entry(p)...)
	}
	return out
}

// pkIndex reads an encoded primary-key index in place.
type pkIndex struct {
	n    int
	offs []byte
	data []byte
}

func parsePKIndex(b []byte) (pkIndex, error) {
	if len(b) < 8 {
		return pkIndex{}, errCorrupt
	}
	n := int(binary.BigEndian.Uint32(b))
	if len(b) < 4+4*(n+1) {
		return pkIndex{}, errCorrupt
	}
	ix := pkIndex{n: n, offs: b[4 : 4+4*(n+1)], data: b[4+4*(n+1):]}
	if int(binary.BigEndian.Uint32(ix.offs[4*n:])) != len(ix.data) {
		return pkIndex{}, errCorrupt
	}
	return ix, nil
}

// entry is the i-th key in order and its row.
func (ix pkIndex) entry(i int) ([]byte, uint32) {
	lo, hi := binary.BigEndian.Uint32(ix.offs[4*i:]), binary.BigEndian.Uint32(ix.offs[4*i+4:])
	e := ix.data[lo:hi]
	return e[:len(e)-4], binary.BigEndian.Uint32(e[len(e)-4:])
}

// match adds to dead the rows of ix whose key is in keys (sorted, unique):
// a binary search per key when keys are few, else one merge.
func (ix pkIndex) match(keys [][]byte, dead *roaring.Bitmap) {
	if ix.n == 0 || len(keys) == 0 {
		return
	}
	if len(keys)*bits.Len(uint(ix.n)) < ix.n {
		for _, k := range keys {
			lo, hi := 0, ix.n
			for lo < hi {
				m := int(uint(lo+hi) >> 1)
				if e, _ := ix.entry(m); bytes.Compare(e, k) < 0 {
					lo = m + 1
				} else {
					hi = m
				}
			}
			for ; lo < ix.n; lo++ {
				e, r := ix.entry(lo)
				if !bytes.Equal(e, k) {
					break
				}
				dead.Add(r)
			}
		}
		return
	}
	i, j := 0, 0
	for i < ix.n && j < len(keys) {
		e, r := ix.entry(i)
		switch c := bytes.Compare(e, keys[j]); {
		case c < 0:
			i++
		case c > 0:
			j++
		default:
			dead.Add(r)
			i++
		}
	}
}

// readPKIndex reads segment seg of rowset rs's index; the closer frees it.
func readPKIndex(src getter, t TabletID, rs rowsetID, seg int) (pkIndex, io.Closer, error) {
	val, c, err := src.Get(dataKey(t, rs, seg, pkTag))
	if err != nil {
		return pkIndex{}, nil, err
	}
	ix, err := parsePKIndex(val)
	if err != nil {
		_ = c.Close()
		return pkIndex{}, nil, err
	}
	return ix, c, nil
}

// getter is what *pebble.DB and *pebble.Snapshot offer for point reads.
type getter interface {
	Get([]byte) ([]byte, io.Closer, error)
}

type dbGetter struct{ db *pebble.DB }

func (g dbGetter) Get(k []byte) ([]byte, io.Closer, error) { return g.db.Get(k) }

type snapGetter struct{ s *pebble.Snapshot }

func (g snapGetter) Get(k []byte) ([]byte, io.Closer, error) { return g.s.Get(k) }

// rowsetPKs are the distinct keys of a rowset's segments, sorted, and
// per segment the rows another row of the same key in the rowset
// supersedes (the later row, by segment then row, wins).
func rowsetPKs(g getter, t TabletID, rs rowsetID, segs int) ([][]byte, map[int]*roaring.Bitmap, error) {
	type ent struct {
		key []byte
		seg int
		row uint32
	}
	var all []ent
	for seg := 0; seg < segs; seg++ {
		ix, c, err := readPKIndex(g, t, rs, seg)
		if err != nil {
			return nil, nil, err
		}
		for i := 0; i < ix.n; i++ {
			k, r := ix.entry(i)
			all = append(all, ent{key: slices.Clone(k), seg: seg, row: r})
		}
		_ = c.Close()
	}
	slices.SortFunc(all, func(a, b ent) int {
		if c := bytes.Compare(a.key, b.key); c != 0 {
			return c
		}
		if c := cmp.Compare(a.seg, b.seg); c != 0 {
			return c
		}
		return cmp.Compare(a.row, b.row)
	})
	var keys [][]byte
	self := map[int]*roaring.Bitmap{}
	for i, e := range all {
		if i+1 < len(all) && bytes.Equal(all[i+1].key, e.key) {
			if self[e.seg] == nil {
				self[e.seg] = roaring.New()
			}
			self[e.seg].Add(e.row)
			continue
		}
		keys = append(keys, e.key)
	}
	return keys, self, nil
}

// keyRanges are, per key column, the [min, max] of the given segments'
// zones, for pruning the segments a lookup need not read; a column with
// NULLs or without bounds gets none.
func keyRanges(metas []segMeta, numKeys int) []ColumnRange {
	var out []ColumnRange
	for c := 0; c < numKeys; c++ {
		var lo, hi *types.Datum
		ok := len(metas) > 0
		for _, m := range metas {
			z := m.Zones[c]
			if z.Nulls > 0 || !z.HasMinMax {
				ok = false
				break
			}
			if lo == nil {
				mn, mx := z.Min, z.Max
				lo, hi = &mn, &mx
				continue
			}
			if r, cmpOK := compareDatum(z.Min, *lo); !cmpOK {
				ok = false
				break
			} else if r < 0 {
				mn := z.Min
				lo = &mn
			}
			if r, cmpOK := compareDatum(z.Max, *hi); !cmpOK {
				ok = false
				break
			} else if r > 0 {
				mx := z.Max
				hi = &mx
			}
		}
		if ok {
			out = append(out, ColumnRange{Column: c, Lo: lo, LoIncl: true, Hi: hi, HiIncl: true})
		}
	}
	return out
}

// segMetas reads the metas of a rowset's segments mapped onto sc.
func segMetas(g getter, t TabletID, sc *TabletSchema, m rowsetMeta) ([]segMeta, error) {
	out := make([]segMeta, 0, m.Segs)
	for seg := 0; seg < m.Segs; seg++ {
		val, c, err := g.Get(dataKey(t, m.ID, seg, segMetaTag))
		if err != nil {
			return nil, err
		}
		sm, _, err := decodeStoredSegMeta(val, sc, m)
		_ = c.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, sm)
	}
	return out, nil
}

// markKeys returns, per segment of the rowsets, the rows whose key is in
// keys (sorted, unique), reading only segments the ranges may hold.
func markKeys(g getter, t TabletID, sc *TabletSchema, rowsets []rowsetMeta, keys [][]byte, ranges []ColumnRange) (map[segID]*roaring.Bitmap, error) {
	out := map[segID]*roaring.Bitmap{}
	if len(keys) == 0 {
		return out, nil
	}
	for _, m := range rowsets {
		metas, err := segMetas(g, t, sc, m)
		if err != nil {
			return nil, err
		}
		for seg, sm := range metas {
			if pruned(sm, ranges) {
				continue
			}
			ix, c, err := readPKIndex(g, t, m.ID, seg)
			if err != nil {
				return nil, err
			}
			bm := roaring.New()
			ix.match(keys, bm)
			_ = c.Close()
			if !bm.IsEmpty() {
				out[segID{m.ID, seg}] = bm
			}
		}
	}
	return out, nil
}

// publishMarks computes the delete bitmaps a merge-on-write load's rowset
// (written by w, about to be published at v) puts on the tablet: on every
// visible older rowset, and on itself. Caller holds commitMu and w.mu.
func (s *Store) publishMarks(w *rowsetWriter, sc *TabletSchema, v Version) (map[segID]*roaring.Bitmap, error) {
	g := dbGetter{s.db}
	tab := w.tab.id
	keys, self, err := rowsetPKs(g, tab, w.id, w.segs)
	if err != nil {
		return nil, err
	}
	own := rowsetMeta{ID: w.id, Start: v, End: v, Segs: w.segs, Cols: w.cols}
	metas, err := segMetas(g, tab, w.schema, own)
	if err != nil {
		return nil, err
	}
	all, err := readRowsets(s.db, tab)
	if err != nil {
		return nil, err
	}
	out, err := markKeys(g, tab, sc, visibleRowsets(all, v-1), keys, keyRanges(metas, sc.NumKeys))
	if err != nil {
		return nil, err
	}
	for seg, bm := range self {
		out[segID{w.id, seg}] = bm
	}
	return out, nil
}

// putBitmaps adds the marks at version v to b.
func putBitmaps(b *pebble.Batch, t TabletID, marks map[segID]*roaring.Bitmap, v Version) error {
	for id, bm := range marks {
		bm.RunOptimize()
		val, err := bm.ToBytes()
		if err != nil {
			return err
		}
		if err := b.Set(bitmapKey(t, id.rs, id.seg, v), val, nil); err != nil {
			return err
		}
	}
	return nil
}

// remarkCompacted computes the marks the rowsets published after a
// compaction began (later, in version order) put on its output: each
// output row whose key a later rowset holds dies at the first such
// version. Caller holds commitMu.
func (s *Store) remarkCompacted(b *pebble.Batch, t TabletID, sc *TabletSchema, out rowsetMeta, later []rowsetMeta) error {
	g := dbGetter{s.db}
	seen := map[int]*roaring.Bitmap{}
	for _, m := range later {
		if m.Segs == 0 {
			continue
		}
		keys, _, err := rowsetPKs(g, t, m.ID, m.Segs)
		if err != nil {
			return err
		}
		metas, err := segMetas(g, t, sc, m)
		if err != nil {
			return err
		}
		marks, err := markKeys(g, t, sc, []rowsetMeta{out}, keys, keyRanges(metas, sc.NumKeys))
		if err != nil {
			return err
		}
		for id, bm := range marks {
			if old := seen[id.seg]; old != nil {
				bm.AndNot(old)
				old.Or(bm)
			} else {
				seen[id.seg] = bm.Clone()
			}
			if bm.IsEmpty() {
				delete(marks, id)
			}
		}
		if err := putBitmaps(b, t, marks, m.End); err != nil {
			return err
		}
	}
	return nil
}

// DeleteBitmaps counts a tablet's delete bitmap entries and the rows they
// mark (summed over versions), for SHOW-like diagnostics and tests.
func (s *Store) DeleteBitmaps(id TabletID) (entries int, rows uint64, err error) {
	err = scanPrefix(s.db, tabletPrefix(pfxBitmap, id), func(k, v []byte) error {
		bm := roaring.New()
		if err := bm.UnmarshalBinary(v); err != nil {
			return errCorrupt
		}
		entries++
		rows += bm.GetCardinality()
		return nil
	})
	return entries, rows, err
}
