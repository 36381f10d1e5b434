package physical

import (
	"fmt"
	"math"
	"strings"

	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/planner/props"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/hint"
)

// hintKind is a join hint after Doris and Spark spellings are unified.
type hintKind uint8

const (
	hintNone hintKind = iota
	hintShuffle
	hintBroadcast
	hintBucket
	hintColocate
	hintNestedLoop // SHUFFLE_REPLICATE_NL
)

// joinOp is a hash or nested loop join and the distribution chosen for it.
type joinOp struct {
	typ     fragment.JoinType
	equi    []logical.EquiCond
	other   []expr.Expr
	hint    hintKind
	hintTxt string
	// swapped: a RIGHT OUTER JOIN without equi keys runs mirrored.
	swapped bool
	outCols []logical.Column // written column order when swapped

	dist     fragment.Distribution
	colocate Reason // ReasonNone: colocate: true
	// ignored is the reason a hint was not honoured (ReasonNone: honoured or none).
	ignored Reason
	cands   []candidate
	// noBroadcast: a hint asked to broadcast the preserved side, so the
	// join broadcasts neither.
	noBroadcast bool
	// merge: a Spark MERGE-family hint applies; sortMerge: it is honoured,
	// so the join runs as a sort-merge join (distributed as [shuffle]).
	merge, sortMerge bool
	// adaptive: the join may run as BROADCAST once its build side is
	// measured (adaptive.go).
	adaptive *fragment.AdaptiveJoin
	// mayShuffle: BROADCAST was chosen from a guessed build side estimate
	// that, at its bound, would not broadcast; markAdaptive may plan it
	// adaptive (adaptBroadcast). planned is DistBroadcast once it did:
	// what EXPLAIN shows, while dist is the PARTITIONED shape it runs in.
	mayShuffle bool
	planned    fragment.Distribution
}

// shown is the distribution EXPLAIN prints: the planned one of a
// broadcast that may adapt, else the one the join runs as.
func (j *joinOp) shown() fragment.Distribution {
	if j.planned != fragment.DistNone {
		return j.planned
	}
	return j.dist
}

// candidate is one distribution considered for an equi join (EXPLAIN VERBOSE).
type candidate struct {
	dist   fragment.Distribution
	ok     bool
	reason Reason
	bytes  int64 // estimated network bytes (-1 unknown)
}

func (j *joinOp) nested() bool { return len(j.equi) == 0 }

