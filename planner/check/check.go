// Package check verifies a distributed plan independently of the planner
// that made it. It reads only the emitted fragments (planner/fragment) and
// the tables' bucketing, re-derives from the leaves up how each operator's
// input rows are spread over instances, and checks that every operator gets
// the spread its semantics need: a hash join's sides co-partitioned on its
// keys (or its build side broadcast, where the join type allows it), an
// aggregation's or window's input partitioned on a subset of its grouping
// keys, a merge exchange fed by sorted senders, a sink whose kind matches its
// receiver, and so on (planner/fragment's doc is the contract).
//
// The physical planner has its own edge check over its internal nodes;
// this one shares none of its code or data, so a bug in the planner's
// property model shows up here as a failed check rather than as wrong rows.
package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Layout is how a table's rows are bucketed across its tablets.
type Layout struct {
	Hash    bool   // DISTRIBUTED BY HASH (else RANDOM)
	Group   string // colocate group, qualified so that names in two databases differ ("" none)
	Stable  bool   // the group is stable (only meaningful with Group)
	Columns []int  // the distribution columns, as schema column indexes
	Buckets int
}

// Cluster is what the checker needs besides the plan.
type Cluster struct {
	// Tables resolves a scan's table id to its layout.
	Tables func(tableID int64) (Layout, bool)
	// Backends is the number of alive backends: an exchange-fed fragment
	// runs one instance on each.
	Backends int
}

// Plan checks p. The error names the fragment, the node and the broken rule.
func Plan(p *fragment.Plan, cl Cluster) error {
	c := &checker{p: p, tables: cl.Tables, backends: cl.Backends, readBy: map[fragment.FragmentID]*fragment.Node{}, recvIn: map[fragment.FragmentID]*fragment.Fragment{}}
	if len(p.Fragments) == 0 {
		return fmt.Errorf("plan has no fragments")
	}
	for _, f := range p.Fragments {
		var err error
		fragment.Walk(f.Root, func(n *fragment.Node) {
			if n.Kind != fragment.KindExchange || err != nil {
				return
			}
			from := n.Exchange.From
			if int(from) <= 0 || int(from) >= len(p.Fragments) {
				err = fmt.Errorf("fragment %d: exchange %d reads fragment %d, which does not exist", f.ID, n.ID, from)
			} else if _, dup := c.readBy[from]; dup {
				err = fmt.Errorf("fragment %d is read by two exchanges", from)
			}
			c.readBy[from], c.recvIn[from] = n, f
		})
		if err != nil {
			return err
		}
	}
	for i, f := range p.Fragments {
		if int(f.ID) != i {
			return fmt.Errorf("fragment at index %d has id %d", i, f.ID)
		}
		if i > 0 {
			if _, ok := c.readBy[f.ID]; !ok {
				return fmt.Errorf("fragment %d is read by no exchange", f.ID)
			}
		}
	}
	// Sinks first: a sink that does not match its receiver explains the
	// operator above it that then gets the wrong rows.
	for _, f := range p.Fragments[1:] {
		if err := c.sink(f); err != nil {
			return err
		}
	}
	for _, f := range p.Fragments {
		if err := c.fragment(f); err != nil {
			return err
		}
	}
	return nil
}

type checker struct {
	p        *fragment.Plan
	tables   func(int64) (Layout, bool)
	backends int
	readBy   map[fragment.FragmentID]*fragment.Node     // fragment → the exchange reading it
	recvIn   map[fragment.FragmentID]*fragment.Fragment // fragment → the fragment holding that exchange
	f        *fragment.Fragment                         // the fragment being checked
}

// spread is how a stream's rows are placed over the instances of the
// fragment it runs in.
type spreadKind uint8

const (
	single     spreadKind = iota // one instance has every row
	random                       // no known placement
	hashed                       // equal keys in one instance (alts)
	replicated                   // every instance has every row
)

// hashAlt is one way a hashed stream is known to be placed: rows with
// equal values of keys (canonical expressions over the stream's columns)
// are in one instance. Tag names the hash function and instance mapping
// (a table's or a colocate group's buckets, or one exchange's execution
// hash); two streams are co-partitioned only under the same tag.
type hashAlt struct {
	tag     string
	storage bool // storage buckets (tag = table or group), else execution hash
	buckets int
	keys    []string
	types   []types.T
}

type spread struct {
	kind spreadKind
	alts []hashAlt
}

func (s spread) String() string {
	switch s.kind {
	case single:
		return "single instance"
	case replicated:
		return "replicated"
	case random:
		return "random"
	}
	var parts []string
	for _, a := range s.alts {
		parts = append(parts, a.tag+"["+strings.Join(a.keys, ",")+"]")
	}
	return "hashed on " + strings.Join(parts, " or ")
}

