package physical

import (
	"runtime"
	"slices"
	"strconv"

	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/planner/props"
	"github.com/dorisgo/dorisgo/sql/expr"
)

// Local exchange planning (DORIS-PLANNING.md §6, seed 000): inside a
// fragment instance running several pipeline tasks, each input edge of a
// shown operator gets a local exchange kind. The operator's rule (the
// per-operator table, localRule) says what it asks; the general rules G1–G3
// (generalRule) come first and may turn that into NOOP or PASSTHROUGH.

// localRuleCase is what the per-operator table keys on.
type localRuleCase struct {
	class localClass
	dist  fragment.Distribution // joins
	naaj  bool                  // joins: NULL AWARE LEFT ANTI
	// colocate: an aggregation / analytic / set operation over input that
	// keeps its storage buckets.
	colocate          bool
	streaming         bool // agg: update serialize with keys
	distinctStreaming bool // agg: streaming DISTINCT pre-aggregation
	keys              bool // agg: has group keys
	partitionBy       bool // analytic
	orderBy           bool // analytic
	mergedLater       bool // sort: partial sort a merging exchange merges
}

type localClass uint8

const (
	classNone localClass = iota // operators without a rule (filter, …): NOOP
	classHashJoin
	classNestedLoop
	classAgg
	classAnalytic
	classSort
	classSetOp
	classAssertRows
)

// localRule is the per-operator table: what the operator asks of input i
// (0: probe / only input, 1: build; set operations: every input alike).
// NAAJ is checked before broadcast (every NAAJ is broadcast, so the other
// order would leave its row dead), as Doris's HashJoinProbe does.
func localRule(c localRuleCase, input int) fragment.LocalExchangeKind {
	build := input == 1
	switch c.class {
	case classHashJoin:
		switch {
		case c.naaj:
			return fragment.LocalNoop
		case c.dist == fragment.DistBroadcast && build:
			return fragment.LocalPassToOne
		case c.dist == fragment.DistBroadcast:
			return fragment.LocalPassthrough
		case c.dist == fragment.DistBucketShuffle || c.dist == fragment.DistColocate:
			return fragment.LocalBucketHashShuffle
		}
		return fragment.LocalHashShuffle
	case classNestedLoop:
		switch {
		case c.naaj:
			return fragment.LocalNoop
		case build:
			return fragment.LocalBroadcast
		}
		return fragment.LocalAdaptivePassthrough
	case classAgg:
		switch {
		case c.colocate:
			return fragment.LocalBucketHashShuffle
		case c.distinctStreaming:
			return fragment.LocalHashShuffle
		case c.streaming:
			return fragment.LocalNoop
		case !c.keys:
			return fragment.LocalPassthrough
		}
		return fragment.LocalHashShuffle
	case classAnalytic:
		switch {
		case !c.partitionBy:
			return fragment.LocalPassthrough
		case !c.orderBy && c.colocate:
			return fragment.LocalBucketHashShuffle
		case !c.orderBy:
			return fragment.LocalHashShuffle
		}
		return fragment.LocalNoop
	case classSort:
		if c.mergedLater {
			return fragment.LocalPassthrough
		}
		return fragment.LocalNoop
	case classSetOp:
		if c.colocate {
			return fragment.LocalBucketHashShuffle
		}
		return fragment.LocalHashShuffle
	case classAssertRows:
		return fragment.LocalPassthrough
	}
	return fragment.LocalNoop
}

// upstream is where an edge's rows come from, as the general rules see it.
type upstream uint8

const (
	upOther       upstream = iota // values, single-task sources
	upExchange                    // an exchange (already partitioned over tasks)
	upStorageScan                 // a scan reading by storage layout (colocate / bucket shuffle fragment)
	upRandomScan                  // a scan ignoring storage layout (pooled)
	upLocal                       // a local exchange ran since
)

// localState is the distribution of rows over tasks at some edge.
type localState struct {
	src  upstream
	kind fragment.LocalExchangeKind // upLocal: the last local exchange
	keys []logical.ColumnID         // hash kinds
}

func hashKind(k fragment.LocalExchangeKind) bool {
	return k == fragment.LocalHashShuffle || k == fragment.LocalBucketHashShuffle
}

