package scan

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/eval"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// TabletWriter writes a load transaction's rows to one replica of a tablet
// (the backend runtime streams them to the replica's backend).
type TabletWriter interface {
	Write(ctx context.Context, be fragment.BackendID, tablet storage.TabletID, rec arrow.Record) error
}

// TableSinkStats is what one table sink instance wrote.
type TableSinkStats struct {
	Rows  int64 `json:"rows"`
	Bytes int64 `json:"bytes"`
	// Partitions are the partitions it wrote; Backends the replicas'
	// backends it streamed to (the coordinator prepares the transaction
	// on each).
	Partitions []int64              `json:"partitions,omitempty"`
	Backends   []fragment.BackendID `json:"backends,omitempty"`
	// Tablets are the tablets it gave rows; Failed the backends whose
	// streams broke (their replicas miss the load: the coordinator
	// commits on the majority).
	Tablets []storage.TabletID `json:"tablets,omitempty"`
	Failed  []SinkFailure      `json:"failed,omitempty"`
}

// SinkFailure is a replica backend a table sink could not write.
type SinkFailure struct {
	Backend fragment.BackendID `json:"backend"`
	Error   string             `json:"error"`
}

// TableSink is an instance's OLAP TABLE SINK: it drains its child, converts
// each batch to the table's column types with a load's strict rules (a bad
// value fails the statement naming column and row, NULL into NOT NULL is
// 1048), and writes each row to every replica of its partition's tablet
// for its bucket.
type TableSink struct {
	env    *op.Env
	child  op.Operator
	spec   *fragment.TableSink
	w      TabletWriter
	schema *arrow.Schema
	from   []types.Column
	row    int // the next row's number in this instance (1-based), for messages
	rr     int // RANDOM distribution: the batch's bucket, rotating
	stats  TableSinkStats
	// written counts the rows sent to every replica so far, read while
	// the sink runs (a load's progress, Written).
	written atomic.Int64
	parts   map[int64]bool
	bes     map[fragment.BackendID]bool
	tabs    map[storage.TabletID]bool
}

// NewTableSink builds the sink of spec over child.
func NewTableSink(env *op.Env, child op.Operator, spec *fragment.TableSink, from []types.Column, w TabletWriter) (*TableSink, error) {
	if len(from) != len(spec.Columns) {
		return nil, sqlerr.Assertf("table sink: %d source columns for %d table columns", len(from), len(spec.Columns))
	}
	return &TableSink{env: env, child: child, spec: spec, w: w, schema: types.ArrowSchema(spec.Columns), from: from, row: 1,
		parts: map[int64]bool{}, bes: map[fragment.BackendID]bool{}, tabs: map[storage.TabletID]bool{}}, nil
}

// Stats is what the sink wrote so far.
func (s *TableSink) Stats() TableSinkStats {
	st := s.stats
	st.Partitions, st.Backends = nil, nil
	for p := range s.parts {
		st.Partitions = append(st.Partitions, p)
	}
	for b := range s.bes {
		st.Backends = append(st.Backends, b)
	}
	for t := range s.tabs {
		st.Tablets = append(st.Tablets, t)
	}
	slices.Sort(st.Partitions)
	slices.Sort(st.Backends)
	slices.Sort(st.Tablets)
	return st
}

// Written is the rows the sink wrote so far; safe while it runs.
func (s *TableSink) Written() int64 { return s.written.Load() }

