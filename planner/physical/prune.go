package physical

import (
	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// maxPrunedBuckets bounds the IN-list combinations bucket pruning hashes;
// past it every bucket is read.
const maxPrunedBuckets = 256

// colBound is what the conjuncts of a scan say about one column: the
// constants it may equal (eq, IN) and its range.
type colBound struct {
	eq       []types.Datum // nil: no equality constraint
	hasEq    bool
	lo, hi   *types.Datum
	loIncl   bool
	hiIncl   bool
	nullOnly bool
}

// bounds collects, for column id, the constraints of conjuncts of the form
// col op constant (constants typed as the column, so values compare and
// hash exactly as stored).
func bounds(conds []expr.Expr, id logical.ColumnID, t types.T) colBound {
	var b colBound
	for _, c := range conds {
		call, ok := c.(*expr.Call)
		if !ok || len(call.Args) < 2 {
			continue
		}
		call = mirror(call)
		ref, isRef := call.Args[0].(*expr.ColRef)
		if !isRef || ref.Index != int(id) {
			continue
		}
		var consts []types.Datum
		okAll := true
		for _, a := range call.Args[1:] {
			k, isConst := a.(*expr.Const)
			if !isConst || k.Val.Null || !sameStored(k.Val.T, t) {
				okAll = false
				break
			}
			d := k.Val
			d.T = t
			consts = append(consts, d)
		}
		if !okAll {
			continue
		}
		switch call.Fn {
		case "eq":
			b.intersectEq(consts[:1])
		case "in":
			b.intersectEq(consts)
		case "lt", "le":
			if b.hi == nil || types.Compare(consts[0], *b.hi) < 0 {
				v := consts[0]
				b.hi, b.hiIncl = &v, call.Fn == "le"
			}
		case "gt", "ge":
			if b.lo == nil || types.Compare(consts[0], *b.lo) > 0 {
				v := consts[0]
				b.lo, b.loIncl = &v, call.Fn == "ge"
			}
		}
	}
	return b
}

func (b *colBound) intersectEq(vs []types.Datum) {
	if !b.hasEq {
		b.eq, b.hasEq = append([]types.Datum{}, vs...), true
		return
	}
	var keep []types.Datum
	for _, x := range b.eq {
		for _, v := range vs {
			if types.Compare(x, v) == 0 {
				keep = append(keep, x)
				break
			}
		}
	}
	b.eq = keep
}

// sameStored: a constant of type c compares and hashes like a stored value
// of column type t.
func sameStored(c, t types.T) bool {
	switch {
	case t.IsInteger() && t.Kind != types.LargeInt:
		return c.IsInteger() && c.Kind != types.LargeInt
	case t.IsString():
		return c.IsString()
	case t.Kind == types.Decimal:
		return c.Kind == types.Decimal && c.Scale == t.Scale
	}
	return c.Kind == t.Kind
}

// admits reports whether a value in [lo, hi) (nil = unbounded) can satisfy b.
func (b colBound) admitsRange(lo, hi *types.Datum) bool {
	if b.hasEq {
		for _, v := range b.eq {
			if (lo == nil || types.Compare(v, *lo) >= 0) && (hi == nil || types.Compare(v, *hi) < 0) {
				return true
			}
		}
		return false
	}
	if b.lo != nil && hi != nil && types.Compare(*hi, *b.lo) <= 0 {
		return false
	}
	if b.hi != nil && lo != nil {
		c := types.Compare(*lo, *b.hi)
		if c > 0 || c == 0 && !b.hiIncl {
			return false
		}
	}
	return true
}

func (b colBound) admitsList(vals []types.Datum) bool {
	for _, v := range vals {
		if b.hasEq {
			for _, e := range b.eq {
				if types.Compare(v, e) == 0 {
					return true
				}
			}
			continue
		}
		if b.lo != nil {
			c := types.Compare(v, *b.lo)
			if c < 0 || c == 0 && !b.loIncl {
				continue
			}
		}
		if b.hi != nil {
			c := types.Compare(v, *b.hi)
			if c > 0 || c == 0 && !b.hiIncl {
				continue
			}
		}
		return true
	}
	return false
}

// partitionSelected: partition pruning on the partition column.
func partitionSelected(t *catalog.Table, p *catalog.Partition, s *logical.Scan, conds []expr.Expr) bool {
	if t.PartKind == catalog.PartNone {
		return true
	}
	id, ok := scanColumnID(s, t.PartColumn)
	if !ok {
		return true
	}
	b := bounds(conds, id, t.Columns[t.PartColumn].Type)
	if t.PartKind == catalog.PartRange {
		return b.admitsRange(p.Lower, p.Upper)
	}
	return b.admitsList(p.Values)
}

// selectedBuckets: bucket pruning when every distribution column is pinned
// to constants (= or IN); nil means every bucket.
func selectedBuckets(t *catalog.Table, s *logical.Scan, conds []expr.Expr) map[int]bool {
	if t.Dist.Kind != catalog.DistHash || len(t.Dist.Columns) == 0 {
		return nil
	}
	combos := [][]types.Datum{{}}
	for _, ci := range t.Dist.Columns {
		id, ok := scanColumnID(s, ci)
		if !ok {
			return nil
		}
		b := bounds(conds, id, t.Columns[ci].Type)
		if !b.hasEq || len(combos)*len(b.eq) > maxPrunedBuckets {
			return nil
		}
		var next [][]types.Datum
		for _, c := range combos {
			for _, v := range b.eq {
				next = append(next, append(append([]types.Datum{}, c...), v))
			}
		}
		combos = next
	}
	out := map[int]bool{}
	for _, c := range combos {
		out[types.Bucket(types.HashDatums(c), t.Dist.Buckets)] = true
	}
	return out
}

func scanColumnID(s *logical.Scan, ord int) (logical.ColumnID, bool) {
	for i, o := range s.Ords {
		if o == ord {
			return s.Cols[i].ID, true
		}
	}
	return 0, false
}

// mirror writes `const op col` as `col op' const`.
func mirror(c *expr.Call) *expr.Call {
	if len(c.Args) != 2 {
		return c
	}
	if _, ok := c.Args[1].(*expr.ColRef); !ok {
		return c
	}
	flip := map[string]string{"eq": "eq", "lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}
	fn, ok := flip[c.Fn]
	if !ok {
		return c
	}
	return &expr.Call{Fn: fn, Args: []expr.Expr{c.Args[1], c.Args[0]}, T: c.T, Null: c.Null}
}

// PruneTablets lists the tablets a scan of s filtered by conds reads: the
// partitions partition pruning keeps, restricted to parts when parts is not
// nil, and in each the buckets bucket pruning keeps, chosen as a query's
// scan chooses them except that partitions never loaded are kept (a DELETE
// uses it: its condition then also covers a concurrent first load).
func PruneTablets(s *logical.Scan, parts []*catalog.Partition, conds []expr.Expr) map[*catalog.Partition][]*catalog.Tablet {
	t := s.Table
	if parts == nil {
		parts = t.Partitions
	}
	buckets := selectedBuckets(t, s, conds)
	out := map[*catalog.Partition][]*catalog.Tablet{}
	for _, p := range parts {
		if !partitionSelected(t, p, s, conds) {
			continue
		}
		for _, tb := range p.Tablets {
			if buckets == nil || buckets[tb.Bucket] {
				out[p] = append(out[p], tb)
			}
		}
	}
	return out
}

// ColumnRanges is what conds say about the columns of s as zone-map
// ranges over table column ordinals: every row satisfying conds lies in
// each of them. Only conjuncts column op constant (typed as the column)
// count, as for partition pruning.
func ColumnRanges(s *logical.Scan, conds []expr.Expr) []storage.ColumnRange {
	var out []storage.ColumnRange
	for i, c := range s.Cols {
		b := bounds(conds, c.ID, c.T)
		r := storage.ColumnRange{Column: s.Ords[i]}
		switch {
		case b.hasEq && len(b.eq) > 0:
			lo, hi := b.eq[0], b.eq[0]
			for _, v := range b.eq[1:] {
				if types.Compare(v, lo) < 0 {
					lo = v
				}
				if types.Compare(v, hi) > 0 {
					hi = v
				}
			}
			r.Lo, r.LoIncl, r.Hi, r.HiIncl = &lo, true, &hi, true
		case b.lo != nil || b.hi != nil:
			r.Lo, r.LoIncl, r.Hi, r.HiIncl = b.lo, b.loIncl, b.hi, b.hiIncl
		default:
			continue
		}
		out = append(out, r)
	}
	return out
}
