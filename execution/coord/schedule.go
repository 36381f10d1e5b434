package coord

import (
	"fmt"
	"slices"
	"sort"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// instance is where one fragment instance runs and what it reads.
type instance struct {
	backend catalog.BackendID // 0: the FE (fragment 0)
	addr    string
	tablets map[fragment.NodeID][]fragment.TabletRef
}

// fragSched is a fragment's placement.
type fragSched struct {
	f         *fragment.Fragment
	instances []*instance
	// bucketOwner maps a storage bucket of the anchor scan to the instance
	// reading it (bucket-aligned fragments only).
	bucketOwner []int
	// parent is the fragment holding exchange, the node reading f.
	parent   fragment.FragmentID
	exchange *fragment.Node
	rootWire []byte       // f.Root encoded, shared by the instances' requests
	view     *replicaView // which replicas the scans may read (shared by the query)
	// inputs are the fragments f's exchanges read; small is set when f
	// runs as one instance because what it reads is small (placeSmall).
	inputs []*fragSched
	small  bool
}

// schedule places every fragment's instances (planner/fragment/doc.go).
func (c *Coordinator) schedule(plan *fragment.Plan) ([]*fragSched, error) {
	fs := make([]*fragSched, len(plan.Fragments))
	for i, f := range plan.Fragments {
		if f == nil || int(f.ID) != i {
			return nil, sqlerr.Assertf("fragment %d is missing or misnumbered", i)
		}
		fs[i] = &fragSched{f: f, parent: -1}
	}
	view := c.newReplicaView()
	view.singleRows = plan.SingleBackendRows
	for _, s := range fs {
		s.view = view
	}
	for _, s := range fs {
		fragment.Walk(s.f.Root, func(n *fragment.Node) {
			if n.Kind == fragment.KindExchange && n.Exchange != nil {
				if from := int(n.Exchange.From); from > 0 && from < len(fs) {
					fs[from].parent, fs[from].exchange = s.f.ID, n
					s.inputs = append(s.inputs, fs[from])
				}
			}
		})
	}
	for _, s := range fs[1:] {
		if s.exchange == nil {
			return nil, sqlerr.Assertf("fragment %d is read by no exchange", s.f.ID)
		}
	}
	// Every fragment's chain of readers reaches the root (a cycle would
	// start instances that wait for each other forever).
	for _, s := range fs[1:] {
		d, p := 0, s
		for p.f.ID != 0 {
			d++
			if d > len(fs) {
				return nil, sqlerr.Assertf("fragment %d: exchange cycle", s.f.ID)
			}
			p = fs[p.parent]
		}
	}
	// Fragment 0 runs here, unless it ends in a table sink: that one
	// writes tablets from the backends.
	remote := fs[1:]
	if fs[0].f.Sink.Kind == fragment.TableSinkKind || remoteRoot(fs[0].f) {
		remote = fs
	} else {
		fs[0].instances = []*instance{{}}
	}
	// Inputs first: a fragment reading only small ones runs small too.
	isRemote := map[fragment.FragmentID]bool{}
	for _, s := range remote {
		isRemote[s.f.ID] = true
	}
	placed := map[fragment.FragmentID]bool{}
	var placeFrom func(s *fragSched) error
	placeFrom = func(s *fragSched) error {
		if placed[s.f.ID] {
			return nil
		}
		placed[s.f.ID] = true // the cycle check above makes this a tree walk
		for _, in := range s.inputs {
			if isRemote[in.f.ID] {
				if err := placeFrom(in); err != nil {
					return err
				}
			}
		}
		return c.place(s)
	}
	for _, s := range remote {
		if err := placeFrom(s); err != nil {
			return nil, err
		}
	}
	return fs, nil
}

func (c *Coordinator) alive() []*catalog.Backend {
	var out []*catalog.Backend
	for _, b := range c.cat.Backends() {
		if b.Alive && !b.Decommissioned {
			out = append(out, b)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func addrOf(b *catalog.Backend) string { return fmt.Sprintf("%s:%d", b.Host, b.Port) }

func (c *Coordinator) newInstance(be catalog.BackendID, scans []*fragment.Node) (*instance, error) {
	b, ok := c.cat.Backend(be)
	if !ok {
		return nil, sqlerr.Doris.New(fmt.Sprintf("backend %d does not exist", be))
	}
	in := &instance{backend: be, addr: addrOf(b), tablets: map[fragment.NodeID][]fragment.TabletRef{}}
	for _, s := range scans {
		in.tablets[s.ID] = []fragment.TabletRef{}
	}
	return in, nil
}

// place decides the instances of one backend fragment.
func (c *Coordinator) place(s *fragSched) error {
	var scans []*fragment.Node
	fragment.Walk(s.f.Root, func(n *fragment.Node) {
		if n.Kind == fragment.KindScan {
			scans = append(scans, n)
		}
	})
	if len(scans) == 0 && s.f.Sink.Kind == fragment.TableSinkKind && s.f.Partition != fragment.Unpartitioned {
		return c.placeTableSink(s)
	}
	if len(scans) == 0 && c.placeAfterSmall(s) {
		return nil
	}
	if len(scans) == 0 {
		alive := c.alive()
		if len(alive) == 0 {
			return sqlerr.Doris.New("no alive backend to run the query on")
		}
		if s.f.Partition == fragment.Unpartitioned {
			alive = alive[:1]
		}
		for _, b := range alive {
			in, _ := c.newInstance(b.ID, nil)
			s.instances = append(s.instances, in)
		}
		return nil
	}
	if ok, err := c.placeSmall(s, scans); ok || err != nil {
		return err
	}
	if s.f.Partition == fragment.HashPartitioned {
		return c.placeBuckets(s, scans)
	}
	// One instance per backend holding a chosen replica.
	byBE := map[catalog.BackendID]*instance{}
	for _, sc := range scans {
		for _, t := range sc.Scan.Tablets {
			t, err := s.view.readable(sc.Scan.TableID, t)
			if err != nil {
				return err
			}
			be, err := c.pickReplica(t)
			if err != nil {
				return err
			}
			in := byBE[be]
			if in == nil {
				if in, err = c.newInstance(be, scans); err != nil {
					return err
				}
				byBE[be] = in
				s.instances = append(s.instances, in)
			}
			in.tablets[sc.ID] = append(in.tablets[sc.ID], t)
		}
	}
	if len(s.instances) == 0 { // every tablet pruned: one empty instance
		alive := c.alive()
		if len(alive) == 0 {
			return sqlerr.Doris.New("no alive backend to run the query on")
		}
		in, _ := c.newInstance(alive[0].ID, scans)
		s.instances = append(s.instances, in)
	}
	return nil
}

// placeSmall runs a fragment whose scans' tablets hold at most the plan's
// SingleBackendRows rows as one instance, on an alive backend holding a
// readable replica of each: for a small table, starting an instance on
// every backend and merging their streams costs more than the scan (a
// sqllogictest SELECT over 10 tablets of 3 replicas went from 2.3 ms of
// CPU to 1.2). It reports false, placing nothing, when the rows are more
// or unknown or no backend holds them all. Rows count what loads committed
// (deletes do not lower them), so a table is small only if it really is.
func (c *Coordinator) placeSmall(s *fragSched, scans []*fragment.Node) (bool, error) {
	limit := s.view.singleRows
	if limit <= 0 {
		return false, nil
	}
	type ref struct {
		scan fragment.NodeID
		t    fragment.TabletRef
	}
	var refs []ref
	var rows int64
	nb := 0
	for _, sc := range scans {
		s.view.index(sc.Scan.TableID)
		for _, t := range sc.Scan.Tablets {
			tb := s.view.tablets[t.Tablet]
			if tb == nil {
				return false, nil
			}
			if rows += tb.RowCount; rows > limit {
				return false, nil
			}
			rt, err := s.view.readable(sc.Scan.TableID, t)
			if err != nil {
				return false, err
			}
			refs = append(refs, ref{scan: sc.ID, t: rt})
			nb = max(nb, t.Bucket+1)
		}
	}
	if len(refs) == 0 {
		return false, nil
	}
	var common []fragment.BackendID
	for i, r := range refs {
		if i == 0 {
			common = slices.Clone(r.t.Replicas)
			continue
		}
		common = slices.DeleteFunc(common, func(be fragment.BackendID) bool { return !slices.Contains(r.t.Replicas, be) })
	}
	common = slices.DeleteFunc(common, func(be fragment.BackendID) bool { return !c.isAlive(catalog.BackendID(be)) })
	if len(common) == 0 {
		return false, nil
	}
	// Spread small tables over the backends: the choice follows the first
	// tablet, so one table's queries keep reading the same replicas.
	slices.Sort(common)
	in, err := c.newInstance(catalog.BackendID(common[int(refs[0].t.Tablet)%len(common)]), scans)
	if err != nil {
		return false, err
	}
	for _, r := range refs {
		in.tablets[r.scan] = append(in.tablets[r.scan], r.t)
	}
	s.instances = []*instance{in}
	s.small = true
	if s.f.Partition == fragment.HashPartitioned {
		s.bucketOwner = make([]int, nb) // every bucket to the one instance
	}
	return true, nil
}

// placeAfterSmall runs a fragment without scans whose every input runs
// small (placeSmall, or this) as one instance on its first input's
// backend: a join or aggregation of small tables needs no instance on
// every backend either, and rows from that backend stay off the wire.
func (c *Coordinator) placeAfterSmall(s *fragSched) bool {
	if s.view.singleRows <= 0 || len(s.inputs) == 0 {
		return false
	}
	for _, in := range s.inputs {
		if !in.small { // a small fragment runs as one instance
			return false
		}
	}
	be := s.inputs[0].instances[0].backend
	if !c.isAlive(be) {
		return false
	}
	in, err := c.newInstance(be, nil)
	if err != nil {
		return false
	}
	s.instances = []*instance{in}
	s.small = true
	return true
}

// placeBuckets gives bucket b of every scan of s to one instance: the one
// on an alive backend holding every bucket-b tablet, preferring the anchor
// (left-most) scan's replica order rotated by b to spread the reads.
func (c *Coordinator) placeBuckets(s *fragSched, scans []*fragment.Node) error {
	nb := 0
	for _, sc := range scans {
		for _, t := range sc.Scan.Tablets {
			nb = max(nb, t.Bucket+1)
		}
	}
	byBE := map[catalog.BackendID]*instance{}
	s.bucketOwner = make([]int, nb)
	for i := range s.bucketOwner {
		s.bucketOwner[i] = -1
	}
	for b := 0; b < nb; b++ {
		var ts []fragment.TabletRef
		var tsScan []fragment.NodeID
		for _, sc := range scans {
			for _, t := range sc.Scan.Tablets {
				if t.Bucket == b {
					t, err := s.view.readable(sc.Scan.TableID, t)
					if err != nil {
						return err
					}
					ts = append(ts, t)
					tsScan = append(tsScan, sc.ID)
				}
			}
		}
		if len(ts) == 0 {
			continue
		}
		be, err := c.commonReplica(ts, b)
		if err != nil {
			return err
		}
		in := byBE[be]
		if in == nil {
			if in, err = c.newInstance(be, scans); err != nil {
				return err
			}
			byBE[be] = in
			s.instances = append(s.instances, in)
		}
		s.bucketOwner[b] = len(s.instances) - 1
		for i, x := range s.instances {
			if x == in {
				s.bucketOwner[b] = i
			}
		}
		for i, t := range ts {
			in.tablets[tsScan[i]] = append(in.tablets[tsScan[i]], t)
		}
	}
	if len(s.instances) == 0 {
		alive := c.alive()
		if len(alive) == 0 {
			return sqlerr.Doris.New("no alive backend to run the query on")
		}
		in, _ := c.newInstance(alive[0].ID, scans)
		s.instances = append(s.instances, in)
	}
	// Buckets no scan reads still need an owner: their rows meet no stored rows.
	for b := range s.bucketOwner {
		if s.bucketOwner[b] < 0 {
			s.bucketOwner[b] = b % len(s.instances)
		}
	}
	return nil
}

// commonReplica picks an alive backend holding a replica of every tablet in ts.
func (c *Coordinator) commonReplica(ts []fragment.TabletRef, bucket int) (catalog.BackendID, error) {
	first := ts[0].Replicas
	n := len(first)
	for i := 0; i < n; i++ {
		be := first[(bucket+i)%n]
		if b, ok := c.cat.Backend(catalog.BackendID(be)); !ok || !b.Alive {
			continue
		}
		all := true
		for _, t := range ts[1:] {
			has := false
			for _, r := range t.Replicas {
				has = has || r == be
			}
			all = all && has
		}
		if all {
			return catalog.BackendID(be), nil
		}
	}
	return 0, sqlerr.Doris.New(fmt.Sprintf("bucket %d: no alive backend holds a replica of every tablet of the bucket (tablet %d, replicas %v)",
		bucket, ts[0].Tablet, first))
}

// request builds the exec_fragment request of instance i of s.
func (q *query) request(fs []*fragSched, s *fragSched, i int) (*rpc.ExecFragmentReq, error) {
	in := s.instances[i]
	if s.rootWire == nil {
		b, err := rpc.EncodeRoot(s.f.Root)
		if err != nil {
			return nil, err
		}
		s.rootWire = b
	}
	req := &rpc.ExecFragmentReq{QueryID: q.id, Fragment: s.f.ID, Instance: i, RootWire: s.rootWire, Tablets: in.tablets,
		NowMicro: q.now, MemLimit: q.memLimit, Spill: q.spill(), Budget: q.c.ExchangeBudget, BatchRows: q.c.BatchRows, Exchanges: map[fragment.NodeID]rpc.ExchangeIn{},
		Tasks: s.f.Tasks, Instances: len(s.instances)}
	q.runtimeFilters(fs, s, in, req)
	var err error
	fragment.Walk(s.f.Root, func(n *fragment.Node) {
		if n.Kind != fragment.KindExchange || err != nil {
			return
		}
		from := fs[n.Exchange.From]
		x := rpc.ExchangeIn{Senders: len(from.instances), SenderKind: from.f.Sink.Kind, SenderKeys: from.f.Sink.Keys,
			Buckets: from.f.Sink.Buckets, Receivers: len(s.instances)}
		if n.Exchange.Merge && len(n.Exchange.SortKeys) == 0 {
			x.MergeKeys, err = mergeKeys(from.f)
		}
		req.Exchanges[n.ID] = x
	})
	if err != nil {
		return nil, err
	}
	if s.f.Sink.Kind == fragment.TableSinkKind {
		if q.sink == nil {
			return nil, sqlerr.Assertf("fragment %d: table sink outside a load", s.f.ID)
		}
		req.Sink = rpc.SinkPlan{Kind: fragment.TableSinkKind, Txn: q.sink.txn, Table: q.sink.target, Replicas: q.sink.replicas}
		return req, nil
	}
	if s.f.ID == 0 {
		// A root reading tablets runs where they are; the FE pulls its rows.
		req.Sink = rpc.SinkPlan{Kind: fragment.StreamGather, ExchangeID: rootExchange, Receivers: []rpc.Dest{{Instance: 0, Pull: true}}}
		return req, nil
	}
	p := fs[s.parent]
	sink := rpc.SinkPlan{Kind: s.f.Sink.Kind, ExchangeID: s.exchange.ID, Keys: s.f.Sink.Keys, Buckets: s.f.Sink.Buckets}
	switch sink.Kind {
	case fragment.StreamBucketHash:
		if p.bucketOwner == nil {
			return nil, sqlerr.Assertf("fragment %d: bucket shuffle into fragment %d, which is not bucket-aligned", s.f.ID, p.f.ID)
		}
		sink.BucketOwner = append([]int(nil), p.bucketOwner...)
		for len(sink.BucketOwner) < sink.Buckets { // buckets the receiver's scans pruned away
			sink.BucketOwner = append(sink.BucketOwner, len(sink.BucketOwner)%len(p.instances))
		}
	case fragment.ResultSink:
		sink.Kind = fragment.StreamGather
	}
	for j, r := range p.instances {
		if r.backend == 0 { // the FE's fragment 0 pulls
			sink.Receivers = append(sink.Receivers, rpc.Dest{Instance: j, Pull: true})
		} else {
			sink.Receivers = append(sink.Receivers, rpc.Dest{Addr: r.addr, Instance: j, Local: r.backend == in.backend})
		}
	}
	sink.Adapt = q.adaptSink(s, i, s.exchange.ID)
	req.Sink = sink
	return req, nil
}

// runtimeFilters tells instance in of s where its joins' parts of global
// runtime filters go (the backends of the target scan's instances, each
// merging one part per instance of s) and how long its scans wait for
// theirs.
func (q *query) runtimeFilters(fs []*fragSched, s *fragSched, in *instance, req *rpc.ExecFragmentReq) {
	fragment.Walk(s.f.Root, func(n *fragment.Node) {
		for _, b := range n.RFBuild {
			if !b.Global || int(b.Target) >= len(fs) {
				continue
			}
			d := rpc.RFDest{Parts: len(s.instances)}
			seen := map[catalog.BackendID]bool{}
			for _, t := range fs[b.Target].instances {
				if seen[t.backend] || t.backend == 0 {
					continue
				}
				seen[t.backend] = true
				if t.backend == in.backend {
					d.Local = true
				} else {
					d.Addrs = append(d.Addrs, t.addr)
				}
			}
			if req.RFSend == nil {
				req.RFSend = map[int]rpc.RFDest{}
			}
			req.RFSend[b.ID] = d
		}
		for _, t := range n.RFTarget {
			if t.Global {
				req.RFWaitMs = q.plan.RFWaitMs
			}
		}
	})
}

// mergeKeys are the sort keys of a merging exchange: those of the sending
// fragment's root sort (each sender's stream is sorted by them).
func mergeKeys(f *fragment.Fragment) ([]fragment.SortKey, error) {
	if r := f.Root; r.Sort != nil && (r.Kind == fragment.KindSort || r.Kind == fragment.KindTopN) {
		return r.Sort.Keys, nil
	}
	return nil, sqlerr.Assertf("merging exchange from fragment %d, whose root is not a sort", f.ID)
}

// rootExchange names the FE's receiving side of a root fragment that runs
// on a backend (no plan node has a negative id).
const rootExchange fragment.NodeID = -1

// remoteRoot: the root fragment reads tablets, so it runs on the backend
// holding them (as Doris runs a single-instance scan fragment holding the
// RESULT SINK) and the FE only pulls its result. The planner keeps the
// result sink in such a fragment only when it has a single instance.
func remoteRoot(f *fragment.Fragment) bool {
	found := false
	fragment.Walk(f.Root, func(n *fragment.Node) {
		found = found || n.Kind == fragment.KindScan
	})
	return found
}

// spill is the session's spill setting for the backends (which choose
// where their files go).
func (q *query) spill() *op.SpillConfig {
	if q.env == nil || q.env.Spill == nil || !q.env.Spill.Enabled {
		return nil
	}
	c := *q.env.Spill
	c.Dir = ""
	return &c
}
