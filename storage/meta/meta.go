// Package meta holds the plain values by which the planner, the plan
// fragments and the storage engine name tablets, versions and the column
// ranges a scan may prune with. It imports no storage engine, so the plan
// contract (planner/fragment) can use them without depending on Pebble;
// package storage re-exports them under their usual names.
package meta

import "github.com/dorisgo/dorisgo/sql/types"

// TabletID names one tablet (one bucket of one partition of one table).
type TabletID int64

// TxnID names one load transaction, allocated by the FE.
type TxnID int64

// Version is a partition's visible version: a scan at version v sees every
// rowset published with a version <= v. Version 1 is the empty tablet.
type Version int64

// ColumnRange is a predicate on one column usable for zone-map (per-segment
// min/max) pruning: the segment may be skipped when its [min,max] does not
// intersect [Lo,Hi]. A nil bound is unbounded.
type ColumnRange struct {
	Column int          `json:"column"`
	Lo     *types.Datum `json:"lo,omitempty"`
	LoIncl bool         `json:"lo_incl,omitempty"`
	Hi     *types.Datum `json:"hi,omitempty"`
	HiIncl bool         `json:"hi_incl,omitempty"`
}

// PartialUpdate is a load of some columns of a merge-on-write UNIQUE KEY
// tablet (Doris's partial column update): the record still has every
// column, and Fill lists those the load did not give. A row whose key has
// a live row takes Fill's columns from it; a new key keeps what the
// record holds (the columns' defaults). A live row whose delete sign
// (column Sign, -1: none) is 1 counts as absent.
type PartialUpdate struct {
	Fill []int `json:"fill"`
	Sign int   `json:"sign"`
}
