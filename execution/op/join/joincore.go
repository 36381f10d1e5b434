package join

import (
	"context"
	"io"

	"github.com/dorisgo/dorisgo/planner/fragment"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/sql/eval"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// emitsPairs: matched (probe, build) pairs are output rows.
func emitsPairs(t fragment.JoinType) bool {
	switch t {
	case fragment.JoinInner, fragment.JoinCross, fragment.JoinLeftOuter, fragment.JoinRightOuter, fragment.JoinFullOuter:
		return true
	}
	return false
}

// TracksBuild: the build side's match flags decide output at the end.
func TracksBuild(t fragment.JoinType) bool {
	switch t {
	case fragment.JoinRightOuter, fragment.JoinFullOuter, fragment.JoinRightSemi, fragment.JoinRightAnti:
		return true
	}
	return false
}

// emptyBuildIsEmpty: with no build rows the result is empty, so the probe
// side need not be read at all.
func emptyBuildIsEmpty(t fragment.JoinType) bool {
	switch t {
	case fragment.JoinInner, fragment.JoinCross, fragment.JoinLeftSemi, fragment.JoinRightOuter, fragment.JoinRightSemi, fragment.JoinRightAnti:
		return true
	}
	return false
}

// pairSource yields candidate (probe row, build row) pairs of one probe
// batch, at most limit per call, in probe-row order.
type pairSource interface {
	start(probe arrow.Record) error
	next(pl, pr []int32, limit int) ([]int32, []int32, bool)
	// probeNull reports whether probe row i has a NULL '=' key (NAAJ).
	probeNull(i int) bool
}

// joinCore is what hash and nested loop joins share: turning candidate
// pairs into output under the join type, the residual predicate (decides
// matching, with MySQL ON semantics) and the outer/semi/anti bookkeeping.
type joinCore struct {
	name    string
	env     *op.Env
	typ     fragment.JoinType
	other   expr.Expr // nil: every candidate matches
	leftSc  *arrow.Schema
	rightSc *arrow.Schema
	out     *arrow.Schema
	pairSc  *arrow.Schema // left ++ right, what other is evaluated over
	left    op.Operator
	src     pairSource

	build        arrow.Record // the whole right side
	buildMatched []bool
	// buildNull: the build side has a NULL key (NAAJ rejects everything).
	buildNull bool
	// nullIsMatch: a NULL residual counts as a match (nested loop NAAJ).
	nullIsMatch bool
	// nonEmptyBuild: build rows exist elsewhere (one partition of a
	// spilled join), so NAAJ's empty-build rule does not apply.
	nonEmptyBuild bool

	probe        arrow.Record
	probeMatched []bool
	probeDone    bool
	tailDone     bool
	pl, pr       []int32
	pending      []arrow.Record
}

func newJoinCore(name string, env *op.Env, typ fragment.JoinType, left op.Operator, rightSc *arrow.Schema, other []expr.Expr, out *arrow.Schema) (*joinCore, error) {
	j := &joinCore{name: name, env: env, typ: typ, left: left, leftSc: left.Schema(), rightSc: rightSc, out: out}
	fs := append(append([]arrow.Field{}, left.Schema().Fields()...), rightSc.Fields()...)
	j.pairSc = arrow.NewSchema(fs, nil)
	if len(other) > 0 {
		p := other[0]
		for _, c := range other[1:] {
			var err error
			if p, err = expr.NewCall("and", p, c); err != nil {
				return nil, err
			}
		}
		j.other = p
	}
	return j, nil
}

func (j *joinCore) buildRows() int {
	if j.build == nil {
		return 0
	}
	return int(j.build.NumRows())
}

func (j *joinCore) next(ctx context.Context) (arrow.Record, error) {
	for {
		if len(j.pending) > 0 {
			r := j.pending[0]
			j.pending = j.pending[1:]
			return r, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if j.probe == nil {
			if j.probeDone {
				if j.tailDone {
					return nil, io.EOF
				}
				j.tailDone = true
				if err := j.buildTail(); err != nil {
					return nil, err
				}
				continue
			}
			if j.buildRows() == 0 && emptyBuildIsEmpty(j.typ) {
				j.probeDone = true
				continue
			}
			rec, err := j.left.Next(ctx)
			if err == io.EOF {
				j.probeDone = true
				continue
			}
			if err != nil {
				return nil, err
			}
			if err := j.src.start(rec); err != nil {
				rec.Release()
				return nil, err
			}
			j.probe = rec
			j.probeMatched = op.GrowBool(j.probeMatched, int(rec.NumRows()))
			clear(j.probeMatched)
		}
		var done bool
		j.pl, j.pr, done = j.src.next(j.pl[:0], j.pr[:0], op.MaxBatchRows)
		if len(j.pl) > 0 {
			if err := j.pairs(j.pl, j.pr); err != nil {
				return nil, err
			}
		}
		if done {
			err := j.probeTail()
			j.probe.Release()
			j.probe = nil
			if err != nil {
				return nil, err
			}
		}
	}
}

// pairs handles one chunk of candidates.
func (j *joinCore) pairs(pl, pr []int32) error {
	var joined arrow.Record
	if j.other != nil || emitsPairs(j.typ) {
		lc, err := op.TakeOrSlice(j.env.Mem, j.probe.Columns(), pl)
		if err != nil {
			return err
		}
		rc, err := op.TakeCols(j.env.Mem, j.build.Columns(), pr)
		if err != nil {
			op.ReleaseAll(lc)
			return err
		}
		joined = op.NewRecord(j.pairSc, append(lc, rc...), len(pl))
	}
	defer func() {
		if joined != nil {
			joined.Release()
		}
	}()
	if j.other != nil {
		sel, err := j.evalOther(joined)
		if err != nil {
			return err
		}
		keep := 0
		for i := range pl {
			if sel.IsValid(i) && sel.Value(i) || j.nullIsMatch && sel.IsNull(i) {
				pl[keep], pr[keep] = pl[i], pr[i]
				keep++
			}
		}
		if emitsPairs(j.typ) && keep > 0 && keep < len(pl) {
			f, err := eval.Filter(joined, sel, j.env.Mem)
			if err != nil {
				sel.Release()
				return err
			}
			joined.Release()
			joined = f
		}
		sel.Release()
		pl, pr = pl[:keep], pr[:keep]
	}
	for _, p := range pl {
		j.probeMatched[p] = true
	}
	if TracksBuild(j.typ) {
		for _, b := range pr {
			j.buildMatched[b] = true
		}
	}
	if emitsPairs(j.typ) && len(pl) > 0 {
		j.pending = append(j.pending, array.NewRecord(j.out, joined.Columns(), joined.NumRows()))
	}
	return nil
}

// evalOther evaluates the residual over candidate pairs. Nested loop NAAJ
// needs NULL results kept apart from FALSE, which EvalPredicate folds.
func (j *joinCore) evalOther(joined arrow.Record) (*array.Boolean, error) {
	if !j.nullIsMatch {
		return eval.EvalPredicate(j.env.Eval, j.other, joined, j.env.Mem)
	}
	a, err := eval.Eval(j.env.Eval, j.other, joined, j.env.Mem)
	if err != nil {
		return nil, err
	}
	b, ok := a.(*array.Boolean)
	if !ok {
		a.Release()
		return nil, sqlerr.Assertf("%s: predicate %s is not BOOLEAN", j.name, j.other)
	}
	return b, nil
}

// probeTail emits, once a probe batch is fully matched, the rows that
// depend on all of its matches: outer padding, semi and anti rows.
func (j *joinCore) probeTail() error {
	n := int(j.probe.NumRows())
	var idx []int32
	switch j.typ {
	case fragment.JoinLeftOuter, fragment.JoinFullOuter, fragment.JoinLeftAnti:
		for i := 0; i < n; i++ {
			if !j.probeMatched[i] {
				idx = append(idx, int32(i))
			}
		}
	case fragment.JoinLeftSemi:
		for i := 0; i < n; i++ {
			if j.probeMatched[i] {
				idx = append(idx, int32(i))
			}
		}
	case fragment.JoinNullAwareLeftAnti:
		empty := j.buildRows() == 0 && !j.nonEmptyBuild
		if !empty && j.buildNull {
			return nil
		}
		for i := 0; i < n; i++ {
			if empty || !j.probeMatched[i] && !j.src.probeNull(i) {
				idx = append(idx, int32(i))
			}
		}
	default:
		return nil
	}
	return j.emitSide(j.probe, idx, true)
}

// buildTail emits build rows decided by their match flags after the last
// probe batch.
func (j *joinCore) buildTail() error {
	if !TracksBuild(j.typ) || j.build == nil {
		return nil
	}
	want := j.typ == fragment.JoinRightSemi
	var idx []int32
	for i, m := range j.buildMatched {
		if m == want {
			idx = append(idx, int32(i))
		}
	}
	return j.emitSide(j.build, idx, false)
}

// emitSide outputs rows idx of rec (a probe batch if left, else the build
// side), padding the other side with NULLs when the output has it.
func (j *joinCore) emitSide(rec arrow.Record, idx []int32, left bool) error {
	for len(idx) > 0 {
		chunk := idx
		if len(chunk) > op.MaxBatchRows {
			chunk = chunk[:op.MaxBatchRows]
		}
		idx = idx[len(chunk):]
		cols, err := op.TakeCols(j.env.Mem, rec.Columns(), chunk)
		if err != nil {
			return err
		}
		if j.typ.KeepsLeft() && j.typ.KeepsRight() {
			if left {
				cols = append(cols, nullCols(j.env.Mem, j.rightSc, len(chunk))...)
			} else {
				cols = append(nullCols(j.env.Mem, j.leftSc, len(chunk)), cols...)
			}
		}
		if len(cols) != j.out.NumFields() {
			op.ReleaseAll(cols)
			return sqlerr.Assertf("%s: %d output columns, schema has %d", j.name, len(cols), j.out.NumFields())
		}
		j.pending = append(j.pending, op.NewRecord(j.out, cols, len(chunk)))
	}
	return nil
}

// nullCols returns all-NULL columns of sc's types.
func nullCols(mem memory.Allocator, sc *arrow.Schema, n int) []arrow.Array {
	out := make([]arrow.Array, sc.NumFields())
	for i, f := range sc.Fields() {
		out[i] = array.MakeArrayOfNull(mem, f.Type, n)
	}
	return out
}

func (j *joinCore) close() {
	op.ReleaseRecs(j.pending)
	j.pending = nil
	if j.probe != nil {
		j.probe.Release()
		j.probe = nil
	}
	if j.build != nil {
		j.build.Release()
		j.build = nil
	}
}
