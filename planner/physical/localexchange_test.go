package physical

import (
	"testing"

	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/planner/props"
)

// TestLocalRule checks every row of the per-operator table (§6, seed 000).
func TestLocalRule(t *testing.T) {
	const (
		noop     = fragment.LocalNoop
		hash     = fragment.LocalHashShuffle
		bucket   = fragment.LocalBucketHashShuffle
		pass     = fragment.LocalPassthrough
		adaptive = fragment.LocalAdaptivePassthrough
		bcast    = fragment.LocalBroadcast
		one      = fragment.LocalPassToOne
	)
	tests := []struct {
		name         string
		c            localRuleCase
		probe, build fragment.LocalExchangeKind
	}{
		{"hash join broadcast", localRuleCase{class: classHashJoin, dist: fragment.DistBroadcast}, pass, one},
		{"hash join NAAJ", localRuleCase{class: classHashJoin, dist: fragment.DistBroadcast, naaj: true}, noop, noop},
		{"hash join bucket shuffle", localRuleCase{class: classHashJoin, dist: fragment.DistBucketShuffle}, bucket, bucket},
		{"hash join colocate", localRuleCase{class: classHashJoin, dist: fragment.DistColocate}, bucket, bucket},
		{"hash join partitioned", localRuleCase{class: classHashJoin, dist: fragment.DistPartitioned}, hash, hash},
		{"hash join single", localRuleCase{class: classHashJoin, dist: fragment.DistNone}, hash, hash},
		{"nested loop NAAJ", localRuleCase{class: classNestedLoop, naaj: true}, noop, noop},
		{"nested loop", localRuleCase{class: classNestedLoop, dist: fragment.DistBroadcast}, adaptive, bcast},
		{"agg colocate", localRuleCase{class: classAgg, colocate: true, keys: true}, bucket, bucket},
		{"agg streaming", localRuleCase{class: classAgg, streaming: true, keys: true}, noop, noop},
		{"agg distinct streaming", localRuleCase{class: classAgg, distinctStreaming: true, streaming: true, keys: true}, hash, hash},
		{"agg blocking no keys", localRuleCase{class: classAgg}, pass, pass},
		{"agg blocking keys", localRuleCase{class: classAgg, keys: true}, hash, hash},
		{"analytic no partition by", localRuleCase{class: classAnalytic, orderBy: true}, pass, pass},
		{"analytic partition by colocate", localRuleCase{class: classAnalytic, partitionBy: true, colocate: true}, bucket, bucket},
		{"analytic partition by", localRuleCase{class: classAnalytic, partitionBy: true}, hash, hash},
		{"analytic partition and order by", localRuleCase{class: classAnalytic, partitionBy: true, orderBy: true}, noop, noop},
		{"sort merged later", localRuleCase{class: classSort, mergedLater: true}, pass, pass},
		{"sort", localRuleCase{class: classSort}, noop, noop},
		{"set op colocate", localRuleCase{class: classSetOp, colocate: true}, bucket, bucket},
		{"set op", localRuleCase{class: classSetOp}, hash, hash},
		{"assert rows", localRuleCase{class: classAssertRows}, pass, pass},
		{"filter", localRuleCase{}, noop, noop},
	}
	for _, tc := range tests {
		if got := localRule(tc.c, 0); got != tc.probe {
			t.Errorf("%s: input 0 = %s, want %s", tc.name, got, tc.probe)
		}
		// Two-input operators ask of their build side; others have one input.
		if tc.c.class == classHashJoin || tc.c.class == classNestedLoop || tc.c.class == classSetOp {
			if got := localRule(tc.c, 1); got != tc.build {
				t.Errorf("%s: input 1 = %s, want %s", tc.name, got, tc.build)
			}
		}
	}
}

