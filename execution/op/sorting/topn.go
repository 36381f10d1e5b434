package sorting

import (
	"bytes"
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/dorisgo/dorisgo/execution/op"
)

// TopNSpec describes ORDER BY ... LIMIT Limit OFFSET Offset.
type TopNSpec struct {
	Keys          []op.SortKey
	Offset, Limit int64
	// Mem is charged with the retained rows; nil is unlimited.
	Mem *op.MemTracker
}

// TopN keeps only the best Offset+Limit rows seen so far. Each input batch
// is first cut to the rows that beat the current K-th key (the threshold);
// survivors accumulate in a pool that is sorted and truncated back to K
// rows whenever it reaches 2K, which bounds memory by O(K + batch) like a
// heap while sorting in bulk. Ties keep arrival order (stable).
type TopN struct {
	env   *op.Env
	child op.Operator
	spec  TopNSpec
	k     int
	mem   op.MemCharge
	sc    *arrow.Schema

	pool      []arrow.Record // candidate rows
	poolKeys  op.SortEnc     // keys of all pool rows, in pool order
	poolRows  int
	threshold []byte // K-th best key after the last truncation; nil: none yet
	seqBase   int32

	out     arrow.Record
	outPos  int
	outEnd  int
	done    bool
	scratch op.SortEnc
}

var _ op.Operator = (*TopN)(nil)

// NewTopN returns the first Limit rows after Offset of child in key order.
func NewTopN(env *op.Env, child op.Operator, spec TopNSpec) *TopN {
	return &TopN{env: env, child: child, spec: spec, k: int(spec.Offset + spec.Limit), sc: child.Schema(),
		mem: op.MemCharge{Tracker: spec.Mem.Child("TopN")}, poolKeys: op.SortEnc{Offs: []int32{0}}}
}

func (t *TopN) Schema() *arrow.Schema { return t.sc }

func (t *TopN) Next(ctx context.Context) (arrow.Record, error) {
	if !t.done {
		if err := t.consume(ctx); err != nil {
			return nil, err
		}
		t.done = true
	}
	if t.out == nil || t.outPos >= t.outEnd {
		return nil, io.EOF
	}
	end := min(t.outEnd, t.outPos+op.MaxBatchRows)
	r := t.out.NewSlice(int64(t.outPos), int64(end))
	t.outPos = end
	return r, nil
}

func (t *TopN) consume(ctx context.Context) error {
	if t.k <= 0 {
		return nil
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := t.child.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		err = t.add(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	if err := t.truncate(); err != nil {
		return err
	}
	if len(t.pool) == 1 {
		t.out = t.pool[0]
		t.pool = nil
		t.outPos = int(min(t.spec.Offset, int64(t.out.NumRows())))
		t.outEnd = int(t.out.NumRows())
	}
	return nil
}

// add appends the rows of rec that beat the threshold to the pool.
func (t *TopN) add(rec arrow.Record) error {
	keys, err := op.SortKeyCols(t.env, t.spec.Keys, rec)
	if err != nil {
		return err
	}
	t.scratch.Encode(keys, t.spec.Keys)
	op.ReleaseAll(keys)
	n := int(rec.NumRows())
	var keep []int32
	for i := 0; i < n; i++ {
		if t.threshold == nil || bytes.Compare(t.scratch.Key(i), t.threshold) < 0 {
			keep = append(keep, int32(i))
		}
	}
	if len(keep) == 0 {
		return nil
	}
	var part arrow.Record
	if len(keep) == n {
		rec.Retain()
		part = rec
	} else {
		cols, err := op.TakeCols(t.env.Mem, rec.Columns(), keep)
		if err != nil {
			return err
		}
		part = op.NewRecord(t.sc, cols, len(keep))
	}
	t.pool = append(t.pool, part)
	for _, i := range keep {
		t.poolKeys.Buf = append(t.poolKeys.Buf, t.scratch.Key(int(i))...)
		t.poolKeys.Offs = append(t.poolKeys.Offs, int32(len(t.poolKeys.Buf)))
	}
	t.poolRows += len(keep)
	if err := t.mem.Add(op.RecordMemBytes(part) + int64(len(keep)*4) + int64(t.scratch.Offs[n]/int32(n)*int32(len(keep)))); err != nil {
		return err
	}
	if t.poolRows >= 2*t.k && t.poolRows >= t.k+op.MaxBatchRows {
		return t.truncate()
	}
	return nil
}

// truncate sorts the pool and keeps its best K rows as one record.
func (t *TopN) truncate() error {
	if len(t.pool) == 0 {
		return nil
	}
	ents := op.SortedOrder(&t.poolKeys)
	if len(ents) > t.k {
		ents = ents[:t.k]
	}
	// Map pool row numbers to (record, row).
	starts := make([]int32, len(t.pool)+1)
	for i, r := range t.pool {
		starts[i+1] = starts[i] + int32(r.NumRows())
	}
	src := make([]int32, len(ents))
	rows := make([]int32, len(ents))
	var keys op.SortEnc
	keys.Offs = append(make([]int32, 0, len(ents)+1), 0)
	for i, e := range ents {
		r := e.Seq
		lo, hi := 0, len(t.pool)
		for hi-lo > 1 {
			m := (lo + hi) / 2
			if starts[m] <= r {
				lo = m
			} else {
				hi = m
			}
		}
		src[i], rows[i] = int32(lo), r-starts[lo]
		keys.Buf = append(keys.Buf, t.poolKeys.Key(int(r))...)
		keys.Offs = append(keys.Offs, int32(len(keys.Buf)))
	}
	cols := make([]arrow.Array, t.sc.NumFields())
	for c := range cols {
		srcs := make([]arrow.Array, len(t.pool))
		for i, r := range t.pool {
			srcs[i] = r.Column(c)
		}
		cols[c] = op.Interleave(t.env.Mem, t.sc.Field(c).Type, srcs, src, rows)
	}
	merged := op.NewRecord(t.sc, cols, len(ents))
	op.ReleaseRecs(t.pool)
	t.pool = []arrow.Record{merged}
	t.poolKeys = keys
	t.poolRows = len(ents)
	if len(ents) == t.k {
		t.threshold = append(t.threshold[:0], keys.Key(t.k-1)...)
	}
	t.mem.ReleaseAll()
	return t.mem.Add(op.RecordMemBytes(merged) + int64(len(keys.Buf)+len(keys.Offs)*4))
}

func (t *TopN) Close() {
	op.ReleaseRecs(t.pool)
	t.pool = nil
	if t.out != nil {
		t.out.Release()
		t.out = nil
	}
	t.mem.ReleaseAll()
	t.child.Close()
}