func (c *checker) fragment(f *fragment.Fragment) error {
	c.f = f
	if f.ID == 0 && f.Partition != fragment.Unpartitioned && f.Sink.Kind != fragment.TableSinkKind && c.backends > 1 {
		// Allowed only when the fragment runs as one instance: a scan
		// fragment reading at most one tablet, or any fragment when one
		// backend is alive.
		var err error
		fragment.Walk(f.Root, func(n *fragment.Node) {
			if n.Kind == fragment.KindScan && len(n.Scan.Tablets) > 1 && err == nil {
				err = fmt.Errorf("fragment 0 is %s but its scan %d reads %d tablets: the result would come from several instances", partName(f.Partition), n.ID, len(n.Scan.Tablets))
			}
		})
		if err == nil && anchor(f.Root) == nil {
			err = fmt.Errorf("fragment 0 is %s without a scan to pin it to one instance: the result would come from several instances", partName(f.Partition))
		}
		if err != nil {
			return err
		}
	}
	scans := 0
	fragment.Walk(f.Root, func(n *fragment.Node) {
		if n.Kind == fragment.KindScan {
			scans++
		}
	})
	if scans > 0 && f.Partition == fragment.HashPartitioned {
		var err error
		fragment.Walk(f.Root, func(n *fragment.Node) {
			if n.Kind == fragment.KindExchange && err == nil {
				if s := c.p.Fragments[n.Exchange.From].Sink.Kind; s == fragment.StreamHash {
					err = c.errf(n, "a scan fragment reads an execution-hash exchange: its instances follow buckets, not the exchange's hash")
				}
			}
		})
		if err != nil {
			return err
		}
	}
	_, err := c.node(f.Root)
	return err
}

// sink checks f's sink against the exchange and fragment that receive it.
func (c *checker) sink(f *fragment.Fragment) error {
	x, recv := c.readBy[f.ID], c.recvIn[f.ID]
	if f.Sink.ExchangeID != x.ID {
		return fmt.Errorf("fragment %d sinks to exchange %d but exchange %d reads it", f.ID, f.Sink.ExchangeID, x.ID)
	}
	if len(x.Output) != len(f.Root.Output) {
		return fmt.Errorf("fragment %d: exchange %d has %d columns, its sender %d", recv.ID, x.ID, len(x.Output), len(f.Root.Output))
	}
	switch f.Sink.Kind {
	case fragment.StreamGather:
		if recv.Partition != fragment.Unpartitioned {
			return fmt.Errorf("fragment %d gathers into fragment %d, which is %s", f.ID, recv.ID, partName(recv.Partition))
		}
	case fragment.StreamHash:
		if recv.Partition != fragment.HashPartitioned {
			return fmt.Errorf("fragment %d hash-partitions into fragment %d, which is %s", f.ID, recv.ID, partName(recv.Partition))
		}
		if len(f.Sink.Keys) == 0 {
			return fmt.Errorf("fragment %d hash-partitions on no keys", f.ID)
		}
	case fragment.StreamBucketHash:
		if recv.Sink.Kind == fragment.TableSinkKind && recv.Sink.Table != nil {
			return c.tableSinkShuffle(f, recv)
		}
		a := anchor(recv.Root)
		if a == nil || recv.Partition != fragment.HashPartitioned {
			return fmt.Errorf("fragment %d bucket-shuffles into fragment %d, which has no bucketed anchor scan", f.ID, recv.ID)
		}
		l, ok := c.tables(a.Scan.TableID)
		if !ok || !l.Hash {
			return fmt.Errorf("fragment %d bucket-shuffles into fragment %d, whose anchor scan %d is not hash-distributed", f.ID, recv.ID, a.ID)
		}
		if f.Sink.Buckets != l.Buckets || len(f.Sink.Keys) != len(l.Columns) {
			return fmt.Errorf("fragment %d bucket-shuffles with %d keys into %d buckets; the anchor table `%s` has %d distribution columns in %d buckets",
				f.ID, len(f.Sink.Keys), f.Sink.Buckets, a.Scan.Table, len(l.Columns), l.Buckets)
		}
	case fragment.StreamRandom:
		if recv.Partition == fragment.HashPartitioned {
			return fmt.Errorf("fragment %d sends at random into fragment %d, which is hash-partitioned", f.ID, recv.ID)
		}
	case fragment.StreamBroadcast:
	default:
		return fmt.Errorf("fragment %d: sink kind %d cannot feed an exchange", f.ID, f.Sink.Kind)
	}
	if x.Exchange.Merge {
		if err := c.sortedSender(f, x); err != nil {
			return err
		}
	}
	return nil
}

