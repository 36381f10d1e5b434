package physical

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dorisgo/dorisgo/planner/explain"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/planner/props"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/storage"
)

var _ explain.Node = (*pnode)(nil)

// show is an expression as EXPLAIN prints it: columns replaced by what
// computes them.
func (d *distPlanner) show(e expr.Expr) string {
	return strings.ReplaceAll(d.display(e).String(), "`*`", "*")
}

func (d *distPlanner) showAll(es []expr.Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = d.show(e)
	}
	return strings.Join(parts, ", ")
}

func (d *distPlanner) sinkText(x *pnode) string {
	if x.exch.tabletSink {
		if len(x.exch.keys) == 0 {
			return "TABLET_SINK_SHUFFLE_PARTITIONED"
		}
		return "TABLET_SINK_SHUFFLE_PARTITIONED: " + d.showAll(x.exch.keys)
	}
	switch x.exch.req.Kind {
	case props.ReqHash:
		return "HASH_PARTITIONED: " + d.showAll(x.exch.keys)
	case props.ReqBucket:
		return "BUCKET_SHFFULE_HASH_PARTITIONED: " + d.showAll(x.exch.keys)
	case props.ReqAny, props.ReqExecRandom:
		return "RANDOM"
	}
	return "UNPARTITIONED"
}

// fragPartition is how a fragment's rows are spread over its instances.
type fragPartition uint8

const (
	partSingle fragPartition = iota // one instance (UNPARTITIONED)
	partRandom                      // any placement
	partHash                        // hashed on keys (storage buckets or an exchange)
)

// spread decides how f's rows are spread, from its leftmost leaf: a
// scan spreads them by the table's distribution, an exchange by its kind.
func (d *distPlanner) spread(f *pfrag) fragPartition {
	l := leftmost(f.root)
	switch l.op {
	case opScan:
		if !l.scan.hashPartitioned() {
			return partRandom
		}
		return partHash
	case opExchange:
		switch l.exch.req.Kind {
		case props.ReqHash, props.ReqBucket:
			return partHash
		case props.ReqExecRandom:
			return partRandom
		}
	}
	return partSingle
}

// partitionText is EXPLAIN's PARTITION line for f.
func (d *distPlanner) partitionText(f *pfrag) string {
	switch d.spread(f) {
	case partRandom:
		return "RANDOM"
	case partSingle:
		return "UNPARTITIONED"
	}
	l := leftmost(f.root)
	if l.op == opExchange {
		return "HASH_PARTITIONED: " + d.showAll(l.exch.keys)
	}
	t := l.scan.ls.Table
	var cols []string
	for _, c := range t.Dist.Columns {
		cols = append(cols, "`"+l.scan.ls.Alias+"`.`"+t.Columns[c].Name+"`")
	}
	return "HASH_PARTITIONED: " + strings.Join(cols, ", ")
}

// NodeID implements explain.Node.
func (n *pnode) NodeID() int { return int(n.id) }

// Inputs implements explain.Node: in-fragment children, hidden ones skipped.
func (n *pnode) Inputs() []explain.Node {
	if n.op == opExchange {
		return nil
	}
	var out []explain.Node
	for _, c := range n.children {
		out = append(out, visibleNode(c))
	}
	return out
}

var distNames = map[fragment.Distribution]string{fragment.DistBroadcast: "BROADCAST", fragment.DistPartitioned: "PARTITIONED",
	fragment.DistBucketShuffle: "BUCKET_SHUFFLE", fragment.DistColocate: "COLOCATE"}

var applyKindNames = [...]string{fragment.ApplyScalar: "SCALAR", fragment.ApplyExists: "EXISTS", fragment.ApplyIn: "IN"}

// Label implements explain.Node.
func (n *pnode) Label() string {
	switch n.op {
	case opScan:
		return "OlapScanNode"
	case opFilter:
		return "SELECT"
	case opValues:
		return "UNION"
	case opTableFunc:
		return "DataGenScanNode"
	case opJoin:
		switch {
		case !n.join.nested():
			return "HASH JOIN"
		case n.join.typ == fragment.JoinCross || n.join.typ == fragment.JoinInner:
			return "CROSS JOIN"
		}
		return "NESTED LOOP JOIN"
	case opAgg:
		return "AGGREGATE (" + n.agg.phase.String() + ")"
	case opSort:
		return "SORT"
	case opTopN:
		return "TOP-N"
	case opSetOp:
		return [...]string{"UNION", "UNION", "INTERSECT", "EXCEPT"}[n.setop.Kind]
	case opWindow:
		return "ANALYTIC"
	case opRepeat:
		return "REPEAT_NODE"
	case opApply:
		return "APPLY"
	case opExchange:
		if n.exch.merge {
			return "MERGING-EXCHANGE"
		}
		return "EXCHANGE"
	}
	return "?"
}

