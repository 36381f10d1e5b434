package streamload

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestPipelineCancelledNeverSucceeds: when the context ends while pieces
// are in flight, the pipeline reports an error even though no stage did,
// since converters that see the cancelled context throw pieces away (a
// nil there committed an empty load as a success).
func TestPipelineCancelledNeverSucceeds(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, nil)
	piece := func() (arrow.Record, error) {
		b := array.NewInt64Builder(memory.DefaultAllocator)
		defer b.Release()
		b.Append(1)
		a := b.NewArray()
		defer a.Release()
		return array.NewRecord(schema, []arrow.Array{a}, 1), nil
	}
	for i := 0; i < 200; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		var got int64
		err := pipeline(ctx, func(emit func(loadWork) error) error {
			for j := 0; j < 3; j++ {
				if err := emit(piece); err != nil {
					return nil // as a producer that ignores the cancellation
				}
			}
			cancel()
			return nil
		}, func(rec arrow.Record) error {
			got += rec.NumRows()
			return nil
		})
		if err == nil && got != 3 {
			t.Fatalf("try %d: nil error with %d of 3 rows consumed", i, got)
		}
		cancel()
	}
}
