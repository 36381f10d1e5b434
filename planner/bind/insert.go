package bind

import (
	"fmt"
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/sql/eval"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// Insert is a bound INSERT: Source produces every column of Table in schema
// order, already converted (strictly) to the column types.
type Insert struct {
	DB     string
	Table  *catalog.Table
	Source logical.Node
	// Label is the load label (INSERT ... WITH LABEL, which the server
	// sets from the parsed statement; "" = generated).
	Label string
	// Partial, set by UPDATE of a merge-on-write table, leaves the columns
	// it lists to the rows' current values (storage.WritePartial).
	Partial *storage.PartialUpdate
}

// BindInsert binds INSERT INTO t [(cols)] VALUES ... | SELECT ...
func (b *Binder) BindInsert(v *parser.Vitess) (*Insert, error) {
	ins, err := stmtAs[*sqlparser.Insert](v, "an INSERT")
	if err != nil {
		return nil, err
	}
	if ins.Action == sqlparser.ReplaceStr {
		return nil, sqlerr.NotSupportedYet.New("REPLACE")
	}
	if len(ins.OnDup) > 0 {
		return nil, sqlerr.NotSupportedYet.New("ON DUPLICATE KEY UPDATE")
	}
	db, t, err := b.resolveTable(ins.Table.DbQualifier.String(), ins.Table.Name.String())
	if err != nil {
		return nil, b.notInsertable(ins.Table.DbQualifier.String(), ins.Table.Name.String(), err)
	}
	// target[i] = position in the source row of table column i, or -1 (default).
	target := make([]int, len(t.Columns))
	for i := range target {
		target[i] = -1
	}
	n := len(t.VisibleColumns()) // hidden columns take their defaults
	if len(ins.Columns) > 0 {
		n = len(ins.Columns)
		for pos, c := range ins.Columns {
			ci := t.ColumnIndex(c.String())
			if ci < 0 {
				return nil, sqlerr.BadField.New(c.String(), "field list")
			}
			if err := writesVersionCol(t, c.String()); err != nil {
				return nil, err
			}
			if target[ci] >= 0 {
				return nil, sqlerr.FieldSpecifiedTwice.New(c.String())
			}
			target[ci] = pos
		}
	} else {
		for i := range n {
			target[i] = i
		}
	}
	defaults := make([]expr.Expr, len(t.Columns))
	for i, c := range t.Columns {
		d, err := defaultValue(c)
		if err != nil && target[i] < 0 {
			return nil, err
		}
		defaults[i] = d
	}
	out := &Insert{DB: db, Table: t}
	cols := make([]logical.Column, len(t.Columns))
	for i, c := range t.Columns {
		cols[i] = b.newCol(t.Name, c.Name, c.Type, c.Nullable)
	}
	insRows := ins.Rows
	if av, ok := insRows.(*sqlparser.AliasedValues); ok {
		insRows = av.Values
	}
	switch rows := insRows.(type) {
	case sqlparser.Values:
		v := &logical.Values{Cols: cols}
		for ri, row := range rows {
			if len(row) != n {
				return nil, sqlerr.WrongValueCount.New(ri + 1)
			}
			vals := make([]expr.Expr, len(t.Columns))
			for ci, c := range t.Columns {
				if target[ci] < 0 {
					vals[ci] = defaults[ci]
					continue
				}
				src := row[target[ci]]
				if _, ok := src.(*sqlparser.Default); ok {
					if defaults[ci] == nil {
						return nil, sqlerr.NoDefault.New(c.Name)
					}
					vals[ci] = defaults[ci]
					continue
				}
				x, err := b.bindExpr(src, nil)
				if err != nil {
					return nil, err
				}
				vals[ci], err = storeConst(b.ctx, x, c, ri+1)
				if err != nil {
					return nil, err
				}
			}
			v.Rows = append(v.Rows, vals)
		}
		out.Source = v
	case *sqlparser.Select, *sqlparser.SetOp, *sqlparser.ParenSelect:
		q, err := b.BindSelect(rows.(sqlparser.SelectStatement))
		if err != nil {
			return nil, err
		}
		if len(q.Plan.Columns()) != n {
			return nil, sqlerr.WrongValueCount.New(1)
		}
		out.Source = b.projectToTable(t, q.Plan, target, defaults)
	default:
		return nil, sqlerr.NotSupportedYet.New("this INSERT form")
	}
	return out, nil
}

// projectToTable maps a query's columns onto t's columns in schema order:
// column i takes query column target[i], or defaults[i] when that is -1.
// The source keeps its own types; the load gate converts strictly.
func (b *Binder) projectToTable(t *catalog.Table, q logical.Node, target []int, defaults []expr.Expr) logical.Node {
	qc := q.Columns()
	exprs := make([]expr.Expr, len(t.Columns))
	pcols := make([]logical.Column, len(t.Columns))
	for ci, c := range t.Columns {
		if target[ci] < 0 {
			exprs[ci] = defaults[ci]
		} else {
			exprs[ci] = qc[target[ci]].Ref()
		}
		pcols[ci] = b.newCol(t.Name, c.Name, exprs[ci].Type(), exprs[ci].Nullable())
	}
	return &logical.Project{Input: q, Exprs: exprs, Cols: pcols}
}

// storeConst evaluates a VALUES item and converts it to column c's type
// with the load path's strict rules: a value that does not fit is an error
// (1366, 1292, 1264, 1406), never stored mangled.
func storeConst(ctx *Context, x expr.Expr, c catalog.Column, row int) (expr.Expr, error) {
	d, err := eval.EvalConst(&expr.Context{Now: ctx.Now, Warn: ctx.Warn}, x)
	if err != nil {
		return nil, err
	}
	if d.Null {
		if !c.Nullable {
			return nil, sqlerr.BadNull.New(c.Name)
		}
		return expr.Lit(types.NullDatum(c.Type)), nil
	}
	v, err := eval.CastDatum(d, c.Type, true, c.Name)
	if err != nil {
		return nil, withRow(err, row)
	}
	v.T = c.Type
	return expr.Lit(v), nil
}

// withRow rewrites "at row 1" in a conversion error to the VALUES row number.
func withRow(err error, row int) error {
	e, ok := err.(*sqlerr.Error)
	if !ok || row == 1 {
		return err
	}
	cp := *e
	cp.Message = strings.Replace(cp.Message, "at row 1", fmt.Sprintf("at row %d", row), 1)
	return &cp
}

// defaultValue is a column's DEFAULT as a constant of its type; nil with an
// error when the column has none and is NOT NULL.
func defaultValue(c catalog.Column) (expr.Expr, error) {
	if c.Default == nil {
		if c.Nullable {
			return expr.Lit(types.NullDatum(c.Type)), nil
		}
		return nil, sqlerr.NoDefault.New(c.Name)
	}
	if strings.EqualFold(*c.Default, "NULL") {
		return expr.Lit(types.NullDatum(c.Type)), nil
	}
	v, err := eval.CastDatum(types.StringDatum(*c.Default), c.Type, true, c.Name)
	if err != nil {
		return nil, err
	}
	v.T = c.Type
	return expr.Lit(v), nil
}
