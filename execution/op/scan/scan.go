package scan

import (
	"context"
	"io"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"

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
		s.bytes.Add(op.RecordBytes(rec))
		// Re-label with the plan's schema (names/nullability as the planner sees them).
		out := op.Relabel(rec, s.schema)
		return out, nil
	}
}

func (s *OlapScan) Close() {
	if s.cur != nil {
		s.cur.Close()
		s.cur = nil
	}
}
