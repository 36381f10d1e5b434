package storage

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Delete predicates are Doris's (DeletePredicatePB in a rowset's meta): a
// DELETE ... WHERE on a DUPLICATE, AGGREGATE or merge-on-read UNIQUE
// tablet is a transaction that writes no rows. Each tablet it touches gets
// a rowset without segments carrying the condition, prepared and published
// at the partition's next version v like a load, so it is atomic and
// durable the same way. The condition applies to every row of the rowsets
// whose versions are below v (End < v) and to none published later; a row
// is dropped when the condition is TRUE for it, FALSE and NULL keep it:
//
//	[2] rows  [3] rows  [4] delete k=1  [5] rows
//	scan@5: [2] and [3] are read without their k=1 rows, [5] as stored;
//	scan@3 does not see the delete at all.
//
// The condition is opaque to storage: Options.Predicates compiles it (a
// backend passes sql/eval over sql/expr JSON); storage only asks which
// columns it reads and evaluates it per segment, before UNIQUE/AGGREGATE
// merging (their conditions name key columns only, so every row of a key
// in a rowset goes or stays together). DeleteCond.Ranges are column ranges
// the condition implies: a segment whose zone maps rule one out holds no
// deleted row and is read without evaluating the condition. Zone maps stay
// what they were (a superset of the live rows), so pruning stays correct.
//
// Compaction folds deletes: merging a run of rowsets, each input's rows
// are filtered by the conditions among the inputs with a newer version, so
// the output holds only live rows. When the run starts at the tablet's
// first rowset nothing older remains and the conditions are gone; else the
// output carries them (rowsetMeta.Deletes) for the older rowsets:
//
//	[2..3] [d4] [5]  --compact [d4],[5]-->  [2..3] [4..5 carrying d4]
//	                 --compact all------->  [2..5], d4 folded away
//
// In general a rowset's Deletes apply to every visible rowset whose End is
// below their version; a delete rowset's own are never carried past a
// compaction that covers all rowsets older than it.

// DeleteCond is one delete condition as the FE sends it.
type DeleteCond struct {
	// Cond encodes the condition over the tablet's columns; it is opaque
	// here and compiled by Options.Predicates.
	Cond json.RawMessage `json:"cond"`
	// Ranges hold for every row the condition is TRUE for, so a segment
	// whose zone maps exclude any of them has no row to delete.
	Ranges []ColumnRange `json:"ranges,omitempty"`
	// Names map the (lower-cased) column names the condition was written
	// against to their unique ids, set by WriteDelete, so that renamed,
	// dropped and re-added columns still resolve to the same data.
	Names map[string]int32 `json:"names,omitempty"`
	// RangeCols are the unique ids of the Ranges' columns (WriteDelete).
	RangeCols []int32 `json:"range_cols,omitempty"`
}

// condRanges are dc's ranges over the columns of sc; a range on a column
// since dropped prunes nothing and is left out.
func condRanges(sc *TabletSchema, dc DeleteCond) []ColumnRange {
	if dc.RangeCols == nil || len(dc.RangeCols) != len(dc.Ranges) {
		return dc.Ranges
	}
	var out []ColumnRange
	for i, r := range dc.Ranges {
		if p := sc.indexOfID(dc.RangeCols[i]); p >= 0 {
			r.Column = p
			out = append(out, r)
		}
	}
	return out
}

// condColumns are the schema's columns named as the condition knows them:
// a column renamed since gets its old name, one added since a name no
// condition can spell.
func condColumns(sc *TabletSchema, dc DeleteCond) []types.Column {
	if dc.Names == nil {
		return sc.Columns
	}
	byID := make(map[int32]string, len(dc.Names))
	for n, id := range dc.Names {
		byID[id] = n
	}
	out := make([]types.Column, sc.readWidth())
	for p := range out {
		c, id := sc.readColumn(p)
		if n, ok := byID[id]; ok {
			c.Name = n
		} else {
			c.Name = "\x00other:" + c.Name
		}
		out[p] = c
	}
	return out
}

// Predicate is a compiled delete condition.
type Predicate interface {
	// Columns lists the schema columns the condition reads.
	Columns() []int
	// Matches returns, per row, whether the condition is TRUE (FALSE and
	// NULL are false) over cols: one array of n rows per Columns entry.
	// The caller releases the result.
	Matches(cols []arrow.Array, n int) (*array.Boolean, error)
}

// Compiler compiles DeleteCond.Cond against a tablet's columns.
type Compiler func(cond []byte, cols []types.Column) (Predicate, error)

