package bind

import (
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/sql/eval"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Load is a stream load's column mapping bound against its table, as
// Doris's load planner makes it (NereidsLoadScanProvider,
// NereidsLoadUtils.createLoadPlan): the file's columns by position; those
// named like a table column are converted to its type (strict mode applies
// there); the others, temporaries, stay text for expressions to read;
// `name = expression` computes a table column (or a temporary that later
// expressions read, substituted in place); table columns that nothing
// fills get their default or NULL; the where condition filters the
// resulting table rows.
//
// Expressions read a source batch laid out as
//
//	[ table column 0 … n-1 ][ raw text of file column with Raw 0, 1, … ]
//
// where table column i holds the file's converted value, or its default
// when the file does not fill it.
type Load struct {
	// File lists the file's columns in row order.
	File []LoadField
	// Raws is how many raw text columns follow the table's in the source.
	Raws int
	// Exprs[i] (nil: none) computes table column i from the source; its
	// type is the expression's, converted to the column's by the loader.
	Exprs []expr.Expr
	// Where (nil: none) is the condition over the table's columns
	// (ColRef i is table column i), BOOLEAN.
	Where expr.Expr
}

// LoadField is one column of the file.
type LoadField struct {
	Name string
	// Column is the table column it fills directly (-1: none).
	Column int
	// Raw is its position among the raw text columns (-1: no expression
	// reads its text).
	Raw int
}

// BindLoad binds a stream load's columns (nil: the table's columns in
// order) and where condition (nil: none) for table t.
func (b *Binder) BindLoad(t *catalog.Table, columns []parser.LoadColumn, where *parser.Expr) (*Load, error) {
	n := len(t.Columns)
	l := &Load{Exprs: make([]expr.Expr, n)}
	seen := map[string]bool{}
	var files []string
	mapped := map[string]bool{} // names computed by an expression
	for _, c := range columns {
		key := strings.ToLower(c.Name)
		if err := writesVersionCol(t, c.Name); err != nil {
			return nil, err
		}
		if seen[key] && !(c.Expr != nil && !mapped[key]) {
			return nil, sqlerr.DupFieldName.New(c.Name)
		}
		seen[key] = true
		if c.Expr == nil {
			files = append(files, c.Name)
		} else {
			mapped[key] = true
		}
	}
	if len(files) == 0 {
		// No file column named: the file has the table's columns (Doris).
		for _, c := range t.VisibleColumns() {
			files = append(files, c.Name)
		}
	}
	// The scope of the expressions: the file's columns, typed as the
	// table column they fill or as text.
	var fileCols []logical.Column
	srcPos := map[logical.ColumnID]int{}
	for _, name := range files {
		f := LoadField{Name: name, Column: -1, Raw: -1}
		typ := types.StringT
		if ti := t.ColumnIndex(name); ti >= 0 && !mapped[strings.ToLower(name)] {
			f.Column = ti
			typ = t.Columns[ti].Type
		}
		col := b.newCol("", name, typ, true)
		if f.Column >= 0 {
			srcPos[col.ID] = f.Column
		} else {
			f.Raw = len(fileCols) // renumbered below to the raws read
			srcPos[col.ID] = n + f.Raw
		}
		fileCols = append(fileCols, col)
		l.File = append(l.File, f)
	}
	// Mapping expressions in order; each one's name hides a file column of
	// that name from the ones after it, which read its expression instead.
	derived := map[logical.ColumnID]expr.Expr{}
	visible := append([]logical.Column(nil), fileCols...)
	for _, c := range columns {
		if c.Expr == nil {
			continue
		}
		x, err := b.bindLoadExpr(c.Expr.AST, visible, "columns")
		if err != nil {
			return nil, err
		}
		if x, err = expr.Rewrite(x, func(e expr.Expr) (expr.Expr, error) {
			if r, ok := e.(*expr.ColRef); ok {
				if d, ok := derived[logical.ColumnID(r.Index)]; ok {
					return d, nil
				}
				return &expr.ColRef{Index: srcPos[logical.ColumnID(r.Index)], Name: r.Name, T: r.T, Null: r.Null}, nil
			}
			return e, nil
		}); err != nil {
			return nil, err
		}
		col := b.newCol("", c.Name, x.Type(), true)
		derived[col.ID] = x
		kept := visible[:0:0]
		for _, v := range visible {
			if !strings.EqualFold(v.Name, c.Name) {
				kept = append(kept, v)
			}
		}
		visible = append(kept, col)
		if ti := t.ColumnIndex(c.Name); ti >= 0 {
			l.Exprs[ti] = x
		}
	}
	// Number the raw columns the expressions read; the others are skipped.
	used := map[int]int{}
	for _, x := range l.Exprs {
		expr.Walk(x, func(e expr.Expr) bool {
			if r, ok := e.(*expr.ColRef); ok && r.Index >= n {
				used[r.Index-n] = -1
			}
			return true
		})
	}
	for i := range l.File {
		f := &l.File[i]
		if f.Raw < 0 {
			continue
		}
		if _, ok := used[f.Raw]; !ok {
			f.Raw = -1
			continue
		}
		used[f.Raw] = l.Raws
		f.Raw = l.Raws
		l.Raws++
	}
	for i, x := range l.Exprs {
		if x == nil {
			continue
		}
		x, err := expr.Rewrite(x, func(e expr.Expr) (expr.Expr, error) {
			if r, ok := e.(*expr.ColRef); ok && r.Index >= n {
				return &expr.ColRef{Index: n + used[r.Index-n], Name: r.Name, T: r.T, Null: r.Null}, nil
			}
			return e, nil
		})
		if err != nil {
			return nil, err
		}
		if l.Exprs[i], err = eval.Fold(x, &expr.Context{Now: b.ctx.Now}); err != nil {
			return nil, err
		}
	}
	// A NOT NULL column without a default must be filled (Doris's BindSink).
	filled := make([]bool, n)
	for _, f := range l.File {
		if f.Column >= 0 {
			filled[f.Column] = true
		}
	}
	for i, c := range t.Columns {
		if !filled[i] && l.Exprs[i] == nil && c.Default == nil && !c.Nullable {
			return nil, sqlerr.Doris.New("Column has no default value, column=" + c.Name)
		}
	}
	if where != nil {
		var cols []logical.Column
		for _, c := range t.Columns {
			cols = append(cols, b.newCol(t.Name, c.Name, c.Type, true))
		}
		x, err := b.bindLoadExpr(where.AST, cols, "where clause")
		if err != nil {
			return nil, err
		}
		if x.Type().Kind != types.Boolean {
			if x, err = expr.NewCall("is_true", x); err != nil {
				return nil, err
			}
		}
		first := cols[0].ID
		if x, err = expr.Rewrite(x, func(e expr.Expr) (expr.Expr, error) {
			if r, ok := e.(*expr.ColRef); ok {
				return &expr.ColRef{Index: r.Index - int(first), Name: r.Name, T: r.T, Null: r.Null}, nil
			}
			return e, nil
		}); err != nil {
			return nil, err
		}
		if l.Where, err = eval.Fold(x, &expr.Context{Now: b.ctx.Now}); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// bindLoadExpr binds one expression of a load header over cols; a load
// has no query around it, so subqueries are refused.
func (b *Binder) bindLoadExpr(e sqlparser.Expr, cols []logical.Column, clause string) (expr.Expr, error) {
	var applies []*logical.Apply
	prev := b.applies
	b.applies = &applies
	defer func() { b.applies = prev }()
	x, err := b.bindExpr(e, &scope{cols: cols, clause: clause})
	if err != nil {
		return nil, err
	}
	if len(applies) > 0 {
		return nil, sqlerr.NotSupportedYet.New("subqueries in a stream load's " + strings.TrimSuffix(clause, " clause"))
	}
	var bad error
	expr.Walk(x, func(e expr.Expr) bool {
		if _, ok := e.(*expr.Param); ok {
			bad = sqlerr.Doris.New("placeholders in a stream load's " + strings.TrimSuffix(clause, " clause"))
		}
		return bad == nil
	})
	return x, bad
}
