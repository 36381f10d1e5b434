package coord_test

import (
	"context"
	"testing"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/sql/types"
)

// A move of single-replica tablets (here: their backend decommissioned)
// while a transaction that wrote them is still open waits for it: the
// transaction commits with every row, and only then do the replicas
// leave. Before, the move dropped the only replica the transaction had
// written and its commit failed ("only 0 of 1 replicas can be written").
func TestMoveWaitsForOpenLoad(t *testing.T) {
	c := newCluster(t, 3)
	ctx := context.Background()
	tb := c.table("m", types.BigIntT, "k", 6, 1, "")
	ks, xs := seqRows(300)
	c.load(tb, ks, xs)

	x, err := c.co.BeginExplicit("db", "")
	if err != nil {
		t.Fatal(err)
	}
	more, mxs := seqRows(400)
	if _, err := x.Load(ctx, tb, c.source(tb, more[300:], mxs[300:])); err != nil {
		t.Fatal(err)
	}
	leaving := c.ids[0]
	counts := func() map[catalog.BackendID]int { return c.co.BalanceStatus().Replicas }
	if counts()[leaving] == 0 {
		t.Fatalf("no replica on backend %d to move: %v", leaving, counts())
	}
	if err := c.cat.SetBackendDecommissioned(leaving, true); err != nil {
		t.Fatal(err)
	}
	// The moves wait for the open transaction.
	time.Sleep(1500 * time.Millisecond)
	if n := counts()[leaving]; n == 0 {
		t.Fatalf("every replica left backend %d while a transaction that wrote them was open", leaving)
	}
	if _, err := x.Commit(ctx); err != nil {
		t.Fatalf("commit after its tablets began moving: %v", err)
	}
	c.waitUntil(30*time.Second, "the decommissioned backend empty", func() bool { return counts()[leaving] == 0 })
	rows, err := c.readRows("m")
	if err != nil || len(rows) != 400 {
		t.Fatalf("after the move: %d rows, %v; want 400", len(rows), err)
	}
}
