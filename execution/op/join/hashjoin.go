package join

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// HashJoinSpec describes an equi join: the right child is the build side,
// the left child is streamed.
type HashJoinSpec struct {
	Type fragment.JoinType
	// LeftKeys[i] (over the left child's columns) is compared with
	// RightKeys[i] (over the right child's); the planner has cast each pair
	// to one type.
	LeftKeys, RightKeys []expr.Expr
	// NullSafe[i] marks a '<=>' key (NULL matches NULL); nil: all '='.
	NullSafe []bool
	// Other holds the residual conjuncts ("other join predicates"), over the
	// left columns followed by the right columns. They decide whether a pair
	// matches, also for outer, semi and anti joins (MySQL ON semantics).
	Other []expr.Expr
	// Output is left columns then right columns; only the left ones for
	// LEFT SEMI/ANTI and NAAJ, only the right ones for RIGHT SEMI/ANTI.
	Output []types.Column
	// Mem is charged with the build side; nil is unlimited.
	Mem *op.MemTracker
}

// HashJoin builds a hash table over the whole right side, then probes it
// with each left batch.
//
// The table is a bucket array plus a per-row chain (Doris' JoinHashTable
// layout): first[bucket] and next[row] are row numbers into the build
// side, which is concatenated into one record, so a probe walks int32
// arrays and compares pre-encoded key bytes, and output is gathered with
// one Take per column per batch.
type HashJoin struct {
	core  *joinCore
	right op.Operator
	spec  HashJoinSpec
	mem   op.MemCharge
	built bool

	// build side (shared: built once for several tasks' joins)
	*hashTable
	shared *SharedBuild
	// probe cursor
	pKeys    op.EncKeys
	pHash    []uint64
	row      int
	chain    int32 // next candidate of row (row+1), 0: start row fresh
	firstHit bool  // semi/anti without residual: one match decides
	// pFixed: one key column of 8-byte encoding on the probe side.
	pFixed bool
	pRows  int
	pVals  []uint64 // fixed path: the probe keys' values
	heads  []int32  // fixed path: each probe row's chain head

	// rfs receives the runtime filters rfBuild lists once the build side
	// is indexed (nil: publish none, e.g. a task holding part of it).
	rfs     *RuntimeFilters
	rfBuild []fragment.RFBuild
	rfDone  bool // the filters went out

	// Spilling (gracejoin.go): grace is set once the build side spilled;
	// level is the partitioning depth of this join (0: the plan's own);
	// stats and dir are shared with the partition joins below it.
	grace *graceJoin
	level int
	stats *spillStats
	dir   *spillDir
	label string // names the join in errors
	// hard: only exec_mem_limit counts, not SpillConfig.Threshold (one
	// key's partition, which no spilling can make smaller).
	hard bool
}

// NoRuntimeFilters stops h publishing runtime filters: its build side is
// not all the instance's (one pipeline task's share of it).
func (h *HashJoin) NoRuntimeFilters() { h.rfs = nil }

// PublishRuntimeFilters has the join publish the filters rfBuild lists to
// rfs once its build side is in.
func (h *HashJoin) PublishRuntimeFilters(rfs *RuntimeFilters, rfBuild []fragment.RFBuild) {
	h.rfs, h.rfBuild = rfs, rfBuild
}

// hashTable indexes a build side: read-only once built, so joins of
// several pipeline tasks may share one.
type hashTable struct {
	bits  uint
	first []int32 // bucket → row+1
	nextR []int32 // row → next row+1 in its chain
	bHash []uint64
	bKeys op.EncKeys
	// bFixed: one key column of 8-byte encoding.
	bFixed bool
	// fixed: bFixed with '=' (NULL keys never match), indexed in ents: a
	// probe compares values directly and touches one entry per candidate,
	// where the general path reads hash, offset and key bytes apart.
	fixed bool
	ents  []fixedEnt
}

// fixedEnt is a build row of a single 8-byte key: its value and the next
// row+1 of its chain.
type fixedEnt struct {
	key  uint64
	next int32
}

var _ op.Operator = (*HashJoin)(nil)

