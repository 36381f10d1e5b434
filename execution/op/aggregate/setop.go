package aggregate

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/types"
)

// SetOpSpec describes a set operation over children of one row type.
type SetOpSpec struct {
	Kind fragment.SetOpKind
	// Output names the result columns; children's columns have its types.
	Output []types.Column
	// Mem is charged with the distinct rows; nil is unlimited.
	Mem *op.MemTracker
}

// SetOp is UNION [ALL], INTERSECT and EXCEPT. UNION ALL streams its
// children in order; UNION DISTINCT streams the first occurrence of each
// row; INTERSECT and EXCEPT hash the first child's distinct rows, then mark
// or remove them while reading the others, and emit at the end.
type SetOp struct {
	env      *op.Env
	children []op.Operator
	spec     SetOpSpec
	sc       *arrow.Schema
	mem      op.MemCharge
	cur      int

	table   *groupTable
	parts   []arrow.Record // first-child rows that made groups (INTERSECT/EXCEPT)
	marks   []int32        // per group: last child seen in (INTERSECT), -1 removed (EXCEPT)
	gids    []int32
	newRows []int32
	result  arrow.Record
	order   []int32
	pos     int
	built   bool
}

var _ op.Operator = (*SetOp)(nil)

// NewSetOp combines children by spec.Kind.
func NewSetOp(env *op.Env, children []op.Operator, spec SetOpSpec) *SetOp {
	s := &SetOp{env: env, children: children, spec: spec, sc: types.ArrowSchema(spec.Output),
		mem: op.MemCharge{Tracker: spec.Mem.Child("SetOp")}}
	if spec.Kind != fragment.SetUnionAll {
		s.table = newGroupTable()
	}
	return s
}

// NewDistinct is SELECT DISTINCT over child: the first occurrence of each
// row, streamed.
func NewDistinct(env *op.Env, child op.Operator, output []types.Column, mem *op.MemTracker) *SetOp {
	return NewSetOp(env, []op.Operator{child}, SetOpSpec{Kind: fragment.SetUnionDistinct, Output: output, Mem: mem})
}

func (s *SetOp) Schema() *arrow.Schema { return s.sc }

func (s *SetOp) Next(ctx context.Context) (arrow.Record, error) {
	switch s.spec.Kind {
	case fragment.SetUnionAll, fragment.SetUnionDistinct:
		return s.nextUnion(ctx)
	}
	if !s.built {
		if err := s.build(ctx); err != nil {
			return nil, err
		}
		s.built = true
	}
	if s.pos >= len(s.order) {
		return nil, io.EOF
	}
	end := min(len(s.order), s.pos+op.MaxBatchRows)
	cols, err := op.TakeCols(s.env.Mem, s.result.Columns(), s.order[s.pos:end])
	if err != nil {
		return nil, err
	}
	n := end - s.pos
	s.pos = end
	return op.NewRecord(s.sc, cols, n), nil
}

func (s *SetOp) nextUnion(ctx context.Context) (arrow.Record, error) {
	for s.cur < len(s.children) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rec, err := s.children[s.cur].Next(ctx)
		if err == io.EOF {
			s.cur++
			continue
		}
		if err != nil {
			return nil, err
		}
		if s.table == nil {
			out := array.NewRecord(s.sc, rec.Columns(), rec.NumRows())
			rec.Release()
			return out, nil
		}
		before := s.table.memBytes()
		s.gids, s.newRows = s.table.insert(rec.Columns(), s.gids, s.newRows)
		if err := s.mem.Add(s.table.memBytes() - before); err != nil {
			rec.Release()
			return nil, err
		}
		if len(s.newRows) == 0 {
			rec.Release()
			continue
		}
		if len(s.newRows) == int(rec.NumRows()) {
			out := array.NewRecord(s.sc, rec.Columns(), rec.NumRows())
			rec.Release()
			return out, nil
		}
		cols, err := op.TakeCols(s.env.Mem, rec.Columns(), s.newRows)
		rec.Release()
		if err != nil {
			return nil, err
		}
		return op.NewRecord(s.sc, cols, len(s.newRows)), nil
	}
	return nil, io.EOF
}

func (s *SetOp) build(ctx context.Context) error {
	for ci, child := range s.children {
		for {
			if err := ctx.Err(); err != nil {
				return err
			}
			rec, err := child.Next(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
			err = s.addBatch(ci, rec)
			rec.Release()
			if err != nil {
				return err
			}
		}
		if ci == 0 && s.table.len() == 0 {
			break // empty first input: the result is empty
		}
	}
	if len(s.parts) > 0 {
		r, err := op.ConcatRecords(s.env.Mem, s.sc, s.parts)
		if err != nil {
			return err
		}
		s.result = r
	}
	last := int32(len(s.children) - 1)
	for g, m := range s.marks {
		if s.spec.Kind == fragment.SetIntersect && m == last || s.spec.Kind == fragment.SetExcept && m >= 0 {
			s.order = append(s.order, int32(g))
		}
	}
	return nil
}

func (s *SetOp) addBatch(child int, rec arrow.Record) error {
	if child == 0 {
		before := s.table.memBytes()
		s.gids, s.newRows = s.table.insert(rec.Columns(), s.gids, s.newRows)
		if len(s.newRows) > 0 {
			cols, err := op.TakeCols(s.env.Mem, rec.Columns(), s.newRows)
			if err != nil {
				return err
			}
			part := op.NewRecord(s.sc, cols, len(s.newRows))
			s.parts = append(s.parts, part)
			s.marks = resizeSlice(s.marks, s.table.len())
			if err := s.mem.Add(op.RecordMemBytes(part)); err != nil {
				return err
			}
		}
		return s.mem.Add(s.table.memBytes() - before)
	}
	s.gids = s.table.lookup(rec.Columns(), s.gids)
	for _, g := range s.gids {
		if g < 0 {
			continue
		}
		switch s.spec.Kind {
		case fragment.SetIntersect:
			if s.marks[g] == int32(child-1) {
				s.marks[g] = int32(child)
			}
		case fragment.SetExcept:
			s.marks[g] = -1
		}
	}
	return nil
}

func (s *SetOp) Close() {
	op.ReleaseRecs(s.parts)
	s.parts = nil
	if s.result != nil {
		s.result.Release()
		s.result = nil
	}
	s.mem.ReleaseAll()
	for _, c := range s.children {
		c.Close()
	}
}
