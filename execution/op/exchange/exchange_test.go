package exchange

import (
	"context"
	"math/rand"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/execution/op/optest"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// TestSinkCoalescesSmallPieces feeds a shuffle sink batches of 7 rows (a
// selective filter's output): each receiver gets its rows in a few
// batches, not hundreds of slivers, and every row exactly once. A sink
// to the root fragment (a gather) sends each batch as it comes, so that a
// LIMIT above it can end the query early.
func TestSinkCoalescesSmallPieces(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	rows := optest.RandRows(r, 3000, 500, 0.1)
	var want []string
	for _, rw := range rows {
		want = append(want, optest.FmtRow(rw))
	}
	want = optest.Sorted(want)
	for _, kind := range []fragment.SinkKind{fragment.StreamHash, fragment.StreamRandom, fragment.StreamGather} {
		mem, check := optest.Checked(t)
		ops, _ := optest.Producers(mem, rows, 1, 7)
		n := 3
		if kind == fragment.StreamGather {
			n = 1
		}
		var outs []Outlet
		var readers []op.Operator
		var inboxes []*Inbox
		for i := 0; i < n; i++ {
			ib := NewInbox(ops[0].Schema(), 1, 0)
			inboxes = append(inboxes, ib)
			outs = append(outs, InboxOutlet{In: ib})
			readers = append(readers, SharedReader(ib, 1)[0])
		}
		spec := SinkSpec{Kind: kind, Keys: []expr.Expr{optest.ColRef(0, types.BigIntT)}}
		sink := NewExchangeSink(optest.Env(mem), ops[0], spec, outs)
		sink.maxAge = time.Hour // a slow (race) run must not flush by age
		errc := make(chan error, 1)
		go func() { errc <- sink.Run(context.Background()) }()
		batches := make([]int, n)
		var got []string
		for i, rd := range readers {
			if err := op.Drain(context.Background(), rd, func(rec arrow.Record) error {
				batches[i]++
				for j := 0; j < int(rec.NumRows()); j++ {
					got = append(got, types.DatumAt(rec.Column(0), j, types.BigIntT).String()+"|"+
						types.DatumAt(rec.Column(1), j, types.BigIntT).String())
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			rd.Close()
		}
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
		ops[0].Close()
		optest.EqualRows(t, optest.Sorted(got), want)
		total := 0
		for _, b := range batches {
			total += b
		}
		st := sink.Stats()
		if int(st.Batches) != total {
			t.Errorf("%v: sink counted %d batches, receivers got %d", kind, st.Batches, total)
		}
		slivers := (len(rows) + 6) / 7
		if kind == fragment.StreamGather {
			if total != slivers {
				t.Errorf("gather: %d batches, want each of the %d sent as it came", total, slivers)
			}
		} else if total > 2*n {
			t.Errorf("%v: %d batches for %d rows to %d receivers (%v), want them coalesced", kind, total, len(rows), n, batches)
		}
		check()
	}
}
