package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/dorisgo/dorisgo/execution/op/exchange"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// Exec is the instances one exec_fragment call runs on a backend.
type Exec struct {
	stream flight.FlightService_DoActionClient
	cancel context.CancelFunc
	left   int // reports still to come
}

// ExecFragment starts one instance; see ExecFragments.
func (c *Client) ExecFragment(ctx context.Context, req *ExecFragmentReq) (*Exec, error) {
	return c.ExecFragments(ctx, []*ExecFragmentReq{req})
}

// ExecFragments starts instances on this backend in one call (a query's
// instances there, as Doris sends one request per backend) and returns
// once the backend reports them all started (their inboxes accept
// streams). Cancelling ctx or calling Cancel cancels them.
func (c *Client) ExecFragments(ctx context.Context, reqs []*ExecFragmentReq) (*Exec, error) {
	body, err := MarshalExecBatch(reqs)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	stream, err := start(c, func(fc flight.Client) (flight.FlightService_DoActionClient, error) {
		return fc.DoAction(ctx, &flight.Action{Type: ActExecFragment, Body: body})
	})
	if err != nil {
		cancel()
		return nil, FromStatus(err)
	}
	if _, err := stream.Recv(); err != nil {
		cancel()
		if err == io.EOF {
			err = errors.New("instance ended before it started")
		}
		return nil, FromStatus(err)
	}
	return &Exec{stream: stream, cancel: cancel, left: len(reqs)}, nil
}

// Next blocks until one more instance ends and returns its report; io.EOF
// once every instance reported. An instance's failure is the call's error
// (the backend stopped the others).
func (e *Exec) Next() (*InstanceReport, error) {
	if e.left == 0 {
		e.cancel()
		return nil, io.EOF
	}
	r, err := e.stream.Recv()
	if err != nil {
		e.cancel()
		if err == io.EOF {
			err = errors.New("instance ended without a report")
		}
		return nil, FromStatus(err)
	}
	e.left--
	if e.left == 0 {
		e.cancel()
	}
	return UnmarshalReport(r.Body)
}

// Wait blocks until the (first) instance ends and returns its report.
func (e *Exec) Wait() (*InstanceReport, error) {
	defer e.cancel()
	return e.Next()
}

// Cancel cancels the instances (their backend sees the call cancelled).
func (e *Exec) Cancel() { e.cancel() }

// countingStream counts the bytes put on the wire and remembers a send error.
type countingStream struct {
	flight.FlightService_DoPutClient
	bytes atomic.Int64 // read live by query_status while the sender writes
}

func (s *countingStream) Send(fd *flight.FlightData) error {
	s.bytes.Add(int64(len(fd.DataHeader) + len(fd.DataBody)))
	return s.FlightService_DoPutClient.Send(fd)
}

// Pusher is the sending end of one exchange stream (an exchange.Outlet).
type Pusher struct {
	addr   string // the receiving backend's, named in a transport failure
	cs     *countingStream
	w      *flight.Writer
	schema *arrow.Schema
	cancel context.CancelFunc
	closed bool // the receiver stopped reading
}

var _ exchange.Outlet = (*Pusher)(nil)

// Push opens the exchange stream id to this backend.
func (c *Client) Push(ctx context.Context, id StreamID, schema *arrow.Schema) (*Pusher, error) {
	ctx, cancel := context.WithCancel(ctx)
	stream, err := start(c, func(fc flight.Client) (flight.FlightService_DoPutClient, error) { return fc.DoPut(ctx) })
	if err != nil {
		cancel()
		return nil, FromStatus(err)
	}
	cmd, _ := json.Marshal(PutCmd{Exchange: &id})
	cs := &countingStream{FlightService_DoPutClient: stream}
	w := flight.NewRecordWriter(cs, ipc.WithSchema(schema), ipc.WithAllocator(memory.DefaultAllocator))
	w.SetFlightDescriptor(&flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: cmd})
	return &Pusher{addr: c.Addr, cs: cs, w: w, schema: schema, cancel: cancel}, nil
}

// WireBytes is what went on the wire so far.
func (p *Pusher) WireBytes() int64 { return p.cs.bytes.Load() }

// Send writes one batch; exchange.ErrReceiverClosed once the receiver stopped reading.
func (p *Pusher) Send(ctx context.Context, rec arrow.Record) error {
	if p.closed {
		return exchange.ErrReceiverClosed
	}
	if !rec.Schema().Equal(p.schema) {
		rec = array.NewRecord(p.schema, rec.Columns(), rec.NumRows())
		defer rec.Release()
	}
	if err := p.w.Write(rec); err != nil {
		return p.ended(err)
	}
	return nil
}