// NewHashJoin returns a hash join of left (probe) and right (build).
func NewHashJoin(env *op.Env, left, right op.Operator, spec HashJoinSpec) (*HashJoin, error) {
	if len(spec.LeftKeys) == 0 || len(spec.LeftKeys) != len(spec.RightKeys) {
		return nil, sqlerr.Assertf("hash join needs matching key lists, got %d and %d", len(spec.LeftKeys), len(spec.RightKeys))
	}
	if spec.NullSafe != nil && len(spec.NullSafe) != len(spec.LeftKeys) {
		return nil, sqlerr.Assertf("hash join: %d null-safe flags for %d keys", len(spec.NullSafe), len(spec.LeftKeys))
	}
	if spec.Type == fragment.JoinCross {
		return nil, sqlerr.Assertf("hash join cannot be a cross join")
	}
	core, err := newJoinCore("HashJoin", env, spec.Type, left, right.Schema(), spec.Other, types.ArrowSchema(spec.Output))
	if err != nil {
		return nil, err
	}
	if spec.NullSafe == nil {
		spec.NullSafe = make([]bool, len(spec.LeftKeys))
	}
	label := joinLabel(spec.Mem)
	h := &HashJoin{core: core, right: right, spec: spec, mem: op.MemCharge{Tracker: spec.Mem.Child(label)}, hashTable: &hashTable{}, label: label,
		stats: &spillStats{}} // set up front: profiles read it while the join runs
	h.firstHit = spec.Other == nil && !emitsPairs(spec.Type) && !TracksBuild(spec.Type)
	core.src = h
	return h, nil
}

func (h *HashJoin) Schema() *arrow.Schema { return h.core.out }

func (h *HashJoin) Next(ctx context.Context) (arrow.Record, error) {
	if !h.built {
		if err := h.buildSide(ctx); err != nil {
			return nil, err
		}
		h.built = true
	}
	if h.grace != nil {
		return h.grace.next(ctx)
	}
	return h.core.next(ctx)
}

// Spilled implements SpillCounter.
func (h *HashJoin) Spilled() op.SpillStats { return h.stats.get() }

// joinLabel names a hash join in errors: "HashJoin", with its plan node
// when the tracker is a profiled node's ("HashJoin node 7").
func joinLabel(t *op.MemTracker) string {
	if t != nil && strings.HasPrefix(t.Name(), "node ") {
		return "HashJoin " + t.Name()
	}
	return "HashJoin"
}

// ShareBuild makes h use s's build side instead of its right child, which
// it then never reads (the caller closes it). h's type must not track
// build rows.
func (h *HashJoin) ShareBuild(s *SharedBuild) error {
	if TracksBuild(h.core.typ) {
		return sqlerr.Assertf("%s join cannot share its build side", h.core.typ)
	}
	h.shared = s
	return nil
}

func (h *HashJoin) buildSide(ctx context.Context) error {
	if h.shared == nil {
		return h.buildTable(ctx, h.right, &h.mem)
	}
	err := h.shared.get(ctx, func(s *SharedBuild) error {
		if err := h.buildTable(ctx, s.right, &s.mem); err != nil {
			return err
		}
		s.tbl, s.rec, s.null = h.hashTable, h.core.build, h.core.buildNull
		h.core.build = nil
		return nil
	})
	if err != nil {
		return err
	}
	h.hashTable, h.core.build, h.core.buildNull = h.shared.tbl, h.shared.acquire(), h.shared.null
	if h.hashTable == nil {
		h.hashTable = &hashTable{}
	}
	return nil
}

