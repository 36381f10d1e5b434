package rpc

import "github.com/dorisgo/dorisgo/planner/fragment"

// AdaptSink is one sink's part in an adaptive join.
type AdaptSink struct {
	// Build: the sink feeds the join's build side and measures it; else it
	// feeds the probe side.
	Build bool `json:"build,omitempty"`
	// MaxRows and MaxBytes: a build sink stops holding rows back past them.
	MaxRows  int64 `json:"max_rows,omitempty"`
	MaxBytes int64 `json:"max_bytes,omitempty"`
	// Local (probe) are the receiver indexes on the sender's own backend,
	// where its rows go when the join runs broadcast (empty: round robin
	// over all receivers).
	Local []int `json:"local,omitempty"`
	// SkewShare (probe) > 0: the sink samples its first rows' keys and
	// reports those near this share of them (a key over it is spread).
	SkewShare float64 `json:"skew_share,omitempty"`
}

// AdaptWaitReq names one sender of an adaptive join's exchange (build:
// its measurement; probe: its key sample).
type AdaptWaitReq struct {
	QueryID  string          `json:"query_id"`
	Exchange fragment.NodeID `json:"exchange"`
	Sender   int             `json:"sender"`
}

// AdaptReport is what a build sender measured before it held still:
// everything (Done) or more than its limits (Over).
type AdaptReport struct {
	Rows  int64 `json:"rows"`
	Bytes int64 `json:"bytes"`
	Done  bool  `json:"done,omitempty"`
	Over  bool  `json:"over,omitempty"`
	// Keys (probe side) counts the frequent key hashes among Rows sampled.
	Keys map[uint64]int64 `json:"keys,omitempty"`
}

// AdaptDecideReq settles the exchanges of an adaptive join on one backend.
type AdaptDecideReq struct {
	QueryID   string             `json:"query_id"`
	Exchanges []fragment.NodeID  `json:"exchanges"`
	Mode      fragment.AdaptMode `json:"mode"`
	// Skew are the key hashes a PARTITIONED join spreads: their probe rows
	// go round robin, their build rows to every instance.
	Skew []uint64 `json:"skew,omitempty"`
}
