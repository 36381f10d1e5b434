// Package be is a dorisgo backend: it owns one Pebble tablet store and
// serves the rpc protocol (Arrow Flight) for loads, transaction
// publication and fragment execution: it runs fragment instances the FE
// sends (exec.go), receives their exchange streams from peer backends into
// budgeted inboxes, and keeps outboxes the FE pulls the root's input from. Standalone mode runs several of these
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
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"

	"github.com/dorisgo/dorisgo/execution/op/join"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/sql/eval"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// Backend is one running BE.
type Backend struct {
	flight.BaseFlightServer
	store *storage.Store
	dir   string // the store's directory
	gs    *grpc.Server
	ln    net.Listener
	start time.Time
	log   *slog.Logger
	// running counts the calls in flight, so Stop/Kill close the store only
	// after every handler returned.
	running sync.WaitGroup

	mu      sync.Mutex
	queries map[string]*queryState
	// ended remembers recently finished queries (endedOrder oldest first);
	// regChanged is closed and replaced whenever an instance registers or
	// a query ends, waking the streams waiting for an inbox.
	ended      map[string]time.Time
	endedOrder []string
	regChanged chan struct{}
	// earlyStreams counts the streams waiting for their inbox now.
	earlyStreams atomic.Int64
	clients      map[string]*rpc.Client // peers this backend pushes exchange streams to
	// adapt holds the adaptive joins being settled, by query (adapt.go).
	adapt adaptBoard
	// rfilters are the global runtime filters by query (rfilter.go): apart
	// from queries, whose state an early part must not create (a query
	// with no instance registered yet would look finished to its streams).
	rfilters map[string]*join.GlobalFilters
	guard    *rpc.TokenGuard // the cluster token, checked on every call and shown to peers

	metrics *metrics
}

// Start opens the store in dir and serves on addr ("127.0.0.1:0" for any
// port) to the cluster whose token is kept in dir or, if none is yet, to
// the first caller presenting one (rpc.TokenGuard).
func Start(dir, addr string, log *slog.Logger) (*Backend, error) {
	return StartToken(dir, addr, log, "")
}

// StartToken is Start serving only callers presenting token ("" as Start).
func StartToken(dir, addr string, log *slog.Logger, token string) (*Backend, error) {
	st, err := storage.Open(dir, storage.Options{Predicates: compilePredicate})
	if err != nil {
		return nil, err
	}
	guard, err := rpc.NewTokenGuard(dir, token)
	if err != nil {
		st.Close()
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
	b := &Backend{store: st, dir: dir, ln: ln, start: time.Now(), log: log, queries: map[string]*queryState{},
		ended: map[string]time.Time{}, regChanged: make(chan struct{}), clients: map[string]*rpc.Client{},
		rfilters: map[string]*join.GlobalFilters{}}
	b.metrics = newMetrics(b)
	b.guard = guard
	os.RemoveAll(b.spillDir()) // a crash's leftovers
	b.gs = grpc.NewServer(append(rpc.ServerOptions(), guard.ServerOptions()...)...)
	flight.RegisterFlightServiceServer(b.gs, b)
	go func() {
		if err := b.gs.Serve(ln); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			log.Error("backend serve", "addr", ln.Addr().String(), "err", err)
		}
	}()
	return b, nil
}

