package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/dorisgo/dorisgo/storage"
)

// MaxMsgSize bounds one gRPC message (one IPC batch).
const MaxMsgSize = 256 << 20

// Client talks to one backend.
type Client struct {
	Addr string
	fc   flight.Client
}

// Dial connects to a backend at addr (host:port). gRPC connects lazily, so
// a dead backend shows up as call errors, not a dial error.
func Dial(addr string) (*Client, error) {
	fc, err := flight.NewClientWithMiddleware(addr, nil, nil,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxMsgSize), grpc.MaxCallSendMsgSize(MaxMsgSize)))
	if err != nil {
		return nil, err
	}
	return &Client{Addr: addr, fc: fc}, nil
}

// Close closes the connection.
func (c *Client) Close() error { return c.fc.Close() }

// Do runs one action with a JSON request and decodes the JSON response into resp (may be nil).
func (c *Client) Do(ctx context.Context, action string, req, resp any) error {
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	stream, err := c.fc.DoAction(ctx, &flight.Action{Type: action, Body: body})
	if err != nil {
		return FromStatus(err)
	}
	var last []byte
	for {
		r, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			return FromStatus(err)
		}
		last = r.Body
	}
	if resp != nil && last != nil {
		return json.Unmarshal(last, resp)
	}
	return nil
}

// Loader streams one transaction's rows to one backend.
type Loader struct {
	stream flight.FlightService_DoPutClient
	w      *flight.Writer
	schema *arrow.Schema
}

// Load opens a load stream for txn; every batch must have the given schema.
func (c *Client) Load(ctx context.Context, txn storage.TxnID, schema *arrow.Schema) (*Loader, error) {
	stream, err := c.fc.DoPut(ctx)
	if err != nil {
		return nil, FromStatus(err)
	}
	cmd, _ := json.Marshal(LoadCmd{Txn: txn})
	w := flight.NewRecordWriter(stream, ipc.WithSchema(schema), ipc.WithAllocator(memory.DefaultAllocator))
	w.SetFlightDescriptor(&flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: cmd})
	return &Loader{stream: stream, w: w, schema: schema}, nil
}

// Write sends rows destined for one tablet.
func (l *Loader) Write(tablet storage.TabletID, rec arrow.Record) error {
	if err := l.w.WriteWithAppMetadata(rec, []byte(strconv.FormatInt(int64(tablet), 10))); err != nil {
		return FromStatus(err)
	}
	return nil
}

// Close finishes the stream and waits for the backend to acknowledge every batch.
func (l *Loader) Close() error {
	if err := l.w.Close(); err != nil {
		return FromStatus(err)
	}
	if err := l.stream.CloseSend(); err != nil {
		return FromStatus(err)
	}
	for {
		_, err := l.stream.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return FromStatus(err)
		}
	}
}

// Stream is the output of a fragment instance running on a backend.
type Stream struct {
	r      *flight.Reader
	cancel context.CancelFunc
}

// RunFragment starts a fragment instance and returns its output stream.
func (c *Client) RunFragment(ctx context.Context, t *FragmentTicket) (*Stream, error) {
	body, err := json.Marshal(t)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	s, err := c.fc.DoGet(ctx, &flight.Ticket{Ticket: body})
	if err != nil {
		cancel()
		return nil, FromStatus(err)
	}
	r, err := flight.NewRecordReader(s)
	if err != nil {
		cancel()
		return nil, FromStatus(err)
	}
	return &Stream{r: r, cancel: cancel}, nil
}

// Schema is the stream's schema.
func (s *Stream) Schema() *arrow.Schema { return s.r.Schema() }

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

// Close stops the stream (cancelling the remote instance if still running).
func (s *Stream) Close() {
	s.cancel()
	s.r.Release()
}

// String names the client for errors.
func (c *Client) String() string { return fmt.Sprintf("backend %s", c.Addr) }
