package physical_test

import (
	"strings"
	"testing"

	"github.com/dorisgo/dorisgo/planner/check"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/physical"
	"github.com/dorisgo/dorisgo/sql/expr"
)

// TestCheckerRejectsBrokenPlans plans real queries (each passes the
// checker, as every plan of the tests does), breaks one property of the
// emitted plan at a time, and expects the independent checker to name it.
func TestCheckerRejectsBrokenPlans(t *testing.T) {
	e := newCorpusEnv(t, false)
	find := func(p *fragment.Plan, kind fragment.NodeKind) *fragment.Node {
		var hit *fragment.Node
		for _, f := range p.Fragments {
			fragment.Walk(f.Root, func(n *fragment.Node) {
				if n.Kind == kind && hit == nil {
					hit = n
				}
			})
		}
		if hit == nil {
			t.Fatalf("no node of kind %d", kind)
		}
		return hit
	}
	// senderBy is the first fragment whose sink is of kind k.
	senderBy := func(p *fragment.Plan, k fragment.SinkKind) *fragment.Fragment {
		for _, f := range p.Fragments {
			if f.Sink.Kind == k {
				return f
			}
		}
		t.Fatalf("no fragment sinks with kind %d", k)
		return nil
	}
	sender := func(p *fragment.Plan, x *fragment.Node) *fragment.Fragment { return p.Fragments[x.Exchange.From] }
	cases := []struct {
		name, sql string
		breakIt   func(p *fragment.Plan)
		want      string
	}{
		{"shuffle join called colocate", "SELECT a.v, c.s FROM a JOIN [shuffle] c ON a.k = c.k",
			func(p *fragment.Plan) { find(p, fragment.KindHashJoin).Join.Dist = fragment.DistColocate },
			"planned as colocate"},
		{"shuffle side sent at random", "SELECT a.v, c.s FROM a JOIN [shuffle] c ON a.k = c.k",
			func(p *fragment.Plan) {
				j := find(p, fragment.KindHashJoin)
				sender(p, j.Children[1]).Sink.Kind = fragment.StreamRandom
			},
			"sends at random into fragment"},
		{"shuffle side hashed on another column", "SELECT a.v, c.s FROM a JOIN [shuffle] c ON a.k = c.k",
			func(p *fragment.Plan) {
				j := find(p, fragment.KindHashJoin)
				f := sender(p, j.Children[0])
				f.Sink.Keys = []fragment.Ex{{Expr: nil}}
				f.Sink.Keys[0] = fragment.Ex{Expr: colOf(f.Root, 1)}
			},
			"not hashed alike on keys"},
		{"broadcast right outer join", "SELECT a.v, c.s FROM a JOIN [broadcast] c ON a.k = c.k",
			func(p *fragment.Plan) { find(p, fragment.KindHashJoin).Join.Type = fragment.JoinRightOuter },
			"cannot broadcast its build side"},
		{"broadcast build not broadcast", "SELECT a.v, c.s FROM a JOIN [broadcast] c ON a.k = c.k",
			func(p *fragment.Plan) {
				j := find(p, fragment.KindHashJoin)
				f := sender(p, j.Children[1])
				f.Sink.Kind, f.Sink.Keys = fragment.StreamHash, []fragment.Ex{{Expr: colOf(f.Root, 0)}}
			},
			"a scan fragment reads an execution-hash exchange"},
		{"bucket shuffle into too few buckets", "SELECT a.v, c.s FROM a JOIN [bucket] c ON a.k = c.k",
			func(p *fragment.Plan) {
				j := find(p, fragment.KindHashJoin)
				sender(p, j.Children[1]).Sink.Buckets = 3
			},
			"bucket-shuffles with 1 keys into 3 buckets"},
		{"group by over rows hashed on another key", "SELECT v, COUNT(*) FROM a GROUP BY v",
			func(p *fragment.Plan) {
				f := senderBy(p, fragment.StreamHash)
				f.Sink.Keys = []fragment.Ex{{Expr: colOf(f.Root, 1)}}
			},
			"GROUP BY"},
		{"merge reads final values", "SELECT v, COUNT(*) FROM a GROUP BY v",
			func(p *fragment.Plan) {
				fragment.Walk(senderBy(p, fragment.StreamHash).Root, func(n *fragment.Node) {
					if n.Kind == fragment.KindAgg {
						n.Agg.Phase = fragment.AggUpdateFinalize
					}
				})
			},
			"not partial states"},
		{"merge exchange over unsorted senders", "SELECT v FROM a ORDER BY v LIMIT 3",
			func(p *fragment.Plan) {
				x := find(p, fragment.KindExchange)
				fragment.Walk(sender(p, x).Root, func(n *fragment.Node) {
					if n.Sort != nil {
						n.Sort.Keys[0].Desc = !n.Sort.Keys[0].Desc
					}
				})
			},
			"but the sender sorts on"},
		{"gather into a partitioned fragment", "SELECT COUNT(*) FROM a",
			func(p *fragment.Plan) { p.Fragments[0].Partition = fragment.HashPartitioned },
			"gathers into fragment 0"},
		{"adaptive join under a GROUP BY on its key", "SELECT a.k, COUNT(*) FROM a JOIN [shuffle] c ON a.k = c.k GROUP BY a.k",
			func(p *fragment.Plan) {
				j := find(p, fragment.KindHashJoin)
				j.Join.Adaptive = &fragment.AdaptiveJoin{Probe: j.Children[0].ID, Build: j.Children[1].ID}
			},
			"GROUP BY"},
		{"adaptive right outer join", "SELECT a.v, c.s FROM a RIGHT JOIN [shuffle] c ON a.k = c.k",
			func(p *fragment.Plan) {
				j := find(p, fragment.KindHashJoin)
				j.Join.Adaptive = &fragment.AdaptiveJoin{Probe: j.Children[0].ID, Build: j.Children[1].ID}
			},
			"cannot run with its build side replicated"},
		{"table sink shuffled into the wrong buckets", "INSERT INTO b SELECT k, i, s FROM c",
			func(p *fragment.Plan) {
				senderBy(p, fragment.StreamBucketHash).Sink.Buckets = 5
			},
			"for the sink of `b`"},
	}
	for _, c := range cases {
		p, _, err := e.plan(c.sql, physical.DefaultVars())
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		c.breakIt(p.Plan)
		err = check.Plan(p.Plan, check.FromCatalog(e.cat))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: checker said %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

// colOf is a reference to column i of n's output.
func colOf(n *fragment.Node, i int) *expr.ColRef {
	c := n.Output[i]
	return &expr.ColRef{Index: i, Name: c.Name, T: c.Type, Null: c.Nullable}
}
