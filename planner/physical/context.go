package physical

import (
	"context"
	"strconv"
	"strings"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/hint"
)

// Vars are the session variables distributed planning reads
// (DORIS-PLANNING.md §7).
type Vars struct {
	EnableBucketShuffleJoin    bool
	DisableColocatePlan        bool
	DisableJoinReorder         bool
	PreferJoinMethod           string // "broadcast" (ties broadcast) or "shuffle"
	AutoBroadcastJoinThreshold float64
	BroadcastRowCountLimit     float64
	ExecMemLimit               int64
	ParallelPipelineTaskNum    int
	EnableLocalShuffle         bool
	// SingleBackendScanRows: a fragment whose scans' tablets hold at most
	// this many rows runs as one instance on a backend with all of them
	// (0: never); fragment.Plan.SingleBackendRows.
	SingleBackendScanRows int64
	// RuntimeFilterMode is OFF, LOCAL (filters within a fragment) or GLOBAL
	// (Doris's default: also across exchanges, merged on the scans'
	// backends); RuntimeFilterWaitTimeMs is how long a scan waits for its
	// global filters before its first read.
	RuntimeFilterMode       string
	RuntimeFilterWaitTimeMs int
	// EnableAdaptiveJoin lets PARTITIONED joins run as BROADCAST when their
	// build side turns out small (adaptive.go).
	EnableAdaptiveJoin bool
	// AdaptiveJoinSkewShare > 0: an adaptive join that stays PARTITIONED
	// spreads a probe key over this share of its sampled rows.
	AdaptiveJoinSkewShare float64
}

// DefaultVars are the variables' defaults.
func DefaultVars() Vars {
	return Vars{EnableBucketShuffleJoin: true, PreferJoinMethod: "broadcast", AutoBroadcastJoinThreshold: 0.8,
		BroadcastRowCountLimit: 30000000, ExecMemLimit: 2147483648, EnableLocalShuffle: true,
		RuntimeFilterMode: "GLOBAL", RuntimeFilterWaitTimeMs: 1000, EnableAdaptiveJoin: true, AdaptiveJoinSkewShare: 0.2,
		SingleBackendScanRows: 4096}
}

// Context is what distributed planning reads besides the plan: the catalog
// (placement, statistics, colocate groups), the session variables and the
// statement's Spark-style hints. Nothing is read from globals.
type Context struct {
	Cat   *catalog.Catalog
	Vars  Vars
	Spark []hint.Spark
	// Cores sizes parallel_pipeline_task_num = 0 (cores/2); 0: this machine's.
	Cores int
	// Check, when set, verifies the finished plan before it is returned
	// (the session's enable_plan_check runs planner/check here); a plan it
	// rejects fails the statement instead of running.
	Check func(*fragment.Plan) error
	// Ctx is the statement's (query_timeout, KILL, the client hanging up):
	// planning stops with its error once it is done. Nil: never.
	Ctx context.Context
}

// cancelled is the statement context's error; the planner asks at every
// plan node it builds and emits.
func (c *Context) cancelled() error {
	if c.Ctx == nil {
		return nil
	}
	return c.Ctx.Err()
}

// Set assigns one variable by its session name (values as SET stores them);
// unknown names are ignored, as they do not affect planning.
func (v *Vars) Set(name, value string) {
	b := func() bool {
		s := strings.ToLower(strings.TrimSpace(value))
		return s == "1" || s == "true" || s == "on"
	}
	f := func() float64 { x, _ := strconv.ParseFloat(strings.TrimSpace(value), 64); return x }
	switch strings.ToLower(name) {
	case "enable_bucket_shuffle_join":
		v.EnableBucketShuffleJoin = b()
	case "disable_colocate_plan":
		v.DisableColocatePlan = b()
	case "disable_join_reorder":
		v.DisableJoinReorder = b()
	case "prefer_join_method":
		v.PreferJoinMethod = strings.ToLower(strings.TrimSpace(value))
	case "auto_broadcast_join_threshold":
		v.AutoBroadcastJoinThreshold = f()
	case "broadcast_row_count_limit":
		v.BroadcastRowCountLimit = f()
	case "exec_mem_limit":
		v.ExecMemLimit = int64(f())
	case "parallel_pipeline_task_num":
		v.ParallelPipelineTaskNum = int(f())
	case "enable_local_shuffle":
		v.EnableLocalShuffle = b()
	case "single_backend_scan_rows":
		v.SingleBackendScanRows = int64(f())
	case "runtime_filter_mode":
		v.RuntimeFilterMode = strings.ToUpper(strings.TrimSpace(value))
	case "runtime_filter_wait_time_ms":
		v.RuntimeFilterWaitTimeMs = int(f())
	case "enable_adaptive_join":
		v.EnableAdaptiveJoin = b()
	case "adaptive_join_skew_share":
		v.AdaptiveJoinSkewShare = f()
	}
}

// VarNames are the session variables Vars holds.
func VarNames() []string {
	return []string{"enable_bucket_shuffle_join", "disable_colocate_plan", "disable_join_reorder", "prefer_join_method",
		"auto_broadcast_join_threshold", "broadcast_row_count_limit", "exec_mem_limit", "parallel_pipeline_task_num", "enable_local_shuffle",
		"runtime_filter_mode", "runtime_filter_wait_time_ms", "enable_adaptive_join", "adaptive_join_skew_share", "single_backend_scan_rows"}
}