func (d *distPlanner) buildJoin(x *logical.Join) (*pnode, error) {
	l, err := d.build(x.Left)
	if err != nil {
		return nil, err
	}
	r, err := d.build(x.Right)
	if err != nil {
		return nil, err
	}
	jo := &joinOp{typ: x.Type, equi: x.Equi, other: x.Other}
	switch x.Hint.Kind {
	case hint.Shuffle:
		jo.hint = hintShuffle
	case hint.Broadcast:
		jo.hint = hintBroadcast
	case hint.Bucket:
		jo.hint = hintBucket
	case hint.Colocate:
		jo.hint = hintColocate
	}
	jo.hintTxt = x.Hint.Text
	if jo.hint == hintNone {
		l, r = d.sparkHint(jo, l, r)
	}
	if jo.hint == hintNestedLoop && !jo.nested() && jo.typ != fragment.JoinNullAwareLeftAnti {
		// SHUFFLE_REPLICATE_NL: the equi conditions become nested loop
		// predicates.
		other := make([]expr.Expr, 0, len(jo.equi)+len(jo.other))
		for _, e := range jo.equi {
			fn := "eq"
			if e.NullSafe {
				fn = "null_safe_eq"
			}
			c, err := expr.NewCall(fn, e.L, e.R)
			if err != nil {
				return nil, err
			}
			other = append(other, c)
		}
		jo.equi, jo.other = nil, append(other, jo.other...)
	}
	if jo.hint == hintNone && !jo.nested() && !jo.merge && l.rows >= 0 && r.rows > 4*l.rows {
		// Build the small side: a join whose right side is much bigger
		// runs with the sides swapped (Doris commutes these joins too).
		// LEFT SEMI/ANTI become RIGHT SEMI/ANTI, which output the same
		// (left) columns: TPC-H Q22's NOT EXISTS over orders built a
		// 1.5M-row table. LEFT OUTER becomes the mirrored RIGHT OUTER (the
		// build side keeps its unmatched rows) and a projection puts the
		// columns back in order: Q13 built its 1.5M orders and probed them
		// with 150k customers, a chain walk through 24 MB per probe; built
		// on the customers, the orders stream through a cached table.
		swap := true
		switch jo.typ {
		case fragment.JoinLeftSemi:
			jo.typ = fragment.JoinRightSemi
		case fragment.JoinLeftAnti:
			jo.typ = fragment.JoinRightAnti
		case fragment.JoinLeftOuter:
			jo.outCols = append(append([]logical.Column{}, l.cols...), r.cols...)
			jo.typ, jo.swapped = fragment.JoinRightOuter, true
		default:
			swap = false
		}
		if swap {
			l, r = r, l
			jo.equi = swapEqui(jo.equi)
		}
	}
	if jo.nested() {
		// A nested loop joins a streamed left side with a built right one
		// that may be replicated, so right-preserving joins run mirrored
		// (only FULL OUTER must see both sides whole, in one instance).
		switch jo.typ {
		case fragment.JoinRightOuter:
			jo.outCols = append(append([]logical.Column{}, l.cols...), r.cols...)
			jo.typ, l, r, jo.swapped = fragment.JoinLeftOuter, r, l, true
		case fragment.JoinRightSemi:
			jo.typ, l, r = fragment.JoinLeftSemi, r, l
		case fragment.JoinRightAnti:
			jo.typ, l, r = fragment.JoinLeftAnti, r, l
		}
	}
	var cols []logical.Column
	if jo.typ.KeepsLeft() {
		cols = append(cols, l.cols...)
	}
	if jo.typ.KeepsRight() {
		cols = append(cols, r.cols...)
	}
	var rows int64
	switch jo.typ {
	case fragment.JoinRightOuter, fragment.JoinRightSemi, fragment.JoinRightAnti:
		rows = r.rows
	case fragment.JoinFullOuter:
		rows = addRows(l.rows, r.rows)
	case fragment.JoinCross:
		rows = -1
		if l.rows >= 0 && r.rows >= 0 {
			rows = l.rows * r.rows
		}
	default:
		rows = l.rows
	}
	est := ""
	if !jo.nested() {
		if r2, note, ok := d.joinRows(jo.typ, l, r, jo.equi); ok {
			rows, est = r2, note
			if jo.typ == fragment.JoinInner && len(jo.other) > 0 {
				// The join's other conjuncts filter the matched pairs as
				// a filter would (Q20's ps_availqty > 0.5 * sum(l_quantity)).
				sel, used := d.conjunction(jo.other)
				rows = max(1, int64(math.Round(float64(rows)*sel)))
				if len(used) == 0 {
					used = []string{fmt.Sprintf("default %g per other conjunct", defaultSel)}
				}
				est += "; other conjuncts: " + strings.Join(used, ", ")
			}
		}
	}
	if jo.typ == fragment.JoinInner {
		for _, e := range jo.equi {
			lr, lok := e.L.(*expr.ColRef)
			rr, rok := e.R.(*expr.ColRef)
			if lok && rok && !e.NullSafe {
				d.eq.Union(logical.ColumnID(lr.Index), logical.ColumnID(rr.Index))
			}
		}
	}
	jn := d.visible(&pnode{op: opJoin, children: []*pnode{l, r}, cols: cols, join: jo, rows: rows, est: est, width: l.width + r.width})
	if !jo.swapped {
		return jn, nil
	}
	// The mirrored join writes (right, left); parents read the columns in
	// the written order, so a projection puts them back.
	return d.visible(&pnode{op: opProject, hidden: true, children: []*pnode{jn}, cols: jo.outCols,
		exprs: colRefs(jo.outCols), rows: rows, width: jn.width}), nil
}

