package coord

import (
	"sync/atomic"
	"testing"
	"time"
)

// Close waits for the goroutines queries left talking to backends (an
// exchange pull of a query that already failed, say) before it closes the
// connections they use, and starts none after: the race detector once
// caught a pull reading a client that Close was tearing down.
func TestCloseWaitsForQueryGoroutines(t *testing.T) {
	c := New(nil, nil)
	release := make(chan struct{})
	var finished atomic.Bool
	if !c.goTracked(func() {
		select {
		case <-release:
		case <-c.base.Done(): // Close cancels what queries still run
		}
		time.Sleep(50 * time.Millisecond)
		finished.Store(true)
	}) {
		t.Fatal("goTracked refused before Close")
	}
	c.Close()
	if !finished.Load() {
		t.Fatal("Close returned while a query goroutine still ran")
	}
	if c.goTracked(func() { t.Error("ran after Close") }) {
		t.Fatal("goTracked accepted work after Close")
	}
	close(release)
}