// TestGeneralRules checks G1–G3 and that they come before the table.
func TestGeneralRules(t *testing.T) {
	eq := props.NewEquivClasses()
	eq.Union(1, 7) // a join key equal to another column
	k := func(ids ...logical.ColumnID) []logical.ColumnID { return ids }
	local := func(kind fragment.LocalExchangeKind, keys ...logical.ColumnID) localState {
		return localState{src: upLocal, kind: kind, keys: keys}
	}
	tests := []struct {
		name   string
		asked  fragment.LocalExchangeKind
		keys   []logical.ColumnID
		st     localState
		want   fragment.LocalExchangeKind
		wantBy string
	}{
		{"G1 exchange + hash", fragment.LocalHashShuffle, k(1), localState{src: upExchange}, fragment.LocalNoop, "G1"},
		{"G1 exchange + bucket hash", fragment.LocalBucketHashShuffle, k(1), localState{src: upExchange}, fragment.LocalNoop, "G1"},
		{"G1 storage scan + bucket hash", fragment.LocalBucketHashShuffle, k(1), localState{src: upStorageScan}, fragment.LocalNoop, "G1"},
		{"G1 storage scan + hash", fragment.LocalHashShuffle, k(1), localState{src: upStorageScan}, fragment.LocalNoop, "G1"},
		{"G1 only for hash asks", fragment.LocalPassthrough, nil, localState{src: upExchange}, fragment.LocalPassthrough, ""},
		{"G1 not for pass to one", fragment.LocalPassToOne, nil, localState{src: upStorageScan}, fragment.LocalPassToOne, ""},
		{"G2 same hash keys", fragment.LocalHashShuffle, k(1), local(fragment.LocalHashShuffle, 1), fragment.LocalNoop, "G2"},
		{"G2 equal keys", fragment.LocalHashShuffle, k(7), local(fragment.LocalHashShuffle, 1), fragment.LocalNoop, "G2"},
		{"G2 hash ≈ bucket hash", fragment.LocalBucketHashShuffle, k(1), local(fragment.LocalHashShuffle, 1), fragment.LocalNoop, "G2"},
		{"G2 other keys", fragment.LocalHashShuffle, k(2), local(fragment.LocalHashShuffle, 1), fragment.LocalHashShuffle, ""},
		{"G2 passthrough after passthrough", fragment.LocalPassthrough, nil, local(fragment.LocalPassthrough), fragment.LocalNoop, "G2"},
		{"G2 adaptive after hash", fragment.LocalAdaptivePassthrough, nil, local(fragment.LocalHashShuffle, 1), fragment.LocalNoop, "G2"},
		{"G2 hash after passthrough", fragment.LocalHashShuffle, k(1), local(fragment.LocalPassthrough), fragment.LocalHashShuffle, ""},
		{"G2 never broadcast", fragment.LocalBroadcast, nil, local(fragment.LocalPassthrough), fragment.LocalBroadcast, ""},
		{"G3 random scan + noop", fragment.LocalNoop, nil, localState{src: upRandomScan}, fragment.LocalPassthrough, "G3"},
		{"G3 random scan + hash", fragment.LocalHashShuffle, k(1), localState{src: upRandomScan}, fragment.LocalPassthrough, "G3"},
		{"G3 random scan + pass to one", fragment.LocalPassToOne, nil, localState{src: upRandomScan}, fragment.LocalPassthrough, "G3"},
		{"table when no general rule", fragment.LocalAdaptivePassthrough, nil, localState{src: upExchange}, fragment.LocalAdaptivePassthrough, ""},
		{"noop stays", fragment.LocalNoop, nil, localState{src: upStorageScan}, fragment.LocalNoop, ""},
	}
	for _, tc := range tests {
		got, by := generalRule(tc.asked, tc.keys, tc.st, eq)
		if got != tc.want || by != tc.wantBy {
			t.Errorf("%s: got %s (%q), want %s (%q)", tc.name, got, by, tc.want, tc.wantBy)
		}
	}
}

// TestJoinOrder checks §2.6's order on row estimates and connections.
func TestJoinOrder(t *testing.T) {
	chain := func(edges ...[2]int) func([]int, int) bool {
		return func(placed []int, cand int) bool {
			for _, p := range placed {
				for _, e := range edges {
					if (e[0] == p && e[1] == cand) || (e[1] == p && e[0] == cand) {
						return true
					}
				}
			}
			return false
		}
	}
	tests := []struct {
		name  string
		rows  []int64
		conn  func([]int, int) bool
		order []int
	}{
		{"already ordered", []int64{100, 50, 10}, chain([2]int{0, 1}, [2]int{1, 2}), []int{0, 1, 2}},
		{"biggest first then connected", []int64{10, 100, 50}, chain([2]int{0, 1}, [2]int{1, 2}), []int{1, 0, 2}},
		{"connected before written", []int64{10, 20, 100}, chain([2]int{1, 2}, [2]int{0, 1}), []int{2, 1, 0}},
		{"unconnected last", []int64{10, 100, 5}, chain([2]int{1, 2}), []int{1, 2, 0}},
		{"tie keeps written", []int64{50, 50}, chain([2]int{0, 1}), []int{0, 1}},
		{"unknown rows last", []int64{-1, 10}, chain([2]int{0, 1}), []int{1, 0}},
	}
	for _, tc := range tests {
		got := joinOrder(tc.rows, tc.conn)
		if len(got) != len(tc.order) {
			t.Fatalf("%s: %v", tc.name, got)
		}
		for i := range got {
			if got[i] != tc.order[i] {
				t.Errorf("%s: got %v, want %v", tc.name, got, tc.order)
				break
			}
		}
	}
}
