package sorting

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/dorisgo/dorisgo/execution/op"
)

// SortSpec describes a full ORDER BY.
type SortSpec struct {
	Keys []op.SortKey
	// Mem is charged with the buffered input; nil is unlimited.
	Mem *op.MemTracker
}

// Sort buffers its whole input, orders it by the keys (stable), and emits
// it in batches. Rows are ordered by comparing order-preserving encoded
// keys (sortkeys.go) with an 8-byte integer prefix compared first.
type Sort struct {
	env   *op.Env
	child op.Operator
	spec  SortSpec
	mem   op.MemCharge
	sc    *arrow.Schema

	all   arrow.Record
	order []int32
	pos   int
	done  bool
}

var _ op.Operator = (*Sort)(nil)

// NewSort sorts child's rows by spec.Keys.
func NewSort(env *op.Env, child op.Operator, spec SortSpec) *Sort {
	return &Sort{env: env, child: child, spec: spec, sc: child.Schema(), mem: op.MemCharge{Tracker: spec.Mem.Child("Sort")}}
}

func (s *Sort) Schema() *arrow.Schema { return s.sc }

func (s *Sort) Next(ctx context.Context) (arrow.Record, error) {
	if !s.done {
		if err := s.consume(ctx); err != nil {
			return nil, err
		}
		s.done = true
	}
	if s.pos >= len(s.order) {
		return nil, io.EOF
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	end := min(len(s.order), s.pos+op.MaxBatchRows)
	cols, err := op.TakeCols(s.env.Mem, s.all.Columns(), s.order[s.pos:end])
	if err != nil {
		return nil, err
	}
	n := end - s.pos
	s.pos = end
	return op.NewRecord(s.sc, cols, n), nil
}

func (s *Sort) consume(ctx context.Context) error {
	recs, err := drainAll(ctx, s.child, &s.mem)
	defer op.ReleaseRecs(recs)
	if err != nil || len(recs) == 0 {
		return err
	}
	all, err := op.ConcatRecords(s.env.Mem, s.sc, recs)
	if err != nil {
		return err
	}
	s.all = all
	keys, err := op.SortKeyCols(s.env, s.spec.Keys, all)
	if err != nil {
		return err
	}
	var enc op.SortEnc
	enc.Encode(keys, s.spec.Keys)
	op.ReleaseAll(keys)
	if err := s.mem.Add(op.RecordMemBytes(all) + int64(len(enc.Buf)+len(enc.Offs)*4+int(all.NumRows())*16)); err != nil {
		return err
	}
	ents := op.SortedOrder(&enc)
	s.order = make([]int32, len(ents))
	for i, e := range ents {
		s.order[i] = e.Seq
	}
	return nil
}

// drainAll reads child to the end, charging each batch to mem.
func drainAll(ctx context.Context, child op.Operator, mem *op.MemCharge) ([]arrow.Record, error) {
	var recs []arrow.Record
	for {
		if err := ctx.Err(); err != nil {
			return recs, err
		}
		rec, err := child.Next(ctx)
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			return recs, err
		}
		recs = append(recs, rec)
		if err := mem.Add(op.RecordMemBytes(rec)); err != nil {
			return recs, err
		}
	}
}

func (s *Sort) Close() {
	if s.all != nil {
		s.all.Release()
		s.all = nil
	}
	s.mem.ReleaseAll()
	s.child.Close()
}