// rowsetDelete is a delete condition with the version it was published at.
// Cond is the DeleteCond's JSON, decoded only when a scan or compaction
// applies it (compile caches that): every scan reads the metas of all of a
// tablet's rowsets, stale ones included, and decoding their conditions
// there was most of a scan's time after a hundred deletes.
type rowsetDelete struct {
	Version Version
	Cond    []byte
}

func appendBytes(b, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// bytes reads what appendBytes wrote, copied.
func (r *reader) bytes() []byte {
	n := r.uvarint()
	if r.err != nil || uint64(len(r.b)) < n {
		r.fail()
		return nil
	}
	v := slices.Clone(r.b[:n])
	r.b = r.b[n:]
	return v
}

// liveDelete is a compiled delete condition of a scan or a compaction.
type liveDelete struct {
	version Version
	pred    Predicate
	ranges  []ColumnRange
}

// maxCachedPredicates bounds the compiled-condition cache; past it the
// cache starts over (compiling is a JSON decode and a tree walk).
const maxCachedPredicates = 4096

// predKey identifies a compiled condition by what compiling reads: the
// condition's text and the columns it is compiled against (names as the
// condition knows them, types, nullability). Tablets of one table at one
// schema share it, so a DELETE over many tablets compiles once, not once
// per tablet.
type predKey struct {
	cond string
	cols string
}

// compiledCond is a decoded and compiled DeleteCond.
type compiledCond struct {
	dc   DeleteCond
	pred Predicate
}

// colsKey encodes the compile inputs of cols for predKey.
func colsKey(cols []types.Column) string {
	b := make([]byte, 0, 24*len(cols))
	for _, c := range cols {
		b = append(b, c.Name...)
		b = append(b, 0)
		b = strconv.AppendInt(b, int64(c.Type.Kind), 10)
		b = append(b, '.')
		b = strconv.AppendInt(b, int64(c.Type.Precision), 10)
		b = append(b, '.')
		b = strconv.AppendInt(b, int64(c.Type.Scale), 10)
		b = append(b, '.')
		b = strconv.AppendInt(b, int64(c.Type.Length), 10)
		b = append(b, '.')
		b = append(b, c.Type.Sub...)
		b = strconv.AppendBool(b, c.Nullable)
		b = append(b, 1)
	}
	return string(b)
}

// compiled is the compiled condition of tablet t (schema sc) with the
// ranges placed at sc's column positions.
type compiled struct {
	pred   Predicate
	ranges []ColumnRange
}

// compile returns tablet t's condition encoded as raw (DeleteCond JSON),
// decoded and compiled against t's schema sc, cached.
func (s *Store) compile(t *tablet, sc *TabletSchema, raw []byte) (compiled, error) {
	s.predMu.Lock()
	dc, ok := s.decoded[string(raw)]
	s.predMu.Unlock()
	if !ok {
		if err := json.Unmarshal(raw, &dc); err != nil {
			return compiled{}, fmt.Errorf("storage: tablet %d: delete condition: %w", t.id, err)
		}
	}
	cols := condColumns(sc, dc)
	key := predKey{cond: string(raw), cols: colsKey(cols)}
	s.predMu.Lock()
	c, hit := s.preds[key]
	s.predMu.Unlock()
	if !hit {
		if s.compiler == nil {
			return compiled{}, sqlerr.Assertf("storage: tablet %d has delete conditions but the store has no predicate compiler", t.id)
		}
		p, err := s.compiler(dc.Cond, cols)
		if err != nil {
			return compiled{}, fmt.Errorf("storage: tablet %d: delete condition: %w", t.id, err)
		}
		c = compiledCond{dc: dc, pred: p}
	}
	for _, col := range c.pred.Columns() {
		if col < 0 || col >= sc.readWidth() {
			return compiled{}, sqlerr.Assertf("storage: delete condition reads column %d of %d", col, sc.readWidth())
		}
	}
	if !hit || !ok {
		s.predMu.Lock()
		if len(s.preds) >= maxCachedPredicates {
			clear(s.preds)
		}
		if len(s.decoded) >= maxCachedPredicates {
			clear(s.decoded)
		}
		s.preds[key] = c
		s.decoded[string(raw)] = dc
		s.predMu.Unlock()
	}
	return compiled{pred: c.pred, ranges: condRanges(sc, dc)}, nil
}

// liveDeletes compiles the delete conditions the rowsets carry, in
// version order.
func (s *Store) liveDeletes(t *tablet, sc *TabletSchema, rowsets []rowsetMeta) ([]liveDelete, error) {
	var out []liveDelete
	for _, m := range rowsets {
		for _, d := range m.Deletes {
			c, err := s.compile(t, sc, d.Cond)
			if err != nil {
				return nil, err
			}
			out = append(out, liveDelete{version: d.Version, pred: c.pred, ranges: c.ranges})
		}
	}
	slices.SortStableFunc(out, func(a, b liveDelete) int { return cmp.Compare(a.version, b.version) })
	return out, nil
}

// applying is the part of dels (in version order) newer than end: what
// applies to a rowset ending at end.
func applying(dels []liveDelete, end Version) []liveDelete {
	i, _ := slices.BinarySearchFunc(dels, end+1, func(d liveDelete, v Version) int { return cmp.Compare(d.version, v) })
	return dels[i:]
}

// segmentDeletes keeps the deletes whose ranges the segment's zone maps
// do not rule out.
func segmentDeletes(dels []liveDelete, m segMeta) []liveDelete {
	var out []liveDelete
	for _, d := range dels {
		if !pruned(m, d.ranges) {
			out = append(out, d)
		}
	}
	return out
}

// WriteDelete adds the delete condition c to (txn, tablet): once published
// at version v it drops the rows of every rowset below v for which it is
// TRUE. It is compiled here, so a condition the tablet cannot evaluate
// fails before the FE commits. A transaction deletes from a tablet or
// loads it, not both.
func (s *Store) WriteDelete(txn TxnID, tab TabletID, c DeleteCond) error {
	return s.WriteDeletes(txn, []TabletID{tab}, c)
}

// WriteDeletes is WriteDelete on each of tabs: the condition is encoded
// and compiled once per tablet schema, not once per tablet (a DELETE
// writes it to every tablet of the table).
func (s *Store) WriteDeletes(txn TxnID, tabs []TabletID, c DeleteCond) error {
	if !json.Valid(c.Cond) {
		return sqlerr.Assertf("storage: delete condition of transaction %d is not JSON", txn)
	}
	encoded := map[*TabletSchema][]byte{}
	for _, tab := range tabs {
		t, err := s.tablet(tab)
		if err != nil {
			return err
		}
		s.mu.Lock()
		sc := t.schema
		s.mu.Unlock()
		raw, ok := encoded[sc]
		if !ok {
			if raw, err = s.encodeDelete(t, sc, c); err != nil {
				return err
			}
			encoded[sc] = raw
		}
		if err := s.writeDelete(txn, t, tab, raw); err != nil {
			return err
		}
	}
	return nil
}

// encodeDelete is c bound to schema sc's column IDs, encoded, after
// checking that the tablet can compile it.
func (s *Store) encodeDelete(t *tablet, sc *TabletSchema, c DeleteCond) ([]byte, error) {
	c.Names = make(map[string]int32, len(sc.Columns))
	for i, col := range sc.Columns {
		c.Names[strings.ToLower(col.Name)] = sc.ColumnID(i)
	}
	c.RangeCols = nil
	for _, r := range c.Ranges {
		if r.Column < 0 || r.Column >= len(sc.Columns) {
			return nil, sqlerr.Assertf("storage: delete range on column %d of %d", r.Column, len(sc.Columns))
		}
		c.RangeCols = append(c.RangeCols, sc.ColumnID(r.Column))
	}
	raw, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	if _, err := s.compile(t, sc, raw); err != nil {
		return nil, err
	}
	return raw, nil
}

// writeDelete records the encoded condition raw as txn's pending delete of
// tablet tab.
func (s *Store) writeDelete(txn TxnID, t *tablet, tab TabletID, raw []byte) error {
	s.mu.Lock()
	if t.dropped {
		s.mu.Unlock()
		return errNoTablet(tab)
	}
	w := s.pendingWriterLocked(txn, t, tab)
	s.mu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.done:
		return sqlerr.Doris.New(fmt.Sprintf("transaction %d on tablet %d is already finished", txn, tab))
	case w.rows > 0 || w.bufRows > 0:
		return sqlerr.Assertf("storage: transaction %d both loads and deletes tablet %d", txn, tab)
	}
	w.del = raw
	w.prepped = false
	return nil
}

