package bind

import (
	"fmt"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// `FROM t PARTITION (p, …)` reads only the named partitions. The choice is
// written as a filter on the partition column that admits exactly the
// named partitions' rows: the planner's partition pruning reads the same
// filter (a range hull or an IN list), so only those partitions' tablets
// are scanned, and the filter keeps the result exact when the hull also
// admits a partition between two named ones.

// selectPartitions resolves names against t with Doris's error for an
// unknown one (BindRelation: "Partition: p is not exists on table db.t",
// naming the table as written).
func selectPartitions(t *catalog.Table, tn sqlparser.TableName, names sqlparser.Partitions) ([]*catalog.Partition, error) {
	var out []*catalog.Partition
	seen := map[*catalog.Partition]bool{}
	for _, n := range names {
		p := partitionNamed(t, n.String())
		if p == nil {
			written := tn.Name.String()
			if q := tn.DbQualifier.String(); q != "" {
				written = q + "." + written
			}
			return nil, sqlerr.Doris.New(fmt.Sprintf("Partition: %s is not exists on table %s", n.String(), written))
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out, nil
}

// partitionConds are the conjuncts keeping the rows of parts only, over
// the scan's partition column; nil when every partition is named.
func partitionConds(sc *logical.Scan, parts []*catalog.Partition) ([]expr.Expr, error) {
	t := sc.Table
	if len(parts) == len(t.Partitions) || t.PartKind == catalog.PartNone {
		return nil, nil
	}
	col, ok := scanColumn(sc, t.PartColumn)
	if !ok {
		return nil, sqlerr.Assertf("bind: scan of %s without its partition column", t.Name)
	}
	if t.PartKind == catalog.PartList {
		return listConds(col, parts)
	}
	return rangeConds(col, parts)
}

func scanColumn(sc *logical.Scan, ord int) (logical.Column, bool) {
	for i, o := range sc.Ords {
		if o == ord {
			return sc.Cols[i], true
		}
	}
	return logical.Column{}, false
}

// rangeConds: lo <= col < hi over the named partitions' hull, and, when
// the named ranges leave gaps, the OR of each one's range.
func rangeConds(col logical.Column, parts []*catalog.Partition) ([]expr.Expr, error) {
	lo, hi := parts[0].Lower, parts[0].Upper
	for _, p := range parts[1:] {
		if lo != nil && (p.Lower == nil || compareBound(*p.Lower, *lo) < 0) {
			lo = p.Lower
		}
		if hi != nil && (p.Upper == nil || compareBound(*p.Upper, *hi) > 0) {
			hi = p.Upper
		}
	}
	hull, err := rangeOf(col, lo, hi)
	if err != nil {
		return nil, err
	}
	if len(parts) == 1 || contiguous(parts, lo, hi) {
		return hull, nil
	}
	var any expr.Expr
	for _, p := range parts {
		cs, err := rangeOf(col, p.Lower, p.Upper)
		if err != nil {
			return nil, err
		}
		one := andAll(cs)
		if one == nil {
			return hull, nil // an unbounded partition: the hull is exact
		}
		if any == nil {
			any = one
		} else if any, err = expr.NewCall("or", any, one); err != nil {
			return nil, err
		}
	}
	return append(hull, any), nil
}

// contiguous reports whether the named ranges tile [lo, hi) without gaps.
func contiguous(parts []*catalog.Partition, lo, hi *types.Datum) bool {
	at := lo
	for {
		next := -1
		for i, p := range parts {
			if sameBound(p.Lower, at) {
				next = i
				break
			}
		}
		if next < 0 {
			return false
		}
		at = parts[next].Upper
		if sameBound(at, hi) {
			return true
		}
		if at == nil {
			return false
		}
	}
}

func sameBound(a, b *types.Datum) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return compareBound(*a, *b) == 0
}

// compareBound orders two bounds of one partition column (same type).
func compareBound(a, b types.Datum) int {
	return types.Compare(a, b)
}

func rangeOf(col logical.Column, lo, hi *types.Datum) ([]expr.Expr, error) {
	var out []expr.Expr
	if lo != nil {
		c, err := expr.NewCall("ge", col.Ref(), &expr.Const{Val: *lo})
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if hi != nil {
		c, err := expr.NewCall("lt", col.Ref(), &expr.Const{Val: *hi})
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// listConds: col IN (the named partitions' values), OR col IS NULL when
// one of them holds NULL.
func listConds(col logical.Column, parts []*catalog.Partition) ([]expr.Expr, error) {
	args := []expr.Expr{col.Ref()}
	null := false
	for _, p := range parts {
		for _, v := range p.Values {
			if v.Null {
				null = true
				continue
			}
			args = append(args, &expr.Const{Val: v})
		}
	}
	var in expr.Expr
	if len(args) > 1 {
		var err error
		if in, err = expr.NewCall("in", args...); err != nil {
			return nil, err
		}
	}
	if !null {
		if in == nil {
			return []expr.Expr{&expr.Const{Val: types.Datum{T: types.BoolT, Null: true}}}, nil
		}
		return []expr.Expr{in}, nil
	}
	isNull, err := expr.NewCall("is_null", col.Ref())
	if err != nil || in == nil {
		return []expr.Expr{isNull}, err
	}
	or, err := expr.NewCall("or", in, isNull)
	return []expr.Expr{or}, err
}

func andAll(cs []expr.Expr) expr.Expr {
	var out expr.Expr
	for _, c := range cs {
		if out == nil {
			out = c
			continue
		}
		out, _ = expr.NewCall("and", out, c)
	}
	return out
}

// withPartitions narrows a bound table scan to the partitions n names.
func (b *Binder) withPartitions(f *fromResult, sc *logical.Scan, tn sqlparser.TableName, names sqlparser.Partitions) (*fromResult, error) {
	if len(names) == 0 {
		return f, nil
	}
	parts, err := selectPartitions(sc.Table, tn, names)
	if err != nil {
		return nil, err
	}
	conds, err := partitionConds(sc, parts)
	if err != nil || len(conds) == 0 {
		return f, err
	}
	if fl, ok := f.node.(*logical.Filter); ok && fl.Input == logical.Node(sc) {
		fl.Conds = append(fl.Conds, conds...)
		return f, nil
	}
	return &fromResult{node: &logical.Filter{Input: f.node, Conds: conds}, visible: f.visible}, nil
}