// tableSinkShuffle: rows reach an OLAP TABLE SINK hashed as the target
// table buckets them, so each sink instance gets whole buckets; the keys
// must be the target's distribution columns (in the fragment root's
// schema-ordered output) and hash as the stored column type does.
func (c *checker) tableSinkShuffle(f, recv *fragment.Fragment) error {
	t := recv.Sink.Table
	if f.Sink.Buckets != t.Buckets || len(f.Sink.Keys) != len(t.DistColumns) {
		return fmt.Errorf("fragment %d shuffles with %d keys into %d buckets for the sink of `%s`, which has %d distribution columns in %d buckets",
			f.ID, len(f.Sink.Keys), f.Sink.Buckets, t.Table, len(t.DistColumns), t.Buckets)
	}
	for i, k := range f.Sink.Keys {
		col := t.Columns[t.DistColumns[i]]
		if !sameType(k.Expr.Type(), col.Type) {
			return fmt.Errorf("fragment %d shuffles rows for `%s` on a %s key, but column `%s` is %s and is bucketed by that type's hash",
				f.ID, t.Table, k.Expr.Type(), col.Name, col.Type)
		}
	}
	return nil
}

// sortedSender: a merging exchange needs every sender instance's stream
// sorted on its keys, so the sender's root (below projections that keep the
// key columns) must sort on them, or the sender runs as one instance and
// already sorted.
func (c *checker) sortedSender(f *fragment.Fragment, x *fragment.Node) error {
	want := make([]string, len(x.Exchange.SortKeys))
	for i, k := range x.Exchange.SortKeys {
		want[i] = sortKey(k)
	}
	n := f.Root
	for n.Kind == fragment.KindProject || n.Kind == fragment.KindLimit || n.Kind == fragment.KindFilter {
		if n.Kind == fragment.KindProject {
			for i, k := range want {
				mapped, ok := unmapKey(k, n.Project.Exprs)
				if !ok {
					return fmt.Errorf("fragment %d: merge exchange %d sorts on %s, which the sender's projection %d does not pass", f.ID, x.ID, k, n.ID)
				}
				want[i] = mapped
			}
		}
		n = n.Children[0]
	}
	if n.Kind != fragment.KindSort && n.Kind != fragment.KindTopN {
		if f.Partition == fragment.Unpartitioned {
			return nil
		}
		return fmt.Errorf("fragment %d: merge exchange %d reads a sender that does not sort (its root is %s)", f.ID, x.ID, kindName(n.Kind))
	}
	got := make([]string, len(n.Sort.Keys))
	for i, k := range n.Sort.Keys {
		got[i] = sortKey(k)
	}
	if len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
		return fmt.Errorf("fragment %d: merge exchange %d merges on [%s] but the sender sorts on [%s]", f.ID, x.ID, strings.Join(want, ", "), strings.Join(got, ", "))
	}
	return nil
}

func sortKey(k fragment.SortKey) string {
	s := canon(k.Expr.Expr)
	if k.Desc {
		s += " DESC"
	}
	if k.NullsFirst {
		s += " NULLS FIRST"
	}
	return s
}

// unmapKey rewrites a sort key over a projection's output into one over its
// input (the projection's expression for a column reference).
func unmapKey(k string, exprs []fragment.Ex) (string, bool) {
	head, tail, _ := strings.Cut(k, " ")
	if !strings.HasPrefix(head, "#") {
		return k, !strings.Contains(head, "#")
	}
	i, err := strconv.Atoi(head[1:])
	if err != nil || i >= len(exprs) {
		return "", false
	}
	s := canon(exprs[i].Expr)
	if tail != "" {
		s += " " + tail
	}
	return s, true
}

func anchor(n *fragment.Node) *fragment.Node {
	for n != nil {
		switch n.Kind {
		case fragment.KindScan:
			return n
		case fragment.KindExchange:
			return nil
		}
		if len(n.Children) == 0 {
			return nil
		}
		n = n.Children[0]
	}
	return nil
}

func (c *checker) errf(n *fragment.Node, format string, args ...any) error {
	return fmt.Errorf("fragment %d, %s %d: %s", c.f.ID, kindName(n.Kind), n.ID, fmt.Sprintf(format, args...))
}

