package server

import (
	"os"
	"path/filepath"

	"github.com/dorisgo/dorisgo/execution/op"
)

// spillConfig is the session's spilling (Doris's enable_spill and
// spill_hash_join_partition_count) for the operators this process runs:
// spill files go under DataDir/spill, one directory per spilling operator,
// removed when it closes (os.TempDir without a DataDir). Nil when
// spilling is off.
func (s *Session) spillConfig() *op.SpillConfig {
	if s.vars.get("enable_spill") != "true" {
		return nil
	}
	c := &op.SpillConfig{Enabled: true, Partitions: int(s.vars.int("spill_hash_join_partition_count"))}
	if d := s.srv.cfg.DataDir; d != "" {
		c.Dir = filepath.Join(d, "spill")
	}
	return c
}

// clearSpill removes spill files a previous process left behind (it
// stopped mid-query); running operators remove their own.
func clearSpill(dataDir string) {
	if dataDir != "" {
		os.RemoveAll(filepath.Join(dataDir, "spill"))
	}
}
