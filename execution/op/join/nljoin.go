package join

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// NestedLoopJoinSpec describes a join without equi keys.
type NestedLoopJoinSpec struct {
	// Type is any join type. Types that decide build rows by their match
	// flags (RIGHT and FULL OUTER, RIGHT SEMI and ANTI) must see every probe
	// row in one operator, so they never share a build across tasks.
	Type fragment.JoinType
	// Conjuncts are the join predicates over the left columns followed by the
	// right columns; empty for a cross join. For NullAwareLeftAntiJoin they
	// are the NOT IN comparison: a probe row is kept only if they are FALSE
	// (not TRUE, not NULL) for every build row.
	Conjuncts []expr.Expr
	// Output is left columns then right columns (only left ones for semi,
	// anti and NAAJ).
	Output []types.Column
	// Mem is charged with the materialized right side; nil is unlimited.
	Mem *op.MemTracker
}

// NestedLoopJoin materializes the right side and pairs every left row with
// every right row, evaluating the predicates over chunks of pairs.
type NestedLoopJoin struct {
	core  *joinCore
	right op.Operator
	mem   op.MemCharge
	built bool
	// shared: the build rows other tasks' joins read too
	shared *SharedBuild
	// cursor over the current probe batch
	n, row, col int
}

var _ op.Operator = (*NestedLoopJoin)(nil)

// NewNestedLoopJoin joins left (streamed) with right (materialized).
func NewNestedLoopJoin(env *op.Env, left, right op.Operator, spec NestedLoopJoinSpec) (*NestedLoopJoin, error) {
	if spec.Type > fragment.JoinCross {
		return nil, sqlerr.Assertf("nested loop join: unknown join type %d", spec.Type)
	}
	core, err := newJoinCore("NestedLoopJoin", env, spec.Type, left, right.Schema(), spec.Conjuncts, types.ArrowSchema(spec.Output))
	if err != nil {
		return nil, err
	}
	core.nullIsMatch = spec.Type == fragment.JoinNullAwareLeftAnti
	j := &NestedLoopJoin{core: core, right: right, mem: op.MemCharge{Tracker: spec.Mem.Child("NestedLoopJoin")}}
	core.src = j
	return j, nil
}

func (j *NestedLoopJoin) Schema() *arrow.Schema { return j.core.out }

func (j *NestedLoopJoin) Next(ctx context.Context) (arrow.Record, error) {
	if !j.built {
		if err := j.buildSide(ctx); err != nil {
			return nil, err
		}
		j.built = true
	}
	return j.core.next(ctx)
}

// ShareBuild makes j use s's build rows instead of its right child, which
// it then never reads (the caller closes it).
func (j *NestedLoopJoin) ShareBuild(s *SharedBuild) { j.shared = s }

func (j *NestedLoopJoin) buildSide(ctx context.Context) error {
	if j.shared == nil {
		if err := j.buildFrom(ctx, j.right, &j.mem); err != nil {
			return err
		}
		if TracksBuild(j.core.typ) {
			j.core.buildMatched = make([]bool, j.core.buildRows())
		}
		return nil
	}
	if TracksBuild(j.core.typ) {
		// Each task would emit the build rows it alone did not match.
		return sqlerr.Assertf("nested loop %s cannot share its build side", j.core.typ)
	}
	err := j.shared.get(ctx, func(s *SharedBuild) error {
		if err := j.buildFrom(ctx, s.right, &s.mem); err != nil {
			return err
		}
		s.rec, j.core.build = j.core.build, nil
		return nil
	})
	if err != nil {
		return err
	}
	j.core.build = j.shared.acquire()
	return nil
}

// buildFrom materializes right into one record, charging mem.
func (j *NestedLoopJoin) buildFrom(ctx context.Context, right op.Operator, mem *op.MemCharge) error {
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
		if err := mem.Add(op.RecordMemBytes(rec)); err != nil {
			return err
		}
	}
	if len(recs) == 0 {
		return nil
	}
	b, err := op.ConcatRecords(j.core.env.Mem, right.Schema(), recs)
	if err != nil {
		return err
	}
	j.core.build = b
	return nil
}

func (j *NestedLoopJoin) start(probe arrow.Record) error {
	j.n, j.row, j.col = int(probe.NumRows()), 0, 0
	return nil
}

func (j *NestedLoopJoin) probeNull(int) bool { return false }

func (j *NestedLoopJoin) next(pl, pr []int32, limit int) ([]int32, []int32, bool) {
	nb := j.core.buildRows()
	if nb == 0 {
		return pl, pr, true
	}
	for j.row < j.n && len(pl) < limit {
		// Left semi and anti rows are decided by their first match.
		if !emitsPairs(j.core.typ) && !TracksBuild(j.core.typ) && j.core.probeMatched[j.row] {
			j.row, j.col = j.row+1, 0
			continue
		}
		end := min(nb, j.col+limit-len(pl))
		for c := j.col; c < end; c++ {
			pl = append(pl, int32(j.row))
			pr = append(pr, int32(c))
		}
		j.col = end
		if j.col == nb {
			j.row, j.col = j.row+1, 0
		}
	}
	return pl, pr, j.row >= j.n
}

func (j *NestedLoopJoin) Close() {
	j.core.close()
	j.core.left.Close()
	j.right.Close()
	j.mem.ReleaseAll()
	if j.shared != nil {
		j.shared.Release()
		j.shared = nil
	}
}