// node checks n's subtree and returns how n's output is spread.
func (c *checker) node(n *fragment.Node) (spread, error) {
	ins := make([]spread, len(n.Children))
	for i, ch := range n.Children {
		s, err := c.node(ch)
		if err != nil {
			return s, err
		}
		ins[i] = s
	}
	if n.Kind == fragment.KindApply {
		// The subquery runs per outer row wherever that row is; its own
		// exchanges are replayed, so it is checked as a plan of its own
		// shape but its spread does not matter here.
		if _, err := c.node(n.Apply.Sub); err != nil {
			return spread{}, err
		}
	}
	s, err := c.derive(n, ins)
	if err != nil {
		return s, err
	}
	if c.f.Partition == fragment.Unpartitioned {
		return spread{kind: single}, nil
	}
	return s, nil
}

func (c *checker) singleFragment() bool { return c.f.Partition == fragment.Unpartitioned }

func (c *checker) derive(n *fragment.Node, in []spread) (spread, error) {
	switch n.Kind {
	case fragment.KindScan:
		return c.scan(n), nil
	case fragment.KindValues, fragment.KindTableFunc:
		if !c.singleFragment() && n.Kind == fragment.KindTableFunc {
			return spread{}, c.errf(n, "a table function generates its whole range and must run in one instance, but fragment is %s", partName(c.f.Partition))
		}
		return spread{kind: single}, nil
	case fragment.KindExchange:
		return c.exchange(n), nil
	case fragment.KindFilter, fragment.KindLimit, fragment.KindSort, fragment.KindTopN, fragment.KindApply:
		if err := c.notReplicated(n, in[0]); err != nil && n.Kind != fragment.KindFilter && n.Kind != fragment.KindApply {
			return spread{}, err
		}
		return in[0], nil
	case fragment.KindProject:
		return project(in[0], n.Project.Exprs), nil
	case fragment.KindWindow:
		if err := c.requireGrouped(n, in[0], n.Window.PartitionBy, "PARTITION BY"); err != nil {
			return spread{}, err
		}
		return in[0], nil
	case fragment.KindAgg:
		return c.agg(n, in[0])
	case fragment.KindRepeat:
		if err := c.notReplicated(n, in[0]); err != nil {
			return spread{}, err
		}
		if in[0].kind == single {
			return in[0], nil
		}
		return spread{kind: random}, nil
	case fragment.KindSetOp:
		return c.setOp(n, in)
	case fragment.KindHashJoin, fragment.KindNestedLoopJoin:
		return c.join(n, in[0], in[1])
	}
	return spread{}, c.errf(n, "unknown operator kind %d", n.Kind)
}

func (c *checker) notReplicated(n *fragment.Node, s spread) error {
	if s.kind == replicated && !c.singleFragment() {
		return c.errf(n, "its input is broadcast to every instance, so each instance would produce every row")
	}
	return nil
}

func (c *checker) scan(n *fragment.Node) spread {
	l, ok := c.tables(n.Scan.TableID)
	if !ok || !l.Hash {
		return spread{kind: random}
	}
	tag := "table " + strconv.FormatInt(n.Scan.TableID, 10)
	if l.Group != "" {
		tag = "group " + l.Group
	}
	// Output positions of the distribution columns.
	pos := func(col int) int {
		i := slices.Index(n.Scan.Columns, col)
		if i < 0 || n.Scan.Keep == nil {
			return i
		}
		return slices.Index(n.Scan.Keep, i)
	}
	a := hashAlt{tag: tag, storage: true, buckets: l.Buckets}
	for _, col := range l.Columns {
		p := pos(col)
		if p < 0 {
			a.keys = append(a.keys, "?") // not read: no key can equal it
			a.types = append(a.types, types.T{})
			continue
		}
		a.keys = append(a.keys, "#"+strconv.Itoa(p))
		a.types = append(a.types, n.Output[p].Type)
	}
	return spread{kind: hashed, alts: []hashAlt{a}}
}

func (c *checker) exchange(n *fragment.Node) spread {
	sender := c.p.Fragments[n.Exchange.From]
	switch sender.Sink.Kind {
	case fragment.StreamGather:
		return spread{kind: single}
	case fragment.StreamBroadcast:
		return spread{kind: replicated}
	case fragment.StreamHash, fragment.StreamBucketHash:
		a := hashAlt{tag: "exchange hash of fragment " + strconv.Itoa(int(c.f.ID))}
		if sender.Sink.Kind == fragment.StreamBucketHash {
			if an := anchor(c.f.Root); an != nil {
				s := c.scan(an)
				if len(s.alts) == 1 {
					a = hashAlt{tag: s.alts[0].tag, storage: true, buckets: sender.Sink.Buckets}
				}
			}
		}
		a.keys = keyCanons(sender.Sink.Keys)
		for _, k := range sender.Sink.Keys {
			a.types = append(a.types, k.Expr.Type())
		}
		return spread{kind: hashed, alts: []hashAlt{a}}
	}
	return spread{kind: random}
}

