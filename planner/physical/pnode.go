package physical

import (
	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/planner/props"
	"github.com/dorisgo/dorisgo/sql/expr"
)

// op is a physical operator kind.
type op uint8

const (
	opScan op = iota
	opFilter
	opProject
	opLimit
	opValues
	opJoin
	opAgg
	opSort
	opTopN
	opSetOp
	opWindow
	opRepeat // grouping sets (repeat.go)
	opExchange
	opTableFunc // a table-valued function (numbers): one instance, not OLAP
	opApply     // a correlated subquery per outer row (apply.go): children outer, subquery
)

// pnode is one operator of the distributed physical plan. Only
// EnforceDistribution creates opExchange nodes and merge aggregations.
type pnode struct {
	op     op
	id     fragment.NodeID
	hidden bool // not an EXPLAIN node (projections, bare limits)
	// params: the operator reads an enclosing Apply's outer row, so it
	// runs in that row's instance (apply.go).
	params   bool
	children []*pnode
	cols     []logical.Column
	rows     int64   // estimated cardinality, -1 unknown
	est      string  // where rows came from ("": the default rules; stats.go)
	width    float64 // bytes per row
	del      props.Delivered
	pl       *distPlanner
	frag     *pfrag

	scan   *scanOp
	conds  []expr.Expr // filter
	exprs  []expr.Expr // project
	offset int64       // limit, top-n
	count  int64       // limit, top-n (-1 all)
	values *logical.Values
	join   *joinOp
	agg    *aggOp
	keys   []logical.SortKey // sort, top-n
	setop  *logical.SetOp
	window *logical.Window
	repeat *logical.Repeat
	tfunc  *logical.TableFunc
	apply  *logical.Apply
	exch   *exchOp
	// exchLimit is a LIMIT directly above an exchange (EXPLAIN prints it there).
	exchLimit *pnode
	// reqs[i] is what this node required of child i (edge check).
	reqs []props.Required
	// local is the local exchange on each input edge (nil: none planned).
	local []localDecision
}

// scanOp reads the selected tablets of one OLAP table.
type scanOp struct {
	ls       *logical.Scan
	conds    []expr.Expr
	tablets  []fragment.TabletRef
	parts    int // selected partitions
	partIDs  []catalog.PartitionID
	backends int // distinct backends holding the selected tablets
	group    *catalog.ColocateGroup
	// distIDs are the column ids of the distribution columns (-1: not read).
	distIDs []logical.ColumnID
	// total is the selected tablets' rows before the scan's predicates:
	// a bound an adaptive broadcast weighs its guessed estimate against.
	total int64
}

// aggPhase is how an aggregation node runs.
type aggOp struct {
	l      *logical.Aggregate
	having []expr.Expr
	phase  fragment.AggPhase
	// partial are the intermediate columns of update serialize, per call
	// (AVG has two: its sum and its count).
	partial [][]logical.Column
	// merge: this node merges the partial node's output.
	merge *aggOp
	// havingGuess: a HAVING cut the estimate by a guessed selectivity.
	havingGuess bool
}

// exchOp is an exchange: it receives what the child's fragment sends.
type exchOp struct {
	req   props.Required
	keys  []expr.Expr // partition keys over the child's columns
	merge bool        // MERGING-EXCHANGE
	sort  []logical.SortKey
	// offset/limit applied by a merging exchange.
	offset, limit int64
	buckets       int
	// tabletSink: the exchange feeding an OLAP TABLE SINK, hashed by the
	// target table's distribution (Doris's TABLET_SINK_SHUFFLE_PARTITIONED).
	tabletSink bool
}

// pfrag is a fragment while cutting.
type pfrag struct {
	root  *pnode
	touch int
	id    fragment.FragmentID
	sink  *pnode // the exchange reading this fragment (nil: result or table sink)
	// table is the root fragment's OLAP TABLE SINK (INSERT … SELECT).
	table *tableSinkOp
	// tasks > 1: local exchanges were planned; sinkLocal sits before the sink.
	tasks     int
	sinkLocal *localDecision
}

func (n *pnode) child() *pnode { return n.children[0] }
