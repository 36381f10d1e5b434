package logical

import "github.com/dorisgo/dorisgo/sql/expr"

// Repeat emits every input row once per grouping set (GROUP BY ROLLUP, CUBE,
// GROUPING SETS). Output = input columns (unchanged, for the aggregate
// arguments) ++ KeyCols (KeyCols[i] is Keys[i], or NULL when key i is not
// in the set) ++ GroupingID. The Aggregate above groups by KeyCols and
// GroupingID, so rows of different sets never merge.
type Repeat struct {
	Input   Node
	Keys    []*expr.ColRef // over Input's columns
	KeyCols []Column
	// Sets[s] lists the Keys indexes grouping set s keeps; IDs[s] is its
	// grouping id: bit len(Keys)-1-i is set when key i is rolled up.
	Sets       [][]int
	IDs        []int64
	GroupingID Column
}

func (n *Repeat) Columns() []Column {
	out := append(append([]Column{}, n.Input.Columns()...), n.KeyCols...)
	return append(out, n.GroupingID)
}

func (n *Repeat) Inputs() []Node { return []Node{n.Input} }

func (*Repeat) node() {}

// GroupingID is the grouping id of a set keeping keys (indexes below
// nkeys): bit nkeys-1-i is set for every key i the set rolls up.
func GroupingID(nkeys int, keys []int) int64 {
	id := int64(1)<<nkeys - 1
	for _, k := range keys {
		id &^= 1 << (nkeys - 1 - k)
	}
	return id
}
