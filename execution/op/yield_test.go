package op

import (
	"runtime"
	"testing"
	"time"
)

// TestYielderTakesTurns: on one P, a goroutine woken while a CPU-bound loop
// calls Maybe runs within about yieldEvery, not after Go's 10 ms
// preemption. The best of several tries, so a loaded machine does not
// decide it.
func TestYielderTakesTurns(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	best := time.Hour
	for try := 0; try < 5; try++ {
		woke := make(chan time.Time, 1)
		start := make(chan time.Time, 1)
		go func() {
			t0 := <-start
			woke <- t0
		}()
		var y Yielder
		deadline := time.Now().Add(40 * time.Millisecond)
		sent := false
		var waited time.Duration
		for time.Now().Before(deadline) {
			for i := 0; i < 1000; i++ { // busy work between calls
				_ = i * i
			}
			if !sent && time.Now().After(deadline.Add(-30*time.Millisecond)) {
				start <- time.Now() // makes the other goroutine runnable
				sent = true
			}
			select {
			case t0 := <-woke:
				waited = time.Since(t0)
				deadline = time.Now()
			default:
			}
			y.Maybe()
		}
		if waited > 0 && waited < best {
			best = waited
		}
	}
	if best > 5*time.Millisecond {
		t.Fatalf("a runnable goroutine waited %v behind a yielding loop, want about %v", best, yieldEvery)
	}
}
