package join

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// A hash join whose build side does not fit its memory (exec_mem_limit,
// or SpillConfig.Threshold) and may spill becomes a partitioned (grace)
// join: the build rows are split by a hash of their encoded join keys into
// P spill files, then the probe rows the same way, and each partition is
// joined on its own by a fresh HashJoin over the two files. Matching rows
// have equal encoded keys, so they meet in one partition, and every row is
// in exactly one: outer, semi and anti joins decide each row inside its
// partition. A partition that still does not fit spills again one level
// down with another seed. The hash is maphash over the key bytes, seeded
// per join and level, so it is independent of the exchange's
// types.HashColumns (rows an exchange sent to one instance still spread)
// and of the level above (a partition re-splits).
//
// Rows with a NULL '=' key never match: they are dropped where their side
// is never output unmatched and spread round-robin otherwise (so a mass of
// NULLs cannot make a partition unsplittable). A NULL AWARE LEFT ANTI join
// whose build side has a NULL key outputs nothing, which the build phase
// already knows; otherwise its partitions are told the build side is not
// empty. A spilled build publishes no runtime filter (scans then read
// everything, which is correct), unless its table was complete in memory
// before it had to go, when the full filter was already published.

// errOverThreshold marks a build side over SpillConfig.Threshold.
var errOverThreshold = errors.New("build side over the spill threshold")

type graceJoin struct {
	h     *HashJoin
	p     int
	seed  maphash.Seed
	build []*spillFile
	probe []*spillFile
	// empty: the answer is no rows (NAAJ with a NULL build key).
	empty  bool
	probed bool
	part   int
	cur    *HashJoin
	rr     int // round-robin position for NULL keys

	enc   op.EncKeys
	parts []int32 // row → partition (-1: dropped)
	perm  []int32
	count []int
	// The build side's key values so far: one distinct value (oneKey) is
	// unsplittable.
	first    []byte
	oneKey   bool
	keyed    int64 // build rows with a non-NULL key
	buildNul bool  // a NULL in any build key column (NAAJ)
	hard     bool  // the partition joins ignore the threshold (one key)
}

// canSpill reports whether err (from charging the build side) lets h spill
// instead of failing.
func (h *HashJoin) canSpill(err error) bool {
	if h.shared != nil || !h.core.env.Spill.Active() {
		return false
	}
	return errors.Is(err, errOverThreshold) || errors.Is(err, sqlerr.MemLimitExceeded.Match())
}

// overThreshold is the Threshold check after a successful charge.
func (h *HashJoin) overThreshold(mem *op.MemCharge) error {
	if c := h.core.env.Spill; c.Active() && c.Threshold > 0 && mem.Bytes > c.Threshold && h.shared == nil && !h.hard {
		return errOverThreshold
	}
	return nil
}

// spillBuild turns h into a grace join: recs (owned, released here) and
// the rest of right (nil: drained) are partitioned to spill files. cause
// is why: exec_mem_limit or the threshold.
func (h *HashJoin) spillBuild(ctx context.Context, recs []arrow.Record, right op.Operator, mem *op.MemCharge, cause error) error {
	defer func() { op.ReleaseRecs(recs) }()
	if h.level == 0 && !h.rfDone {
		// No filter of the whole build side will come: the scans waiting
		// for a global one read on, unfiltered.
		for _, rf := range h.rfBuild {
			if rf.Global {
				h.rfs.publishBuilt(rf, &RuntimeFilter{all: true})
			}
		}
		h.rfDone = true
	}
	if h.level >= maxSpillDepth {
		return sqlerr.MemLimitExceeded.New(h.mem.Tracker.RootLimit(), fmt.Sprintf("%s: a build partition still does not fit after %d levels of spill partitioning", h.label, h.level))
	}
	p, err := h.core.env.Spill.PartitionCount()
	if err != nil {
		return err
	}
	if h.dir == nil {
		h.dir = &spillDir{base: h.core.env.Spill.Dir}
	}
	h.stats.reached(h.level)
	g := &graceJoin{h: h, p: p, seed: maphash.MakeSeed(), build: make([]*spillFile, p), probe: make([]*spillFile, p), oneKey: true}
	h.grace = g
	keepNull := TracksBuild(h.core.typ) && h.core.typ != fragment.JoinRightSemi
	for i, r := range recs {
		err := g.split(r, h.spec.RightKeys, g.build, "build", keepNull, true)
		r.Release()
		recs[i] = nil
		if err != nil {
			return err
		}
	}
	mem.ReleaseAll()
	for right != nil {
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
		err = g.split(rec, h.spec.RightKeys, g.build, "build", keepNull, true)
		rec.Release()
		if err != nil {
			return err
		}
	}
	if err := finishAll(g.build); err != nil {
		return err
	}
	if h.core.typ == fragment.JoinNullAwareLeftAnti && g.buildNul {
		g.empty = true
		return nil
	}
	if g.oneKey && g.keyed > 0 && g.keyed == g.rows(g.build) {
		if errors.Is(cause, errOverThreshold) {
			// Only the soft threshold was crossed: the key's partition
			// may still fit exec_mem_limit.
			g.hard = true
			return nil
		}
		return sqlerr.MemLimitExceeded.New(h.mem.Tracker.RootLimit(), fmt.Sprintf("%s: the %d build rows of a single join key do not fit, and spilling cannot split one key", h.label, g.keyed))
	}
	return nil
}

func (g *graceJoin) rows(fs []*spillFile) int64 {
	var n int64
	for _, f := range fs {
		if f != nil {
			n += f.rows
		}
	}
	return n
}