// readLive reads the given columns of one segment without the rows its
// deletes drop, returning the arrays and their row count.
func (it *scanIter) readLive(seg segRef, cols []int) ([]arrow.Array, int, error) {
	if len(seg.dels) == 0 && (seg.dead == nil || seg.dead.IsEmpty()) {
		arrs, err := it.readColumns(seg, cols)
		return arrs, seg.rows, err
	}
	if seg.dead != nil && !seg.dead.IsEmpty() {
		return it.applyDeletes(seg, cols)
	}
	// Delete conditions only: the surviving rows of a segment are the same
	// for every scan that sees the same conditions, so they are cached
	// (colKey.del) as the columns are. Until a compaction folds the
	// conditions away, a scan then neither reads their columns nor
	// evaluates them nor copies the surviving rows out again.
	cc := columnCache()
	if it.noCache {
		cc = nil
	}
	keys := make([]colKey, len(cols))
	for i, c := range cols {
		st := seg.lay[c]
		if st < 0 || cc == nil {
			cc = nil
			break
		}
		keys[i] = colKey{store: it.s.id, tab: it.tab, rs: seg.rs, seg: int32(seg.seg), col: int32(st),
			del: seg.dels[len(seg.dels)-1].version, ndel: int32(len(seg.dels))}
	}
	if cc != nil {
		if arrs, ok := cachedAll(cc, keys); ok {
			it.s.colHits.Add(int64(len(cols)))
			return arrs, arrs[0].Len(), nil
		}
	}
	arrs, rows, err := it.applyDeletes(seg, cols)
	if err == nil && cc != nil {
		for i, a := range arrs {
			a.Retain() // the cache's reference
			cc.put(keys[i], a)
			// The column as stored, and as the conditions before the
			// newest left it, are what only scans of older versions read
			// now: dropping them keeps the cache holding one copy of the
			// segment, not two that crowd out other columns.
			raw := keys[i]
			raw.del, raw.ndel = 0, 0
			cc.drop(raw)
			if n := len(seg.dels); n > 1 {
				prev := keys[i]
				prev.del, prev.ndel = seg.dels[n-2].version, int32(n-1)
				cc.drop(prev)
			}
		}
	}
	return arrs, rows, err
}

