package storage

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/storage/meta"
)

// PartialUpdate is a partial column update (meta.PartialUpdate).
type PartialUpdate = meta.PartialUpdate

// WritePartial fills rec's missing columns from the tablet's newest live
// rows (the latest published version) and writes it like Write. The
// rowset remembers the rowsets it filled from: a load published before
// this one but after the fill, or a clone or compaction replacing the
// rowsets, makes Publish fill those keys again from the version below its
// own (refillPartial, Doris's publish-time conflict resolution), so every
// replica ends with the same rows whatever it held when the rows came.
func (s *Store) WritePartial(txn TxnID, tab TabletID, rec arrow.Record, p PartialUpdate) error {
	sc, err := s.Schema(tab)
	if err != nil {
		return err
	}
	if !sc.mergeOnWrite() {
		return sqlerr.Doris.New(fmt.Sprintf("tablet %d: only unique key merge on write support partial update", tab))
	}
	if err := checkRecord(tab, sc, rec); err != nil {
		return err
	}
	for _, c := range p.Fill {
		if c < sc.NumKeys || c >= len(sc.Columns) {
			return sqlerr.Assertf("storage: partial update fills column %d of %d (keys %d)", c, len(sc.Columns), sc.NumKeys)
		}
	}
	filled, base, err := s.fillPartial(sc, tab, rec, p)
	if err != nil {
		return err
	}
	defer filled.Release()
	return s.write(txn, tab, filled, func(w *rowsetWriter) { w.notePartial(p, base, rec) })
}

// notePartial records that a partial update's batch rec (before its fill)
// was filled from the rowsets base: a rowset counts as filled from only if
// every batch saw it. Caller holds w.mu.
func (w *rowsetWriter) notePartial(p PartialUpdate, base map[rowsetID]bool, rec arrow.Record) {
	if w.partial == nil {
		w.partial = &PartialUpdate{Fill: slices.Clone(p.Fill), Sign: p.Sign}
		w.base = base
	} else {
		for id := range w.base {
			if !base[id] {
				delete(w.base, id)
			}
		}
	}
	if w.placeholder == nil && rec.NumRows() > 0 {
		for _, c := range p.Fill {
			w.placeholder = append(w.placeholder, take(rec.Column(c), []int32{0})) // a copy: not the batch's buffers
		}
	}
}

// fillPartial returns rec with p.Fill's columns taken from the live rows
// of its keys, and the published rowsets it read them from.
func (s *Store) fillPartial(sc *TabletSchema, tab TabletID, rec arrow.Record, p PartialUpdate) (arrow.Record, map[rowsetID]bool, error) {
	n := int(rec.NumRows())
	// The record's keys, sorted and distinct; rowsOf[i]: rec rows of key i.
	type keyRow struct {
		key []byte
		row int
	}
	kr := make([]keyRow, n)
	for i := 0; i < n; i++ {
		var k []byte
		for c := 0; c < sc.NumKeys; c++ {
			k = appendKeyValue(k, rec.Column(c), i)
		}
		kr[i] = keyRow{k, i}
	}
	slices.SortFunc(kr, func(a, b keyRow) int { return bytes.Compare(a.key, b.key) })
	var keys [][]byte
	var rowsOf [][]int
	for _, e := range kr {
		if len(keys) > 0 && bytes.Equal(keys[len(keys)-1], e.key) {
			rowsOf[len(rowsOf)-1] = append(rowsOf[len(rowsOf)-1], e.row)
			continue
		}
		keys = append(keys, e.key)
		rowsOf = append(rowsOf, []int{e.row})
	}

	it := &scanIter{ctx: context.Background(), s: s, tab: tab, schema: sc}
	it.snap = s.db.NewSnapshot()
	defer it.Close()
	all, err := readRowsets(it.snap, tab)
	if err != nil {
		return nil, nil, err
	}
	dead, err := readBitmaps(it.snap, tab, math.MaxInt64)
	if err != nil {
		return nil, nil, err
	}
	vis := visibleRowsets(all, math.MaxInt64)
	base := make(map[rowsetID]bool, len(vis))
	for _, m := range vis {
		base[m.ID] = true
	}
	if err := it.planRowsets(vis, nil, nil, dead); err != nil {
		return nil, nil, err
	}
	read := slices.Clone(p.Fill)
	if p.Sign >= 0 {
		read = append(read, p.Sign)
	}
	// src[i] = (part, row) the filled columns of rec row i come from;
	// part 0 is rec itself, part j > 0 the j-th segment read.
	type ref struct{ part, row int }
	src := make([]ref, n)
	for i := range src {
		src[i] = ref{0, i}
	}
	parts := [][]arrow.Array{nil}
	defer func() {
		for _, ps := range parts[1:] {
			releaseAll(ps)
		}
	}()
	g := snapGetter{it.snap}
	for _, seg := range it.segs {
		ix, c, err := readPKIndex(g, tab, seg.rs, seg.seg)
		if err != nil {
			return nil, nil, err
		}
		var hits []ref // (key index, segment row)
		ix.lookup(keys, func(ki int, row uint32) {
			if seg.dead == nil || !seg.dead.Contains(row) {
				hits = append(hits, ref{ki, int(row)})
			}
		})
		_ = c.Close()
		if len(hits) == 0 {
			continue
		}
		arrs, err := it.readColumns(seg, read)
		if err != nil {
			return nil, nil, err
		}
		part := len(parts)
		parts = append(parts, arrs)
		var sign *array.Int8
		if p.Sign >= 0 {
			sign, _ = arrs[len(arrs)-1].(*array.Int8)
		}
		for _, h := range hits {
			if sign != nil && sign.IsValid(h.row) && sign.Value(h.row) == 1 {
				continue // deleted: a new key again
			}
			for _, r := range rowsOf[h.part] {
				src[r] = ref{part, h.row}
			}
		}
	}
	cols := make([]arrow.Array, rec.NumCols())
	for c := range cols {
		cols[c] = rec.Column(c)
		cols[c].Retain()
	}
	if len(parts) == 1 {
		return array.NewRecord(rec.Schema(), cols, int64(n)), base, nil
	}
	for fi, c := range p.Fill {
		pieces := []arrow.Array{rec.Column(c)}
		offs := []int{0, n}
		for _, ps := range parts[1:] {
			pieces = append(pieces, ps[fi])
			offs = append(offs, offs[len(offs)-1]+ps[fi].Len())
		}
		whole, err := array.Concatenate(pieces, memory.DefaultAllocator)
		if err != nil {
			releaseAll(cols)
			return nil, nil, err
		}
		idx := make([]int32, n)
		for i, r := range src {
			idx[i] = int32(offs[r.part] + r.row)
		}
		cols[c].Release()
		cols[c] = take(whole, idx)
		whole.Release()
	}
	out := array.NewRecord(rec.Schema(), cols, int64(n))
	releaseAll(cols)
	return out, base, nil
}

// lookup calls fn(i, row) for every entry of ix whose key is keys[i]
// (keys sorted, distinct).
func (ix pkIndex) lookup(keys [][]byte, fn func(i int, row uint32)) {
	for ki, k := range keys {
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
			fn(ki, r)
		}
	}
}