func finishAll(fs []*spillFile) error {
	for _, f := range fs {
		if f != nil {
			if err := f.finish(); err != nil {
				return err
			}
		}
	}
	return nil
}

// split writes rec's rows to files by partition. keepNull keeps rows with
// a NULL '=' key (round-robin); build tracks the build side's keys; on the
// probe side rows of a partition without build rows are dropped when an
// empty build side outputs nothing.
func (g *graceJoin) split(rec arrow.Record, keyExprs []expr.Expr, files []*spillFile, name string, keepNull, build bool) error {
	h := g.h
	n := int(rec.NumRows())
	if n == 0 {
		return nil
	}
	keys, err := op.EvalCols(h.core.env, keyExprs, rec)
	if err != nil {
		return err
	}
	g.enc.Encode(keys, h.spec.NullSafe)
	op.ReleaseAll(keys)
	if build && g.enc.AnyNull {
		g.buildNul = true
	}
	dropEmpty := !build && emptyBuildIsEmpty(h.core.typ)
	g.parts = op.GrowInt32(g.parts, n)
	g.count = make([]int, g.p+1)
	P := uint64(g.p)
	for i := range n {
		p := int32(-1)
		if g.enc.Null[i] {
			if keepNull {
				p = int32(g.rr % g.p)
				g.rr++
			}
		} else {
			k := g.enc.Key(i)
			p = int32(maphash.Bytes(g.seed, k) % P)
			if build {
				g.keyed++
				if g.first == nil {
					g.first = append([]byte{}, k...)
				} else if g.oneKey && !bytes.Equal(g.first, k) {
					g.oneKey = false
				}
			} else if dropEmpty && g.build[p] == nil {
				p = -1
			}
		}
		g.parts[i] = p
		if p >= 0 {
			g.count[p+1]++
		}
	}
	// One gather in partition order, then a slice per partition.
	for p := 1; p <= g.p; p++ {
		g.count[p] += g.count[p-1]
	}
	total := g.count[g.p]
	if total == 0 {
		return nil
	}
	g.perm = op.GrowInt32(g.perm, total)
	pos := append([]int(nil), g.count[:g.p]...)
	for i, p := range g.parts[:n] {
		if p >= 0 {
			g.perm[pos[p]] = int32(i)
			pos[p]++
		}
	}
	cols, err := op.TakeCols(h.core.env.Mem, rec.Columns(), g.perm[:total])
	if err != nil {
		return err
	}
	all := op.NewRecord(rec.Schema(), cols, total)
	defer all.Release()
	for p := range g.p {
		lo, hi := g.count[p], g.count[p+1]
		if lo == hi {
			continue
		}
		if files[p] == nil {
			if g.build[p] == nil && g.probe[p] == nil {
				h.stats.partitions.Add(1)
			}
			f, err := newSpillFile(h.dir, fmt.Sprintf("l%d-%s-p%d", h.level, name, p), rec.Schema(), h.core.env.Mem, h.stats)
			if err != nil {
				return err
			}
			files[p] = f
		}
		part := all.NewSlice(int64(lo), int64(hi))
		err := files[p].write(part)
		part.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// next streams the join's output, partition by partition.
func (g *graceJoin) next(ctx context.Context) (arrow.Record, error) {
	h := g.h
	if g.empty {
		return nil, io.EOF
	}
	if !g.probed {
		keepNull := false
		switch h.core.typ {
		case fragment.JoinLeftOuter, fragment.JoinFullOuter, fragment.JoinLeftAnti:
			keepNull = true
		}
		for {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			rec, err := h.core.left.Next(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
			err = g.split(rec, h.spec.LeftKeys, g.probe, "probe", keepNull, false)
			rec.Release()
			if err != nil {
				return nil, err
			}
		}
		if err := finishAll(g.probe); err != nil {
			return nil, err
		}
		g.probed = true
	}
	for g.part < g.p {
		if g.cur == nil {
			b, pr := g.build[g.part], g.probe[g.part]
			if b == nil && pr == nil {
				g.part++
				continue
			}
			j, err := g.partitionJoin(b, pr)
			if err != nil {
				return nil, err
			}
			g.cur = j
		}
		rec, err := g.cur.Next(ctx)
		if err == io.EOF {
			g.cur.Close()
			g.cur = nil
			g.build[g.part], g.probe[g.part] = nil, nil
			g.part++
			continue
		}
		return rec, err
	}
	return nil, io.EOF
}

// partitionJoin joins one partition's files (nil: no rows) with a HashJoin
// one level down, which owns and deletes them.
func (g *graceJoin) partitionJoin(b, pr *spillFile) (*HashJoin, error) {
	h := g.h
	mem := h.core.env.Mem
	var left, right op.Operator = op.Empty(h.core.leftSc), op.Empty(h.core.rightSc)
	if pr != nil {
		left = newSpillReader(pr, h.core.leftSc, mem)
	}
	if b != nil {
		right = newSpillReader(b, h.core.rightSc, mem)
	}
	spec := h.spec
	spec.Mem = h.mem.Tracker
	j, err := NewHashJoin(h.core.env, left, right, spec)
	if err != nil {
		left.Close()
		right.Close()
		return nil, err
	}
	j.level, j.stats, j.dir, j.label, j.hard = h.level+1, h.stats, h.dir, h.label, h.hard || g.hard
	// Other partitions hold build rows: NAAJ must not treat this one's
	// emptiness as the whole build side's.
	j.core.nonEmptyBuild = true
	return j, nil
}

func (g *graceJoin) close() {
	if g.cur != nil {
		g.cur.Close()
		g.cur = nil
	}
	for i := range g.build {
		g.build[i].discard()
		g.probe[i].discard()
		g.build[i], g.probe[i] = nil, nil
	}
}
