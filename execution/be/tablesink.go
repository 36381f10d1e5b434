package be

import (
	"context"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dorisgo/dorisgo/execution/op"
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
func (in *instance) runTableSink(ctx context.Context, root op.Operator) (op.TableSinkStats, error) {
	req := in.req
	if req.Sink.Table == nil || req.Sink.Txn == 0 {
		return op.TableSinkStats{}, sqlerr.Assertf("table sink of fragment %d without a target or transaction", req.Fragment)
	}
	w := &replicaWriter{in: in, txn: req.Sink.Txn, schema: types.ArrowSchema(req.Sink.Table.Columns),
		addrs: req.Sink.Replicas, streams: map[fragment.BackendID]*rpc.Loader{}}
	sink, err := op.NewTableSink(in.env, root, req.Sink.Table, req.Root.Output, w)
	if err != nil {
		return op.TableSinkStats{}, err
	}
	if err := sink.Run(ctx); err != nil {
		w.abort()
		return op.TableSinkStats{}, err
	}
	if err := w.close(); err != nil {
		return op.TableSinkStats{}, err
	}
	return sink.Stats(), nil
}

// replicaWriter keeps one load stream per replica backend.
type replicaWriter struct {
	in      *instance
	txn     storage.TxnID
	schema  *arrow.Schema
	addrs   map[fragment.BackendID]string
	mu      sync.Mutex
	streams map[fragment.BackendID]*rpc.Loader
}

var _ op.TabletWriter = (*replicaWriter)(nil)

func (w *replicaWriter) Write(ctx context.Context, be fragment.BackendID, tablet storage.TabletID, rec arrow.Record) error {
	w.mu.Lock()
	s := w.streams[be]
	w.mu.Unlock()
	if s == nil {
		addr, ok := w.addrs[be]
		if !ok {
			return sqlerr.Doris.New(fmt.Sprintf("backend %d is not alive: cannot write its replicas", be))
		}
		cl, err := w.in.b.peer(addr)
		if err != nil {
			return err
		}
		if s, err = cl.Load(ctx, w.txn, w.schema); err != nil {
			return sqlerr.Doris.New(fmt.Sprintf("load stream to backend %s: %v", addr, err))
		}
		w.mu.Lock()
		w.streams[be] = s
		w.mu.Unlock()
	}
	if err := s.Write(tablet, rec); err != nil {
		return sqlerr.Doris.New(fmt.Sprintf("writing tablet %d on backend %s: %v", tablet, w.addrs[be], err))
	}
	return nil
}

// close finishes every stream and waits for each backend's acknowledgement.
func (w *replicaWriter) close() error {
	var first error
	for be, s := range w.streams {
		if err := s.Close(); err != nil && first == nil {
			first = sqlerr.Doris.New(fmt.Sprintf("load stream to backend %s: %v", w.addrs[be], err))
		}
	}
	return first
}

func (w *replicaWriter) abort() {
	for _, s := range w.streams {
		s.Abort()
	}
}
