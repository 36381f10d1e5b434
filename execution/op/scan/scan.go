package scan

import (
	"context"
	"io"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// TabletReader is the storage a scan reads (a backend's *storage.Store).
type TabletReader interface {
	Scan(ctx context.Context, req storage.ScanRequest) (storage.RecordIterator, error)
}

// OlapScan reads a list of tablets one after another, returning only the
// requested columns; pushed conjuncts are applied by a Filter above it.
type OlapScan struct {
	store  TabletReader
	reqs   []storage.ScanRequest
	schema *arrow.Schema
	cur    storage.RecordIterator
	next   int
	held   arrow.Record // read ahead by coalescing, returned next
	yield  op.Yielder
	// rows and bytes read from storage (the profile reads them while the
	// scan runs).
	rows, bytes atomic.Int64
}

var _ op.Operator = (*OlapScan)(nil)

var _ op.ScanCounter = (*OlapScan)(nil)

func (s *OlapScan) Scanned() (int64, int64) { return s.rows.Load(), s.bytes.Load() }

// NewOlapScan scans reqs in order; out describes the columns of each request.
func NewOlapScan(store TabletReader, reqs []storage.ScanRequest, out []types.Column) *OlapScan {
	return &OlapScan{store: store, reqs: reqs, schema: types.ArrowSchema(out)}
}

func (s *OlapScan) Schema() *arrow.Schema { return s.schema }

// coalesceRows: storage records smaller than this are concatenated with
// the ones after them, up to this many rows. A small table's segments hold
// a row or a few each (one per INSERT), and every operator above, the
// exchange's encoding included, pays per record: a sqllogictest table of
// ten one-row INSERTs is one batch, not ten.
const coalesceRows = 1024

// Next returns the next batch: a storage record, or several small ones
// concatenated (coalesceRows).
func (s *OlapScan) Next(ctx context.Context) (arrow.Record, error) {
	s.yield.Maybe() // a scan drives its instance's work: take turns (op.Yielder)
	rec := s.held
	s.held = nil
	if rec == nil {
		var err error
		if rec, err = s.pull(ctx); err != nil {
			return nil, err
		}
	}
	if rec.NumRows() >= coalesceRows {
		return rec, nil
	}
	parts := []arrow.Record{rec}
	defer func() {
		for _, r := range parts {
			r.Release()
		}
	}()
	n := rec.NumRows()
	for n < coalesceRows {
		r, err := s.pull(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if n+r.NumRows() > coalesceRows {
			s.held = r // starts the next batch
			break
		}
		parts = append(parts, r)
		n += r.NumRows()
	}
	return op.ConcatRecords(memory.DefaultAllocator, s.schema, parts)
}

// pull is the next non-empty record of the tablets, relabeled.
func (s *OlapScan) pull(ctx context.Context) (arrow.Record, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if s.cur == nil {
			if s.next >= len(s.reqs) {
				return nil, io.EOF
			}
			it, err := s.store.Scan(ctx, s.reqs[s.next])
			if err != nil {
				return nil, err
			}
			s.next++
			s.cur = it
		}
		rec, err := s.cur.Next()
		if err == io.EOF {
			s.cur.Close()
			s.cur = nil
			continue
		}
		if err != nil {
			return nil, err
		}
		if rec.NumRows() == 0 {
			rec.Release()
			continue
		}
		s.rows.Add(rec.NumRows())
		s.bytes.Add(op.RecordBytes(rec))
		// Re-label with the plan's schema (names/nullability as the planner sees them).
		out := op.Relabel(rec, s.schema)
		return out, nil
	}
}

func (s *OlapScan) Close() {
	if s.held != nil {
		s.held.Release()
		s.held = nil
	}
	if s.cur != nil {
		s.cur.Close()
		s.cur = nil
	}
}
