package catalog

import (
	"testing"
	"time"
)

// TestHeartbeatFailureCounter: failed heartbeats in a row are counted, a
// good one resets the count, and disk figures are kept.
func TestHeartbeatFailureCounter(t *testing.T) {
	c, _ := newTestCatalog(t, 1)
	be := c.Backends()[0]
	now := time.Now()
	for i := 1; i <= 3; i++ {
		c.SetBackendState(be.ID, false, "down", now)
		if b, _ := c.Backend(be.ID); b.HeartbeatFailures != i || b.Alive {
			t.Fatalf("after %d failures: %+v", i, b)
		}
	}
	c.SetBackendState(be.ID, true, "", now)
	c.SetBackendDisk(be.ID, 10, 100, 40)
	if b, _ := c.Backend(be.ID); b.HeartbeatFailures != 0 || !b.Alive || b.DataUsed != 10 || b.DiskTotal != 100 || b.DiskAvail != 40 {
		t.Fatalf("after recovery: %+v", b)
	}
}
