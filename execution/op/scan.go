package op

import (
	"context"
	"io"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
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
	// rows and bytes read from storage (the profile reads them while the
	// scan runs).
	rows, bytes atomic.Int64
}

var _ Operator = (*OlapScan)(nil)

// scanCounter is an operator that reads storage: OlapScan, and the
// ScanFilter over one, which counts what its scan read.
type scanCounter interface {
	// scanned is the rows and bytes read so far; bytes are those of the
	// read columns' data as the scan returned it (decoded Arrow buffers,
	// before any filter), so a query's count does not depend on what the
	// column cache or Pebble's block cache happened to hold.
	scanned() (rows, bytes int64)
}

var _ scanCounter = (*OlapScan)(nil)

func (s *OlapScan) scanned() (int64, int64) { return s.rows.Load(), s.bytes.Load() }

// NewOlapScan scans reqs in order; out describes the columns of each request.
func NewOlapScan(store TabletReader, reqs []storage.ScanRequest, out []types.Column) *OlapScan {
	return &OlapScan{store: store, reqs: reqs, schema: types.ArrowSchema(out)}
}

func (s *OlapScan) Schema() *arrow.Schema { return s.schema }

func (s *OlapScan) Next(ctx context.Context) (arrow.Record, error) {
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
		s.bytes.Add(RecordBytes(rec))
		// Re-label with the plan's schema (names/nullability as the planner sees them).
		out := relabel(rec, s.schema)
		return out, nil
	}
}

func (s *OlapScan) Close() {
	if s.cur != nil {
		s.cur.Close()
		s.cur = nil
	}
}

// relabel returns rec's columns under schema sc (same physical types).
func relabel(rec arrow.Record, sc *arrow.Schema) arrow.Record {
	if rec.Schema().Equal(sc) {
		return rec
	}
	cols := rec.Columns()
	out := arrowNewRecord(sc, cols, rec.NumRows())
	rec.Release()
	return out
}
