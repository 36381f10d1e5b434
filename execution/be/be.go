// Package be is a dorisgo backend: it owns one Pebble tablet store and
// serves the rpc protocol (Arrow Flight) for loads, transaction
// publication and fragment execution. Standalone mode runs several of these
// in the FE's process, each on its own loopback port, so the FE always
// reaches its backends over real gRPC.
package be

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/storage"
)

// Backend is one running BE.
type Backend struct {
	flight.BaseFlightServer
	store *storage.Store
	srv   flight.Server
	ln    net.Listener
	start time.Time
	log   *slog.Logger

	mu      sync.Mutex
	queries map[string]map[*context.CancelFunc]struct{}
}

// Start opens the store in dir and serves on addr ("127.0.0.1:0" for any port).
func Start(dir, addr string, log *slog.Logger) (*Backend, error) {
	st, err := storage.Open(dir, storage.Options{})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		st.Close()
		return nil, err
	}
	if log == nil {
		log = slog.Default()
	}
	b := &Backend{store: st, ln: ln, start: time.Now(), log: log, queries: map[string]map[*context.CancelFunc]struct{}{}}
	b.srv = flight.NewServerWithMiddleware(nil, grpc.MaxRecvMsgSize(rpc.MaxMsgSize), grpc.MaxSendMsgSize(rpc.MaxMsgSize))
	b.srv.RegisterFlightService(b)
	b.srv.InitListener(ln)
	go func() {
		if err := b.srv.Serve(); err != nil {
			log.Error("backend serve", "addr", ln.Addr().String(), "err", err)
		}
	}()
	return b, nil
}

// Addr is the host:port the backend serves on.
func (b *Backend) Addr() string { return b.ln.Addr().String() }

// Store exposes the tablet store (for tests and stats).
func (b *Backend) Store() *storage.Store { return b.store }

// Stop stops serving and closes the store.
func (b *Backend) Stop() {
	b.mu.Lock()
	for _, cs := range b.queries {
		for c := range cs {
			(*c)()
		}
	}
	b.mu.Unlock()
	b.srv.Shutdown()
	b.store.Close()
}

// DoAction serves the control calls.
func (b *Backend) DoAction(a *flight.Action, stream flight.FlightService_DoActionServer) error {
	resp, err := b.action(stream.Context(), a.Type, a.Body)
	if err != nil {
		return rpc.ToStatus(err)
	}
	body, err := json.Marshal(resp)
	if err != nil {
		return rpc.ToStatus(err)
	}
	return stream.Send(&flight.Result{Body: body})
}

func (b *Backend) action(ctx context.Context, typ string, body []byte) (any, error) {
	switch typ {
	case rpc.ActCreateTablet:
		var r rpc.CreateTabletReq
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, err
		}
		for _, t := range r.Tablets {
			if err := b.store.CreateTablet(t, r.Schema); err != nil {
				return nil, err
			}
		}
		return struct{}{}, nil
	case rpc.ActDropTablet:
		var r rpc.DropTabletReq
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, err
		}
		for _, t := range r.Tablets {
			if err := b.store.DropTablet(t); err != nil {
				return nil, err
			}
		}
		return struct{}{}, nil
	case rpc.ActPrepare:
		var r rpc.TxnReq
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, err
		}
		st, err := b.store.Prepare(r.Txn)
		if err != nil {
			return nil, err
		}
		return rpc.PrepareResp{Stats: st}, nil
	case rpc.ActPublish:
		var r rpc.PublishReq
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, err
		}
		return struct{}{}, b.store.Publish(r.Txn, r.Versions)
	case rpc.ActAbort:
		var r rpc.TxnReq
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, err
		}
		return struct{}{}, b.store.Abort(r.Txn)
	case rpc.ActPendingTxns:
		txns, err := b.store.PendingTxns()
		return rpc.PendingResp{Txns: txns}, err
	case rpc.ActHeartbeat:
		return rpc.HeartbeatResp{StartTime: b.start.UnixMilli(), Tablets: len(b.store.Tablets())}, nil
	case rpc.ActTabletStats:
		var r rpc.TabletStatsReq
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, err
		}
		out := rpc.TabletStatsResp{Stats: map[storage.TabletID]storage.TabletStats{}}
		for t, v := range r.Versions {
			s, err := b.store.TabletStats(t, v)
			if err != nil {
				return nil, err
			}
			out.Stats[t] = s
		}
		return out, nil
	case rpc.ActCancel:
		var r rpc.CancelReq
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, err
		}
		b.mu.Lock()
		for c := range b.queries[r.QueryID] {
			(*c)()
		}
		b.mu.Unlock()
		return struct{}{}, nil
	}
	return nil, sqlerr.Assertf("unknown backend action %q", typ)
}

// DoPut receives a load stream: batches tagged with their tablet id.
func (b *Backend) DoPut(stream flight.FlightService_DoPutServer) error {
	r, err := flight.NewRecordReader(stream)
	if err != nil {
		return rpc.ToStatus(err)
	}
	defer r.Release()
	var cmd rpc.LoadCmd
	if d := r.LatestFlightDescriptor(); d == nil || json.Unmarshal(d.Cmd, &cmd) != nil {
		return rpc.ToStatus(sqlerr.Assertf("load stream without a descriptor"))
	}
	for r.Next() {
		tablet, err := strconv.ParseInt(string(r.LatestAppMetadata()), 10, 64)
		if err != nil {
			return rpc.ToStatus(sqlerr.Assertf("load batch without a tablet id"))
		}
		if err := b.store.Write(cmd.Txn, storage.TabletID(tablet), r.Record()); err != nil {
			return rpc.ToStatus(err)
		}
	}
	if err := r.Err(); err != nil && !errors.Is(err, io.EOF) {
		return rpc.ToStatus(err)
	}
	return nil
}

// DoGet runs one fragment instance and streams its output.
func (b *Backend) DoGet(t *flight.Ticket, stream flight.FlightService_DoGetServer) error {
	var tk rpc.FragmentTicket
	if err := json.Unmarshal(t.Ticket, &tk); err != nil {
		return rpc.ToStatus(err)
	}
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	b.register(tk.QueryID, &cancel)
	defer b.unregister(tk.QueryID, &cancel)

	env := &op.Env{Mem: memory.DefaultAllocator, Eval: &expr.Context{Now: time.UnixMicro(tk.NowMicro)}}
	o, err := op.Build(env, tk.Root, &op.Sources{Store: b.store, Tablets: tk.Tablets})
	if err != nil {
		return rpc.ToStatus(err)
	}
	defer o.Close()
	w := flight.NewRecordWriter(stream, ipc.WithSchema(o.Schema()))
	defer w.Close()
	err = op.Drain(ctx, o, func(rec arrow.Record) error { return w.Write(rec) })
	if err != nil {
		return rpc.ToStatus(err)
	}
	return nil
}

func (b *Backend) register(q string, c *context.CancelFunc) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.queries[q] == nil {
		b.queries[q] = map[*context.CancelFunc]struct{}{}
	}
	b.queries[q][c] = struct{}{}
}

func (b *Backend) unregister(q string, c *context.CancelFunc) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.queries[q], c)
	if len(b.queries[q]) == 0 {
		delete(b.queries, q)
	}
}
