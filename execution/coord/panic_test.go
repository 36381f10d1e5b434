package coord_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/types"
)

// A load whose source panics after sending rows (a bug in the statement's
// operators) aborts its transaction before the panic goes on to the
// statement's recover: no row becomes visible and the label is free again.
func TestLoadPanicAbortsTheTransaction(t *testing.T) {
	c := newCluster(t, 2)
	tb := c.table("t", types.BigIntT, "k", 4, 1, "")
	c.load(tb, []int64{1, 2}, []any{int64(10), int64(20)})
	sc := types.ArrowSchema([]types.Column{tb.Columns[0].Column, tb.Columns[1].Column})
	batch := func() arrow.Record {
		b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
		defer b.Release()
		for k := int64(3); k < 100; k++ {
			b.Field(0).(*array.Int64Builder).Append(k)
			b.Field(1).(*array.Int64Builder).Append(k * 10)
		}
		return b.NewRecord()
	}
	func() {
		defer func() {
			if r := recover(); r != "source bug" {
				t.Fatalf("recovered %v, want the source's panic", r)
			}
		}()
		_, _ = c.co.Load(context.Background(), "db", tb, "l1", func(yield func(arrow.Record) error) error {
			rec := batch()
			defer rec.Release()
			if err := yield(rec); err != nil {
				return err
			}
			panic("source bug")
		})
	}()
	txn, ok := c.cat.TxnByLabel("db", "l1")
	if !ok || txn.State != catalog.TxnAborted {
		t.Fatalf("transaction of label l1: %+v (found %v), want ABORTED", txn, ok)
	}
	// Only the first load's rows are visible.
	scan := c.scan(10, "t")
	rows, _ := c.run(&fragment.Plan{Fragments: []*fragment.Fragment{gatherRoot(100, 1, scan.Output, false),
		frag(1, scan, fragment.RandomPartitioned, fragment.Sink{Kind: fragment.StreamGather, ExchangeID: 100})}})
	if len(rows) != 2 {
		t.Errorf("%d rows visible after the panicked load, want 2: %v", len(rows), rows)
	}
	if _, err := c.co.Load(context.Background(), "db", tb, "l1", func(yield func(arrow.Record) error) error { return nil }); err != nil {
		t.Fatalf("reusing the label of the aborted load: %v", err)
	}
}
