package be

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/execution/op/exchange"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/types"
)

// The FE starts every fragment at once, so an exchange stream can reach a
// backend before the instance that receives it. Over real gRPC: such a
// stream waits and its rows arrive; once every instance of the query has
// registered, or the query was cancelled, a stream for a missing inbox
// ends at once instead of waiting.
func TestEarlyStreamWaitsForReceiver(t *testing.T) {
	b, err := Start(t.TempDir(), "127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Stop()
	cl, err := rpc.Dial(b.Addr(), "early-test-token") // claims the backend
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	out := []types.Column{{Name: "k", Type: types.BigIntT, Nullable: true}}
	schema := types.ArrowSchema(out)
	bld := array.NewInt64Builder(memory.DefaultAllocator)
	for i := int64(0); i < 1000; i++ {
		bld.Append(i)
	}
	col := bld.NewArray()
	bld.Release()
	rec := array.NewRecord(schema, []arrow.Array{col}, 1000)
	col.Release()
	defer rec.Release()

	const q = "early-query"
	stream := rpc.StreamID{QueryID: q, Exchange: 1, Receiver: 0, Sender: 0}
	pushed := make(chan error, 1)
	go func() {
		p, err := cl.Push(ctx, stream, schema)
		if err == nil {
			err = p.Send(ctx, rec)
		}
		if err == nil {
			err = p.Close(ctx)
		}
		pushed <- err
	}()
	eventually(t, "the stream to wait for its receiver", func() bool { return b.earlyStreams.Load() == 1 })
	select {
	case err := <-pushed:
		t.Fatalf("the stream ended before its receiver started: %v", err)
	default:
	}

	// The receiver: an exchange read by the FE through an outbox.
	req := &rpc.ExecFragmentReq{QueryID: q, Fragment: 1, Instance: 0, BackendInstances: 1,
		Root:      &fragment.Node{ID: 1, Kind: fragment.KindExchange, Output: out, Exchange: &fragment.ExchangeSpec{From: 2}},
		Exchanges: map[fragment.NodeID]rpc.ExchangeIn{1: {Senders: 1}},
		Sink:      rpc.SinkPlan{Kind: fragment.StreamGather, ExchangeID: 9, Receivers: []rpc.Dest{{Instance: 0, Pull: true}}}}
	ex, err := cl.ExecFragment(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	st, err := cl.Pull(ctx, rpc.StreamID{QueryID: q, Exchange: 9, Sender: 0})
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for {
		r, err := st.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rows += int(r.NumRows())
		r.Release()
	}
	st.Close()
	if rows != 1000 {
		t.Fatalf("receiver got %d rows, want 1000", rows)
	}
	if err := <-pushed; err != nil {
		t.Fatalf("push: %v", err)
	}
	if _, err := ex.Wait(); err != nil {
		t.Fatal(err)
	}
	if n := b.earlyStreams.Load(); n != 0 {
		t.Fatalf("%d streams still counted as waiting", n)
	}

	// Every instance registered and ran: the inbox is gone, not late.
	late := func(q string) error {
		p, err := cl.Push(ctx, rpc.StreamID{QueryID: q, Exchange: 1}, schema)
		if err != nil {
			return err
		}
		if err := p.Send(ctx, rec); err != nil && !errors.Is(err, exchange.ErrReceiverClosed) {
			return err
		}
		return p.Close(ctx)
	}
	if err := late(q); err != nil {
		t.Fatalf("stream to a finished receiver: %v", err)
	}
	// A cancelled query's streams end too, and its instances are refused.
	if err := cl.Do(ctx, rpc.ActCancel, rpc.CancelReq{QueryID: "cancelled"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := late("cancelled"); err != nil {
		t.Fatalf("stream to a cancelled query: %v", err)
	}
	req.QueryID = "cancelled"
	if ex, err := cl.ExecFragment(ctx, req); err == nil {
		if _, err := ex.Wait(); err == nil {
			t.Fatal("an instance of a cancelled query ran")
		}
	}
	if ctx.Err() != nil {
		t.Fatal("timed out: a stream waited for a receiver that was not coming")
	}
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
