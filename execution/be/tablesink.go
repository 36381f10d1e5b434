package be

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/execution/op/scan"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// runTableSink runs the instance's OLAP TABLE SINK: rows go, per tablet,
// to a load stream to each replica's backend (this one's included), all
// under the transaction the FE began. The streams are closed, and so
// acknowledged, before the instance reports; on an error they are dropped
// and the FE's abort discards what reached the backends.
func (in *instance) runTableSink(ctx context.Context, root op.Operator) (scan.TableSinkStats, error) {
	req := in.req
	if req.Sink.Table == nil || req.Sink.Txn == 0 {
		return scan.TableSinkStats{}, sqlerr.Assertf("table sink of fragment %d without a target or transaction", req.Fragment)
	}
	w := &replicaWriter{in: in, txn: req.Sink.Txn, schema: types.ArrowSchema(req.Sink.Table.Columns),
		addrs: req.Sink.Replicas, streams: map[fragment.BackendID]loadStream{}, partial: req.Sink.Table.Partial}
	sink, err := scan.NewTableSink(in.env, root, req.Sink.Table, req.Root.Output, w)
	if err != nil {
		return scan.TableSinkStats{}, err
	}
	in.sink.Store(sink)
	if p := req.Sink.Table.Partial; p != nil {
		ctx = rpc.WithPartialUpdate(ctx, p) // the load streams' writes fill from existing rows
	}
	closed := false
	defer func() {
		if !closed { // a panic out of the sink: stop the streams' writers too
			w.abort()
		}
	}()
	if err := sink.Run(ctx); err != nil {
		closed = true
		w.abort()
		return scan.TableSinkStats{}, err
	}
	closed = true
	w.close()
	st := sink.Stats()
	st.Failed = w.failures()
	return st, nil
}

// replicaWriter keeps one load stream per replica backend. A backend whose
// stream fails is written no more and reported: the coordinator commits
// when a majority of every tablet's replicas got the rows.
type replicaWriter struct {
	in      *instance
	txn     storage.TxnID
	schema  *arrow.Schema
	addrs   map[fragment.BackendID]string
	partial *storage.PartialUpdate // the sink's partial column update, if any
	mu      sync.Mutex
	streams map[fragment.BackendID]loadStream
	failed  map[fragment.BackendID]string
}

var _ scan.TabletWriter = (*replicaWriter)(nil)

func (w *replicaWriter) Write(ctx context.Context, be fragment.BackendID, tablet storage.TabletID, rec arrow.Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	w.mu.Lock()
	s, gone := w.streams[be], w.failed[be] != ""
	w.mu.Unlock()
	if gone {
		return nil
	}
	if s == nil {
		addr, ok := w.addrs[be]
		if !ok {
			w.fail(be, fmt.Sprintf("backend %d is not alive: cannot write its replicas", be))
			return nil
		}
		if addr == w.in.b.Addr() {
			// This backend's own replica: straight into its store.
			s = newLocalLoad(w.in.b.store, w.txn, w.partial)
		} else {
			cl, err := w.in.b.peer(addr)
			var l *rpc.Loader
			if err == nil {
				l, err = cl.Load(ctx, w.txn, w.schema)
			}
			if err != nil {
				w.fail(be, fmt.Sprintf("load stream to backend %s: %v", addr, rpc.Cause(err)))
				return nil
			}
			s = l
		}
		w.mu.Lock()
		w.streams[be] = s
		w.mu.Unlock()
	}
	if err := s.Write(tablet, rec); err != nil {
		w.fail(be, fmt.Sprintf("writing tablet %d on backend %s: %v", tablet, w.addrs[be], rpc.Cause(err)))
	}
	return nil
}

// fail drops backend be's stream and records why.
func (w *replicaWriter) fail(be fragment.BackendID, msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.failed == nil {
		w.failed = map[fragment.BackendID]string{}
	}
	if w.failed[be] != "" {
		return
	}
	w.failed[be] = msg
	if s := w.streams[be]; s != nil {
		s.Abort()
		delete(w.streams, be)
	}
}

// close finishes every stream and waits for each backend's
// acknowledgement; a stream that fails to close fails its backend.
func (w *replicaWriter) close() {
	w.mu.Lock()
	streams := maps.Clone(w.streams)
	w.mu.Unlock()
	for be, s := range streams {
		if err := s.Close(); err != nil {
			w.fail(be, fmt.Sprintf("load stream to backend %s: %v", w.addrs[be], rpc.Cause(err)))
		}
	}
}

func (w *replicaWriter) failures() []scan.SinkFailure {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []scan.SinkFailure
	for be, msg := range w.failed {
		out = append(out, scan.SinkFailure{Backend: be, Error: msg})
	}
	slices.SortFunc(out, func(a, b scan.SinkFailure) int { return int(a.Backend - b.Backend) })
	return out
}

func (w *replicaWriter) abort() {
	for _, s := range w.streams {
		s.Abort()
	}
}
