package httpapi

import (
	"fmt"
	"sort"

	"github.com/dorisgo/dorisgo/execution/coord"
	"github.com/dorisgo/dorisgo/execution/op/build"
	"github.com/dorisgo/dorisgo/execution/op/exchange"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/physical"
	"github.com/dorisgo/dorisgo/server/webui"
)

// QueryRun is one query of the web UI's query page, as the server knows
// it: its row, and its plan with what it measured (live for a running
// query, as reported for a finished one) when it has one.
type QueryRun struct {
	Query webui.Query
	// Graph is nil for a statement without a plan; Profile is then unused.
	Graph   *physical.Graph
	Profile *coord.Profile
	// Text is a kept profile's text ("" for a running query).
	Text string
}

// queryFragments joins the plan's fragments with what they measured.
func queryFragments(g *physical.Graph, pr *coord.Profile) []webui.Fragment {
	type opAgg struct {
		rows, peak, timeNs int64
		instances          int
	}
	ops := map[int]*opAgg{}
	addOps := func(stats []build.OpStats) {
		for _, o := range stats {
			a := ops[int(o.Node)]
			if a == nil {
				a = &opAgg{}
				ops[int(o.Node)] = a
			}
			a.rows += o.Rows
			a.peak = max(a.peak, o.PeakMem)
			a.timeNs = max(a.timeNs, o.TimeNs)
			a.instances++
		}
	}
	addOps(pr.Root)
	// What the receivers got: fragment 0's live, the others' as reported.
	recv := map[int]exchange.ExchangeStats{}
	for id, x := range pr.RootExchanges {
		r := recv[int(id)]
		r.Add(x)
		recv[int(id)] = r
	}
	for _, rep := range pr.Instances {
		addOps(rep.Operators)
		for id, x := range rep.Exchanges {
			r := recv[int(id)]
			r.Add(x)
			recv[int(id)] = r
		}
	}
	// How adaptive joins ran, and the kind their exchanges ran as.
	ran := map[int]string{}
	exKind := map[int]string{}
	for _, a := range pr.Adaptive {
		ran[int(a.Join)] = fmt.Sprintf("%s (adaptive: build side %d rows, %d bytes)", a.Ran, a.BuildRows, a.BuildBytes)
		if a.Ran == fragment.AdaptBroadcast {
			exKind[int(a.Build)] = "broadcast (adaptive, planned hash)"
			exKind[int(a.Probe)] = "local (adaptive, planned hash)"
		} else if a.Skewed > 0 {
			exKind[int(a.Probe)] = fmt.Sprintf("hash, %d skewed keys spread (adaptive)", a.Skewed)
		}
	}
	var out []webui.Fragment
	for _, gf := range g.Fragments {
		f := webui.Fragment{ID: gf.ID, Partition: gf.Partition, Sink: gf.Sink, Tasks: gf.Tasks}
		byBackend := map[string]*webui.Instance{}
		for _, rep := range pr.Instances {
			if int(rep.Fragment) != gf.ID {
				continue
			}
			in := byBackend[rep.Backend]
			if in == nil {
				in = &webui.Instance{Backend: rep.Backend}
				byBackend[rep.Backend] = in
			}
			in.Count++
			in.WallMs = max(in.WallMs, float64(rep.WallNs)/1e6)
			in.Rows += rep.Sink.Rows
			in.Bytes += rep.Sink.Bytes
		}
		for _, in := range byBackend {
			f.Instances = append(f.Instances, *in)
		}
		if gf.ID == 0 && len(byBackend) == 0 && len(pr.Root) > 0 {
			// Fragment 0 of a query runs in the FE, over the exchanges.
			in := webui.Instance{Backend: "FE (coordinator)", Count: 1}
			for _, o := range pr.Root {
				in.WallMs = max(in.WallMs, float64(o.TimeNs)/1e6)
			}
			f.Instances = append(f.Instances, in)
		}
		sort.Slice(f.Instances, func(i, j int) bool { return f.Instances[i].Backend < f.Instances[j].Backend })
		if x := gf.Exchange; x != nil {
			// The senders' sum once they reported, the receivers' meanwhile.
			got := pr.ExchangeStats(fragment.FragmentID(gf.ID))
			if r := recv[x.ID]; r.Rows > got.Rows {
				got.Rows, got.Bytes, got.Batches = r.Rows, r.Bytes, r.Batches
			}
			f.Exchange = &webui.Exchange{ID: x.ID, Kind: x.Kind, From: gf.ID, To: x.To, EstRows: x.EstRows, EstBytes: x.EstBytes,
				Rows: got.Rows, Bytes: got.Bytes, WireBytes: got.WireBytes, BlockedMs: float64(got.BlockedNs) / 1e6}
			if k, ok := exKind[gf.ID]; ok {
				f.Exchange.Kind = k
			}
		}
		for _, gn := range gf.Nodes {
			n := webui.Node{ID: gn.ID, Label: gn.Label, Inputs: gn.Inputs, From: gn.From, EstRows: gn.EstRows, Attrs: gn.Attrs}
			if a := ops[gn.ID]; a != nil {
				n.Rows, n.TimeMs, n.PeakMem, n.Instances = a.rows, float64(a.timeNs)/1e6, a.peak, a.instances
			}
			if j := gn.Join; j != nil {
				n.Join = &webui.Join{Distribution: j.Distribution, Colocate: j.Colocate, ColocateReason: j.ColocateReason, Ran: ran[gn.ID]}
			}
			f.Nodes = append(f.Nodes, n)
		}
		out = append(out, f)
	}
	return out
}
