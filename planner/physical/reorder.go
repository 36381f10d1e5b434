package physical

import "github.com/dorisgo/dorisgo/planner/logical"

// reorder is join reordering (DORIS-PLANNING.md §2.6).
// TODO(planner): reorder runs of INNER/CROSS joins by estimated rows; the
// written order is kept for now.
func (d *distPlanner) reorder(n logical.Node) logical.Node { return n }
