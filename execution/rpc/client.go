package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"

	"github.com/dorisgo/dorisgo/storage"
)

// MaxMsgSize bounds one gRPC message (one IPC batch).
const MaxMsgSize = 256 << 20

// Transport settings shared by clients and servers.
const (
	KeepaliveTime    = time.Second
	KeepaliveTimeout = 2 * time.Second
	StreamWindow     = 256 << 10
	ConnWindow       = 4 << 20
	// ConnectTimeout bounds one connection attempt (gRPC's default is
	// 20 s): a peer behind a cut link fails calls as unreachable within it
	// instead of holding them, and the next attempt follows the backoff.
	ConnectTimeout = 3 * time.Second
)

// ServerOptions are the gRPC options every rpc server (backend) uses.
func ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{grpc.MaxRecvMsgSize(MaxMsgSize), grpc.MaxSendMsgSize(MaxMsgSize),
		grpc.InitialWindowSize(StreamWindow), grpc.InitialConnWindowSize(ConnWindow),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: KeepaliveTime / 2, PermitWithoutStream: true}),
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: KeepaliveTime, Timeout: KeepaliveTimeout}),
		// Streams run on a pool of goroutines that keep their grown stacks:
		// a goroutine per stream starts at 8 KiB and grows (copying) to the
		// depth of a fragment's operators, a tenth of a small query's CPU.
		// When every worker is busy (long exchanges) grpc starts a goroutine.
		grpc.NumStreamWorkers(streamWorkers)}
}

// streamWorkers is the server's pool of stream goroutines.
const streamWorkers = 16

// Client talks to one backend.
type Client struct {
	Addr string
	fc   flight.Client
	// mu orders starting calls before Close: arrow-go's Close clears the
	// client a call reads, so a call racing a Close (a load aborting while
	// the server shuts down) would dereference nil. closed makes those
	// calls fail cleanly instead.
	mu     sync.RWMutex
	closed bool
}

// errClosed is a call on a closed connection.
func (c *Client) errClosed() error {
	return fmt.Errorf("the connection to backend %s is closed", c.Addr)
}

// start runs open (which begins a call on the flight client) unless the
// connection is closed.
func start[T any](c *Client, open func(flight.Client) (T, error)) (T, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.closed {
		var zero T
		return zero, c.errClosed()
	}
	return open(c.fc)
}

// Dial connects to a backend at addr (host:port), presenting the cluster
// token (token.go; "" sends none). gRPC connects lazily, so a dead backend
// shows up as call errors, not a dial error.
func Dial(addr, token string) (*Client, error) {
	opts := []grpc.DialOption{}
	if token != "" {
		opts = append(opts, grpc.WithPerRPCCredentials(tokenCreds(token)))
	}
	fc, err := flight.NewClientWithMiddleware(addr, nil, nil, append(opts,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxMsgSize), grpc.MaxCallSendMsgSize(MaxMsgSize)),
		// Keepalive pings find a backend that stopped answering (hung,
		// partitioned) while a long call is open on it; a killed one fails
		// at once through the closed connection.
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: KeepaliveTime, Timeout: KeepaliveTimeout, PermitWithoutStream: true}),
		// Reconnect within a second of a link coming back: with gRPC's
		// default backoff (up to 2 min) a backend's connection to a peer
		// cut off for a while stayed failing long after the FE, whose
		// heartbeats found the peer back, scheduled queries on it again.
		grpc.WithConnectParams(grpc.ConnectParams{MinConnectTimeout: ConnectTimeout,
			Backoff: backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second}}),
		// Fixed windows (no BDP growth) keep what gRPC itself buffers per
		// stream small next to the exchanges' byte budgets.
		grpc.WithInitialWindowSize(StreamWindow), grpc.WithInitialConnWindowSize(ConnWindow))...)
	if err != nil {
		return nil, err
	}
	return &Client{Addr: addr, fc: fc}, nil
}

