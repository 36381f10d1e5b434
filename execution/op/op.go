package op

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/sql/expr"
)

// Operator produces a stream of record batches.
type Operator interface {
	// Schema is the schema of every batch Next returns.
	Schema() *arrow.Schema
	// Next returns the next non-empty batch (caller releases it) or io.EOF.
	Next(ctx context.Context) (arrow.Record, error)
	// Close releases resources; it is safe to call more than once.
	Close()
}

// Selector is an operator that filters, and can hand out a batch before its
// rows are copied out: the whole batch and the ascending rows of it that
// pass (nil: all of them; valid until the next call). A consumer that reads
// only those rows saves the copy: an aggregate over a scan whose filter
// keeps most rows (TPC-H Q1 keeps 98%).
type Selector interface {
	Operator
	// CanSelect: NextSelected may be called (a wrapper may not reach one).
	CanSelect() bool
	// NextSelected is Next before the copy; the batch has Schema().
	NextSelected(ctx context.Context) (arrow.Record, []int32, error)
}

// Env is what operators need from the process running them.
type Env struct {
	Mem  memory.Allocator
	Eval *expr.Context // query start time etc., fixed for the whole query
	// Tracker is the query's memory tracker on this process (exec_mem_limit);
	// nil is unlimited.
	Tracker *MemTracker
	// Spill lets hash joins spill to disk past Tracker's limit; nil: never.
	Spill *SpillConfig
	// Depth is the Apply nesting level whose parameters this tree binds.
	Depth int
}

// Drain reads op to the end, calling fn on each batch (fn must not keep it
// without Retain).
func Drain(ctx context.Context, o Operator, fn func(arrow.Record) error) error {
	for {
		rec, err := o.Next(ctx)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		err = fn(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
}

// ScanCounter is an operator that reads storage: OlapScan, and the
// ScanFilter over one, which counts what its scan read.
type ScanCounter interface {
	// Scanned is the rows and bytes read so far; bytes are those of the
	// read columns' data as the scan returned it (decoded Arrow buffers,
	// before any filter), so a query's count does not depend on what the
	// column cache or Pebble's block cache happened to hold.
	Scanned() (rows, bytes int64)
}

// Empty is an input with schema sc and no rows.
func Empty(sc *arrow.Schema) Operator { return &emptyOp{sc: sc} }

type emptyOp struct{ sc *arrow.Schema }

func (e *emptyOp) Schema() *arrow.Schema                      { return e.sc }
func (e *emptyOp) Next(context.Context) (arrow.Record, error) { return nil, io.EOF }
func (e *emptyOp) Close()                                     {}
