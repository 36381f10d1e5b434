package build

import (
	"context"
	"errors"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/execution/op/exchange"
	"github.com/dorisgo/dorisgo/execution/op/join"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// Pipeline tasks (seed 000): a fragment instance runs its operators as
// TaskPlan.Tasks parallel copies, one goroutine per task, with the local
// exchanges the planner placed on the plan's edges (Node.LocalExchanges)
// between them. How rows are spread over the tasks of one edge:
//   - a scan gives task t the tablets of buckets b with b mod tasks = t
//     (so colocated and bucket-shuffled sides agree), or, when its consumer
//     spreads blocks anyway (PASSTHROUGH), every tasks-th tablet;
//   - a hash-partitioned exchange splits what it receives by the same hash
//     (exchange.go, TaskRoute), so G1's NOOP above it holds;
//   - broadcast and single-instance joins build one shared table
//     (PASS_TO_ONE) that every probe task reads;
//   - operators that need all rows in one place (LIMIT, SORT/TOP-N with
//     a local merge, an aggregation without keys that finalizes, an
//     analytic without PARTITION BY) first merge their input to one task.
// Plans with an operator that cannot run as tasks (APPLY, a join that
// marks build rows under a shared build, a kind this file does not know)
// return ErrSerial and run as one task.

// ErrSerial says a fragment must run as one task.
var ErrSerial = errors.New("fragment runs as one pipeline task")

// TaskPlan is how an instance runs its fragment as pipeline tasks.
type TaskPlan struct {
	Tasks     int   // > 1
	Instances int   // the fragment's instance count (TaskRoute.Instances)
	Budget    int64 // byte budget per local exchange consumer; ≤ 0: default
	// Exchange returns an exchange node's output as tasks streams (or one,
	// for a merging exchange).
	Exchange func(n *fragment.Node, tasks int) ([]op.Operator, error)
}

// BuildTasks builds root as pipeline tasks, each operator profiled as in
// BuildProfiled. It returns one stream per task of the root (one if the
// root merges its input), or ErrSerial before building anything.
func BuildTasks(env *op.Env, root *fragment.Node, src *Sources, tp TaskPlan) ([]op.Operator, *Profile, error) {
	if tp.Tasks <= 1 || tp.Exchange == nil {
		return nil, nil, ErrSerial
	}
	b := &taskBuilder{env: env, src: src, tp: tp, p: &Profile{}}
	if env.Tracker == nil {
		e := *env
		e.Tracker = op.NewMemTracker(0)
		b.env = &e
	}
	if _, ok := b.streams(root); !ok {
		return nil, nil, ErrSerial
	}
	ops, err := b.build(root, false)
	if err != nil {
		return nil, nil, err
	}
	return ops, b.p, nil
}

type taskBuilder struct {
	env *op.Env
	src *Sources
	tp  TaskPlan
	p   *Profile
}

func edge(n *fragment.Node, i int) fragment.LocalExchange {
	if i < len(n.LocalExchanges) {
		return n.LocalExchanges[i]
	}
	return fragment.LocalExchange{Kind: fragment.LocalNoop}
}

// sharedBuild: the join's build side is the same for every probe task.
func sharedBuild(n *fragment.Node) bool {
	if n.Kind == fragment.KindNestedLoopJoin {
		return true
	}
	d := n.Join.Dist
	return d == fragment.DistBroadcast || d == fragment.DistNone || n.Join.Type == fragment.JoinNullAwareLeftAnti
}

// gathersAll: the operator needs all its input rows in one task.
func gathersAll(n *fragment.Node) bool {
	switch n.Kind {
	case fragment.KindLimit, fragment.KindSort, fragment.KindTopN:
		return true
	case fragment.KindAgg:
		ph := n.Agg.Phase
		return len(n.Agg.Groups) == 0 && ph.Finalizes()
	case fragment.KindWindow:
		return len(n.Window.PartitionBy) == 0
	}
	return false
}

// streams is how many task streams n yields (1 or Tasks), and whether the
// subtree can run as tasks at all; it mirrors build without building.
func (b *taskBuilder) streams(n *fragment.Node) (int, bool) {
	T := b.tp.Tasks
	switch n.Kind {
	case fragment.KindScan:
		return T, true
	case fragment.KindValues, fragment.KindTableFunc:
		return 1, true
	case fragment.KindExchange:
		if n.Exchange.Merge {
			return 1, true
		}
		return T, true
	case fragment.KindFilter, fragment.KindProject, fragment.KindLimit, fragment.KindSort, fragment.KindTopN,
		fragment.KindAgg, fragment.KindWindow, fragment.KindHashJoin, fragment.KindNestedLoopJoin, fragment.KindSetOp,
		fragment.KindRepeat:
	default:
		return 0, false
	}
	in := make([]int, len(n.Children))
	for i, c := range n.Children {
		s, ok := b.streams(c)
		if !ok {
			return 0, false
		}
		switch le := edge(n, i); le.Kind {
		case fragment.LocalNoop:
		case fragment.LocalPassToOne:
			s = 1
		case fragment.LocalBucketHashShuffle:
			return 0, false // no bucket count on a local edge
		default:
			s = T
		}
		in[i] = s
	}
	if gathersAll(n) {
		return 1, true
	}
	switch n.Kind {
	case fragment.KindHashJoin, fragment.KindNestedLoopJoin:
		if sharedBuild(n) {
			merge := n.Join.Algorithm == fragment.AlgoSortMerge
			if (join.TracksBuild(n.Join.Type) || merge) && in[0] > 1 {
				return 0, false
			}
			return in[0], true
		}
		if in[0] != in[1] {
			return 0, false
		}
	case fragment.KindSetOp:
		if slices.Min(in) != slices.Max(in) {
			return 0, false
		}
	}
	return in[0], true
}

func closeAll(ops ...[]op.Operator) {
	for _, os := range ops {
		for _, o := range os {
			if o != nil {
				o.Close()
			}
		}
	}
}

// local applies the local exchange le to ops.
func (b *taskBuilder) local(ops []op.Operator, le fragment.LocalExchange) ([]op.Operator, error) {
	switch le.Kind {
	case fragment.LocalNoop:
		return ops, nil
	case fragment.LocalPassToOne:
		u, err := exchange.Union(b.env, ops, b.tp.Budget)
		if err != nil {
			return nil, err
		}
		return []op.Operator{u}, nil
	}
	x, err := exchange.NewLocalExchange(b.env, ops, exchange.TaskRoute{Kind: le.Kind, Keys: fragment.Unwrap(le.Keys), Instances: b.tp.Instances},
		b.tp.Tasks, b.tp.Budget)
	if err != nil {
		return nil, err
	}
	return x.Consumers(), nil
}

func (b *taskBuilder) union(ops []op.Operator) ([]op.Operator, error) {
	u, err := exchange.Union(b.env, ops, b.tp.Budget)
	if err != nil {
		return nil, err
	}
	return []op.Operator{u}, nil
}

// build returns n's task streams. spread: n's consumer spreads blocks over
// tasks anyway, so a scan may balance tablets instead of keeping buckets.
func (b *taskBuilder) build(n *fragment.Node, spread bool) ([]op.Operator, error) {
	switch n.Kind {
	case fragment.KindScan:
		return b.scan(n, spread)
	case fragment.KindExchange:
		ops, err := b.tp.Exchange(n, b.tp.Tasks)
		if err != nil {
			return nil, err
		}
		for i, o := range ops {
			ops[i] = b.p.wrap(o, n, b.env.Tracker.Child("exchange"))
		}
		return ops, nil
	case fragment.KindValues, fragment.KindTableFunc:
		o, err := b.p.node(b.env, n, nil, b.src)
		if err != nil {
			return nil, err
		}
		return []op.Operator{o}, nil
	}
	in := make([][]op.Operator, len(n.Children))
	for i, c := range n.Children {
		le := edge(n, i)
		sp := le.Kind == fragment.LocalPassthrough || le.Kind == fragment.LocalAdaptivePassthrough ||
			(n.LocalExchanges == nil && spread)
		ops, err := b.build(c, sp)
		if err == nil && !(isJoin(n) && i == 1 && sharedBuild(n)) {
			ops, err = b.local(ops, le)
		}
		if err != nil {
			closeAll(in[:i]...)
			return nil, err
		}
		in[i] = ops
	}
	out, err := b.tasksOf(n, in)
	if err != nil {
		closeAll(in...)
		return nil, err
	}
	return out, nil
}

func isJoin(n *fragment.Node) bool {
	return n.Kind == fragment.KindHashJoin || n.Kind == fragment.KindNestedLoopJoin
}

// tasksOf builds n over its children's (locally exchanged) task streams.
func (b *taskBuilder) tasksOf(n *fragment.Node, in [][]op.Operator) ([]op.Operator, error) {
	switch {
	case n.Kind == fragment.KindSort || n.Kind == fragment.KindTopN:
		return b.sortTasks(n, in[0])
	case gathersAll(n):
		u, err := b.union(in[0])
		if err != nil {
			return nil, err
		}
		o, err := b.p.node(b.env, n, u, b.src)
		if err != nil {
			return nil, err
		}
		return []op.Operator{o}, nil
	case isJoin(n) && sharedBuild(n):
		return b.sharedJoin(n, in[0], in[1])
	}
	tasks := len(in[0])
	out := make([]op.Operator, 0, tasks)
	for t := range tasks {
		inputs := make([]op.Operator, len(in))
		for i := range in {
			if len(in[i]) != tasks {
				closeAll(out)
				return nil, sqlerr.Assertf("node %d: input %d has %d task streams, input 0 has %d", n.ID, i, len(in[i]), tasks)
			}
			inputs[i] = in[i][t]
		}
		o, err := b.p.node(b.env, n, inputs, b.src)
		if err != nil {
			closeAll(out)
			return nil, err
		}
		if j, ok := o.(*profiledOp).Operator.(*join.HashJoin); ok && tasks > 1 {
			// Each task builds from its share of the build side: a filter
			// from one share would drop other tasks' matches.
			j.NoRuntimeFilters()
		}
		out = append(out, o)
		for i := range in {
			in[i][t] = nil // owned by o now
		}
	}
	return out, nil
}

// sortTasks sorts each task's rows and merges the sorted streams into one
// (Doris's local merge sort); a TOP-N keeps offset+limit rows per task.
func (b *taskBuilder) sortTasks(n *fragment.Node, in []op.Operator) ([]op.Operator, error) {
	if len(in) == 1 {
		o, err := b.p.node(b.env, n, in, b.src)
		if err != nil {
			return nil, err
		}
		return []op.Operator{o}, nil
	}
	task := n
	offset, limit := int64(0), int64(-1)
	if n.Kind == fragment.KindTopN {
		spec := *n.Sort
		offset, limit = spec.Offset, spec.Limit
		spec.Limit, spec.Offset = spec.Offset+spec.Limit, 0
		cp := *n
		cp.Sort = &spec
		task = &cp
	}
	sorted := make([]op.Operator, 0, len(in))
	var xs []*exchange.LocalExchange
	for t := range in {
		o, err := b.p.node(b.env, task, in[t:t+1], b.src)
		if err != nil {
			closeAll(sorted)
			return nil, err
		}
		in[t] = nil
		// Each sort runs in a goroutine of its own, all started together:
		// the merge reads one task's output at a time, and a sort not yet
		// reading its input would stall the local exchange feeding all.
		x, err := exchange.NewLocalExchange(b.env, []op.Operator{o}, exchange.TaskRoute{Kind: fragment.LocalPassToOne}, 1, b.tp.Budget)
		if err != nil {
			o.Close()
			closeAll(sorted)
			return nil, err
		}
		xs = append(xs, x)
		sorted = append(sorted, &startTogether{Operator: x.Consumers()[0]})
	}
	for _, o := range sorted {
		o.(*startTogether).all = xs
	}
	return []op.Operator{exchange.NewMergeSorted(b.env, sorted, sortKeys(n.Sort.Keys), offset, limit)}, nil
}

// startTogether starts every exchange of a group on its first Next.
type startTogether struct {
	op.Operator
	all []*exchange.LocalExchange
}

func (s *startTogether) Next(ctx context.Context) (arrow.Record, error) {
	for _, x := range s.all {
		x.Run(ctx)
	}
	return s.Operator.Next(ctx)
}

// sharedJoin builds one join per probe task over one shared build side.
func (b *taskBuilder) sharedJoin(n *fragment.Node, probe, build []op.Operator) ([]op.Operator, error) {
	right, err := exchange.Union(b.env, build, b.tp.Budget)
	if err != nil {
		return nil, err
	}
	if len(probe) == 1 {
		o, err := b.p.node(b.env, n, []op.Operator{probe[0], right}, b.src)
		if err != nil {
			return nil, err
		}
		return []op.Operator{o}, nil
	}
	s := join.NewSharedBuild(right, len(probe), b.env.Tracker)
	out := make([]op.Operator, 0, len(probe))
	for t := range probe {
		o, err := b.p.node(b.env, n, []op.Operator{probe[t], emptyOf(right)}, b.src)
		if err != nil {
			closeAll(out)
			for range len(probe) - t {
				s.Release() // the unbuilt tasks' references
			}
			return nil, err
		}
		probe[t] = nil
		switch j := o.(*profiledOp).Operator.(type) {
		case *join.HashJoin:
			err = j.ShareBuild(s)
		case *join.NestedLoopJoin:
			j.ShareBuild(s)
		default:
			err = sqlerr.Assertf("node %d: %T cannot share a build side", n.ID, j)
		}
		if err != nil {
			o.Close()
			closeAll(out)
			for range len(probe) - t - 1 {
				s.Release()
			}
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// emptyOf is an input with s's schema and no rows: the right child of a
// join that reads a shared build side instead.
func emptyOf(o op.Operator) op.Operator { return op.Empty(o.Schema()) }

// scan splits the instance's tablets of a scan node over the tasks.
func (b *taskBuilder) scan(n *fragment.Node, spread bool) ([]op.Operator, error) {
	tablets := n.Scan.Tablets
	if b.src.Tablets != nil {
		tablets = b.src.Tablets[n.ID]
	}
	T := b.tp.Tasks
	parts := make([][]fragment.TabletRef, T)
	for i, t := range tablets {
		k := t.Bucket % T
		if spread {
			k = i % T
		}
		parts[k] = append(parts[k], t)
	}
	out := make([]op.Operator, 0, T)
	for _, part := range parts {
		src := *b.src
		src.Tablets = map[fragment.NodeID][]fragment.TabletRef{n.ID: part}
		o, err := b.p.node(b.env, n, nil, &src)
		if err != nil {
			closeAll(out)
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}
