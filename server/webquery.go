package server

import (
	"context"
	"time"

	"github.com/dorisgo/dorisgo/execution/coord"
	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/planner/physical"
)

// planRun is a running query's plan and its root, whose counters the web
// UI's query page polls (coord.Query.Profile: fragment 0's operators and
// receiving exchanges live, the backends' instances as they report).
type planRun struct {
	graph *physical.Graph
	root  interface{ Profile() *coord.Profile }
}

func (r *planRun) profile() *coord.Profile { return r.root.Profile() }

// live is what the query did so far, the backends' running instances
// included when the root can ask them (coord.Query.LiveProfile).
func (r *planRun) live(ctx context.Context) *coord.Profile {
	if l, ok := r.root.(interface {
		LiveProfile(context.Context) *coord.Profile
	}); ok {
		ctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		return l.LiveProfile(ctx)
	}
	return r.profile()
}

// trackRun makes the running statement's plan visible to the web UI until
// it finishes (its profile keeps the last counters).
func (s *Session) trackRun(p *planned, root op.Operator) {
	q, ok := root.(interface{ Profile() *coord.Profile })
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stmtRes != nil {
		s.stmtRes.run.Store(&planRun{graph: p.dist.Graph(), root: q})
	}
}

// reported is a finished run's counters.
type reported struct{ p *coord.Profile }

func (r reported) Profile() *coord.Profile { return r.p }

// keepLoadRun keeps a finished table sink statement's plan (INSERT …
// SELECT, UPDATE) and what its instances reported, for the query page.
func (s *Session) keepLoadRun(d *physical.Distributed, sr *sinkResult) {
	if sr.prof == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stmtRes != nil {
		s.stmtRes.run.Store(&planRun{graph: d.Graph(), root: reported{sr.prof}})
	}
}
