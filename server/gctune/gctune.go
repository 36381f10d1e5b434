// Package gctune sets the Go collector for dorisgo's process, the same
// for the server binary and the benchmarks that run it in process.
package gctune

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"

	"github.com/dorisgo/dorisgo/storage"
)

// Tune sets the collector for a query engine. Its heap is mostly
// short-lived batches, so Go's default (collect at 100% growth of the live heap) counts the column
// cache, long-lived and up to --column-cache-mb, as live: the heap would
// grow by the cache's size between collections. After every collection the
// percentage is set so that the next one comes when the heap outside the
// cache has doubled (200% until the cache fills). A soft limit at half the
// machine's memory makes the collector work harder rather than run out on
// a big query. GOGC and GOMEMLIMIT in the environment win.
//
// Collecting this often is deliberate: a floor of 375 MiB between
// collections took a quarter off TPC-H Q16's CPU at SF 0.1 run in a loop,
// but made SSB Q3/Q4 twice as slow in the benchmark, each query taking
// ~1500 page faults: on the 2-core VMs we measure on, memory left idle
// between collections is reclaimed by the host and faulted back in.
func Tune() { tuneOnce.Do(tune) }

// tuneOnce: the finalizer chain is started once per process (a benchmark
// calls Tune for every run).
var tuneOnce sync.Once

func tune() {
	if os.Getenv("GOMEMLIMIT") == "" {
		if total := totalMemory(); total > 0 {
			debug.SetMemoryLimit(total / 2)
		}
	}
	if os.Getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(200)
	runtime.SetFinalizer(&gcSentinel{}, afterGC)
}

// gcSentinel is garbage whose finalizer runs once per collection.
type gcSentinel struct{ pct int }

var liveSample = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}

func afterGC(s *gcSentinel) {
	metrics.Read(liveSample)
	if liveSample[0].Value.Kind() == metrics.KindUint64 {
		live := int64(liveSample[0].Value.Uint64())
		cache := storage.ColumnCacheBytes()
		work := max(live-cache, 32<<20)
		pct := int(min(200, max(25, 100*work/(cache+work))))
		if d := pct - s.pct; d > 5 || d < -5 {
			debug.SetGCPercent(pct)
			s.pct = pct
		}
	}
	runtime.SetFinalizer(s, afterGC) // again after the next collection
}

// totalMemory is MemTotal from /proc/meminfo in bytes (0 if unknown).
func totalMemory() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}
