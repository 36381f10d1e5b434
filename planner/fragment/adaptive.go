package fragment

// AdaptiveJoin is a PARTITIONED hash join whose distribution is settled
// when its build side has been measured, before its probe side sends a row
// (Spark's DynamicJoinSelection, while streaming). Both sides arrive
// through exchanges planned as hash shuffles. The build fragment's sink
// holds its rows until it has seen them all or more than the limits; the
// coordinator adds up what every build instance saw and decides:
//
//   - BROADCAST when the build side has at most MaxRows rows and MaxBytes
//     bytes: every build row goes to every join instance, and each probe
//     instance sends its rows to the join instance on its own backend, so
//     the probe side never crosses the network;
//   - PARTITIONED (as planned) otherwise: both sides are hash shuffled.
//
// A join planned as BROADCAST from a guessed build side estimate is
// planned in the same shape (Planned), so that a build side that turns
// out large is shuffled before the probe side starts.
//
// The planner marks a join adaptive only when nothing above it in its
// fragment relies on its output being hash partitioned on its keys, the
// join type allows a replicated build side, and no hint or variable fixed
// its distribution; either way the join's answer is the same.
type AdaptiveJoin struct {
	// Build and Probe are the join's exchange nodes (children 1 and 0).
	Build NodeID `json:"build"`
	Probe NodeID `json:"probe"`
	// MaxRows and MaxBytes bound a build side that runs broadcast
	// (broadcast_row_count_limit; the cost rule B × nodes ≤ A + B with the
	// probe side's estimate; the memory a broadcast hash table may take),
	// and so also what a build instance holds back before it knows.
	MaxRows  int64 `json:"max_rows"`
	MaxBytes int64 `json:"max_bytes"`
	// SkewShare > 0: when the join stays PARTITIONED, a key over this share
	// of the probe side's first rows is spread: its probe rows round robin
	// over the join instances, its build rows to all of them (Spark's
	// OptimizeSkewedJoin; correct because the build side is the one a
	// broadcast could replicate).
	SkewShare float64 `json:"skew_share,omitempty"`
	// Planned is the distribution the planner chose: PARTITIONED, or
	// BROADCAST for a join whose build side estimate was a guess, planned
	// in this shape so that a build side that turns out large runs
	// PARTITIONED instead (physical.adaptBroadcast). The run decides the
	// same way either way; Planned is what EXPLAIN and the profile show
	// as planned.
	Planned AdaptMode `json:"planned,omitempty"`
}

// AdaptMode is how an adaptive join's exchanges were told to run.
type AdaptMode uint8

const (
	AdaptUndecided   AdaptMode = iota
	AdaptPartitioned           // hash shuffle both sides, as planned
	AdaptBroadcast             // replicate the build side, keep the probe side local
)

func (m AdaptMode) String() string {
	switch m {
	case AdaptPartitioned:
		return "PARTITIONED"
	case AdaptBroadcast:
		return "BROADCAST"
	}
	return "undecided"
}
