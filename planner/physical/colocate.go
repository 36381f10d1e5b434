package physical

import (
	"slices"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/planner/props"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// traced is where a join key comes from: a scan's table column.
type traced struct {
	scan *pnode
	ord  int // table column index
}

// trace follows key e down n's fragment to the scan column it reads
// (DORIS-PLANNING.md §1 R4–R6).
func trace(n *pnode, e expr.Expr) (traced, Reason) {
	r, ok := stripInjectiveCasts(e).(*expr.ColRef)
	if !ok {
		return traced{}, ReasonTransformed
	}
	return traceCol(n, logical.ColumnID(r.Index))
}

// stripInjectiveCasts removes the casts that keep distinct values distinct
// (INT to BIGINT, DATE to DATETIME, …). A lossy cast (DOUBLE to INT,
// BIGINT to DOUBLE) makes values of different buckets equal, so a key under
// one is transformed (R4).
func stripInjectiveCasts(e expr.Expr) expr.Expr {
	for {
		c, ok := e.(*expr.Cast)
		if !ok || !injective(c.Arg.Type(), c.To) {
			return e
		}
		e = c.Arg
	}
}

// intDigits is the most decimal digits a value of each integer kind has.
var intDigits = map[types.Kind]int{types.TinyInt: 3, types.SmallInt: 5, types.Int: 10, types.BigInt: 19, types.LargeInt: 39}

func injective(from, to types.T) bool {
	switch {
	case from.Kind == to.Kind && from.Kind != types.Decimal && !from.IsString():
		return true
	case from.IsInteger() && to.IsInteger():
		return to.Width() >= from.Width()
	case from.IsInteger() && to.Kind == types.Double:
		return from.Kind <= types.Int // 53 bits of mantissa
	case from.IsInteger() && to.Kind == types.Decimal:
		return to.Precision-to.Scale >= intDigits[from.Kind]
	case from.Kind == types.Decimal && to.Kind == types.Decimal:
		return to.Scale >= from.Scale && to.Precision-to.Scale >= from.Precision-from.Scale
	case from.Kind == types.Date && to.Kind == types.DateTime:
		return true
	case from.IsString() && to.IsString():
		return to.Kind == types.String || to.Length == 0 || from.Length > 0 && to.Length >= from.Length
	case from.IsInteger() && to.IsString():
		return to.Kind == types.String || to.Length == 0 || to.Length >= 20
	}
	return false
}

func colIndex(cols []logical.Column, id logical.ColumnID) int {
	return slices.IndexFunc(cols, func(c logical.Column) bool { return c.ID == id })
}

func traceCol(n *pnode, id logical.ColumnID) (traced, Reason) {
	for {
		switch n.op {
		case opScan:
			i := colIndex(n.cols, id)
			if i < 0 {
				return traced{}, ReasonRedistributed
			}
			return traced{scan: n, ord: n.scan.ls.Ords[i]}, ReasonNone
		case opFilter, opLimit, opSort, opTopN:
			n = n.child()
		case opProject:
			i := colIndex(n.cols, id)
			if i < 0 {
				return traced{}, ReasonRedistributed
			}
			r, ok := n.exprs[i].(*expr.ColRef)
			if !ok {
				return traced{}, ReasonTransformed
			}
			id, n = logical.ColumnID(r.Index), n.child()
		case opJoin:
			if colIndex(n.children[0].cols, id) >= 0 {
				n = n.children[0]
			} else {
				n = n.children[1]
			}
		case opAgg:
			if n.agg.merge != nil {
				return traced{}, ReasonRedistributed
			}
			i := colIndex(n.agg.l.GroupCols, id)
			if i < 0 {
				return traced{}, ReasonRedistributed
			}
			r, ok := n.agg.l.Groups[i].(*expr.ColRef)
			if !ok {
				return traced{}, ReasonRedistributed
			}
			id, n = logical.ColumnID(r.Index), n.child()
		case opWindow:
			if colIndex(n.child().cols, id) < 0 {
				return traced{}, ReasonRedistributed
			}
			n = n.child()
		case opTableFunc, opValues:
			return traced{}, ReasonNotOlap
		default: // exchange, values, set operation
			return traced{}, ReasonRedistributed
		}
	}
}

// checkColocate runs R1–R9 in order; ReasonNone means colocate is possible.
func (d *distPlanner) checkColocate(n *pnode) (Reason, *props.BucketLayout) {
	j := n.join
	if j.typ == fragment.JoinNullAwareLeftAnti {
		return ReasonNullAware, nil
	}
	if d.ctx.Vars.DisableColocatePlan {
		return ReasonSessionDisabled, nil
	}
	// R3 (an honoured hint) is applied by the caller, which knows whether
	// the hint can be honoured.
	type pair struct{ l, r traced }
	var pairs []pair
	for _, e := range j.equi {
		lt, why := trace(n.children[0], e.L)
		if why != ReasonNone {
			return why, nil
		}
		rt, why := trace(n.children[1], e.R)
		if why != ReasonNone {
			return why, nil
		}
		pairs = append(pairs, pair{lt, rt})
	}
	for _, p := range pairs {
		ls, rs := p.l.scan.scan, p.r.scan.scan
		if ls.ls.Table.ID == rs.ls.Table.ID && len(ls.partIDs) <= 1 && slices.Equal(ls.partIDs, rs.partIDs) {
			continue
		}
		if ls.group == nil || rs.group == nil || ls.group.ID != rs.group.ID {
			return ReasonNotSameGroup, nil
		}
		if ls.group.Unstable {
			return ReasonGroupUnstable, nil
		}
	}
	// R9: every distribution column position paired by some conjunct.
	for _, p := range pairs {
		lt, rt := p.l.scan.scan.ls.Table, p.r.scan.scan.ls.Table
		if lt.Dist.Kind != catalog.DistHash || rt.Dist.Kind != catalog.DistHash || len(lt.Dist.Columns) != len(rt.Dist.Columns) {
			return ReasonColumnNotMatch, nil
		}
		for i := range lt.Dist.Columns {
			found := false
			for _, q := range pairs {
				if q.l.scan == p.l.scan && q.r.scan == p.r.scan && q.l.ord == lt.Dist.Columns[i] && q.r.ord == rt.Dist.Columns[i] {
					found = true
				}
			}
			if !found {
				return ReasonColumnNotMatch, nil
			}
		}
	}
	return ReasonNone, pairs[0].l.scan.scan.layout()
}

// anchor finds the left-most OLAP scan of a hash join chain (B4).
func anchor(n *pnode) *pnode {
	for {
		switch n.op {
		case opScan:
			return n
		case opFilter, opProject:
			n = n.child()
		case opJoin:
			if n.join.nested() {
				return nil
			}
			n = n.children[0]
		default:
			return nil
		}
	}
}

// checkBucket runs B1–B8; on success it returns the right side's requirement.
func (d *distPlanner) checkBucket(n *pnode) (Reason, sideReq) {
	j := n.join
	if j.typ == fragment.JoinNullAwareLeftAnti {
		return ReasonNullAware, sideReq{}
	}
	if !d.ctx.Vars.EnableBucketShuffleJoin {
		return ReasonBucketDisabled, sideReq{}
	}
	switch j.typ {
	case fragment.JoinRightOuter, fragment.JoinFullOuter, fragment.JoinRightAnti:
		return ReasonBucketJoinType, sideReq{}
	}
	a := anchor(n.children[0])
	if a == nil {
		return ReasonLeftNotOlapScan, sideReq{}
	}
	so := a.scan
	t := so.ls.Table
	if t.Dist.Kind != catalog.DistHash {
		return ReasonLeftNotHash, sideReq{}
	}
	if so.parts > 1 && !so.stableGroup() {
		return ReasonLeftMultiPart, sideReq{}
	}
	var keys []expr.Expr
	for _, dc := range t.Dist.Columns {
		var match expr.Expr
		typeOK := false
		for _, e := range j.equi {
			tr, why := trace(n.children[0], e.L)
			if why != ReasonNone || tr.scan != a || tr.ord != dc {
				continue
			}
			match = e.R
			typeOK = sameHashType(e.R.Type(), t.Columns[dc].Type)
			if typeOK {
				break
			}
		}
		if match == nil {
			return ReasonKeysNotCover, sideReq{}
		}
		if !typeOK {
			return ReasonKeyTypeDiffers, sideReq{}
		}
		keys = append(keys, match)
	}
	return ReasonNone, sideReq{req: props.Required{Kind: props.ReqBucket, Keys: d.keyIDs(keys), Layout: so.layout()}, keys: keys}
}

// sameHashType: values of a and b hash alike (strings of any length do).
func sameHashType(a, b types.T) bool {
	if a.IsString() && b.IsString() {
		return true
	}
	if a.Kind == types.Decimal && b.Kind == types.Decimal {
		return a.Precision == b.Precision && a.Scale == b.Scale
	}
	return a.Kind == b.Kind
}