// Close closes the connection.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	return c.fc.Close()
}

// Do runs one action with a JSON request and decodes the JSON response into resp (may be nil).
func (c *Client) Do(ctx context.Context, action string, req, resp any) error {
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	stream, err := start(c, func(fc flight.Client) (flight.FlightService_DoActionClient, error) {
		return fc.DoAction(ctx, &flight.Action{Type: action, Body: body})
	})
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

// Loader streams one transaction's rows to one backend. Writes are queued
// and sent by a goroutine of the Loader, so that a caller feeding several
// backends does not wait for each in turn; a send error is returned by a
// later Write or by Close.
type Loader struct {
	stream flight.FlightService_DoPutClient
	w      *flight.Writer
	schema *arrow.Schema
	cancel context.CancelFunc
	queue  chan loadItem
	failed chan struct{} // closed on the first send error (err)
	sent   chan struct{} // closed when the sender has stopped
	err    error
}

type loadItem struct {
	tablet storage.TabletID
	rec    arrow.Record
}

// loadQueue is how many batches a Loader holds before Write blocks.
const loadQueue = 8

// Load opens a load stream for txn; every batch must have the given schema.
func (c *Client) Load(ctx context.Context, txn storage.TxnID, schema *arrow.Schema) (*Loader, error) {
	ctx, cancel := context.WithCancel(ctx)
	stream, err := start(c, func(fc flight.Client) (flight.FlightService_DoPutClient, error) { return fc.DoPut(ctx) })
	if err != nil {
		cancel()
		return nil, FromStatus(err)
	}
	cmd, _ := json.Marshal(PutCmd{Txn: txn, Partial: partialUpdate(ctx)})
	w := flight.NewRecordWriter(stream, ipc.WithSchema(schema), ipc.WithAllocator(memory.DefaultAllocator))
	w.SetFlightDescriptor(&flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: cmd})
	l := &Loader{stream: stream, w: w, schema: schema, cancel: cancel,
		queue: make(chan loadItem, loadQueue), failed: make(chan struct{}), sent: make(chan struct{})}
	go l.send(ctx)
	return l, nil
}

func (l *Loader) send(ctx context.Context) {
	defer close(l.sent)
	var meta []byte
	for {
		select {
		case it, ok := <-l.queue:
			if !ok {
				return
			}
			if l.err == nil {
				meta = strconv.AppendInt(meta[:0], int64(it.tablet), 10)
				if err := l.w.WriteWithAppMetadata(it.rec, meta); err != nil {
					if errors.Is(err, io.EOF) {
						// The backend ended the stream: its status (a
						// refusal, its error) comes with the next Recv.
						if _, rerr := l.stream.Recv(); rerr != nil && rerr != io.EOF {
							err = rerr
						}
					}
					l.err = FromStatus(err)
					close(l.failed)
				}
			}
			it.rec.Release()
		case <-ctx.Done():
			if l.err == nil {
				l.err = FromStatus(ctx.Err())
				close(l.failed)
			}
			return
		}
	}
}

// Write queues rows destined for one tablet (rec is retained until sent).
func (l *Loader) Write(tablet storage.TabletID, rec arrow.Record) error {
	rec.Retain()
	select {
	case l.queue <- loadItem{tablet, rec}:
		return nil
	case <-l.failed:
		rec.Release()
		return l.err
	}
}

// Close sends what is queued, finishes the stream and waits for the
// backend to acknowledge every batch.
func (l *Loader) Close() error {
	defer l.cancel()
	close(l.queue)
	<-l.sent
	if l.err != nil {
		return l.err
	}
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

// Abort drops the stream (the backend discards nothing by itself: the
// transaction's abort does).
func (l *Loader) Abort() {
	l.cancel()
	<-l.sent
}

// String names the client for errors.
func (c *Client) String() string { return fmt.Sprintf("backend %s", c.Addr) }