// project maps a spread through a projection: a key survives when some
// output column computes exactly it, or when every column it reads is
// passed through (a hash on cast(#0 AS DOUBLE) is one on cast(#j AS
// DOUBLE) when output j is #0).
func project(s spread, exprs []fragment.Ex) spread {
	if s.kind != hashed {
		return s
	}
	passed := map[int]int{} // input column → an output column that is it
	for j, e := range exprs {
		if k := canon(e.Expr); strings.HasPrefix(k, "#") {
			if i, err := strconv.Atoi(k[1:]); err == nil {
				if _, seen := passed[i]; !seen {
					passed[i] = j
				}
			}
		}
	}
	out := spread{kind: hashed}
	for _, a := range s.alts {
		na := a
		na.keys = nil
		ok := true
		for _, k := range a.keys {
			j := slices.IndexFunc(exprs, func(e fragment.Ex) bool { return canon(e.Expr) == k })
			if j >= 0 {
				na.keys = append(na.keys, "#"+strconv.Itoa(j))
				continue
			}
			mk, mok := mapCols(k, passed)
			if !mok {
				ok = false
				break
			}
			na.keys = append(na.keys, mk)
		}
		if ok {
			out.alts = append(out.alts, na)
		}
	}
	if len(out.alts) == 0 {
		return spread{kind: random}
	}
	return out
}

// requireGrouped: every group of equal keys must be in one instance. Any
// hash alternative whose keys are all among keys does it (rows equal on
// keys are equal on the alternative's keys).
func (c *checker) requireGrouped(n *fragment.Node, s spread, keys []fragment.Ex, what string) error {
	if s.kind == single || c.singleFragment() {
		return nil
	}
	if len(keys) == 0 {
		return c.errf(n, "without %s it needs every row in one instance, but its input is %s", what, s)
	}
	if _, ok := groupedAlt(s, keys); ok {
		return nil
	}
	ks := make([]string, len(keys))
	for i, k := range keys {
		ks[i] = canon(k.Expr)
	}
	return c.errf(n, "its %s [%s] needs equal keys in one instance, but its input is %s", what, strings.Join(ks, ", "), s)
}

func groupedAlt(s spread, keys []fragment.Ex) (hashAlt, bool) {
	if s.kind != hashed {
		return hashAlt{}, false
	}
	set := map[string]int{}
	for i, k := range keys {
		set[canon(k.Expr)] = i
	}
	for _, a := range s.alts {
		ok := len(a.keys) > 0
		for _, k := range a.keys {
			if _, in := set[k]; !in {
				ok = false
			}
		}
		if ok {
			return a, true
		}
	}
	return hashAlt{}, false
}

func (c *checker) agg(n *fragment.Node, in spread) (spread, error) {
	a := n.Agg
	if err := c.notReplicated(n, in); err != nil {
		return spread{}, err
	}
	if a.Phase.Merges() {
		if err := c.readsPartials(n); err != nil {
			return spread{}, err
		}
	}
	if a.Phase.Finalizes() || a.Phase == fragment.AggMergeSerialize {
		if err := c.requireGrouped(n, in, a.Groups, "GROUP BY"); err != nil {
			return spread{}, err
		}
	}
	// Output: groups ++ aggregates; a key survives as its group's column,
	// as through a projection computing the groups.
	return project(in, a.Groups), nil
}

// readsPartials: a merge phase's input must be partial states, from a
// serialize phase below (through an exchange, projections or filters).
func (c *checker) readsPartials(n *fragment.Node) error {
	m := n.Children[0]
	for {
		switch m.Kind {
		case fragment.KindExchange:
			m = c.p.Fragments[m.Exchange.From].Root
			continue
		case fragment.KindProject, fragment.KindFilter:
			m = m.Children[0]
			continue
		case fragment.KindAgg:
			if !m.Agg.Phase.Finalizes() {
				return nil
			}
		}
		return c.errf(n, "a %s aggregation reads %s %d, not partial states", n.Agg.Phase, kindName(m.Kind), m.ID)
	}
}

