package coord

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/op/exchange"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A panic in a goroutine a query started fails that query with error 1105
// naming it, and is logged with the query id and the stack; the process
// lives on.
func TestRecoverQueryFailsTheQuery(t *testing.T) {
	var logs lockedBuffer
	c := New(nil, slog.New(slog.NewTextHandler(&logs, nil)))
	q := &query{c: c, id: "0123abcd", backends: map[catalog.BackendID]bool{}, inboxes: map[fragment.NodeID]*exchange.Inbox{}}
	q.ctx, q.cancel = context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer q.recoverQuery("pulling an exchange stream")
		var m map[string]int
		m["x"]++ // a nil map write: a runtime panic
	}()
	<-done
	c.bg.Wait()
	err := q.error()
	e := sqlerr.As(err)
	if err == nil || e.Code != 1105 || !strings.Contains(e.Message, "unexpected panic in query 0123abcd while pulling an exchange stream: assignment to entry in nil map") {
		t.Fatalf("query error %v, want 1105 naming the query and the panic", err)
	}
	if q.ctx.Err() == nil {
		t.Error("the query was not cancelled")
	}
	line := logs.String()
	for _, want := range []string{"query_id=0123abcd", "panic in query 0123abcd while pulling an exchange stream", "panic_internal_test.go"} {
		if !strings.Contains(line, want) {
			t.Errorf("log lacks %q:\n%s", want, line)
		}
	}
}