// Explain implements explain.Node.
func (n *pnode) Explain(w *explain.Writer) {
	d := n.pl
	switch n.op {
	case opScan:
		so := n.scan
		t := so.ls.Table
		w.Attr("TABLE: %s", t.Name)
		// Rows of an AGGREGATE or a merge-on-read UNIQUE table are merged
		// as they are read; merge-on-write tables read without merging.
		if t.Keys == storage.AggKeys || t.Keys == storage.UniqueKeys && !t.MergeOnWrite() {
			w.Attr("PREAGGREGATION: OFF. Reason: No AggregateInfo")
		} else {
			w.Attr("PREAGGREGATION: ON")
		}
		if len(so.conds) > 0 {
			w.Attr("PREDICATES: %s", d.showAll(so.conds))
		}
		// As Doris's OlapScanNode: of the selected partitions' tablets,
		// those bucket pruning kept.
		total := 0
		for _, p := range t.Partitions {
			if slices.Contains(so.partIDs, p.ID) {
				total += len(p.Tablets)
			}
		}
		w.Attr("partitions=%d/%d", so.parts, len(t.Partitions))
		w.Attr("tablets=%d/%d", len(so.tablets), total)
		var ids []string
		for i, tb := range so.tablets {
			if i == 3 {
				ids = append(ids, "...")
				break
			}
			ids = append(ids, fmt.Sprint(tb.Tablet))
		}
		w.Attr("tabletList=%s", strings.Replace(strings.Join(ids, ","), ",...", " ...", 1))
		for _, rf := range d.rfTarget[n.id] {
			if rf.Column < len(n.cols) {
				w.Attr("runtime filters: RF%03d[min_max, bloom] -> %s", rf.ID, d.show(n.cols[rf.Column].Ref()))
			}
		}
		n.writeCard(w)
		w.Attr("avgRowSize=%.1f", n.width)
		w.Attr("numNodes=%d", so.backends)
	case opFilter:
		w.Attr("predicates: %s", d.showAll(n.conds))
		n.writeCard(w)
	case opTableFunc:
		w.Attr("table value function: %s", tableFuncText(n.tfunc))
		n.writeCard(w)
	case opValues:
		if len(n.values.Rows) > 0 && len(n.values.Cols) > 0 {
			w.Attr("constant exprs:")
			for _, r := range n.values.Rows {
				parts := make([]string, len(r))
				for i, e := range r {
					parts[i] = d.show(e)
				}
				w.Attr("    %s", strings.Join(parts, " | "))
			}
		}
	case opJoin:
		n.explainJoin(w)
	case opAgg:
		a := n.agg
		if a.phase == fragment.AggUpdateSerialize && len(a.l.Groups) > 0 {
			w.Attr("STREAMING")
		}
		var outs []string
		for i, c := range a.l.Aggs {
			s := d.show(c.Col.Ref())
			if a.merge != nil {
				s = strings.SplitN(c.Fn, " ", 2)[0] + "(" + d.show(a.merge.partial[i][0].Ref()) + ")" // AVG: its sum stands for the state
			}
			outs = append(outs, s)
		}
		if len(outs) > 0 {
			w.Attr("output: %s", strings.Join(outs, ", "))
		}
		w.Attr("group by: %s", d.showAll(a.l.Groups))
		if len(a.having) > 0 {
			w.Attr("having: %s", d.showAll(a.having))
		}
		n.writeCard(w)
	case opSort, opTopN:
		w.Attr("order by: %s", d.sortText(n.keys))
		w.Attr("offset: %d", n.offset)
		if n.op == opTopN {
			w.Attr("limit: %d", n.count)
		}
	case opWindow:
		var fns []string
		for _, c := range n.window.Calls {
			fns = append(fns, d.show(c.Col.Ref()))
		}
		w.Attr("functions: [%s]", strings.Join(fns, ", "))
		if c := n.window.Calls; len(c) > 0 && len(c[0].PartitionBy) > 0 {
			w.Attr("partition by: %s", d.showAll(c[0].PartitionBy))
		}
		if c := n.window.Calls; len(c) > 0 && len(c[0].OrderBy) > 0 {
			w.Attr("order by: %s", d.sortText(c[0].OrderBy))
		}
	case opRepeat:
		n.explainRepeat(w)
	case opApply:
		a := n.apply
		w.Attr("subquery: %s (per outer row, right input)", applyKindNames[a.Kind])
		if a.Probe != nil {
			w.Attr("probe: %s", d.show(a.Probe))
		}
		n.writeCard(w)
	case opExchange:
		x := n.exch
		if x.merge {
			if x.offset > 0 {
				w.Attr("offset: %d", x.offset)
			}
			if x.limit >= 0 {
				w.Attr("limit: %d", x.limit)
			}
		} else if l := n.exchLimit; l != nil {
			if l.offset > 0 {
				w.Attr("offset: %d", l.offset)
			}
			if l.count >= 0 {
				w.Attr("limit: %d", l.count)
			}
		}
		w.VAttr("cardinality=%d", n.rows)
	}
	for i, dec := range n.local {
		// NOOP is shown only when a general rule overrode what was asked.
		if dec.kind != fragment.LocalNoop || dec.rule != "" {
			w.VAttr("LOCAL-EXCHANGE (%s)", localSide(n, i))
			d.explainLocal(w, dec)
		}
	}
}