func (c *checker) setOp(n *fragment.Node, in []spread) (spread, error) {
	allSingle := true
	for i, s := range in {
		if err := c.notReplicated(n.Children[i], s); err != nil {
			return spread{}, err
		}
		allSingle = allSingle && s.kind == single
	}
	if allSingle || c.singleFragment() {
		return spread{kind: single}, nil
	}
	if n.SetOp.Kind == fragment.SetUnionAll {
		return spread{kind: random}, nil
	}
	// Equal rows of every child must meet: all children hashed alike on
	// the same column positions with the same types.
	for _, a := range in[0].alts {
		if in[0].kind != hashed || !allColumns(a.keys) {
			continue
		}
		ok := true
		for _, s := range in[1:] {
			if s.kind != hashed || !slices.ContainsFunc(s.alts, func(b hashAlt) bool { return sameHash(a, b) && slices.Equal(a.keys, b.keys) }) {
				ok = false
			}
		}
		if ok {
			return spread{kind: hashed, alts: []hashAlt{a}}, nil
		}
	}
	return spread{}, c.errf(n, "%s needs equal rows of every input in one instance, but its inputs are %s", setOpName(n.SetOp.Kind), spreadsString(in))
}

func allColumns(keys []string) bool {
	for _, k := range keys {
		if !strings.HasPrefix(k, "#") || strings.ContainsAny(k, "(,") {
			return false
		}
	}
	return len(keys) > 0
}

// sameHash: two alternatives place equal keys in the same instance.
func sameHash(a, b hashAlt) bool {
	return a.tag == b.tag && a.storage == b.storage && a.buckets == b.buckets && len(a.keys) == len(b.keys) && sameTypes(a.types, b.types)
}

func spreadsString(in []spread) string {
	parts := make([]string, len(in))
	for i, s := range in {
		parts[i] = s.String()
	}
	return strings.Join(parts, "; ")
}

func (c *checker) join(n *fragment.Node, l, r spread) (spread, error) {
	j := n.Join
	nl := len(n.Children[0].Output)
	lk := keyCanons(j.LeftKeys)
	rk := keyCanons(j.RightKeys)
	for i := range j.LeftKeys {
		if lt, rt := j.LeftKeys[i].Expr.Type(), j.RightKeys[i].Expr.Type(); !sameType(lt, rt) {
			return spread{}, c.errf(n, "its key %d compares %s with %s: the sides must be cast to one type before they are hashed", i, lt, rt)
		}
	}
	if l.kind == replicated && !c.singleFragment() {
		return spread{}, c.errf(n, "its probe (left) side is broadcast: every instance would probe every row")
	}
	switch {
	case c.singleFragment():
	case j.Dist == fragment.DistBroadcast:
		if r.kind != replicated && r.kind != single {
			return spread{}, c.errf(n, "planned as broadcast but its build side is %s", r)
		}
		if r.kind == single && !c.singleFragment() && l.kind != single {
			return spread{}, c.errf(n, "planned as broadcast but its build side reaches one instance only")
		}
		switch j.Type {
		case fragment.JoinRightOuter, fragment.JoinFullOuter, fragment.JoinRightSemi, fragment.JoinRightAnti:
			return spread{}, c.errf(n, "a %s cannot broadcast its build side: each instance would emit the unmatched build rows again", j.Type)
		}
	case j.Dist == fragment.DistPartitioned:
		if !c.coPartitioned(l, r, lk, rk, false) {
			return spread{}, c.errf(n, "planned as partitioned (shuffle) but its sides are %s and %s, not hashed alike on keys [%s] = [%s]", l, r, strings.Join(lk, ", "), strings.Join(rk, ", "))
		}
	case j.Dist == fragment.DistColocate || j.Dist == fragment.DistBucketShuffle:
		if c.f.Partition != fragment.HashPartitioned {
			return spread{}, c.errf(n, "a %s join runs in a bucket-aligned fragment, but fragment is %s", distName(j.Dist), partName(c.f.Partition))
		}
		if !c.coPartitioned(l, r, lk, rk, true) {
			return spread{}, c.errf(n, "planned as %s but its sides are %s and %s, not bucketed alike on keys [%s] = [%s]", distName(j.Dist), l, r, strings.Join(lk, ", "), strings.Join(rk, ", "))
		}
		if j.Dist == fragment.DistColocate {
			if err := c.stableGroups(n); err != nil {
				return spread{}, err
			}
		}
	case j.Dist == fragment.DistNone:
		if l.kind != single || (r.kind != single && r.kind != replicated) {
			return spread{}, c.errf(n, "planned with both sides local, but its sides are %s and %s", l, r)
		}
	}
	if j.Type == fragment.JoinNullAwareLeftAnti && !c.singleFragment() && r.kind != replicated && r.kind != single {
		return spread{}, c.errf(n, "NOT IN needs the whole build side in every instance (a NULL there rejects every row), but it is %s", r)
	}
	if c.singleFragment() {
		return spread{kind: single}, nil
	}
	if j.Adaptive != nil {
		return c.adaptive(n)
	}
	// The output's spread: a side's placement holds for the output rows
	// carrying that side's real values. Outer joins pad the other side
	// with NULLs that sit wherever their row is, so its keys say nothing.
	var out spread
	keepL, keepR := j.Type.KeepsLeft(), j.Type.KeepsRight()
	shift := 0
	if keepL {
		shift = nl
	}
	addSide := func(s spread, off int) {
		if s.kind == hashed {
			for _, a := range s.alts {
				out.alts = append(out.alts, shiftAlt(a, off))
			}
		}
	}
	switch j.Type {
	case fragment.JoinFullOuter:
	case fragment.JoinLeftOuter:
		addSide(l, 0)
	case fragment.JoinRightOuter:
		addSide(r, shift)
	default:
		if keepL {
			addSide(l, 0)
		}
		if keepR && r.kind == hashed {
			addSide(r, shift)
		}
		if !keepL && r.kind == hashed {
			addSide(r, 0)
		}
	}
	if l.kind == single && (r.kind == single || r.kind == replicated) {
		return spread{kind: single}, nil
	}
	if len(out.alts) == 0 {
		return spread{kind: random}, nil
	}
	out.kind = hashed
	return out, nil
}

