package coord

import (
	"sync"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/planner/fragment"
)

// AdaptOutcome is how one adaptive join ran and what decided it.
type AdaptOutcome struct {
	Join    fragment.NodeID    `json:"join"`
	Planned fragment.AdaptMode `json:"planned"`
	Ran     fragment.AdaptMode `json:"ran"`
	// BuildRows and BuildBytes are what the build instances measured
	// before the decision (all of the build side when it ran broadcast).
	BuildRows  int64 `json:"build_rows"`
	BuildBytes int64 `json:"build_bytes"`
	MaxRows    int64 `json:"max_rows"`
	MaxBytes   int64 `json:"max_bytes"`
	// Nodes is how many join instances a broadcast copy went to.
	Nodes int `json:"nodes"`
	// Skewed counts the probe keys spread over every instance (a
	// PARTITIONED join), TopShare the largest sampled key's share.
	Skewed   int     `json:"skewed,omitempty"`
	TopShare float64 `json:"top_share,omitempty"`
	// Build and Probe are the sending fragments of the join's two sides,
	// Fragment the join's.
	Build    fragment.FragmentID `json:"build_fragment"`
	Probe    fragment.FragmentID `json:"probe_fragment"`
	Fragment fragment.FragmentID `json:"fragment"`
}

// RemoteRows counts the rows fragment from sent to instances of fragment
// to on another backend than the sender's (per receiver counts and the
// backends the instances reported from).
func (p *Profile) RemoteRows(from, to fragment.FragmentID) int64 {
	at := map[int]string{}
	for _, r := range p.Instances {
		if r.Fragment == to {
			at[r.Instance] = r.Backend
		}
	}
	var n int64
	for _, r := range p.Instances {
		if r.Fragment != from {
			continue
		}
		for j, rows := range r.Sink.DestRows {
			if be, ok := at[j]; !ok || be != r.Backend {
				n += rows
			}
		}
	}
	return n
}

// adaptJoin is an adaptive join of a running query.
type adaptJoin struct {
	node               *fragment.Node
	spec               *fragment.AdaptiveJoin
	join, build, probe *fragSched
}

// findAdaptive lists the plan's adaptive joins by the ids of both their
// exchanges.
func findAdaptive(fs []*fragSched) map[fragment.NodeID]*adaptJoin {
	out := map[fragment.NodeID]*adaptJoin{}
	for _, s := range fs {
		fragment.Walk(s.f.Root, func(n *fragment.Node) {
			if n.Join == nil || n.Join.Adaptive == nil || len(n.Children) != 2 {
				return
			}
			a := n.Join.Adaptive
			pr, bu := n.Children[0], n.Children[1]
			if pr.ID != a.Probe || bu.ID != a.Build || pr.Exchange == nil || bu.Exchange == nil {
				return // not the shape the planner marks: run as planned
			}
			aj := &adaptJoin{node: n, spec: a, join: s, build: fs[bu.Exchange.From], probe: fs[pr.Exchange.From]}
			out[a.Build], out[a.Probe] = aj, aj
		})
	}
	return out
}

// adaptSink is the adaptive part of the sink of instance i of s, which
// sends into exchange x.
func (q *query) adaptSink(s *fragSched, i int, x fragment.NodeID) *rpc.AdaptSink {
	aj := q.adaptive[x]
	if aj == nil {
		return nil
	}
	if x == aj.spec.Build {
		return &rpc.AdaptSink{Build: true, MaxRows: aj.spec.MaxRows, MaxBytes: aj.spec.MaxBytes}
	}
	a := &rpc.AdaptSink{SkewShare: aj.spec.SkewShare}
	for j, r := range aj.join.instances {
		if r.backend == s.instances[i].backend {
			a.Local = append(a.Local, j)
		}
	}
	return a
}

// settleAdaptive settles every adaptive join of the query in the
// background, each once its build side is measured.
func (q *query) settleAdaptive() {
	seen := map[*adaptJoin]bool{}
	for _, aj := range q.adaptive {
		if seen[aj] {
			continue
		}
		seen[aj] = true
		if !q.c.goTracked(func() { q.settle(aj) }) {
			q.fail(errClosing)
		}
	}
}