// compilePredicate compiles the delete conditions the FE writes (sql/expr
// JSON naming the tablet's columns) for the store to evaluate.
func compilePredicate(cond []byte, cols []types.Column) (storage.Predicate, error) {
	p, err := eval.CompileRowPredicate(cond, cols)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Addr is the host:port the backend serves on.
func (b *Backend) Addr() string { return b.ln.Addr().String() }

// spillDir holds the spill files of this backend's hash joins: beside the
// store, not in Pebble's directory, and not counted as its data.
func (b *Backend) spillDir() string { return b.dir + "-spill" }

// Store exposes the tablet store (for tests and stats).
func (b *Backend) Store() *storage.Store { return b.store }

// Stop cancels every running query, stops serving once the calls in
// flight returned, and closes the store.
func (b *Backend) Stop() {
	b.cancelAll()
	done := make(chan struct{})
	go func() {
		b.gs.GracefulStop()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		b.gs.Stop()
	}
	b.finish()
}

// Kill stops the backend the way a crash would look to its peers: every
// connection is closed at once, with no goodbye to the FE.
func (b *Backend) Kill() {
	b.gs.Stop()
	b.cancelAll()
	b.finish()
}

func (b *Backend) finish() {
	b.running.Wait()
	b.mu.Lock()
	for _, c := range b.clients {
		c.Close()
	}
	b.clients = map[string]*rpc.Client{}
	b.mu.Unlock()
	b.store.Close()
}

// DoAction serves the control calls.
func (b *Backend) DoAction(a *flight.Action, stream flight.FlightService_DoActionServer) error {
	b.running.Add(1)
	defer b.running.Done()
	if a.Type == rpc.ActExecFragment {
		return b.execFragment(a.Body, stream)
	}
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
	if resp, ok, err := b.cloneAction(ctx, typ, body); ok {
		return resp, err
	}
	if resp, ok, err := b.adaptAction(ctx, typ, body); ok {
		return resp, err
	}
	switch typ {
	case rpc.ActCreateTablet:
		var r rpc.CreateTabletReq
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, err
		}
		return struct{}{}, b.store.CreateTablets(r.Tablets, r.Schema)
	case rpc.ActAlterTablet:
		var r rpc.CreateTabletReq
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, err
		}
		for _, t := range r.Tablets {
			if err := b.store.AlterTablet(t, r.Schema); err != nil {
				return nil, err
			}
		}
		return struct{}{}, nil
	case rpc.ActDropTablet:
		var r rpc.DropTabletReq
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, err
		}
		return struct{}{}, b.store.DropTablets(r.Tablets)
	case rpc.ActWriteDelete:
		var r rpc.WriteDeleteReq
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, err
		}
		if err := b.store.WriteDeletes(r.Txn, r.Tablets, r.Cond); err != nil {
			return nil, err
		}
		st, err := b.store.Prepare(r.Txn)
		if err != nil {
			return nil, err
		}
		return rpc.PrepareResp{Stats: st}, nil
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
		total, avail := diskCapacity(b.dir)
		return rpc.HeartbeatResp{StartTime: b.start.UnixMilli(), Tablets: len(b.store.Tablets()),
			DataUsed: b.store.DiskUsage(), DiskTotal: total, DiskAvail: avail}, nil
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
	case rpc.ActColumnStats:
		var r rpc.ColumnStatsReq
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, err
		}
		return b.columnStats(ctx, r)
	case rpc.ActCancel:
		var r rpc.CancelReq
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, err
		}
		b.cancelQuery(r.QueryID)
		return struct{}{}, nil
	case rpc.ActRuntimeFilter:
		return b.runtimeFilterAction(body)
	case rpc.ActQueryStatus:
		var r rpc.QueryStatusReq
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, err
		}
		return b.queryStatus(r.QueryID), nil
	}
	return nil, sqlerr.Assertf("unknown backend action %q", typ)
}

// DoPut receives a load stream (batches tagged with their tablet id) or
// an exchange stream (batches for one receiver instance).
func (b *Backend) DoPut(stream flight.FlightService_DoPutServer) error {
	b.running.Add(1)
	defer b.running.Done()
	r, err := flight.NewRecordReader(stream)
	if err != nil {
		return rpc.ToStatus(err)
	}
	defer r.Release()
	var cmd rpc.PutCmd
	if d := r.LatestFlightDescriptor(); d == nil || json.Unmarshal(d.Cmd, &cmd) != nil {
		return rpc.ToStatus(sqlerr.Assertf("put stream without a descriptor"))
	}
	if cmd.Exchange != nil {
		return b.receive(stream.Context(), r, *cmd.Exchange)
	}
	for r.Next() {
		tablet, err := strconv.ParseInt(string(r.LatestAppMetadata()), 10, 64)
		if err != nil {
			return rpc.ToStatus(sqlerr.Assertf("load batch without a tablet id"))
		}
		if cmd.Partial != nil {
			err = b.store.WritePartial(cmd.Txn, storage.TabletID(tablet), r.Record(), *cmd.Partial)
		} else {
			err = b.store.Write(cmd.Txn, storage.TabletID(tablet), r.Record())
		}
		if err != nil {
			return rpc.ToStatus(err)
		}
	}
	if err := r.Err(); err != nil && !errors.Is(err, io.EOF) {
		return rpc.ToStatus(err)
	}
	return nil
}

// DoGet streams a sender instance's outbox to the FE.
func (b *Backend) DoGet(t *flight.Ticket, stream flight.FlightService_DoGetServer) error {
	b.running.Add(1)
	defer b.running.Done()
	var tk rpc.OutboxTicket
	if err := json.Unmarshal(t.Ticket, &tk); err != nil {
		return rpc.ToStatus(err)
	}
	if tk.Clone != nil {
		return b.serveClone(stream.Context(), *tk.Clone, stream)
	}
	return b.serveOutbox(stream.Context(), tk.Stream, stream)
}