// coPartitioned: some alternative of each side hashes under the same tag
// and types, and position i of the left one is a left key whose paired
// right key is position i of the right one.
func (c *checker) coPartitioned(l, r spread, lk, rk []string, storage bool) bool {
	if l.kind != hashed || r.kind != hashed {
		return false
	}
	for _, a := range l.alts {
		for _, b := range r.alts {
			if a.storage != storage || !sameHash(a, b) {
				continue
			}
			ok := true
			for i := range a.keys {
				if !slices.ContainsFunc(pairs(lk, rk), func(p [2]string) bool { return p[0] == a.keys[i] && p[1] == b.keys[i] }) {
					ok = false
					break
				}
			}
			if ok {
				return true
			}
		}
	}
	return false
}

// stableGroups: a colocate join's scans must belong to a stable group
// (or be one table): an unstable group's buckets may sit on other backends.
func (c *checker) stableGroups(n *fragment.Node) error {
	var err error
	fragment.Walk(n, func(m *fragment.Node) {
		if m.Kind != fragment.KindScan || err != nil {
			return
		}
		if l, ok := c.tables(m.Scan.TableID); ok && l.Group != "" && !l.Stable {
			err = c.errf(n, "planned as colocate, but the colocate group of `%s` is not stable", m.Scan.Table)
		}
	})
	return err
}

func pairs(lk, rk []string) [][2]string {
	out := make([][2]string, len(lk))
	for i := range lk {
		out[i] = [2]string{lk[i], rk[i]}
	}
	return out
}

func shiftAlt(a hashAlt, off int) hashAlt {
	if off == 0 {
		return a
	}
	na := a
	na.keys = make([]string, len(a.keys))
	for i, k := range a.keys {
		na.keys[i] = shiftCols(k, off)
	}
	return na
}

// mapCols renumbers the column references of a canonical expression by
// m; false if it reads a column m lacks.
func mapCols(k string, m map[int]int) (string, bool) {
	return renumber(k, func(v int) (int, bool) { to, ok := m[v]; return to, ok })
}

// shiftCols renumbers the column references of a canonical expression.
func shiftCols(k string, off int) string {
	out, _ := renumber(k, func(v int) (int, bool) { return v + off, true })
	return out
}

// renumber rewrites every #n of a canonical expression to #f(n); false if
// f refuses one.
func renumber(k string, f func(int) (int, bool)) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(k); i++ {
		if k[i] != '#' {
			b.WriteByte(k[i])
			continue
		}
		j := i + 1
		for j < len(k) && k[j] >= '0' && k[j] <= '9' {
			j++
		}
		v, err := strconv.Atoi(k[i+1 : j])
		to, ok := f(v)
		if err != nil || !ok {
			return "", false
		}
		b.WriteString("#" + strconv.Itoa(to))
		i = j - 1
	}
	return b.String(), true
}

// keyCanons prints join keys without the widening casts the binder puts
// on both sides of a comparison: the cast is one-to-one, so keys equal
// after it were equal before, and the rows meet wherever the uncast
// columns place them.
func keyCanons(es []fragment.Ex) []string {
	out := make([]string, len(es))
	for i, e := range es {
		x := e.Expr
		for {
			ca, ok := x.(*expr.Cast)
			if !ok || !widening(ca.Arg.Type(), ca.To) {
				break
			}
			x = ca.Arg
		}
		out[i] = canon(x)
	}
	return out
}

