package catalog

import (
	"reflect"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/dorisgo/dorisgo/storage"
)

// TestReopenOnPebble runs the catalog on the real metadata store and checks
// a close/reopen restores the same state.
func TestReopenOnPebble(t *testing.T) {
	dir := t.TempDir()
	m, c := openMetaCatalog(t, dir, storage.Options{})
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

	c2 := reopenCatalog(t, dir, storage.Options{})
	for _, be := range c2.Backends() {
		c2.SetBackendState(be.ID, true, "", testNow)
	}
	after := stateOf(c2)
	// Open moves the transaction sequence past lost lazy BEGINs (kv.go).
	if after.Seq.Txn != before.Seq.Txn+txnGap {
		t.Fatalf("transaction sequence %d after reopen, want %d", after.Seq.Txn, before.Seq.Txn+txnGap)
	}
	after.Seq.Txn = before.Seq.Txn
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("reopen differs:\n%+v\n%+v", before, after)
	}
	if got := c2.Txns(TxnCommitted); len(got) != 1 || got[0].Versions[tb.Partitions[0].ID] != 2 {
		t.Fatal("committed txn not recovered", got)
	}
}

// TestLazyWritesCrash: a crash loses the lazy BEGIN and VISIBLE records
// written since the last synced write, but never a COMMIT, and a lost
// BEGIN's transaction ID is not handed out again.
func TestLazyWritesCrash(t *testing.T) {
	fs := vfs.NewCrashableMem()
	m, c := openMetaCatalog(t, "meta", storage.Options{FS: fs})
	tb := mustCreate(t, c, "db", colocated("t", 4, 2, "g"))
	part := tb.Partitions[0].ID
	rows := map[storage.TabletID]int64{tb.Partitions[0].Tablets[0].ID: 1}
	// x: committed (synced), then made visible (lazy).
	x, err := c.BeginTxn("db", "x", []TableID{tb.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CommitTxn(x.ID, []PartitionID{part}, rows, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.FinishTxn(x.ID); err != nil {
		t.Fatal(err)
	}
	// y: begun only (lazy).
	y, err := c.BeginTxn("db", "y", []TableID{tb.ID})
	if err != nil {
		t.Fatal(err)
	}
	crashed := fs.CrashClone(vfs.CrashCloneCfg{})
	_ = m.Close()

	c2 := reopenCatalog(t, "meta", storage.Options{FS: crashed})
	gx, ok := c2.Txn(x.ID)
	if !ok || gx.State != TxnCommitted || gx.Versions[part] != 2 {
		t.Fatalf("the committed transaction after the crash: %+v (found %v), want COMMITTED at version 2", gx, ok)
	}
	if _, ok := c2.Txn(y.ID); ok {
		t.Fatal("the lazily begun transaction survived a crash before any synced write")
	}
	z, err := c2.BeginTxn("db", "y", []TableID{tb.ID})
	if err != nil {
		t.Fatal(err)
	}
	if z.ID <= y.ID {
		t.Fatalf("transaction %d begun after the crash reuses an ID at or below the lost %d", z.ID, y.ID)
	}
	// Finishing x again (what Recover does after publishing) makes it visible.
	if err := c2.FinishTxn(x.ID); err != nil {
		t.Fatal(err)
	}
	if gx, _ := c2.Txn(x.ID); gx.State != TxnVisible {
		t.Fatalf("x is %v after FinishTxn, want VISIBLE", gx.State)
	}
}

// openMetaCatalog opens a catalog on a Pebble metadata store at dir, with
// three alive backends and database "db".
func openMetaCatalog(t *testing.T, dir string, opts storage.Options) (*storage.Meta, *Catalog) {
	t.Helper()
	m, err := storage.OpenMeta(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(m)
	if err != nil {
		t.Fatal(err)
	}
	addBackendsAndDB(t, c, 3)
	return m, c
}

// reopenCatalog opens the catalog persisted at dir again (closed at the
// test's end).
func reopenCatalog(t *testing.T, dir string, opts storage.Options) *Catalog {
	t.Helper()
	m, err := storage.OpenMeta(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	c, err := Open(m)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
