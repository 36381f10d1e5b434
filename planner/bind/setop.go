package bind

import (
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

var setOpKinds = map[string]logical.SetOpKind{
	sqlparser.UnionStr: logical.UnionDistinct, sqlparser.UnionDistinctStr: logical.UnionDistinct,
	sqlparser.UnionAllStr: logical.UnionAll, sqlparser.IntersectStr: logical.Intersect,
	sqlparser.IntersectDistinctStr: logical.Intersect, sqlparser.ExceptStr: logical.Except,
	sqlparser.ExceptDistinctStr: logical.Except,
}

// bindSetOp binds UNION [ALL|DISTINCT], INTERSECT and EXCEPT. Column types
// are unified with MySQL's type aggregation; names come from the left side.
func (b *Binder) bindSetOp(n *sqlparser.SetOp, outer *scope) (*Query, error) {
	kind, ok := setOpKinds[strings.ToLower(n.Type)]
	if !ok {
		return nil, sqlerr.NotSupportedYet.New(strings.ToUpper(n.Type))
	}
	l, err := b.bindQuery(n.Left, outer)
	if err != nil {
		return nil, err
	}
	r, err := b.bindQuery(n.Right, outer)
	if err != nil {
		return nil, err
	}
	lc, rc := l.Plan.Columns(), r.Plan.Columns()
	if len(lc) != len(rc) {
		return nil, sqlerr.WrongNumberOfColumnsInSelect.New()
	}
	op := &logical.SetOp{Kind: kind}
	outs := make([]Output, len(lc))
	lcast := &logical.Project{Input: l.Plan}
	rcast := &logical.Project{Input: r.Plan}
	for i := range lc {
		t := expr.AggregateType(lc[i].T, rc[i].T)
		null := lc[i].Null || rc[i].Null
		name := l.Outputs[i].Name
		col := b.newCol("", name, t, null)
		op.Cols = append(op.Cols, col)
		outs[i] = Output{Name: name, Col: col}
		for _, side := range []struct {
			p *logical.Project
			c logical.Column
		}{{lcast, lc[i]}, {rcast, rc[i]}} {
			side.p.Exprs = append(side.p.Exprs, expr.NewCast(side.c.Ref(), t))
			side.p.Cols = append(side.p.Cols, b.newCol("", name, t, side.c.Null))
		}
	}
	op.Ins = []logical.Node{lcast, rcast}
	var plan logical.Node = op
	if len(n.OrderBy) > 0 {
		var keys []logical.SortKey
		for _, o := range n.OrderBy {
			idx := -1
			oe, desc, nf := orderItem(o)
			switch e := oe.(type) {
			case *sqlparser.SQLVal:
				items := make([]selectItem, len(outs))
				for i := range outs {
					items[i] = selectItem{out: outs[i]}
				}
				i, ok, err := selectRef(e, items)
				if err != nil {
					return nil, err
				}
				if ok {
					idx = i
				}
			case *sqlparser.ColName:
				for i, out := range outs {
					if strings.EqualFold(out.Name, e.Name.String()) {
						idx = i
						break
					}
				}
			}
			if idx < 0 {
				return nil, sqlerr.BadField.New(sqlparser.String(oe), "order clause")
			}
			keys = append(keys, logical.SortKey{Expr: op.Cols[idx].Ref(), Desc: desc, NullsFirst: nf})
		}
		plan = &logical.Sort{Input: plan, Keys: keys}
	}
	if n.Limit != nil {
		off, cnt, err := b.bindLimit(n.Limit)
		if err != nil {
			return nil, err
		}
		plan = &logical.Limit{Input: plan, Offset: off, Count: cnt}
	}
	return &Query{Plan: plan, Outputs: outs}, nil
}
