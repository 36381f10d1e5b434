package bind

import (
	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Hidden columns (Doris's delete sign, catalog.DeleteSignColumn) are read
// by a scan but not visible to the query unless show_hidden_columns is
// set; a scan of a table with a delete sign keeps only rows whose sign is
// 0 unless show_hidden_columns or skip_delete_sign is set, as Doris's
// BindRelation adds `__DORIS_DELETE_SIGN__ = 0` above the scan (the scan
// merges first on merge-on-read tables, so the filter sees each key's
// newest row).

func (b *Binder) boolVar(name string) bool {
	if b.ctx.Vars == nil {
		return false
	}
	d, err := b.ctx.Vars.System(name, false)
	return err == nil && !d.Null && (d.I != 0 || d.S == "1" || d.S == "true" || d.S == "ON")
}

// ShowHidden reports show_hidden_columns.
func (b *Binder) ShowHidden() bool { return b.boolVar("show_hidden_columns") }

// hideColumns makes the from-clause result of a table scan: hidden
// columns out of sight and deleted rows filtered, unless asked otherwise.
func (b *Binder) hideColumns(sc *logical.Scan) (*fromResult, error) {
	t := sc.Table
	vis := len(t.VisibleColumns())
	if vis == len(t.Columns) {
		return &fromResult{node: sc, visible: sc.Cols}, nil
	}
	show := b.ShowHidden()
	visible := sc.Cols
	if !show {
		visible = sc.Cols[:vis]
	}
	ds := t.DeleteSign()
	if ds < 0 || show || b.boolVar("skip_delete_sign") {
		return &fromResult{node: sc, visible: visible}, nil
	}
	cond, err := deleteSignIsZero(sc, ds)
	if err != nil {
		return nil, err
	}
	return &fromResult{node: &logical.Filter{Input: sc, Conds: []expr.Expr{cond}}, visible: visible}, nil
}

// deleteSignIsZero is `__DORIS_DELETE_SIGN__ = 0` over the scan's column.
func deleteSignIsZero(sc *logical.Scan, ds int) (expr.Expr, error) {
	for i, o := range sc.Ords {
		if o == ds {
			c := sc.Cols[i]
			return expr.NewCall("eq", c.Ref(), &expr.Const{Val: types.Datum{T: types.TinyIntT}})
		}
	}
	return nil, sqlerr.Assertf("bind: scan of %s without its %s column", sc.Table.Name, catalog.DeleteSignColumn)
}
