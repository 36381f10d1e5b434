package be

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/types"
)

// One exec_fragment call starts several instances of a query (the FE sends
// one per backend): over real gRPC, both instances of a call receive their
// streams and report once each; when one instance of a call fails, the call
// ends with its error, not a sibling's cancellation, and the sibling (which
// would otherwise wait for rows forever) is stopped.
func TestExecBatch(t *testing.T) {
	b, err := Start(t.TempDir(), "127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Stop()
	cl, err := rpc.Dial(b.Addr(), "batch-test-token")
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	out := []types.Column{{Name: "k", Type: types.BigIntT, Nullable: true}}
	schema := types.ArrowSchema(out)
	bld := array.NewInt64Builder(memory.DefaultAllocator)
	for i := int64(0); i < 100; i++ {
		bld.Append(i)
	}
	col := bld.NewArray()
	bld.Release()
	rec := array.NewRecord(schema, []arrow.Array{col}, 100)
	col.Release()
	defer rec.Release()

	// receiver is an instance of fragment f reading exchange x and serving
	// its rows at outbox x+100; senders 0 leaves exchange x unregistered.
	receiver := func(q string, f fragment.FragmentID, x fragment.NodeID, senders int) *rpc.ExecFragmentReq {
		req := &rpc.ExecFragmentReq{QueryID: q, Fragment: f, Instance: 0, BackendInstances: 2,
			Root: &fragment.Node{ID: x, Kind: fragment.KindExchange, Output: out, Exchange: &fragment.ExchangeSpec{From: f + 1}},
			Sink: rpc.SinkPlan{Kind: fragment.StreamGather, ExchangeID: x + 100, Receivers: []rpc.Dest{{Instance: 0, Pull: true}}}}
		if senders > 0 {
			req.Exchanges = map[fragment.NodeID]rpc.ExchangeIn{x: {Senders: senders}}
		}
		return req
	}
	feed := func(q string, x fragment.NodeID) {
		p, err := cl.Push(ctx, rpc.StreamID{QueryID: q, Exchange: x}, schema)
		if err == nil {
			err = p.Send(ctx, rec)
		}
		if err == nil {
			err = p.Close(ctx)
		}
		if err != nil {
			t.Errorf("push to exchange %d: %v", x, err)
		}
	}
	drain := func(q string, x fragment.NodeID) int {
		st, err := cl.Pull(ctx, rpc.StreamID{QueryID: q, Exchange: x + 100})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		rows := 0
		for {
			r, err := st.Next()
			if err == io.EOF {
				return rows
			}
			if err != nil {
				t.Fatal(err)
			}
			rows += int(r.NumRows())
			r.Release()
		}
	}

	ex, err := cl.ExecFragments(ctx, []*rpc.ExecFragmentReq{receiver("ok", 1, 1, 1), receiver("ok", 3, 2, 1)})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []fragment.NodeID{1, 2} {
		feed("ok", x)
		if n := drain("ok", x); n != 100 {
			t.Fatalf("exchange %d: %d rows, want 100", x, n)
		}
	}
	seen := map[fragment.FragmentID]bool{}
	for {
		rep, err := ex.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if seen[rep.Fragment] {
			t.Fatalf("fragment %d reported twice", rep.Fragment)
		}
		seen[rep.Fragment] = true
	}
	if !seen[1] || !seen[3] || len(seen) != 2 {
		t.Fatalf("reports from fragments %v, want 1 and 3", seen)
	}

	// Fragment 3's exchange has no senders: it fails as it starts to read;
	// fragment 1 waits for a stream nobody sends.
	ex, err = cl.ExecFragments(ctx, []*rpc.ExecFragmentReq{receiver("bad", 1, 1, 1), receiver("bad", 3, 2, 0)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ex.Next()
	if err == nil || !strings.Contains(err.Error(), "has no senders") || rpc.IsSecondary(err) {
		t.Fatalf("batch with a failing instance: %v, want its error", err)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatal("timed out: the failing instance's sibling was not stopped")
	}
}
