package be

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// An exchange stream whose receiving backend goes away fails naming that
// backend, as an error declared for users: the sending backend reports it
// to the FE, which passes it on as it is instead of blaming the sender.
func TestPushFailureNamesReceiver(t *testing.T) {
	b, err := Start(t.TempDir(), "127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	addr := b.Addr()
	cl, err := rpc.Dial(addr, "peer-err-test-token")
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out := []types.Column{{Name: "k", Type: types.BigIntT, Nullable: true}}
	schema := types.ArrowSchema(out)
	bld := array.NewInt64Builder(memory.DefaultAllocator)
	bld.Append(1)
	col := bld.NewArray()
	bld.Release()
	rec := array.NewRecord(schema, []arrow.Array{col}, 1)
	col.Release()
	defer rec.Release()
	// A stream for a receiver that never starts: it waits on the backend.
	p, err := cl.Push(ctx, rpc.StreamID{QueryID: "peer-err", Exchange: 1}, schema)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Send(ctx, rec); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the stream to reach the backend", func() bool { return b.earlyStreams.Load() == 1 })
	b.Kill()
	err = p.Close(ctx)
	if err == nil {
		t.Fatal("the stream closed cleanly with its receiver's backend killed")
	}
	var se *sqlerr.Error
	if !strings.Contains(err.Error(), "exchange to backend "+addr) || !strings.Contains(err.Error(), "unreachable") || !errors.As(err, &se) || !rpc.IsPeerFailure(err) {
		t.Errorf("push to a killed backend: %v (%T), want a declared error naming %s unreachable", err, err, addr)
	}
}
