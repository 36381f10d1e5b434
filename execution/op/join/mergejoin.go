package join

import (
	"bytes"
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// MergeJoinSpec describes a sort-merge equi join (Spark's SortMergeJoinExec,
// chosen by a MERGE hint): the hash join's spec, with any join type but
// NullAwareLeftAntiJoin and CrossJoin, Mem charged with the buffered key
// group. Both children must arrive sorted by MergeJoinSortKeys of their keys.
type MergeJoinSpec = HashJoinSpec

// MergeJoinSortKeys is the order a merge join's input must arrive in:
// ascending on every key with NULLs first, the order Sort gives these keys,
// which is bytes.Compare of their SortEnc encoding, the comparison the merge
// itself uses.
func MergeJoinSortKeys(keys []expr.Expr) []op.SortKey {
	out := make([]op.SortKey, len(keys))
	for i, k := range keys {
		out[i] = op.SortKey{Expr: k, NullsFirst: true}
	}
	return out
}

// MergeJoin joins two inputs sorted on their keys by walking both in step.
// It buffers the current right batch (and the one before, while a group
// that ended with it is open), plus the right rows of the current key (the
// group) when they span right batches; the left rows of a key, possibly
// spanning left batches, are paired with the group. Pairs of consecutive
// keys accumulate into chunks of up to MaxBatchRows before they are turned
// into output, so unique keys still give full batches, and skewed keys
// stream out chunk by chunk.
//
// It reuses the hash join's joinCore for output assembly, the residual and
// the outer/semi/anti bookkeeping: core.probe is the current left batch
// (its rows are decided by probeTail once the batch is done), core.build is
// the right record pairs point into: the current right batch, or a
// concatenated group spanning batches. Its rows [bLo, bHi) are decided,
// from core.buildMatched, when it is retired: right rows the merge passed
// without a match simply keep a false flag.
type MergeJoin struct {
	core  *joinCore
	right op.Operator
	spec  MergeJoinSpec
	order []op.SortKey
	mem   op.MemCharge

	l mergeSide // cursor over core.probe
	r mergeSide // cursor over r.rec, the current right batch

	leftDone, finished bool
	// core.build's rows [bLo, bHi) are its own to decide; bCursor: it is r.rec.
	bLo, bHi int
	bCursor  bool
	bCharge  int64
	// The open group: rows [gLo, gHi) of core.build, key gKey.
	hasGroup bool
	gLo, gHi int
	gKey     []byte
	// inRun: left rows [runRow, runHi) of the probe batch are being paired
	// with the group; runCol is runRow's next group row.
	inRun                 bool
	runRow, runCol, runHi int
	// firstHit: without a residual, semi and anti joins need no pairs: a
	// key match decides.
	firstHit bool
	pl, pr   []int32 // pairs not yet handed to the core
	closed   bool
}

// mergeSide is one input's cursor over its current batch.
type mergeSide struct {
	rec  arrow.Record // right side only; the left batch is core.probe
	enc  op.SortEnc
	null []bool // row has a NULL in an '=' key: never matches
	pos  int
	done bool // right side: input exhausted
}

func (s *mergeSide) rows() int { return len(s.null) }

var _ op.Operator = (*MergeJoin)(nil)

// NewMergeJoin joins left and right, each already sorted by
// MergeJoinSortKeys of its keys.
func NewMergeJoin(env *op.Env, left, right op.Operator, spec MergeJoinSpec) (*MergeJoin, error) {
	if len(spec.LeftKeys) == 0 || len(spec.LeftKeys) != len(spec.RightKeys) {
		return nil, sqlerr.Assertf("merge join needs matching key lists, got %d and %d", len(spec.LeftKeys), len(spec.RightKeys))
	}
	if spec.NullSafe != nil && len(spec.NullSafe) != len(spec.LeftKeys) {
		return nil, sqlerr.Assertf("merge join: %d null-safe flags for %d keys", len(spec.NullSafe), len(spec.LeftKeys))
	}
	if spec.Type == fragment.JoinCross || spec.Type == fragment.JoinNullAwareLeftAnti {
		return nil, sqlerr.Assertf("merge join does not run %s", spec.Type)
	}
	core, err := newJoinCore("MergeJoin", env, spec.Type, left, right.Schema(), spec.Other, types.ArrowSchema(spec.Output))
	if err != nil {
		return nil, err
	}
	if spec.NullSafe == nil {
		spec.NullSafe = make([]bool, len(spec.LeftKeys))
	}
	m := &MergeJoin{core: core, right: right, spec: spec, order: MergeJoinSortKeys(spec.LeftKeys),
		mem: op.MemCharge{Tracker: spec.Mem.Child("MergeJoin")}}
	m.firstHit = core.other == nil && !emitsPairs(spec.Type)
	return m, nil
}

func (m *MergeJoin) Schema() *arrow.Schema { return m.core.out }

func (m *MergeJoin) Next(ctx context.Context) (arrow.Record, error) {
	c := m.core
	for {
		if len(c.pending) > 0 {
			r := c.pending[0]
			c.pending = c.pending[1:]
			return r, nil
		}
		if m.finished {
			return nil, io.EOF
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := m.step(ctx); err != nil {
			return nil, err
		}
	}
}

// step advances the merge by one unit of work (which may queue output).
func (m *MergeJoin) step(ctx context.Context) error {
	c := m.core
	switch {
	case m.inRun:
		return m.pairRun()
	case c.probe == nil && !m.leftDone:
		return m.nextLeft(ctx)
	case c.probe == nil:
		return m.finishRight(ctx)
	}
	l := &m.l
	n := l.rows()
	if l.pos >= n {
		err := m.flush()
		if err == nil {
			err = c.probeTail()
		}
		c.probe.Release()
		c.probe = nil
		return err
	}
	if l.null[l.pos] {
		l.pos++ // never matches; probeTail decides its output
		return nil
	}
	lk := l.enc.Key(l.pos)
	if m.hasGroup {
		if bytes.Equal(lk, m.gKey) {
			m.startRun()
			return nil
		}
		// The left side is past the group's key (it is sorted).
		return m.endGroup()
	}
	if err := m.fillRight(ctx); err != nil {
		return err
	}
	r := &m.r
	if r.done {
		l.pos = n // the rest of the batch is unmatched
		return nil
	}
	rn := r.rows()
	if below(r, r.pos, lk) {
		// No left row can match these: they keep a false match flag.
		for r.pos < rn && below(r, r.pos, lk) {
			r.pos++
		}
		return nil
	}
	rk := r.enc.Key(r.pos)
	if bytes.Compare(lk, rk) < 0 {
		for l.pos < n && (l.null[l.pos] || bytes.Compare(l.enc.Key(l.pos), rk) < 0) {
			l.pos++
		}
		return nil
	}
	return m.startGroup(ctx, lk)
}

// below: right row i sorts before key k, or never matches.
func below(r *mergeSide, i int, k []byte) bool {
	return r.null[i] || bytes.Compare(r.enc.Key(i), k) < 0
}

func (m *MergeJoin) nextLeft(ctx context.Context) error {
	c := m.core
	if !m.hasGroup && !m.keepsUnmatchedLeft() {
		// With the right side exhausted nothing more can come out of the left.
		if err := m.fillRight(ctx); err != nil {
			return err
		}
		if m.r.done {
			m.leftDone = true
			return nil
		}
	}
	rec, err := c.left.Next(ctx)
	if err == io.EOF {
		m.leftDone = true
		return nil
	}
	if err != nil {
		return err
	}
	c.probe = rec
	if err := m.encode(&m.l, m.spec.LeftKeys, rec); err != nil {
		return err
	}
	c.probeMatched = op.GrowBool(c.probeMatched, int(rec.NumRows()))
	clear(c.probeMatched)
	return nil
}

// fillRight makes r.rec a batch with rows left at r.pos, or sets r.done.
// Outside a group core.build follows it: the batch it leaves is retired.
func (m *MergeJoin) fillRight(ctx context.Context) error {
	r := &m.r
	for !r.done && (r.rec == nil || r.pos >= r.rows()) {
		if !m.hasGroup && m.core.build != nil {
			if err := m.retireBuild(); err != nil {
				return err
			}
		}
		if err := m.loadRight(ctx); err != nil {
			return err
		}
		if !m.hasGroup && !r.done {
			if err := m.adoptRight(); err != nil {
				return err
			}
		}
	}
	return nil
}

// loadRight replaces r.rec by the next right batch (or sets r.done).
func (m *MergeJoin) loadRight(ctx context.Context) error {
	r := &m.r
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
		m.bCursor = false
	}
	rec, err := m.right.Next(ctx)
	if err == io.EOF {
		r.done = true
		r.null = r.null[:0]
		return nil
	}
	if err != nil {
		return err
	}
	r.rec = rec
	return m.encode(r, m.spec.RightKeys, rec)
}

// adoptRight makes the current right batch core.build, owning its rows
// from the cursor on (earlier ones belonged to a group record).
func (m *MergeJoin) adoptRight() error {
	r := &m.r
	r.rec.Retain()
	m.setBuild(r.rec, r.pos, r.rows())
	m.bCursor = true
	return m.chargeBuild(op.RecordMemBytes(r.rec))
}

func (m *MergeJoin) setBuild(b arrow.Record, lo, hi int) {
	c := m.core
	c.build = b
	m.bLo, m.bHi = lo, hi
	c.buildMatched = op.GrowBool(c.buildMatched, int(b.NumRows()))
	clear(c.buildMatched)
}

func (m *MergeJoin) chargeBuild(n int64) error {
	if err := m.mem.Add(n); err != nil {
		return err
	}
	m.bCharge += n
	return nil
}

func (m *MergeJoin) uncharge(n int64) {
	m.mem.Tracker.Release(n)
	m.mem.Bytes -= n
}

// retireBuild emits core.build's own rows decided by their match flags
// (after the pairs pointing into it) and drops it.
func (m *MergeJoin) retireBuild() error {
	c := m.core
	err := m.flush()
	if err == nil && TracksBuild(c.typ) {
		want := c.typ == fragment.JoinRightSemi
		var idx []int32
		for i := m.bLo; i < m.bHi; i++ {
			if c.buildMatched[i] == want {
				idx = append(idx, int32(i))
			}
		}
		err = c.emitSide(c.build, idx, false)
	}
	c.build.Release()
	c.build = nil
	m.bCursor = false
	m.uncharge(m.bCharge)
	m.bCharge = 0
	return err
}

// encode computes a batch's order-preserving keys and '=' NULL flags.
func (m *MergeJoin) encode(s *mergeSide, keys []expr.Expr, rec arrow.Record) error {
	cols, err := op.EvalCols(m.core.env, keys, rec)
	if err != nil {
		return err
	}
	defer op.ReleaseAll(cols)
	s.enc.Encode(cols, m.order)
	n := int(rec.NumRows())
	s.null = op.GrowBool(s.null, n)
	clear(s.null)
	for ci, col := range cols {
		if m.spec.NullSafe[ci] || col.NullN() == 0 {
			continue
		}
		for i := 0; i < n; i++ {
			if col.IsNull(i) {
				s.null[i] = true
			}
		}
	}
	s.pos = 0
	return nil
}

// groupEnd is the end of the rows from i on whose key is gKey.
func (m *MergeJoin) groupEnd(s *mergeSide, i int) int {
	for i < s.rows() && !s.null[i] && bytes.Equal(s.enc.Key(i), m.gKey) {
		i++
	}
	return i
}

// startGroup opens the group of the right rows whose key is key. If they
// run past the current right batch they are gathered, across batches, into
// one record that becomes core.build.
func (m *MergeJoin) startGroup(ctx context.Context, key []byte) error {
	c, r := m.core, &m.r
	m.gKey = append(m.gKey[:0], key...)
	m.hasGroup = true
	m.gLo = r.pos
	r.pos = m.groupEnd(r, r.pos)
	m.gHi = r.pos
	if r.pos < r.rows() {
		return nil
	}
	// The group reaches the end of core.build: does it go on?
	var parts []arrow.Record
	defer func() { op.ReleaseRecs(parts) }()
	var partBytes int64
	for {
		if err := m.loadRight(ctx); err != nil {
			return err
		}
		if r.done {
			break
		}
		end := m.groupEnd(r, 0)
		if end == 0 {
			break
		}
		rn := r.rows()
		parts = append(parts, r.rec.NewSlice(0, int64(end)))
		// A slice shares its batch's buffers: charge its share of them.
		b := op.RecordMemBytes(r.rec) * int64(end) / int64(rn)
		if err := m.mem.Add(b); err != nil {
			return err
		}
		partBytes += b
		r.pos = end
		if end < rn {
			break
		}
	}
	if len(parts) == 0 {
		return nil // the group ends with core.build; r.rec is already past it
	}
	first := c.build.NewSlice(int64(m.gLo), int64(m.gHi))
	parts = append([]arrow.Record{first}, parts...)
	m.bHi = m.gLo // the group's rows move to the group record
	if err := m.retireBuild(); err != nil {
		return err
	}
	g, err := op.ConcatRecords(c.env.Mem, m.right.Schema(), parts)
	if err != nil {
		return err
	}
	n := int(g.NumRows())
	m.setBuild(g, 0, n)
	m.gLo, m.gHi = 0, n
	m.uncharge(partBytes)
	return m.chargeBuild(op.RecordMemBytes(g))
}

// endGroup closes the group. A group record, or a batch the right cursor
// has left, is retired, and core.build goes back to the cursor's batch.
func (m *MergeJoin) endGroup() error {
	m.hasGroup = false
	if m.bCursor {
		return nil
	}
	if err := m.retireBuild(); err != nil {
		return err
	}
	if m.r.rec != nil && !m.r.done {
		return m.adoptRight()
	}
	return nil
}

// startRun pairs the probe batch's rows of the group's key with the group.
func (m *MergeJoin) startRun() {
	c, l := m.core, &m.l
	hi := m.groupEnd(l, l.pos)
	if m.firstHit {
		for i := l.pos; i < hi; i++ {
			c.probeMatched[i] = true
		}
		if TracksBuild(c.typ) {
			for i := m.gLo; i < m.gHi; i++ {
				c.buildMatched[i] = true
			}
		}
		l.pos = hi
		return
	}
	m.inRun, m.runRow, m.runCol, m.runHi = true, l.pos, m.gLo, hi
}

// pairRun adds the run's pairs, handing them to the core in chunks.
func (m *MergeJoin) pairRun() error {
	c := m.core
	// Semi and anti rows are decided by their first match.
	skipMatched := c.typ == fragment.JoinLeftSemi || c.typ == fragment.JoinLeftAnti
	for m.runRow < m.runHi && len(m.pl) < op.MaxBatchRows {
		if skipMatched && c.probeMatched[m.runRow] {
			m.runRow, m.runCol = m.runRow+1, m.gLo
			continue
		}
		end := min(m.gHi, m.runCol+op.MaxBatchRows-len(m.pl))
		for k := m.runCol; k < end; k++ {
			m.pl = append(m.pl, int32(m.runRow))
			m.pr = append(m.pr, int32(k))
		}
		m.runCol = end
		if end == m.gHi {
			m.runRow, m.runCol = m.runRow+1, m.gLo
		}
	}
	if m.runRow >= m.runHi {
		m.inRun = false
		m.l.pos = m.runHi
	}
	if len(m.pl) >= op.MaxBatchRows {
		return m.flush()
	}
	return nil
}

// flush hands the accumulated pairs to the core.
func (m *MergeJoin) flush() error {
	if len(m.pl) == 0 {
		return nil
	}
	err := m.core.pairs(m.pl, m.pr)
	m.pl, m.pr = m.pl[:0], m.pr[:0]
	return err
}

// finishRight runs once the left side is exhausted: it retires what is
// buffered and, if the type outputs them, the right rows never reached.
func (m *MergeJoin) finishRight(ctx context.Context) error {
	if m.hasGroup {
		return m.endGroup()
	}
	if m.core.build != nil {
		return m.retireBuild()
	}
	if !m.keepsUnmatchedRight() || m.r.done {
		m.finished = true
		return nil
	}
	m.r.pos = m.r.rows() // what is left of the cursor's batch was retired
	return m.fillRight(ctx)
}

func (m *MergeJoin) keepsUnmatchedLeft() bool {
	switch m.spec.Type {
	case fragment.JoinLeftOuter, fragment.JoinFullOuter, fragment.JoinLeftAnti:
		return true
	}
	return false
}

func (m *MergeJoin) keepsUnmatchedRight() bool {
	switch m.spec.Type {
	case fragment.JoinRightOuter, fragment.JoinFullOuter, fragment.JoinRightAnti:
		return true
	}
	return false
}

func (m *MergeJoin) Close() {
	if m.closed {
		return
	}
	m.closed = true
	m.core.close()
	if m.r.rec != nil {
		m.r.rec.Release()
		m.r.rec = nil
	}
	m.core.left.Close()
	m.right.Close()
	m.mem.ReleaseAll()
}