// Run drains the child into the table. It does not close the child.
func (s *TableSink) Run(ctx context.Context) error {
	for {
		rec, err := s.child.Next(ctx)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		err = s.write(ctx, rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
}

func (s *TableSink) write(ctx context.Context, rec arrow.Record) error {
	n := int(rec.NumRows())
	if n == 0 {
		return nil
	}
	out, err := s.convert(rec)
	if err != nil {
		return err
	}
	defer out.Release()
	s.row += n
	s.stats.Rows += int64(n)
	parts, err := s.partitionOf(out)
	if err != nil {
		return err
	}
	nb := s.spec.Buckets
	cols := make([]arrow.Array, len(s.spec.DistColumns))
	for i, ci := range s.spec.DistColumns {
		cols[i] = out.Column(ci)
	}
	counts, idx := TabletSlots(parts, RowBuckets(cols, n, nb, &s.rr), len(s.spec.Partitions), nb)
	for sl := 0; sl+1 < len(counts); sl++ {
		lo, hi := counts[sl], counts[sl+1]
		if lo == hi {
			continue
		}
		p := &s.spec.Partitions[sl/nb]
		tb := p.Tablets[sl%nb]
		piece, err := takeRows(s.env, out, idx[lo:hi], s.schema)
		if err != nil {
			return err
		}
		s.parts[p.ID] = true
		s.tabs[tb.Tablet] = true
		s.stats.Bytes += op.RecordBytes(piece)
		for _, be := range tb.Replicas {
			s.bes[be] = true
			if err := s.w.Write(ctx, be, tb.Tablet, piece); err != nil {
				piece.Release()
				return err
			}
		}
		piece.Release()
	}
	s.written.Add(int64(n))
	return nil
}

// convert casts rec's columns to the table's types (a load's strict cast).
func (s *TableSink) convert(rec arrow.Record) (arrow.Record, error) {
	cols := make([]arrow.Array, len(s.spec.Columns))
	release := func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}
	for i, c := range s.spec.Columns {
		src := rec.Column(i)
		from := s.from[i].Type
		var out arrow.Array
		if arrow.TypeEqual(src.DataType(), c.Type.Arrow()) && (from.SameFamily(c.Type) && !c.Type.IsString() || from == c.Type) {
			src.Retain()
			out = src
		} else {
			var err error
			out, err = eval.CastStrict(src, from, c.Type, c.Name, s.row, s.env.Mem)
			if err != nil {
				release()
				return nil, err
			}
		}
		cols[i] = out
		if !c.Nullable && out.NullN() > 0 {
			release()
			return nil, sqlerr.BadNull.New(c.Name)
		}
	}
	out := array.NewRecord(s.schema, cols, rec.NumRows())
	release()
	return out, nil
}

// partitionOf is, per row, the index of the spec partition holding it.
func (s *TableSink) partitionOf(rec arrow.Record) ([]int, error) {
	n := int(rec.NumRows())
	out := make([]int, n)
	if s.spec.PartKind == 0 {
		return out, nil
	}
	col := rec.Column(s.spec.PartColumn)
	ct := s.spec.Columns[s.spec.PartColumn].Type
	for i := 0; i < n; i++ {
		v := types.DatumAt(col, i, ct)
		found := -1
		for pi := range s.spec.Partitions {
			if SinkPartitionHolds(s.spec.PartKind, &s.spec.Partitions[pi], v) {
				found = pi
				break
			}
		}
		if found < 0 {
			return nil, sqlerr.Doris.New(fmt.Sprintf("no partition for value %s of column %s", v.String(), s.spec.Columns[s.spec.PartColumn].Name))
		}
		out[i] = found
	}
	return out, nil
}

// SinkPartitionHolds reports whether partition p (of a table partitioned
// by kind: 1 range, 2 list) holds value v.
func SinkPartitionHolds(kind uint8, p *fragment.SinkPartition, v types.Datum) bool {
	switch kind {
	case 1:
		return types.RangeHolds(p.Lower, p.Upper, v)
	case 2:
		return types.ListHolds(p.Values, v)
	}
	return true
}

// takeRows gathers rows idx of rec (all rows: rec itself, retained).
func takeRows(env *op.Env, rec arrow.Record, idx []int32, schema *arrow.Schema) (arrow.Record, error) {
	if len(idx) == int(rec.NumRows()) {
		rec.Retain()
		return rec, nil
	}
	cols := make([]arrow.Array, rec.NumCols())
	for i := range cols {
		a, err := eval.Take(env.Mem, rec.Column(i), idx)
		if err != nil {
			op.ReleaseAll(cols[:i])
			return nil, err
		}
		cols[i] = a
	}
	out := array.NewRecord(schema, cols, int64(len(idx)))
	op.ReleaseAll(cols)
	return out, nil
}