// explainLocal writes a local exchange's verbose lines.
func (d *distPlanner) explainLocal(w *explain.Writer, dec localDecision) {
	w.VAttr("  type: %s", dec.kind)
	if len(dec.keys) > 0 {
		w.VAttr("  keys: %s", d.showAll(dec.keys))
	}
	if dec.rule != "" {
		w.VAttr("  rule: %s", dec.rule)
	}
}

func (d *distPlanner) sortText(keys []logical.SortKey) string {
	var parts []string
	for _, k := range keys {
		dir := "ASC"
		if k.Desc {
			dir = "DESC"
		}
		parts = append(parts, d.show(k.Expr)+" "+dir)
	}
	return strings.Join(parts, ", ")
}

func (n *pnode) explainJoin(w *explain.Writer) {
	d, j := n.pl, n.join
	if j.nested() {
		if n.Label() == "CROSS JOIN" {
			w.Attr("cross join:")
		} else if j.dist == fragment.DistBroadcast {
			w.Attr("join op: %s (BROADCAST)", j.typ)
		} else {
			w.Attr("join op: %s", j.typ)
		}
		if j.merge && j.ignored != ReasonNone {
			w.Attr("hint: %s ignored, reason: %s", j.hintTxt, j.ignored)
		}
		if len(j.other) > 0 {
			w.Attr("predicates: %s", d.showAll(j.other))
		} else {
			w.Attr("predicates is NULL.")
		}
		n.writeCard(w)
		return
	}
	w.Attr("join op: %s (%s)", j.typ, distNames[j.shown()])
	if j.sortMerge {
		w.Attr("join algorithm: SORT MERGE")
	}
	w.Attr("hash predicates:")
	if j.colocate == ReasonNone {
		w.Attr("colocate: true")
	} else {
		w.Attr("colocate: false, reason: %s", j.colocate)
	}
	if j.ignored != ReasonNone {
		w.Attr("hint: %s ignored, reason: %s", j.hintTxt, j.ignored)
	}
	for _, e := range j.equi {
		op := "="
		if e.NullSafe && e.L.Nullable() && e.R.Nullable() {
			op = "<=>"
		}
		w.Attr("equal join conjunct: %s %s %s", d.show(e.L), op, d.show(e.R))
	}
	if len(j.other) > 0 {
		w.Attr("other join predicates: %s", d.showAll(j.other))
	}
	for _, rf := range d.rfBuild[n.id] {
		if rf.Key < len(j.equi) {
			w.Attr("runtime filters: RF%03d[min_max, bloom] <- %s", rf.ID, d.show(j.equi[rf.Key].R))
		}
	}
	n.writeCard(w)
	if a := j.adaptive; a != nil {
		switch {
		case a.Planned == fragment.AdaptBroadcast:
			// Plain EXPLAIN says it too: the exchanges below are hash
			// shuffles, which a BROADCAST join would not have.
			w.Attr("adaptive: the build side estimate is a guess; runs PARTITIONED if it has more than %d rows or %d bytes", a.MaxRows, a.MaxBytes)
		case w.Verbose():
			w.Attr("adaptive: may run as BROADCAST if the build side has at most %d rows and %d bytes", a.MaxRows, a.MaxBytes)
		}
		if w.Verbose() && a.SkewShare > 0 {
			w.Attr("adaptive: else a key over %g%% of the probe side is spread over every instance", 100*a.SkewShare)
		}
	}
	if w.Verbose() {
		w.Attr("distribution candidates:")
		for _, c := range j.cands {
			state := "rejected, reason: " + c.reason.String()
			switch {
			case c.dist == j.shown():
				state = "chosen"
			case c.ok:
				state = "possible, not taken"
			}
			w.Attr("  %s: network bytes=%d, %s", distNames[c.dist], c.bytes, state)
		}
	}
}
