package server

import "github.com/dorisgo/dorisgo/planner/logical"

// sourceRows estimates the rows a load's source produces where the
// planner's estimate (Distributed.RootRows) is unknown: it counts a
// numbers() table function by its "number" argument, VALUES by its rows,
// through projections and limits; anything else (a filter, a join) stays
// unknown (-1). SHOW LOAD's progress of INSERT … SELECT FROM numbers(…)
// then moves instead of sitting at 0%.
func sourceRows(n logical.Node) int64 {
	switch x := n.(type) {
	case *logical.TableFunc:
		return x.Count
	case *logical.Values:
		return int64(len(x.Rows))
	case *logical.Project:
		return sourceRows(x.Input)
	case *logical.Limit:
		in := sourceRows(x.Input)
		if in < 0 {
			return -1
		}
		in = max(in-x.Offset, 0)
		if x.Count >= 0 {
			in = min(in, x.Count)
		}
		return in
	}
	return -1
}

// estimateOr is est, or the source's own estimate when est is unknown.
func estimateOr(est int64, src logical.Node) int64 {
	if est >= 0 {
		return est
	}
	return sourceRows(src)
}
