package be

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dorisgo/dorisgo/execution/op/exchange"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// localOutlet sends to a receiver instance on this backend: batches go
// into its inbox by reference, with the same budget and backpressure as a
// stream (Inbox.Put blocks), but no IPC encoding and no bytes on the wire.
// The inbox is looked up at the first send, waiting for the receiver to
// register as a stream does (Backend.inbox).
type localOutlet struct {
	b        *Backend
	id       rpc.StreamID
	ib       *exchange.Inbox
	resolved bool
}

var _ exchange.Outlet = (*localOutlet)(nil)

func (o *localOutlet) resolve(ctx context.Context) error {
	if o.resolved {
		return nil
	}
	ib, err := o.b.inbox(ctx, o.id)
	if err != nil {
		return err
	}
	if ib != nil && (o.id.Sender < 0 || o.id.Sender >= ib.Senders()) {
		return sqlerr.Assertf("exchange %d: sender %d out of range", o.id.Exchange, o.id.Sender)
	}
	o.ib, o.resolved = ib, true
	return nil
}

// Send puts a reference to rec into the receiver's inbox.
func (o *localOutlet) Send(ctx context.Context, rec arrow.Record) error {
	if err := o.resolve(ctx); err != nil {
		return err
	}
	if o.ib == nil {
		return exchange.ErrReceiverClosed // the receiver is done
	}
	rec.Retain()
	return o.ib.Put(ctx, o.id.Sender, rec)
}

// Close marks this sender done.
func (o *localOutlet) Close(ctx context.Context) error {
	if err := o.resolve(ctx); err != nil {
		return err
	}
	if o.ib != nil {
		o.ib.Done(o.id.Sender)
	}
	return nil
}

// abort fails the receiver as a broken stream would: the sender failed.
func (o *localOutlet) abort(err error) {
	if o.ib == nil {
		// Never sent: find the inbox if it is registered, without waiting.
		o.b.mu.Lock()
		if s := o.b.queries[o.id.QueryID]; s != nil {
			o.ib = s.inboxes[inboxKey{o.id.Exchange, o.id.Receiver}]
		}
		o.b.mu.Unlock()
	}
	if o.ib != nil {
		o.ib.Fail(sqlerr.Doris.New(fmt.Sprintf("%s: sender instance %d: %v", rpc.BrokenStream, o.id.Sender, err)))
	}
}