// sparkHint applies a statement-level Spark hint naming one side's table:
// it acts on the join whose right input is that table; an INNER join whose
// left input is that table swaps its sides first.
func (d *distPlanner) sparkHint(jo *joinOp, l, r *pnode) (*pnode, *pnode) {
	for _, h := range d.ctx.Spark {
		for _, t := range h.Tables {
			onRight := strings.EqualFold(alias(r), t)
			onLeft := strings.EqualFold(alias(l), t)
			if !onRight && !onLeft {
				continue
			}
			jo.hintTxt = h.String()
			switch h.Kind {
			case hint.SparkBroadcast:
				jo.hint = hintBroadcast
			case hint.SparkShuffleHash:
				jo.hint = hintShuffle
			case hint.SparkMerge:
				jo.hint, jo.merge = hintShuffle, true
			case hint.SparkShuffleReplicateNL:
				jo.hint = hintNestedLoop
			}
			if !onRight && jo.hint == hintBroadcast {
				// Broadcasting the left input: an INNER join swaps its
				// sides, a RIGHT OUTER one runs as the mirrored LEFT OUTER
				// join (Spark's buildable left); a join that preserves its
				// left side cannot build it, and then broadcasts nothing.
				switch jo.typ {
				case fragment.JoinInner:
					jo.equi = swapEqui(jo.equi)
					return r, l
				case fragment.JoinRightOuter:
					jo.outCols = append(append([]logical.Column{}, l.cols...), r.cols...)
					jo.typ, jo.swapped = fragment.JoinLeftOuter, true
					jo.equi = swapEqui(jo.equi)
					return r, l
				}
				jo.ignored, jo.noBroadcast = ReasonNoBroadcast, true
				return l, r
			}
			if !onRight && jo.hint != hintNestedLoop {
				jo.ignored = ReasonSparkSide
			}
			return l, r
		}
	}
	return l, r
}

func swapEqui(es []logical.EquiCond) []logical.EquiCond {
	out := make([]logical.EquiCond, len(es))
	for i, e := range es {
		out[i] = logical.EquiCond{L: e.R, R: e.L, NullSafe: e.NullSafe}
	}
	return out
}

// alias is the table alias a side reads, if it is one scan (through
// filters and projections).
func alias(n *pnode) string {
	for {
		switch n.op {
		case opScan:
			return n.scan.ls.Alias
		case opFilter, opProject, opLimit:
			n = n.child()
			continue
		}
		return ""
	}
}

// systemTable: the side reads an information_schema table (through
// filters and projections).
func systemTable(n *pnode) bool {
	for {
		switch n.op {
		case opValues:
			return n.values.System
		case opFilter, opProject, opLimit, opExchange:
			n = n.child()
			continue
		}
		return false
	}
}

// canBroadcast: the join type allows building a replicated right side.
func canBroadcast(t fragment.JoinType) bool {
	switch t {
	case fragment.JoinRightOuter, fragment.JoinFullOuter, fragment.JoinRightSemi, fragment.JoinRightAnti:
		return false
	}
	return true
}

// sideReq is what the join asks of one side.
type sideReq struct {
	req  props.Required
	keys []expr.Expr // exchange keys over the side's columns
	// exchange: put an exchange even when the side already delivers req.
	// A bucket shuffle join's right side is always shuffled: when its rows
	// already lie in the left's buckets the join is a colocate one, which
	// the planner turned down for a reason (disable_colocate_plan, a hint).
	exchange bool
}