func spreadKind(k fragment.LocalExchangeKind) bool {
	return hashKind(k) || k == fragment.LocalPassthrough || k == fragment.LocalAdaptivePassthrough
}

// generalRule applies G1–G3 to what an operator asked; rule names the rule
// that decided ("" for the operator's table).
func generalRule(asked fragment.LocalExchangeKind, keys []logical.ColumnID, st localState, eq *props.EquivClasses) (fragment.LocalExchangeKind, string) {
	switch {
	case hashKind(asked) && (st.src == upExchange || st.src == upStorageScan):
		return fragment.LocalNoop, "G1"
	case asked != fragment.LocalNoop && st.src == upLocal && localSatisfies(st, asked, keys, eq):
		return fragment.LocalNoop, "G2"
	case st.src == upRandomScan:
		return fragment.LocalPassthrough, "G3"
	}
	return asked, ""
}

// localSatisfies: rows already locally shuffled as st meet what is asked
// (HASH and BUCKET_HASH on the same keys count as one; any spreading
// exchange meets a passthrough).
func localSatisfies(st localState, asked fragment.LocalExchangeKind, keys []logical.ColumnID, eq *props.EquivClasses) bool {
	switch {
	case hashKind(asked):
		if !hashKind(st.kind) || len(st.keys) != len(keys) || len(keys) == 0 {
			return false
		}
		for i := range keys {
			if keys[i] == props.UnknownKey || !eq.Equal(st.keys[i], keys[i]) {
				return false
			}
		}
		return true
	case asked == fragment.LocalPassthrough || asked == fragment.LocalAdaptivePassthrough:
		return spreadKind(st.kind)
	}
	return false
}

// localDecision is the local exchange on one input edge.
type localDecision struct {
	kind fragment.LocalExchangeKind
	keys []expr.Expr // over the child's columns (hash kinds)
	rule string      // G1–G3, or "" (the operator's table)
}

// maxPipelineTasks bounds parallel_pipeline_task_num: tasks past the
// cores only add goroutines and buffers, and 2^31 of them (SET_VAR with a
// mistyped number) had each backend allocate 51 GB for its task list and
// the process die out of memory (TestE2ESQLMutations).
const maxPipelineTasks = 256

// pipelineTasks is the tasks each instance runs (parallel_pipeline_task_num,
// 0 = cores/2, at most maxPipelineTasks).
func (d *distPlanner) pipelineTasks() int {
	n := d.ctx.Vars.ParallelPipelineTaskNum
	if n <= 0 {
		cores := d.ctx.Cores
		if cores <= 0 {
			cores = runtime.NumCPU()
		}
		n = cores / 2
	}
	return min(max(n, 1), maxPipelineTasks)
}

// planLocal plans local exchanges in every multi-task fragment.
func (d *distPlanner) planLocal(frags []*pfrag) {
	tasks := d.pipelineTasks()
	if tasks <= 1 || !d.ctx.Vars.EnableLocalShuffle {
		return
	}
	for _, f := range frags {
		if d.spread(f) == partSingle {
			continue // one instance, one task
		}
		f.tasks = tasks
		lp := &localPlanner{d: d, bucketed: bucketedFragment(f.root)}
		st := lp.walk(f.root)
		dec := lp.decide(fragment.LocalNoop, nil, st)
		f.sinkLocal = &dec
	}
}

type localPlanner struct {
	d *distPlanner
	// bucketed: the fragment relies on storage buckets (colocate / bucket
	// shuffle join, colocate aggregation), so its scans read by layout.
	bucketed bool
}

// bucketedFragment reports whether an operator of the fragment relies on
// its scans' storage layout.
func bucketedFragment(n *pnode) bool {
	if n.op == opExchange {
		return false
	}
	if n.op == opJoin && (n.join.dist == fragment.DistColocate || n.join.dist == fragment.DistBucketShuffle) {
		return true
	}
	if (n.op == opAgg || n.op == opWindow || n.op == opSetOp) && ruleCase(n).colocate {
		return true
	}
	return slices.ContainsFunc(n.children, bucketedFragment)
}

func (lp *localPlanner) decide(asked fragment.LocalExchangeKind, keys []expr.Expr, st localState) localDecision {
	kind, rule := generalRule(asked, lp.d.keyIDs(keys), st, lp.d.eq)
	dec := localDecision{kind: kind, rule: rule}
	if hashKind(kind) {
		dec.keys = keys
	}
	return dec
}

