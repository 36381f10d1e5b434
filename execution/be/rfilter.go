package be

import (
	"context"
	"encoding/json"
	"time"

	"github.com/dorisgo/dorisgo/execution/op/join"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/planner/fragment"
)

// Global runtime filters (planner/fragment.AssignRuntimeFilters): a join
// instance sends its part of each to the backends running the target
// scan's instances, which merge the parts of all the join's instances
// (join.GlobalFilters) for every instance of the query they run. A part
// may come before any instance of the query registered here (the FE starts
// a join's fragment before the fragments feeding it) and after the last
// one ended (then it is dropped); the query's filters go when it ends here.

// globalFilters is query q's global filters here; nil once q ended.
func (b *Backend) globalFilters(q string) *join.GlobalFilters {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ended := b.ended[q]; ended {
		return nil
	}
	g := b.rfilters[q]
	if g == nil {
		g = join.NewGlobalFilters()
		b.rfilters[q] = g
	}
	return g
}

// addRuntimeFilter merges a part sent by a join instance.
func (b *Backend) addRuntimeFilter(r rpc.RuntimeFilterReq) error {
	g := b.globalFilters(r.QueryID)
	if g == nil {
		return nil
	}
	return g.Add(r.ID, r.Parts, r.Filter)
}

func (b *Backend) runtimeFilterAction(body []byte) (any, error) {
	var r rpc.RuntimeFilterReq
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, err
	}
	return struct{}{}, b.addRuntimeFilter(r)
}

// rfSendTimeout bounds one part's delivery: a lost part only means the
// target scans read unfiltered once their wait is over.
const rfSendTimeout = 30 * time.Second

// runtimeFilters is the runtime filter set of an instance: its joins' global
// parts go where the FE said, its scans read the query's global filters
// here.
func (in *instance) runtimeFilters() *join.RuntimeFilters {
	req := in.req
	rfs := join.NewRuntimeFilters()
	rfs.Scale = req.Instances
	global := false
	fragment.Walk(req.Root, func(n *fragment.Node) {
		for _, t := range n.RFTarget {
			global = global || t.Global
		}
	})
	if global {
		rfs.Global = in.b.globalFilters(req.QueryID)
		rfs.Wait = time.Duration(req.RFWaitMs) * time.Millisecond
	}
	if len(req.RFSend) > 0 {
		rfs.Send = func(id int, f *join.RuntimeFilter) {
			d, ok := req.RFSend[id]
			if !ok {
				return
			}
			part := rpc.RuntimeFilterReq{QueryID: req.QueryID, ID: id, Parts: d.Parts, Filter: f.Marshal()}
			if d.Local {
				if err := in.b.addRuntimeFilter(part); err != nil {
					in.b.log.Warn("runtime filter part refused", "query_id", req.QueryID, "filter", id, "err", err)
				}
			}
			for _, addr := range d.Addrs {
				go in.b.sendRuntimeFilter(addr, part)
			}
		}
	}
	return rfs
}

func (b *Backend) sendRuntimeFilter(addr string, part rpc.RuntimeFilterReq) {
	cl, err := b.peer(addr)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), rfSendTimeout)
		err = cl.Do(ctx, rpc.ActRuntimeFilter, part, nil)
		cancel()
	}
	if err != nil {
		b.log.Warn("runtime filter part not delivered", "query_id", part.QueryID, "filter", part.ID, "peer", addr, "err", err)
	}
}