// settle waits for the build instances' measurements (and the probe
// instances' key samples), decides, and tells every backend running a side
// of the join. The build side is consumed before the probe side, so the
// wait costs the probe side nothing but the time it would have waited for
// the hash table anyway.
func (q *query) settle(aj *adaptJoin) {
	defer q.recoverQuery("settling an adaptive join")
	planned := aj.spec.Planned
	if planned == fragment.AdaptUndecided {
		planned = fragment.AdaptPartitioned
	}
	out := AdaptOutcome{Join: aj.node.ID, Planned: planned, Ran: fragment.AdaptBroadcast,
		MaxRows: aj.spec.MaxRows, MaxBytes: aj.spec.MaxBytes, Nodes: len(aj.join.instances),
		Build: aj.build.f.ID, Probe: aj.probe.f.ID, Fragment: aj.join.f.ID}
	builds, ok := q.adaptReports(aj.build, aj.spec.Build)
	if !ok {
		return
	}
	for range aj.build.instances {
		g := <-builds
		if g.err != nil {
			q.adaptFailed(g.be, g.err)
			return
		}
		out.BuildRows += g.rep.Rows
		out.BuildBytes += g.rep.Bytes
		if g.rep.Over || out.BuildRows > out.MaxRows || out.BuildBytes > out.MaxBytes {
			out.Ran = fragment.AdaptPartitioned
			break // no need to hear the others
		}
	}
	var skew []uint64
	if out.Ran == fragment.AdaptPartitioned && aj.spec.SkewShare > 0 {
		probes, ok := q.adaptReports(aj.probe, aj.spec.Probe)
		if !ok {
			return
		}
		var rows int64
		keys := map[uint64]int64{}
		for range aj.probe.instances {
			g := <-probes
			if g.err != nil {
				q.adaptFailed(g.be, g.err)
				return
			}
			rows += g.rep.Rows
			for h, n := range g.rep.Keys {
				keys[h] += n
			}
		}
		for h, n := range keys {
			share := float64(n) / float64(max(rows, 1))
			out.TopShare = max(out.TopShare, share)
			if share > aj.spec.SkewShare {
				skew = append(skew, h)
			}
		}
		out.Skewed = len(skew)
	}
	q.mu.Lock()
	q.adaptOut = append(q.adaptOut, out)
	q.mu.Unlock()
	backends := map[catalog.BackendID]bool{}
	for _, s := range []*fragSched{aj.build, aj.probe} {
		for _, in := range s.instances {
			backends[in.backend] = true
		}
	}
	req := rpc.AdaptDecideReq{QueryID: q.id, Exchanges: []fragment.NodeID{aj.spec.Build, aj.spec.Probe}, Mode: out.Ran, Skew: skew}
	var wg sync.WaitGroup
	for be := range backends {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer q.recoverQuery("settling an adaptive join on a backend")
			cl, err := q.c.Client(be)
			if err == nil {
				err = cl.Do(q.ctx, rpc.ActAdaptDecide, req, nil)
			}
			if err != nil && q.ctx.Err() == nil {
				q.fail(q.c.backendErr(be, err))
			}
		}()
	}
	wg.Wait()
}

// adaptGot is one sender's answer to ActAdaptWait.
type adaptGot struct {
	rep rpc.AdaptReport
	be  catalog.BackendID
	err error
}

// adaptReports asks every instance of s, sending into exchange x, for its
// measurement; the answers arrive on the channel as they come.
func (q *query) adaptReports(s *fragSched, x fragment.NodeID) (<-chan adaptGot, bool) {
	ch := make(chan adaptGot, len(s.instances))
	for i, in := range s.instances {
		if !q.c.goTracked(func() {
			defer q.recoverQuery("waiting for an adaptive join's side")
			var rep rpc.AdaptReport
			cl, err := q.c.Client(in.backend)
			if err == nil {
				err = cl.Do(q.ctx, rpc.ActAdaptWait, rpc.AdaptWaitReq{QueryID: q.id, Exchange: x, Sender: i}, &rep)
			}
			ch <- adaptGot{rep, in.backend, err}
		}) {
			q.fail(errClosing)
			return nil, false
		}
	}
	return ch, true
}

// adaptFailed fails the query with a backend's error, unless the query
// already ended (the wait was cancelled with it).
func (q *query) adaptFailed(be catalog.BackendID, err error) {
	if q.ctx.Err() == nil {
		q.fail(q.c.backendErr(be, err))
	}
}