// cachedAll is every key's cached array (each retained), or false if one
// is missing.
func cachedAll(cc *lru, keys []colKey) ([]arrow.Array, bool) {
	out := make([]arrow.Array, len(keys))
	for i, k := range keys {
		a, ok := cc.get(k)
		if !ok {
			return nil, false
		}
		out[i] = a
	}
	if len(out) == 0 {
		return nil, false
	}
	for _, a := range out {
		a.Retain()
	}
	return out, true
}

// applyDeletes reads the given columns of one segment and drops the rows
// its delete conditions and delete bitmap remove.
func (it *scanIter) applyDeletes(seg segRef, cols []int) ([]arrow.Array, int, error) {
	load := slices.Clone(cols)
	for _, d := range seg.dels {
		for _, c := range d.pred.Columns() {
			if !slices.Contains(load, c) {
				load = append(load, c)
			}
		}
	}
	arrs, err := it.readColumns(seg, load)
	if err != nil {
		return nil, 0, err
	}
	defer releaseAll(arrs)
	gone := make([]byte, bitutil.BytesForBits(int64(seg.rows)))
	if seg.dead != nil {
		for bi := seg.dead.Iterator(); bi.HasNext(); {
			if r := int(bi.Next()); r < seg.rows {
				bitutil.SetBit(gone, r)
			}
		}
	}
	args := make([]arrow.Array, 0, 4)
	for _, d := range seg.dels {
		args = args[:0]
		for _, c := range d.pred.Columns() {
			args = append(args, arrs[slices.Index(load, c)])
		}
		m, err := d.pred.Matches(args, seg.rows)
		if err != nil {
			return nil, 0, err
		}
		if m.Len() != seg.rows {
			m.Release()
			return nil, 0, sqlerr.Assertf("storage: delete condition matched %d of %d rows", m.Len(), seg.rows)
		}
		for i := 0; i < seg.rows; i++ {
			if m.IsValid(i) && m.Value(i) {
				bitutil.SetBit(gone, i)
			}
		}
		m.Release()
	}
	dropped := bitutil.CountSetBits(gone, 0, seg.rows)
	out := make([]arrow.Array, len(cols))
	if dropped == 0 {
		for i := range out {
			arrs[i].Retain()
			out[i] = arrs[i]
		}
		return out, seg.rows, nil
	}
	if len(seg.dels) > 0 {
		it.s.rowsDeleted.Add(int64(dropped))
	}
	keep := make([]int32, 0, seg.rows-dropped)
	for i := 0; i < seg.rows; i++ {
		if !bitutil.BitIsSet(gone, i) {
			keep = append(keep, int32(i))
		}
	}
	for i := range out {
		out[i] = take(arrs[i], keep)
	}
	return out, len(keep), nil
}
