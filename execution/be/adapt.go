package be

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/dorisgo/dorisgo/execution/op/exchange"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// adaptBoard holds a backend's adaptive join slots by query and exchange.
type adaptBoard map[string]map[fragment.NodeID]*adaptSlot

// adaptSlot is one adaptive join exchange on this backend: what its build
// senders here measured, and the mode the coordinator settled. Slots live
// apart from queryState: a decision may reach a backend before the
// query's probe instances there have registered, and must not make the
// query look registered (inbox).
type adaptSlot struct {
	reports map[int]rpc.AdaptReport
	mode    fragment.AdaptMode
	skew    []uint64
	changed chan struct{} // closed and replaced on every change
}

// adaptSlotLocked returns the slot of exchange x of query q (b.mu held).
func (b *Backend) adaptSlotLocked(q string, x fragment.NodeID) *adaptSlot {
	if b.adapt == nil {
		b.adapt = adaptBoard{}
	}
	m := b.adapt[q]
	if m == nil {
		m = map[fragment.NodeID]*adaptSlot{}
		b.adapt[q] = m
	}
	s := m[x]
	if s == nil {
		s = &adaptSlot{reports: map[int]rpc.AdaptReport{}, changed: make(chan struct{})}
		m[x] = s
	}
	return s
}

func (s *adaptSlot) signal() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// adaptAction serves the coordinator's calls settling adaptive joins.
func (b *Backend) adaptAction(ctx context.Context, typ string, body []byte) (any, bool, error) {
	switch typ {
	case rpc.ActAdaptWait:
		var r rpc.AdaptWaitReq
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, true, err
		}
		rep, err := b.adaptWait(ctx, r)
		return rep, true, err
	case rpc.ActAdaptDecide:
		var r rpc.AdaptDecideReq
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, true, err
		}
		b.adaptDecide(r)
		return struct{}{}, true, nil
	}
	return nil, false, nil
}

// adaptWait returns what sender r.Sender measured (build side) or sampled
// (probe side), once it has.
func (b *Backend) adaptWait(ctx context.Context, r rpc.AdaptWaitReq) (rpc.AdaptReport, error) {
	for {
		b.mu.Lock()
		if _, ended := b.ended[r.QueryID]; ended {
			b.mu.Unlock()
			return rpc.AdaptReport{}, sqlerr.Doris.New(fmt.Sprintf("query %s ended before its adaptive join was settled", r.QueryID))
		}
		s := b.adaptSlotLocked(r.QueryID, r.Exchange)
		rep, ok := s.reports[r.Sender]
		ch := s.changed
		b.mu.Unlock()
		if ok {
			return rep, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return rpc.AdaptReport{}, ctx.Err()
		}
	}
}

// adaptDecide records the mode of an adaptive join's exchanges and wakes
// their sinks; a query that already ended here keeps nothing.
func (b *Backend) adaptDecide(r rpc.AdaptDecideReq) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ended := b.ended[r.QueryID]; ended {
		return
	}
	for _, x := range r.Exchanges {
		s := b.adaptSlotLocked(r.QueryID, x)
		s.mode, s.skew = r.Mode, r.Skew
		s.signal()
	}
}

// sinkAdapt is the adaptive part of instance in's exchange sink.
func (in *instance) sinkAdapt(a *rpc.AdaptSink) *exchange.SinkAdapt {
	b, q, x, sender := in.b, in.req.QueryID, in.req.Sink.ExchangeID, in.req.Instance
	return &exchange.SinkAdapt{Build: a.Build, MaxRows: a.MaxRows, MaxBytes: a.MaxBytes, Local: a.Local, SkewShare: a.SkewShare,
		Measured: func(rows, bytes int64, over bool, keys map[uint64]int64) {
			b.mu.Lock()
			defer b.mu.Unlock()
			s := b.adaptSlotLocked(q, x)
			s.reports[sender] = rpc.AdaptReport{Rows: rows, Bytes: bytes, Done: !over, Over: over, Keys: keys}
			s.signal()
		},
		Await: func(ctx context.Context) (fragment.AdaptMode, []uint64, error) {
			for {
				b.mu.Lock()
				s := b.adaptSlotLocked(q, x)
				mode, skew, ch := s.mode, s.skew, s.changed
				b.mu.Unlock()
				if mode != fragment.AdaptUndecided {
					return mode, skew, nil
				}
				select {
				case <-ch:
				case <-ctx.Done():
					return 0, nil, ctx.Err()
				}
			}
		}}
}
