package scan

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/types"
)

func TestNumbersBatches(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	env := &op.Env{Mem: mem}
	out := []types.Column{{Name: "number", Type: types.BigIntT}}
	for _, count := range []int64{0, 1, 10, op.MaxBatchRows, 2*op.MaxBatchRows + 3} {
		o, err := NewTableFunc(env, &fragment.TableFuncSpec{Fn: "numbers", Count: count}, out)
		if err != nil {
			t.Fatal(err)
		}
		want := int64(0)
		err = op.Drain(context.Background(), o, func(rec arrow.Record) error {
			if rec.NumRows() > op.MaxBatchRows {
				t.Errorf("batch of %d rows", rec.NumRows())
			}
			col := rec.Column(0).(*array.Int64)
			for i := 0; i < col.Len(); i++ {
				if col.Value(i) != want {
					t.Fatalf("count %d: row %d = %d", count, want, col.Value(i))
				}
				want++
			}
			return nil
		})
		o.Close()
		if err != nil || want != count {
			t.Fatalf("count %d: got %d rows, err %v", count, want, err)
		}
	}
	if _, err := NewTableFunc(env, &fragment.TableFuncSpec{Fn: "s3"}, out); err == nil {
		t.Fatal("unknown table function accepted")
	}
}
