package op

import (
	"fmt"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// SpillConfig lets memory-bound operators write their state to disk
// instead of failing at exec_mem_limit (Doris's enable_spill). A nil
// *SpillConfig, or Enabled false, keeps everything in memory.
type SpillConfig struct {
	Enabled bool `json:"enabled,omitempty"`
	// Dir is where spill files go (a fresh directory per operator under
	// it, removed when the operator closes); "": os.TempDir().
	Dir string `json:"dir,omitempty"`
	// Partitions is the fan-out of a spilled hash join, per level
	// (Doris's spill_hash_join_partition_count); 0: 32.
	Partitions int `json:"partitions,omitempty"`
	// Threshold, if > 0, is how many bytes a join's build side may hold
	// before it spills even though exec_mem_limit would allow more (a
	// share of the limit kept for the rest of the query).
	Threshold int64 `json:"threshold,omitempty"`
}

const defaultSpillPartitions = 32

func (c *SpillConfig) Active() bool { return c != nil && c.Enabled }

func (c *SpillConfig) PartitionCount() (int, error) {
	p := c.Partitions
	if p == 0 {
		return defaultSpillPartitions, nil
	}
	if p < 2 || p > 32 {
		return 0, sqlerr.Doris.New(fmt.Sprintf("invalid spill_hash_join_partition_count %d: must be between 2 and 32", p))
	}
	return p, nil
}

// SpillStats are an operator's spill counters (OpStats shows them).
type SpillStats struct {
	Partitions int64 // partitions written (all levels; a partition has a build and a probe file)
	Bytes      int64 // bytes written to spill files
	WriteNs    int64
	ReadNs     int64
}

// SpillCounter is implemented by operators that may spill.
type SpillCounter interface{ Spilled() SpillStats }
