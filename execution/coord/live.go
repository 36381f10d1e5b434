package coord

import (
	"context"
	"sort"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/rpc"
)

// LiveProfile is Profile plus the counters so far of the instances still
// running on the backends (query_status), for watching a running query
// (the FE's web UI). It costs one call per backend; a backend that does
// not answer within ctx adds nothing.
func (r *Query) LiveProfile(ctx context.Context) *Profile {
	p := r.Profile()
	q := r.q
	q.mu.Lock()
	bes := make([]catalog.BackendID, 0, len(q.backends))
	for be := range q.backends {
		bes = append(bes, be)
	}
	q.mu.Unlock()
	type key struct{ f, i int }
	reported := map[key]bool{}
	for _, rep := range p.Instances {
		reported[key{int(rep.Fragment), rep.Instance}] = true
	}
	for _, be := range bes {
		cl, err := q.c.Client(be)
		if err != nil {
			continue
		}
		var st rpc.QueryStatusResp
		if err := cl.Do(ctx, rpc.ActQueryStatus, rpc.QueryStatusReq{QueryID: q.id}, &st); err != nil {
			continue
		}
		for i := range st.Live {
			if rep := &st.Live[i]; !reported[key{int(rep.Fragment), rep.Instance}] {
				p.Instances = append(p.Instances, rep)
			}
		}
	}
	sort.Slice(p.Instances, func(i, j int) bool {
		a, b := p.Instances[i], p.Instances[j]
		return a.Fragment < b.Fragment || a.Fragment == b.Fragment && a.Instance < b.Instance
	})
	return p
}