// decideJoin chooses the distribution of j (its children already enforced)
// and returns what it requires of each side (DORIS-PLANNING.md §2).
func (d *distPlanner) decideJoin(n *pnode) (left, right sideReq) {
	j := n.join
	l, r := n.children[0], n.children[1]
	any := sideReq{req: props.Required{Kind: props.ReqAny}}
	single := sideReq{req: props.Required{Kind: props.ReqSingle}}
	replicated := sideReq{req: props.Required{Kind: props.ReqReplicated}}
	if j.nested() {
		if j.merge && j.ignored == ReasonNone {
			j.ignored = ReasonMergeNeedsEqui
		}
		switch j.typ {
		case fragment.JoinCross, fragment.JoinInner, fragment.JoinLeftOuter, fragment.JoinLeftSemi, fragment.JoinLeftAnti, fragment.JoinNullAwareLeftAnti:
			j.dist = fragment.DistBroadcast
			if l.del.Kind == props.DelSingle {
				j.dist = fragment.DistNone
				return any, single
			}
			return any, replicated
		}
		j.dist = fragment.DistNone
		return single, single
	}

	colocateReason, _ := d.checkColocate(n)
	bucketReason, bucket := d.checkBucket(n)

	// Is the hint honoured?
	honoured := false
	switch j.hint {
	case hintShuffle:
		if j.typ == fragment.JoinNullAwareLeftAnti {
			j.ignored = ReasonNoShuffle
		} else {
			honoured = true
		}
	case hintBroadcast:
		if canBroadcast(j.typ) {
			honoured = true
		} else {
			j.ignored = ReasonNoBroadcast
		}
	case hintBucket:
		if bucketReason == ReasonNone {
			honoured = true
		} else {
			j.ignored = bucketReason
		}
	case hintColocate:
		if colocateReason == ReasonNone {
			honoured = true
		} else {
			j.ignored = colocateReason
		}
	case hintNestedLoop:
		// Only a NULL AWARE LEFT ANTI JOIN keeps its hash join.
		j.ignored = ReasonNestedLoopHint
	}
	if j.ignored != ReasonNone && j.ignored != ReasonSparkSide {
		honoured = false
	}
	j.sortMerge = j.merge && honoured && j.ignored == ReasonNone
	j.colocate = colocateReason
	if honoured && j.hint != hintColocate && colocateReason != ReasonNullAware && colocateReason != ReasonSessionDisabled {
		j.colocate = ReasonHasHint
	}

	bytesR := roundBytes(r.rows, r.width)
	bytesL := roundBytes(l.rows, l.width)
	nodesL := d.instances(l)
	bc, pc := int64(0), int64(0)
	if bytesR >= 0 && bytesL >= 0 {
		bc = bytesR * int64(nodesL)
		pc = int64(math.Round(float64(l.rows)*l.width + float64(r.rows)*r.width))
	}
	j.cands = []candidate{
		{dist: fragment.DistColocate, ok: colocateReason == ReasonNone, reason: colocateReason, bytes: 0},
		{dist: fragment.DistBucketShuffle, ok: bucketReason == ReasonNone, reason: bucketReason, bytes: bytesR},
	}
	bcOK, bcReason := d.broadcastFits(j, r)
	j.cands = append(j.cands, candidate{dist: fragment.DistBroadcast, ok: bcOK, reason: bcReason, bytes: bc},
		candidate{dist: fragment.DistPartitioned, ok: j.typ != fragment.JoinNullAwareLeftAnti, bytes: pc})

	useHint := func(h hintKind) bool { return honoured && j.hint == h }
	noOverride := !honoured || j.hint == hintColocate || j.hint == hintBucket
	switch {
	case colocateReason == ReasonNone && (!honoured || useHint(hintColocate)):
		j.dist = fragment.DistColocate
		return any, any
	case bucketReason == ReasonNone && noOverride:
		j.dist = fragment.DistBucketShuffle
		bucket.exchange = true
		return any, bucket
	}
	broadcast := false
	switch {
	case !canBroadcast(j.typ), j.noBroadcast:
	case j.typ == fragment.JoinNullAwareLeftAnti:
		broadcast = true
	case useHint(hintBroadcast):
		broadcast = true
	case useHint(hintShuffle):
	case systemTable(l) || systemTable(r):
		// A system table has no size to cost: Doris shuffles such joins.
	default:
		cheaper := bc < pc
		if d.ctx.Vars.PreferJoinMethod != "shuffle" {
			cheaper = bc <= pc
		}
		broadcast = cheaper && bcOK
		j.mayShuffle = broadcast && d.guessedBroadcast(l, r)
	}
	if broadcast {
		j.dist = fragment.DistBroadcast
		if l.del.Kind == props.DelSingle {
			return any, single
		}
		return any, replicated
	}
	j.dist = fragment.DistPartitioned
	lk, rk := make([]expr.Expr, len(j.equi)), make([]expr.Expr, len(j.equi))
	for i, e := range j.equi {
		lk[i], rk[i] = e.L, e.R
	}
	return sideReq{req: props.Required{Kind: props.ReqHash, Keys: d.keyIDs(lk)}, keys: lk},
		sideReq{req: props.Required{Kind: props.ReqHash, Keys: d.keyIDs(rk)}, keys: rk}
}