// ended interprets a failed send: the server ended the stream, with OK
// (receiver closed) or with an error.
func (p *Pusher) ended(err error) error {
	if !errors.Is(err, io.EOF) {
		return p.peerErr(err)
	}
	for {
		_, rerr := p.cs.Recv()
		if rerr == io.EOF {
			p.closed = true
			return exchange.ErrReceiverClosed
		}
		if rerr != nil {
			return p.peerErr(rerr)
		}
	}
}

// peerErr is a failed stream's error. A transport failure names the
// receiving backend: the sender's backend reports it to the FE, which
// would otherwise blame the sender (a healthy backend whose link to the
// receiver broke, or whose connection to it is still reconnecting after
// the link came back).
func (p *Pusher) peerErr(err error) error {
	if status.Code(err) == codes.Unavailable {
		return sqlerr.Doris.New(fmt.Sprintf("%s%s: %s", PeerFailure, p.addr, Cause(err)))
	}
	return FromStatus(err)
}

// PeerFailure starts the message of an exchange stream that lost its
// receiving backend; the FE adds the sending backend (IsPeerFailure), so
// the error names both ends of the link.
const PeerFailure = "exchange to backend "

// PeerMessage tidies a PeerFailure's text: a gRPC transport error the
// sending backend wrapped as it came ("rpc error: code = Unavailable desc
// = …") reads as the condition.
func PeerMessage(msg string) string {
	addr, cause, ok := strings.Cut(strings.TrimPrefix(msg, PeerFailure), ": ")
	if !ok || !strings.HasPrefix(msg, PeerFailure) || !strings.Contains(cause, "code = Unavailable") {
		return msg
	}
	out := PeerFailure + addr + ": unreachable"
	for _, why := range []string{"no route to host", "connection refused", "i/o timeout", "connection reset"} {
		if strings.Contains(cause, why) {
			return out + " (" + why + ")"
		}
	}
	return out + " (connection failed or closed)"
}

// IsPeerFailure reports whether err is a PeerFailure not yet attributed.
func IsPeerFailure(err error) bool {
	var se *sqlerr.Error
	return errors.As(err, &se) && strings.HasPrefix(se.Message, PeerFailure)
}

// Close ends the stream and waits for the receiver to take all of it.
func (p *Pusher) Close(ctx context.Context) error {
	defer p.cancel()
	if p.closed {
		return nil
	}
	if err := p.w.Close(); err != nil {
		if e := p.ended(err); e != exchange.ErrReceiverClosed {
			return e
		}
		return nil
	}
	if err := p.cs.CloseSend(); err != nil {
		return p.peerErr(err)
	}
	for {
		_, err := p.cs.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return p.peerErr(err)
		}
	}
}

// Abort cancels the stream (the receiver sees it broken).
func (p *Pusher) Abort() { p.cancel() }

// Stream reads a sender instance's outbox (the FE's side of a pull exchange).
type Stream struct {
	r      *flight.Reader
	cancel context.CancelFunc
}

// Pull opens the outbox of stream id on this backend.
func (c *Client) Pull(ctx context.Context, id StreamID) (*Stream, error) {
	r, cancel, err := c.doGet(ctx, OutboxTicket{Stream: id})
	if err != nil {
		return nil, err
	}
	return &Stream{r: r, cancel: cancel}, nil
}

// doGet opens the record stream a ticket names (an outbox, a clone's
// rows); cancel ends it.
func (c *Client) doGet(ctx context.Context, t OutboxTicket) (*flight.Reader, context.CancelFunc, error) {
	body, err := json.Marshal(t)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	s, err := start(c, func(fc flight.Client) (flight.FlightService_DoGetClient, error) {
		return fc.DoGet(ctx, &flight.Ticket{Ticket: body})
	})
	if err != nil {
		cancel()
		return nil, nil, FromStatus(err)
	}
	r, err := flight.NewRecordReader(s)
	if err != nil {
		cancel()
		return nil, nil, FromStatus(err)
	}
	return r, cancel, nil
}

// Next returns the next batch (caller releases) or io.EOF.
func (s *Stream) Next() (arrow.Record, error) {
	if s.r.Next() {
		rec := s.r.Record()
		rec.Retain()
		return rec, nil
	}
	if err := s.r.Err(); err != nil && err != io.EOF {
		return nil, FromStatus(err)
	}
	return nil, io.EOF
}

// Close stops the stream.
func (s *Stream) Close() {
	s.cancel()
	s.r.Release()
}
