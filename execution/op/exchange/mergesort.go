package exchange

import (
	"bytes"
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/dorisgo/dorisgo/execution/op"
)

// MergeSorted merges child streams that are each sorted by Keys into one
// sorted stream (the receiving side of a merging exchange). Ties go to the
// child listed first, so the merge is stable.
type MergeSorted struct {
	env      *op.Env
	children []op.Operator
	keys     []op.SortKey
	sc       *arrow.Schema
	inputs   []*mergeInput
	heap     []*mergeInput
	started  bool
	// limit < 0: unlimited; offset rows are skipped first.
	offset, limit int64
}

type mergeInput struct {
	idx  int
	op   op.Operator
	rec  arrow.Record
	keys op.SortEnc
	row  int
	src  int32 // index into the current output chunk's sources, -1: none
}

var _ op.Operator = (*MergeSorted)(nil)

// NewMergeSorted merges children (same schema, each sorted by keys).
// offset/limit apply to the merged stream (limit < 0: no limit), as a
// MERGING-EXCHANGE with a TOP-N below it does.
func NewMergeSorted(env *op.Env, children []op.Operator, keys []op.SortKey, offset, limit int64) *MergeSorted {
	return &MergeSorted{env: env, children: children, keys: keys, sc: children[0].Schema(), offset: offset, limit: limit}
}

func (m *MergeSorted) Schema() *arrow.Schema { return m.sc }

func (m *MergeSorted) less(a, b *mergeInput) bool {
	c := bytes.Compare(a.keys.Key(a.row), b.keys.Key(b.row))
	return c < 0 || c == 0 && a.idx < b.idx
}

func (m *MergeSorted) down(i int) {
	h := m.heap
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		s := l
		if r := l + 1; r < len(h) && m.less(h[r], h[l]) {
			s = r
		}
		if !m.less(h[s], h[i]) {
			return
		}
		h[i], h[s] = h[s], h[i]
		i = s
	}
}

// advance loads in's next non-empty batch; false at EOF.
func (m *MergeSorted) advance(ctx context.Context, in *mergeInput) (bool, error) {
	for {
		rec, err := in.op.Next(ctx)
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if rec.NumRows() == 0 {
			rec.Release()
			continue
		}
		cols, err := op.SortKeyCols(m.env, m.keys, rec)
		if err != nil {
			rec.Release()
			return false, err
		}
		in.keys.Encode(cols, m.keys)
		op.ReleaseAll(cols)
		in.rec, in.row, in.src = rec, 0, -1
		return true, nil
	}
}

func (m *MergeSorted) Next(ctx context.Context) (arrow.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !m.started {
		m.started = true
		for i, c := range m.children {
			in := &mergeInput{idx: i, op: c, src: -1}
			m.inputs = append(m.inputs, in)
			ok, err := m.advance(ctx, in)
			if err != nil {
				return nil, err
			}
			if ok {
				m.heap = append(m.heap, in)
			}
		}
		for i := len(m.heap)/2 - 1; i >= 0; i-- {
			m.down(i)
		}
	}
	var srcs []arrow.Record
	var retired []arrow.Record
	defer func() { op.ReleaseRecs(retired) }()
	var src, rows []int32
	for len(m.heap) > 0 && len(src) < op.MaxBatchRows && m.limit != 0 {
		in := m.heap[0]
		if m.offset > 0 {
			m.offset--
		} else {
			if in.src < 0 {
				in.src = int32(len(srcs))
				srcs = append(srcs, in.rec)
			}
			src = append(src, in.src)
			rows = append(rows, int32(in.row))
			if m.limit > 0 {
				m.limit--
			}
		}
		in.row++
		if in.row < int(in.rec.NumRows()) {
			m.down(0)
			continue
		}
		if in.src >= 0 {
			retired = append(retired, in.rec) // still a source of this chunk
		} else {
			in.rec.Release()
		}
		in.rec = nil
		ok, err := m.advance(ctx, in)
		if err != nil {
			return nil, err
		}
		if !ok {
			m.heap[0] = m.heap[len(m.heap)-1]
			m.heap = m.heap[:len(m.heap)-1]
		}
		m.down(0)
	}
	for _, in := range m.inputs {
		in.src = -1
	}
	if len(src) == 0 {
		return nil, io.EOF
	}
	cols := make([]arrow.Array, m.sc.NumFields())
	arrs := make([]arrow.Array, len(srcs))
	for c := range cols {
		for i, r := range srcs {
			arrs[i] = r.Column(c)
		}
		cols[c] = op.Interleave(m.env.Mem, m.sc.Field(c).Type, arrs, src, rows)
	}
	return op.NewRecord(m.sc, cols, len(src)), nil
}

func (m *MergeSorted) Close() {
	for _, in := range m.inputs {
		if in.rec != nil {
			in.rec.Release()
			in.rec = nil
		}
	}
	for _, c := range m.children {
		c.Close()
	}
}