// buildTable drains right into one record and indexes it, charging mem.
func (h *HashJoin) buildTable(ctx context.Context, right op.Operator, mem *op.MemCharge) error {
	var recs []arrow.Record
	defer func() { op.ReleaseRecs(recs) }()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := right.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		recs = append(recs, rec)
		err = mem.Add(op.RecordMemBytes(rec))
		if err == nil {
			err = h.overThreshold(mem)
		}
		if err != nil {
			if !h.canSpill(err) {
				return err
			}
			taken := recs
			recs = nil
			return h.spillBuild(ctx, taken, right, mem, err)
		}
	}
	if len(recs) == 0 {
		for _, rf := range h.rfBuild {
			// No build rows: no probe row can match.
			h.rfs.publishBuilt(rf, &RuntimeFilter{empty: true})
		}
		h.rfDone = true
		return nil
	}
	build, err := op.ConcatRecords(h.core.env.Mem, right.Schema(), recs)
	if err != nil {
		return err
	}
	h.core.build = build
	n := int(build.NumRows())
	keys, err := op.EvalCols(h.core.env, h.spec.RightKeys, build)
	if err != nil {
		return err
	}
	defer op.ReleaseAll(keys)
	for _, rf := range h.rfBuild {
		if h.rfs != nil && rf.Key < len(keys) {
			h.rfs.publishBuilt(rf, newRuntimeFilter(keys[rf.Key], h.rfs.scale(rf)))
		}
	}
	h.rfDone = true
	h.bits = op.TableBits(n)
	h.first = make([]int32, 1<<h.bits)
	h.bFixed = len(keys) == 1 && op.FixedWidth(keys[0]) == 8 && keys[0].DataType().ID() != arrow.NULL
	if h.bFixed && !h.spec.NullSafe[0] {
		h.buildFixed(keys[0], n)
	} else {
		h.bKeys.Encode(keys, h.spec.NullSafe)
		h.bHash = op.HashKeys(keys, nil)
		h.core.buildNull = h.bKeys.AnyNull
		h.buildChains(n)
	}
	if TracksBuild(h.core.typ) {
		h.core.buildMatched = make([]bool, n)
	}
	tbl := int64(len(h.first)*4+len(h.nextR)*4+len(h.ents)*16+len(h.bHash)*8+len(h.bKeys.Buf)+len(h.bKeys.Offs)*4+n) + op.RecordMemBytes(build)
	mem.ReleaseAll()
	err = mem.Add(tbl)
	if err == nil {
		err = h.overThreshold(mem)
	}
	if err != nil && h.canSpill(err) {
		// The table is larger than its rows were: spill the rows (the
		// runtime filters, already published, are complete).
		*h.hashTable = hashTable{}
		h.core.build, h.core.buildMatched, h.core.buildNull = nil, nil, false
		return h.spillBuild(ctx, []arrow.Record{build}, nil, mem, err)
	}
	return err
}

// buildFixed indexes a single 8-byte '=' key by its value, hashed with
// FixedHash (cheaper than the distribution hash; only this table uses it).
func (h *HashJoin) buildFixed(key arrow.Array, n int) {
	h.fixed = true
	vals := op.FixedKeyValues(key, make([]uint64, n))
	h.core.buildNull = key.NullN() > 0
	h.ents = make([]fixedEnt, n)
	// Insert backwards so each chain lists rows in build order.
	for i := n - 1; i >= 0; i-- {
		if h.core.buildNull && key.IsNull(i) {
			continue
		}
		b := op.BucketOf(op.FixedHash(vals[i]), h.bits)
		h.ents[i] = fixedEnt{key: vals[i], next: h.first[b]}
		h.first[b] = int32(i + 1)
	}
}

func (h *HashJoin) buildChains(n int) {
	h.nextR = make([]int32, n)
	// Insert backwards so each chain lists rows in build order.
	for i := n - 1; i >= 0; i-- {
		if h.bKeys.Null[i] {
			continue
		}
		b := op.BucketOf(h.bHash[i], h.bits)
		h.nextR[i] = h.first[b]
		h.first[b] = int32(i + 1)
	}
}

