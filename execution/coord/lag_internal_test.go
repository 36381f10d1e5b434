package coord

import (
	"context"
	"encoding/json"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/storage"
)

// slowBackend answers heartbeats (and, empty, the other calls); the first
// slow heartbeats take 1.5 s, longer than a ping may.
type slowBackend struct {
	flight.BaseFlightServer
	slow atomic.Int32
}

func (s *slowBackend) DoAction(a *flight.Action, stream flight.FlightService_DoActionServer) error {
	if a.Type == rpc.ActHeartbeat && s.slow.Add(-1) >= 0 { // not the tablet report
		time.Sleep(3 * heartbeatTimeout / 2)
	}
	body, _ := json.Marshal(rpc.HeartbeatResp{})
	return stream.Send(&flight.Result{Body: body})
}

func slowCluster(t *testing.T) (*Coordinator, *slowBackend, catalog.BackendID) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sb := &slowBackend{}
	gs := grpc.NewServer(rpc.ServerOptions()...)
	flight.RegisterFlightServiceServer(gs, sb)
	go gs.Serve(ln)
	t.Cleanup(gs.Stop)
	meta, err := storage.OpenMeta(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { meta.Close() })
	cat, err := catalog.Open(meta)
	if err != nil {
		t.Fatal(err)
	}
	be, err := cat.AddBackend("127.0.0.1", ln.Addr().(*net.TCPAddr).Port)
	if err != nil {
		t.Fatal(err)
	}
	c := New(cat, nil)
	t.Cleanup(c.Close)
	return c, sb, be.ID
}

func alive(c *Coordinator, id catalog.BackendID) bool {
	b, _ := c.cat.Backend(id)
	return b.Alive
}

// A backend that misses two pings in a row is dead when this process runs
// on time; while the process itself runs late (a heavy query on loaded
// cores) the misses are forgiven and the backend, answering again, stays
// alive.
func TestHeartbeatForgivesWhileThisProcessIsLate(t *testing.T) {
	c, sb, id := slowCluster(t)
	c.Heartbeat(context.Background())
	if !alive(c, id) {
		t.Fatal("not alive after a prompt heartbeat")
	}

	sb.slow.Store(2)
	c.Heartbeat(context.Background())
	if alive(c, id) {
		t.Error("two missed pings with this process on time: still alive")
	}
	// Answering again, it rejoins once it has answered for rejoinDelay.
	back := time.Now()
	for c.Heartbeat(context.Background()); !alive(c, id); c.Heartbeat(context.Background()) {
		if time.Since(back) > rejoinDelay+5*time.Second {
			t.Fatal("not alive again after prompt heartbeats")
		}
		time.Sleep(100 * time.Millisecond)
	}

	sb.slow.Store(3)
	stop := make(chan struct{})
	go func() { // this process runs late throughout
		for {
			select {
			case <-stop:
				return
			case <-time.After(lagTick):
				c.lag.mu.Lock()
				c.lag.lastLate = time.Now()
				c.lag.mu.Unlock()
			}
		}
	}()
	c.Heartbeat(context.Background())
	close(stop)
	if !alive(c, id) {
		t.Error("three missed pings while this process ran late: marked dead")
	}
}
