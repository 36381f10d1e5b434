package coord_test

import (
	"context"
	"testing"
	"time"
)

// A backend lost, then answering again, takes queries only after it has
// answered for a while (the connections its peers may still close for the
// pings it missed are gone by then); a backend never lost joins at once.
func TestRejoinAfterLost(t *testing.T) {
	c := newCluster(t, 2)
	ctx := context.Background()
	c.co.Heartbeat(ctx)
	id := c.ids[1]
	alive := func() bool { b, _ := c.cat.Backend(id); return b.Alive }
	if !alive() {
		t.Fatal("backend not alive after its first heartbeat")
	}
	// Lost (as a failed load or a missed heartbeat marks it), then back.
	c.cat.SetBackendState(id, false, "lost for the test", time.Now())
	back := time.Now()
	c.co.Heartbeat(ctx)
	if alive() {
		t.Fatal("a lost backend is alive at its first answer again")
	}
	b, _ := c.cat.Backend(id)
	if b.ErrMsg == "" {
		t.Error("SHOW BACKENDS does not say why the answering backend is not alive yet")
	}
	c.waitUntil(10*time.Second, "the backend alive again", alive)
	if took := time.Since(back); took < 2*time.Second {
		t.Errorf("alive again after %v, want at least the peers' keepalive timeout", took)
	}
}