func (h *HashJoin) start(probe arrow.Record) error {
	keys, err := op.EvalCols(h.core.env, h.spec.LeftKeys, probe)
	if err != nil {
		return err
	}
	defer op.ReleaseAll(keys)
	h.row, h.chain, h.pRows = 0, 0, int(probe.NumRows())
	h.pFixed = len(keys) == 1 && op.FixedWidth(keys[0]) == 8 && keys[0].DataType().ID() != arrow.NULL
	if h.fixed && h.pFixed {
		// Values and chain heads for the whole batch up front: the head
		// loads are independent, so their cache misses overlap.
		k, n := keys[0], h.pRows
		h.pVals = op.FixedKeyValues(k, op.GrowU64(h.pVals, n))
		h.pKeys.Null = op.GrowBool(h.pKeys.Null, n)
		clear(h.pKeys.Null)
		if k.NullN() > 0 {
			for i := range n {
				h.pKeys.Null[i] = k.IsNull(i)
			}
		}
		h.heads = op.GrowInt32(h.heads, n)
		for i, v := range h.pVals {
			h.heads[i] = h.first[op.BucketOf(op.FixedHash(v), h.bits)]
		}
		return nil
	}
	h.pKeys.Encode(keys, h.spec.NullSafe)
	if !h.fixed {
		h.pHash = op.HashKeys(keys, h.pHash)
	}
	return nil
}

func (h *HashJoin) probeNull(i int) bool { return h.pKeys.Null[i] }

func (h *HashJoin) next(pl, pr []int32, limit int) ([]int32, []int32, bool) {
	n := h.pRows
	if len(h.first) == 0 {
		return pl, pr, true
	}
	if h.fixed {
		if !h.pFixed {
			// A key of another width (a NULL literal) never equals an
			// 8-byte key: no row of this batch matches.
			h.row = n
			return pl, pr, true
		}
		return h.nextFixed(pl, pr, limit)
	}
	bk, boffs, bhash := h.bKeys.Buf, h.bKeys.Offs, h.bHash
	one := h.bFixed && h.pFixed
	for h.row < n {
		i := h.row
		c := h.chain
		if c == 0 {
			if h.pKeys.Null[i] {
				h.row++
				continue
			}
			c = h.first[op.BucketOf(h.pHash[i], h.bits)]
		}
		hv := h.pHash[i]
		k := h.pKeys.Key(i)
		for c != 0 {
			r := c - 1
			c = h.nextR[r]
			if bhash[r] != hv {
				continue
			}
			if one {
				// A single fixed-width key: marker byte + 8 value bytes.
				o := boffs[r]
				if bk[o] != k[0] || binary.LittleEndian.Uint64(bk[o+1:]) != binary.LittleEndian.Uint64(k[1:]) {
					continue
				}
			} else if !bytes.Equal(bk[boffs[r]:boffs[r+1]], k) {
				continue
			}
			pl = append(pl, int32(i))
			pr = append(pr, r)
			if h.firstHit {
				c = 0
				break
			}
			if len(pl) == limit {
				break
			}
		}
		if c != 0 {
			h.chain = c // resume this row's chain next call
			return pl, pr, false
		}
		h.chain = 0
		h.row++
		if len(pl) >= limit {
			return pl, pr, h.row >= n
		}
	}
	return pl, pr, true
}

// nextFixed is next for a single 8-byte '=' key.
func (h *HashJoin) nextFixed(pl, pr []int32, limit int) ([]int32, []int32, bool) {
	n := h.pRows
	ents, null, vals, heads := h.ents, h.pKeys.Null, h.pVals, h.heads
	for h.row < n {
		i := h.row
		c := h.chain
		if c == 0 {
			if null[i] {
				h.row++
				continue
			}
			c = heads[i]
		}
		k := vals[i]
		for c != 0 {
			r := c - 1
			e := &ents[r]
			c = e.next
			if e.key != k {
				continue
			}
			pl = append(pl, int32(i))
			pr = append(pr, r)
			if h.firstHit {
				c = 0
				break
			}
			if len(pl) == limit {
				break
			}
		}
		if c != 0 {
			h.chain = c // resume this row's chain next call
			return pl, pr, false
		}
		h.chain = 0
		h.row++
		if len(pl) >= limit {
			return pl, pr, h.row >= n
		}
	}
	return pl, pr, true
}

func (h *HashJoin) Close() {
	if h.grace != nil {
		h.grace.close()
	}
	if h.level == 0 && h.dir != nil {
		h.dir.remove()
	}
	h.core.close()
	h.core.left.Close()
	h.right.Close()
	h.mem.ReleaseAll()
	if h.shared != nil {
		h.shared.Release()
		h.shared = nil
	}
}
