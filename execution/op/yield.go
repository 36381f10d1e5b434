package op

import (
	"runtime"
	"time"
)

// yieldEvery is how long a busy operator loop runs before it lets other
// goroutines run.
const yieldEvery = 500 * time.Microsecond

// Yielder makes a CPU-bound loop take turns with other goroutines. Go
// preempts a goroutine that never blocks only after 10 ms, so on a
// machine with fewer cores than a query has instances (three backends'
// scans on two cores) one instance would wait whole time slices and finish
// alone after the others, leaving a core idle; and the gRPC writers that
// carry exchange batches and runtime filters would wait as long. Yielding
// every half millisecond interleaves them at that grain.
type Yielder struct{ last time.Time }

// Maybe yields if the loop ran yieldEvery since it last did.
func (y *Yielder) Maybe() {
	now := time.Now()
	if y.last.IsZero() {
		y.last = now
		return
	}
	if now.Sub(y.last) >= yieldEvery {
		runtime.Gosched()
		y.last = time.Now()
	}
}
