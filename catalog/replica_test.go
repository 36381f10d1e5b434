package catalog

import (
	"strings"
	"testing"

	"github.com/dorisgo/dorisgo/storage"
)

// A commit needs a majority of each written tablet's replicas; the others
// become lagging at the new version, survive a reopen, and a finished
// repair makes them healthy again (or replaces them).
func TestMajorityCommitAndRepair(t *testing.T) {
	c, kv := newTestCatalog(t, 4)
	tb := mustCreate(t, c, "db", dupSpec("t", 1, 3))
	p := tb.Partitions[0]
	tab := p.Tablets[0]
	bes := []BackendID{tab.Replicas[0].BackendID, tab.Replicas[1].BackendID, tab.Replicas[2].BackendID}

	// One replica of three: no majority.
	txn, err := c.BeginTxn("db", "", []TableID{tb.ID})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CommitTxns([]TxnCommit{{ID: txn.ID, Partitions: []PartitionID{p.ID}, Written: map[storage.TabletID][]BackendID{tab.ID: bes[:1]}}})
	if err == nil || !strings.Contains(err.Error(), "a majority of 2 is needed") {
		t.Fatalf("commit on 1 of 3 replicas: %v", err)
	}
	// Two of three commit; the third lags at version 2.
	if _, err := c.CommitTxns([]TxnCommit{{ID: txn.ID, Partitions: []PartitionID{p.ID}, Written: map[storage.TabletID][]BackendID{tab.ID: bes[:2]}}}); err != nil {
		t.Fatal(err)
	}
	if err := c.FinishTxn(txn.ID); err != nil {
		t.Fatal(err)
	}
	c = openTest(t, kv) // persisted
	pl, _ := c.FindTablet(tab.ID)
	r := pl.Tablet.Replicas[2]
	if r.BackendID != bes[2] || r.Healthy() || r.LastFailedVersion != 2 || r.Version != 1 {
		t.Fatalf("missed replica: %+v, want lagging at 2 with version 1", r)
	}
	if got := pl.Tablet.HealthyOn(); len(got) != 2 {
		t.Fatalf("healthy on %v", got)
	}
	// The backends holding the last healthy replicas: none is alone.
	if last := c.LastReplicas(bes[0]); len(last) != 0 {
		t.Fatalf("LastReplicas(%d) = %v", bes[0], last)
	}
	// A repair at a stale version is refused; at the visible one it heals.
	if err := c.FinishRepair(Repair{Tablet: tab.ID, To: bes[2], Version: 1}); err == nil {
		t.Fatal("repair at a stale version accepted")
	}
	if err := c.FinishRepair(Repair{Tablet: tab.ID, To: bes[2], Version: 2}); err != nil {
		t.Fatal(err)
	}
	pl, _ = c.FindTablet(tab.ID)
	if !pl.Tablet.Replicas[2].Healthy() {
		t.Fatalf("repaired replica still lagging: %+v", pl.Tablet.Replicas[2])
	}
	// Replace the replica on bes[0] by one on the fourth backend.
	var fourth BackendID
	for _, b := range c.Backends() {
		if b.ID != bes[0] && b.ID != bes[1] && b.ID != bes[2] {
			fourth = b.ID
		}
	}
	if err := c.AddCloneReplica(tab.ID, fourth); err != nil {
		t.Fatal(err)
	}
	pl, _ = c.FindTablet(tab.ID)
	if n := len(pl.Tablet.Replicas); n != 4 || pl.Tablet.Replicas[3].Healthy() {
		t.Fatalf("clone target not registered lagging: %+v", pl.Tablet.Replicas)
	}
	if err := c.FinishRepair(Repair{Tablet: tab.ID, To: fourth, Version: 2, Drop: bes[0]}); err != nil {
		t.Fatal(err)
	}
	pl, _ = c.FindTablet(tab.ID)
	var on []BackendID
	for _, r := range pl.Tablet.Replicas {
		if !r.Healthy() {
			t.Fatalf("unhealthy after the move: %+v", r)
		}
		on = append(on, r.BackendID)
	}
	if len(on) != 3 || on[2] != fourth || on[0] == bes[0] {
		t.Fatalf("replicas on %v after moving off %d to %d", on, bes[0], fourth)
	}
	// Dropping below a majority of healthy replicas is refused.
	if err := c.DropReplica(tab.ID, on[0]); err != nil {
		t.Fatal(err)
	}
	if err := c.DropReplica(tab.ID, on[1]); err == nil {
		t.Fatal("dropped a tablet below its majority")
	}
}
