package build

import (
	"context"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/execution/op/optest"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/types"
)

// A sort run as tasks over a passthrough local exchange, with far more
// rows than the exchange budget: every task's sort must be fed while the
// merge above reads one task's output at a time (no deadlock), and the
// merged output is in order.
func TestBuildTasksSortMerge(t *testing.T) {
	mem, check := optest.Checked(t)
	defer check()
	cs := optest.Cols("k", types.BigIntT, "v", types.BigIntT)
	rows := optest.RandRows(rand.New(rand.NewSource(9)), 20000, 5000, 0)
	x := &fragment.Node{ID: 1, Kind: fragment.KindExchange, Output: cs, Exchange: &fragment.ExchangeSpec{From: 1}}
	sortNode := &fragment.Node{ID: 2, Kind: fragment.KindSort, Output: cs, Children: []*fragment.Node{x},
		Sort:           &fragment.SortSpec{Keys: []fragment.SortKey{{Expr: fragment.Ex{Expr: optest.ColRef(0, types.BigIntT)}}, {Expr: fragment.Ex{Expr: optest.ColRef(1, types.BigIntT)}}}},
		LocalExchanges: []fragment.LocalExchange{{Kind: fragment.LocalPassthrough}}}
	tp := TaskPlan{Tasks: 3, Instances: 1, Budget: 2 << 10, Exchange: func(n *fragment.Node, tasks int) ([]op.Operator, error) {
		ops, _ := optest.Producers(mem, rows, tasks, 50)
		return ops, nil
	}}
	env := optest.Env(mem)
	roots, _, err := BuildTasks(env, sortNode, &Sources{}, tp)
	if err != nil {
		t.Fatal(err)
	}
	if len(roots) != 1 {
		t.Fatalf("a sort over tasks gave %d streams, want 1 (merged)", len(roots))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var prev []int64
	n := 0
	err = op.Drain(ctx, roots[0], func(rec arrow.Record) error {
		for r := 0; r < int(rec.NumRows()); r++ {
			cur := []int64{rec.Column(0).(*array.Int64).Value(r), rec.Column(1).(*array.Int64).Value(r)}
			if prev != nil && (cur[0] < prev[0] || cur[0] == prev[0] && cur[1] < prev[1]) {
				return fmt.Errorf("row %d out of order: %v after %v", n, cur, prev)
			}
			prev = cur
			n++
		}
		return nil
	})
	roots[0].Close()
	if err != nil {
		t.Fatal(err)
	}
	if n != len(rows) {
		t.Fatalf("%d rows, want %d", n, len(rows))
	}
}
