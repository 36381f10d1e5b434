package catalog

import (
	"reflect"
	"testing"

	"github.com/dorisgo/dorisgo/storage"
)

// TestReopenOnPebble runs the catalog on the real metadata store and checks
// a close/reopen restores the same state.
func TestReopenOnPebble(t *testing.T) {
	dir := t.TempDir()
	m, err := storage.OpenMeta(dir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(m)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		be, err := c.AddBackend("127.0.0.1", 9060+i)
		if err != nil {
			t.Fatal(err)
		}
		c.SetBackendState(be.ID, true, "", testNow)
	}
	if _, err := c.CreateDatabase("db", false); err != nil {
		t.Fatal(err)
	}
	tb := mustCreate(t, c, "db", colocated("t", 4, 2, "g"))
	if err := c.CreateUser("u", "%", "pw", false); err != nil {
		t.Fatal(err)
	}
	x, _ := c.BeginTxn("db", "l", []TableID{tb.ID})
	if _, err := c.CommitTxn(x.ID, []PartitionID{tb.Partitions[0].ID}, map[storage.TabletID]int64{tb.Partitions[0].Tablets[1].ID: 3}, nil); err != nil {
		t.Fatal(err)
	}
	before := stateOf(c)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}

	m2, err := storage.OpenMeta(dir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	c2, err := Open(m2)
	if err != nil {
		t.Fatal(err)
	}
	for _, be := range c2.Backends() {
		c2.SetBackendState(be.ID, true, "", testNow)
	}
	if after := stateOf(c2); !reflect.DeepEqual(before, after) {
		t.Fatalf("reopen differs:\n%+v\n%+v", before, after)
	}
	if got := c2.Txns(TxnCommitted); len(got) != 1 || got[0].Versions[tb.Partitions[0].ID] != 2 {
		t.Fatal("committed txn not recovered", got)
	}
}