// after is the state past a decision.
func (lp *localPlanner) after(dec localDecision, st localState) localState {
	if dec.kind == fragment.LocalNoop {
		return st
	}
	return localState{src: upLocal, kind: dec.kind, keys: lp.d.keyIDs(dec.keys)}
}

// walk decides n's input edges bottom up and returns n's output state.
func (lp *localPlanner) walk(n *pnode) localState {
	switch n.op {
	case opExchange:
		return localState{src: upExchange}
	case opScan:
		if lp.bucketed && n.del.Kind == props.DelStorageBucketed {
			return localState{src: upStorageScan}
		}
		return localState{src: upRandomScan}
	case opValues, opTableFunc:
		return localState{src: upOther}
	case opApply:
		// The subquery is rebuilt per outer row in one task: no local
		// exchanges in it.
		lp.walk(n.children[0])
		return localState{src: upOther}
	}
	in := make([]localState, len(n.children))
	for i, c := range n.children {
		in[i] = lp.walk(c)
	}
	if n.hidden {
		// Projections and limits pass rows on; the next shown operator decides.
		return in[0]
	}
	n.local = make([]localDecision, len(n.children))
	c := ruleCase(n)
	for i, ch := range n.children {
		n.local[i] = lp.decide(localRule(c, i), lp.ruleKeys(n, i, ch), in[i])
		in[i] = lp.after(n.local[i], in[i])
	}
	return in[0]
}

// ruleCase describes n for the per-operator table.
func ruleCase(n *pnode) localRuleCase {
	switch n.op {
	case opJoin:
		c := localRuleCase{class: classHashJoin, dist: n.join.dist, naaj: n.join.typ == fragment.JoinNullAwareLeftAnti}
		if n.join.nested() {
			c.class = classNestedLoop
		}
		return c
	case opAgg:
		a := n.agg
		in := n.child()
		return localRuleCase{class: classAgg, keys: len(a.l.Groups) > 0,
			streaming: a.phase == fragment.AggUpdateSerialize && len(a.l.Groups) > 0,
			colocate:  a.phase == fragment.AggUpdateFinalize && len(a.l.Groups) > 0 && in.del.Kind == props.DelStorageBucketed && in.op != opExchange}
	case opWindow:
		c := localRuleCase{class: classAnalytic}
		if calls := n.window.Calls; len(calls) > 0 {
			c.partitionBy, c.orderBy = len(calls[0].PartitionBy) > 0, len(calls[0].OrderBy) > 0
		}
		// Colocate analytic: partitioned where the storage put the rows.
		c.colocate = c.partitionBy && n.child().del.Kind == props.DelStorageBucketed && n.child().op != opExchange
		return c
	case opSort, opTopN:
		return localRuleCase{class: classSort, mergedLater: underMerge(n)}
	case opSetOp:
		// A colocate set operation keeps its children's storage buckets.
		return localRuleCase{class: classSetOp, colocate: n.del.Kind == props.DelStorageBucketed}
	}
	return localRuleCase{}
}

// ruleKeys are the hash keys a rule would shuffle input i on.
func (lp *localPlanner) ruleKeys(n *pnode, i int, ch *pnode) []expr.Expr {
	switch n.op {
	case opJoin:
		var out []expr.Expr
		for _, e := range n.join.equi {
			if i == 0 {
				out = append(out, e.L)
			} else {
				out = append(out, e.R)
			}
		}
		return out
	case opAgg:
		if n.agg.merge != nil {
			return colRefs(n.agg.l.GroupCols)
		}
		return n.agg.l.Groups
	case opWindow:
		if calls := n.window.Calls; len(calls) > 0 {
			return calls[0].PartitionBy
		}
	case opSetOp:
		return colRefs(ch.cols)
	}
	return nil
}

// localSide names input i of n in EXPLAIN.
func localSide(n *pnode, i int) string {
	switch {
	case n.op == opJoin && i == 0:
		return "probe"
	case n.op == opJoin:
		return "build"
	case len(n.children) > 1:
		return "input " + strconv.Itoa(i)
	}
	return "input"
}
