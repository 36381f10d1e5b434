package logical

// TableFuncParam is one "key" = "value" argument of a table-valued function.
type TableFuncParam struct {
	Key, Value string
}

// TableFunc is a table-valued function in FROM (Doris's numbers): a leaf
// that reads no OLAP table, so it has no storage distribution.
type TableFunc struct {
	Name   string // lower case, e.g. "numbers"
	Params []TableFuncParam
	Alias  string
	Cols   []Column
	// Count is the number of rows numbers generates (0 .. Count-1).
	Count int64
}

func (n *TableFunc) Columns() []Column { return n.Cols }
func (n *TableFunc) Inputs() []Node    { return nil }
func (*TableFunc) node()               {}