// keyIDs names exchange and grouping keys by column id. A key that is an
// expression (CAST(k AS DOUBLE) joining an INT to a DOUBLE) gets an id of
// its own, the same for the same expression over the same columns and
// different after another cast, so a side hashed on CAST(k AS BIGINT) is
// never taken as hashed on CAST(k AS DOUBLE). Such ids are below
// props.UnknownKey.
func (d *distPlanner) keyIDs(es []expr.Expr) []logical.ColumnID {
	out := make([]logical.ColumnID, len(es))
	for i, e := range es {
		if r, ok := e.(*expr.ColRef); ok {
			out[i] = logical.ColumnID(r.Index)
			continue
		}
		fp := fingerprint(e)
		id, ok := d.exprKeys[fp]
		if !ok {
			if d.exprKeys == nil {
				d.exprKeys = map[string]logical.ColumnID{}
			}
			id = props.UnknownKey - 1 - logical.ColumnID(len(d.exprKeys))
			d.exprKeys[fp] = id
		}
		out[i] = id
	}
	return out
}

// fingerprint identifies an expression by its structure, result types and
// column ids (printed text names columns, which two sides may share).
func fingerprint(e expr.Expr) string {
	var b strings.Builder
	var walk func(e expr.Expr)
	walk = func(e expr.Expr) {
		switch x := e.(type) {
		case *expr.ColRef:
			fmt.Fprintf(&b, "#%d", x.Index)
			return
		case *expr.Const:
			fmt.Fprintf(&b, "const %s %q", x.Val.T, x.String())
			return
		case *expr.Call:
			fmt.Fprintf(&b, "%s:%s(", x.Fn, x.T)
		case *expr.Cast:
			fmt.Fprintf(&b, "cast:%s(", x.To)
		default:
			fmt.Fprintf(&b, "%T %s %s(", e, e.Type(), e.String())
		}
		for i, c := range e.Children() {
			if i > 0 {
				b.WriteByte(',')
			}
			if c == nil {
				b.WriteString("nil")
				continue
			}
			walk(c)
		}
		b.WriteByte(')')
	}
	walk(e)
	return b.String()
}

func roundBytes(rows int64, w float64) int64 {
	if rows < 0 {
		return -1
	}
	return int64(math.Round(float64(rows) * w))
}

// broadcastFits applies broadcast_row_count_limit and the hash table memory
// estimate against exec_mem_limit·auto_broadcast_join_threshold.
func (d *distPlanner) broadcastFits(j *joinOp, r *pnode) (bool, Reason) {
	if !canBroadcast(j.typ) {
		return false, ReasonNoBroadcast
	}
	v := d.ctx.Vars
	f := min(v.AutoBroadcastJoinThreshold, 1)
	if f <= 0 {
		return false, ReasonBroadcastDisabled
	}
	if float64(r.rows) > v.BroadcastRowCountLimit {
		return false, ReasonRowLimit
	}
	if hashTableBytes(r) > float64(v.ExecMemLimit)*f {
		return false, ReasonMemLimit
	}
	return true, ReasonNone
}

// hashTableBytes estimates a broadcast build side's hash table
// (DORIS-PLANNING.md §2).
func hashTableBytes(r *pnode) float64 {
	n := float64(r.rows)
	if n < 0 {
		n = 0
	}
	var L float64
	if n > 0 {
		L = 4096 * math.Pow(1.5, math.Trunc(math.Log(n/4096)/math.Log(1.5))+1)
	}
	extra := float64(max(0, countScans(r)-1)) * 8 * L
	return 1.1*(n/0.75*8+n*r.width+24*L) + extra
}

func countScans(n *pnode) int {
	if n.op == opScan {
		return 1
	}
	if n.op == opExchange {
		return countScans(n.child())
	}
	c := 0
	for _, ch := range n.children {
		c += countScans(ch)
	}
	return c
}

// instances is how many instances run the fragment n's output comes from:
// scan-rooted: backends holding the left-most scan's tablets; exchange-fed
// partitioned: alive backends; single: 1.
func (d *distPlanner) instances(n *pnode) int {
	if n.del.Kind == props.DelSingle {
		return 1
	}
	for {
		switch n.op {
		case opScan:
			return max(1, n.scan.backends)
		case opExchange, opValues:
			if n.del.Kind == props.DelSingle {
				return 1
			}
			return max(1, d.aliveBackend)
		}
		if len(n.children) == 0 {
			return 1
		}
		n = n.children[0]
	}
}