// widening: every value of from converts to a distinct value of to.
func widening(from, to types.T) bool {
	switch {
	case from.IsInteger() && from.Kind != types.LargeInt:
		return to.IsInteger() && to.Kind >= from.Kind || to.Kind == types.Decimal && to.Precision-to.Scale >= 19
	case from.Kind == types.Decimal:
		return to.Kind == types.Decimal && to.Scale >= from.Scale && to.Precision-to.Scale >= from.Precision-from.Scale
	case from.IsString():
		return to.IsString() && to.Length == 0
	}
	return false
}

// canon prints an expression with columns as their input positions, so
// two expressions over the same columns print alike whatever their names.
func canon(e expr.Expr) string {
	switch x := e.(type) {
	case *expr.ColRef:
		return "#" + strconv.Itoa(x.Index)
	case *expr.Const:
		return x.String() + ":" + x.Val.T.String()
	case *expr.Param:
		return "?" + strconv.Itoa(x.Index)
	case *expr.Cast:
		return "cast(" + canon(x.Arg) + " as " + x.To.String() + ")"
	case *expr.Call:
		parts := make([]string, len(x.Args))
		for i, a := range x.Args {
			parts[i] = canon(a)
		}
		return x.Fn + "(" + strings.Join(parts, ",") + ")"
	}
	parts := []string{}
	for _, ch := range e.Children() {
		parts = append(parts, canon(ch))
	}
	return fmt.Sprintf("%T(%s)", e, strings.Join(parts, ","))
}

// sameType: equal values of the two types hash alike (types.HashColumns
// hashes every integer width as int64 and strings by their bytes, but a
// decimal by its unscaled value, so its scale matters).
func sameType(a, b types.T) bool { return hashClass(a) == hashClass(b) }

func hashClass(t types.T) string {
	switch {
	case t.IsInteger() && t.Kind != types.LargeInt:
		return "int"
	case t.IsString():
		return "string"
	case t.Kind == types.Decimal:
		return "decimal/" + strconv.Itoa(t.Scale)
	}
	return t.Kind.String() + "/" + strconv.Itoa(t.Scale) + "/" + strconv.Itoa(t.Precision)
}

func sameTypes(a, b []types.T) bool {
	return slices.EqualFunc(a, b, sameType)
}

func partName(p fragment.PartitionKind) string {
	return [...]string{"UNPARTITIONED", "HASH_PARTITIONED", "RANDOM"}[p]
}

func distName(d fragment.Distribution) string {
	return [...]string{"local", "broadcast", "partitioned", "bucket shuffle", "colocate"}[d]
}

func setOpName(k fragment.SetOpKind) string {
	return [...]string{"UNION ALL", "UNION", "INTERSECT", "EXCEPT"}[k]
}

var kindNames = [...]string{"scan", "filter", "project", "limit", "values", "exchange", "hash join", "nested loop join",
	"aggregation", "sort", "top-n", "set operation", "window", "apply", "repeat", "table function"}

func kindName(k fragment.NodeKind) string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "node kind " + strconv.Itoa(int(k))
}

// adaptive checks a join that may run as BROADCAST or spread skewed keys
// (fragment.AdaptiveJoin). Its output is placed as the run decides, so
// nothing above it may rely on where its rows lie: it is random.
func (c *checker) adaptive(n *fragment.Node) (spread, error) {
	j, a := n.Join, n.Join.Adaptive
	if j.Dist != fragment.DistPartitioned {
		return spread{}, c.errf(n, "adaptive but planned as %s: only a partitioned join may adapt", distName(j.Dist))
	}
	switch j.Type {
	case fragment.JoinRightOuter, fragment.JoinFullOuter, fragment.JoinRightSemi, fragment.JoinRightAnti, fragment.JoinNullAwareLeftAnti:
		return spread{}, c.errf(n, "adaptive, but a %s cannot run with its build side replicated", j.Type)
	}
	for i, id := range []fragment.NodeID{a.Probe, a.Build} {
		x := n.Children[i]
		if x.ID != id || x.Kind != fragment.KindExchange || x.Exchange == nil {
			return spread{}, c.errf(n, "adaptive, but its side %d is not the exchange %d it names", i, id)
		}
		if k := c.p.Fragments[x.Exchange.From].Sink.Kind; k != fragment.StreamHash {
			return spread{}, c.errf(n, "adaptive, but exchange %d is fed by a %v sink, not a hash shuffle", x.ID, k)
		}
	}
	return spread{kind: random}, nil
}
