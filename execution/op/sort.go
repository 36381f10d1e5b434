package op

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/dorisgo/dorisgo/sql/expr"
)

// SortSpec describes a full ORDER BY.
type SortSpec struct {
	Keys []SortKey
	// Mem is charged with the buffered input; nil is unlimited.
	Mem *MemTracker
}

// Sort buffers its whole input, orders it by the keys (stable), and emits
// it in batches. Rows are ordered by comparing order-preserving encoded
// keys (sortkeys.go) with an 8-byte integer prefix compared first.
type Sort struct {
	env   *Env
	child Operator
	spec  SortSpec
	mem   memCharge
	sc    *arrow.Schema

	all   arrow.Record
	order []int32
	pos   int
	done  bool
}

var _ Operator = (*Sort)(nil)

// NewSort sorts child's rows by spec.Keys.
func NewSort(env *Env, child Operator, spec SortSpec) *Sort {
	return &Sort{env: env, child: child, spec: spec, sc: child.Schema(), mem: memCharge{t: spec.Mem.Child("Sort")}}
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
	end := min(len(s.order), s.pos+maxBatchRows)
	cols, err := takeCols(s.env.Mem, s.all.Columns(), s.order[s.pos:end])
	if err != nil {
		return nil, err
	}
	n := end - s.pos
	s.pos = end
	return newRecord(s.sc, cols, n), nil
}

func (s *Sort) consume(ctx context.Context) error {
	recs, err := drainAll(ctx, s.child, &s.mem)
	defer releaseRecs(recs)
	if err != nil || len(recs) == 0 {
		return err
	}
	all, err := concatRecords(s.env.Mem, s.sc, recs)
	if err != nil {
		return err
	}
	s.all = all
	keys, err := sortKeyCols(s.env, s.spec.Keys, all)
	if err != nil {
		return err
	}
	var enc sortEnc
	enc.encode(keys, s.spec.Keys)
	releaseAll(keys)
	if err := s.mem.add(recordBytes(all) + int64(len(enc.buf)+len(enc.offs)*4+int(all.NumRows())*16)); err != nil {
		return err
	}
	ents := sortedOrder(&enc)
	s.order = make([]int32, len(ents))
	for i, e := range ents {
		s.order[i] = e.seq
	}
	return nil
}

// drainAll reads child to the end, charging each batch to mem.
func drainAll(ctx context.Context, child Operator, mem *memCharge) ([]arrow.Record, error) {
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
		if err := mem.add(recordBytes(rec)); err != nil {
			return recs, err
		}
	}
}

func sortKeyCols(env *Env, keys []SortKey, rec arrow.Record) ([]arrow.Array, error) {
	es := make([]expr.Expr, len(keys))
	for i, k := range keys {
		es[i] = k.Expr
	}
	return evalCols(env, es, rec)
}

func (s *Sort) Close() {
	if s.all != nil {
		s.all.Release()
		s.all = nil
	}
	s.mem.releaseAll()
	s.child.Close()
}
