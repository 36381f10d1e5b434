package bind

import (
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

var setOpKinds = map[string]fragment.SetOpKind{
	sqlparser.UnionStr: fragment.SetUnionDistinct, sqlparser.UnionDistinctStr: fragment.SetUnionDistinct,
	sqlparser.UnionAllStr: fragment.SetUnionAll, sqlparser.IntersectStr: fragment.SetIntersect,
	sqlparser.IntersectDistinctStr: fragment.SetIntersect, sqlparser.ExceptStr: fragment.SetExcept,
	sqlparser.ExceptDistinctStr: fragment.SetExcept,
}

// bindSetOp binds UNION [ALL|DISTINCT], INTERSECT and EXCEPT. Column types
// are unified with MySQL's type aggregation over every branch; names come
// from the first branch.
func (b *Binder) bindSetOp(n *sqlparser.SetOp, outer *scope) (*Query, error) {
	kind, ok := setOpKinds[strings.ToLower(n.Type)]
	if !ok {
		return nil, sqlerr.NotSupportedYet.New(strings.ToUpper(n.Type))
	}
	var branches []*Query
	for _, st := range setOpBranches(kind, n) {
		q, err := b.bindQuery(st, outer)
		if err != nil {
			return nil, err
		}
		if len(branches) > 0 && len(q.Plan.Columns()) != len(branches[0].Plan.Columns()) {
			return nil, sqlerr.WrongNumberOfColumnsInSelect.New()
		}
		branches = append(branches, q)
	}
	first := branches[0].Plan.Columns()
	unified := make([]logical.Column, len(first))
	copy(unified, first)
	for _, q := range branches[1:] {
		for i, c := range q.Plan.Columns() {
			unified[i].T = expr.AggregateType(unified[i].T, c.T)
			unified[i].Null = unified[i].Null || c.Null
		}
	}
	if kind != fragment.SetUnionAll {
		for _, c := range unified {
			if c.T.IsOpaque() {
				return nil, sqlerr.ObjectMisuse.New() // the distinct set operations compare rows
			}
		}
	}
	op := &logical.SetOp{Kind: kind}
	outs := make([]Output, len(first))
	for i, t := range unified {
		name := branches[0].Outputs[i].Name
		col := b.newCol("", name, t.T, t.Null)
		op.Cols = append(op.Cols, col)
		outs[i] = Output{Name: name, Col: col}
	}
	for _, q := range branches {
		cast := &logical.Project{Input: q.Plan}
		for i, c := range q.Plan.Columns() {
			cast.Exprs = append(cast.Exprs, expr.NewCast(c.Ref(), unified[i].T))
			cast.Cols = append(cast.Cols, b.newCol("", outs[i].Name, unified[i].T, c.Null))
		}
		op.Ins = append(op.Ins, cast)
	}
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

// setOpBranches lists the branches of n that combine as one n-ary set
// operation of its kind: a chain of 10,000 UNION ALLs is one SetOp with
// 10,000 inputs, where nesting them passed each row of the first branch up
// through every level above it (quadratic). A nested operation joins in
// when it has no ORDER BY, LIMIT, WITH or INTO of its own and is of the same
// kind, or is a UNION ALL under a UNION (which removes duplicates anyway).
// INTERSECT and EXCEPT keep their two sides.
func setOpBranches(kind fragment.SetOpKind, n *sqlparser.SetOp) []sqlparser.SelectStatement {
	if kind != fragment.SetUnionAll && kind != fragment.SetUnionDistinct {
		return []sqlparser.SelectStatement{n.Left, n.Right}
	}
	var out []sqlparser.SelectStatement
	var add func(st sqlparser.SelectStatement)
	add = func(st sqlparser.SelectStatement) {
		inner := st
		for {
			p, ok := inner.(*sqlparser.ParenSelect)
			if !ok {
				break
			}
			inner = p.Select
		}
		if c, ok := inner.(*sqlparser.SetOp); ok && len(c.OrderBy) == 0 && c.Limit == nil && c.With == nil && c.Into == nil {
			if k, known := setOpKinds[strings.ToLower(c.Type)]; known && (k == kind || (kind == fragment.SetUnionDistinct && k == fragment.SetUnionAll)) {
				add(c.Left)
				add(c.Right)
				return
			}
		}
		out = append(out, st)
	}
	add(n.Left)
	add(n.Right)
	return out
}
