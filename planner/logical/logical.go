// Package logical is the bound, optimisable relational plan: the binder's
// output and the rewrite rules' input and output.
//
// Columns are identified by ColumnID, unique within a query; expressions in
// logical nodes reference columns by id (expr.ColRef.Index holds the id).
// Lowering to fragments turns ids into positions in each operator's input.
// Nodes are immutable: rewrites build new nodes.
package logical

import (
	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// ColumnID identifies a column within one query.
type ColumnID int

// Column is one output column of a node.
type Column struct {
	ID    ColumnID
	Table string // qualifier for name resolution and EXPLAIN (alias or table name)
	Name  string
	T     types.T
	Null  bool
}

// Ref returns a column reference expression to c.
func (c Column) Ref() *expr.ColRef {
	return &expr.ColRef{Index: int(c.ID), Table: c.Table, Name: c.Name, T: c.T, Null: c.Null}
}

// Node is a logical operator.
type Node interface {
	Columns() []Column
	Inputs() []Node
	node()
}

// Scan reads an OLAP table.
type Scan struct {
	DB      string
	Table   *catalog.Table
	Alias   string
	Cols    []Column // the columns read
	Ords    []int    // Cols[i] is table column Ords[i]
	Filters []expr.Expr
	// ViewDB.View is the outermost view through which the query reads
	// the table ("" if it names the table itself): privileges are checked
	// on the view, not on the table, as in Doris.
	ViewDB, View string
}

// Filter keeps rows satisfying every conjunct.
type Filter struct {
	Input Node
	Conds []expr.Expr
}

// Project computes new columns.
type Project struct {
	Input Node
	Exprs []expr.Expr
	Cols  []Column
}

// Limit skips Offset rows and keeps Count (-1: all).
type Limit struct {
	Input         Node
	Offset, Count int64
}

// Values is a constant relation.
type Values struct {
	Rows [][]expr.Expr
	Cols []Column
	// System: the rows of a system table (information_schema), which the
	// planner treats as a non-OLAP scan of unknown size.
	System bool
}

func (n *Scan) Columns() []Column    { return n.Cols }
func (n *Filter) Columns() []Column  { return n.Input.Columns() }
func (n *Project) Columns() []Column { return n.Cols }
func (n *Limit) Columns() []Column   { return n.Input.Columns() }
func (n *Values) Columns() []Column  { return n.Cols }

func (n *Scan) Inputs() []Node    { return nil }
func (n *Filter) Inputs() []Node  { return []Node{n.Input} }
func (n *Project) Inputs() []Node { return []Node{n.Input} }
func (n *Limit) Inputs() []Node   { return []Node{n.Input} }
func (n *Values) Inputs() []Node  { return nil }

func (*Scan) node()    {}
func (*Filter) node()  {}
func (*Project) node() {}
func (*Limit) node()   {}
func (*Values) node()  {}

// TypedColumns returns the SQL shape of cols.
func TypedColumns(cols []Column) []types.Column {
	out := make([]types.Column, len(cols))
	for i, c := range cols {
		out[i] = types.Column{Name: c.Name, Type: c.T, Nullable: c.Null}
	}
	return out
}
