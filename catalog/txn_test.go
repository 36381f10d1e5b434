package catalog

import (
	"errors"
	"testing"
	"time"

	"github.com/dorisgo/dorisgo/storage"
)

func TestTxnLabels(t *testing.T) {
	c, _ := newTestCatalog(t, 1)
	tb := mustCreate(t, c, "db", dupSpec("t", 1, 1))
	if _, err := c.CreateDatabase("db2", false); err != nil {
		t.Fatal(err)
	}
	t1, err := c.BeginTxn("db", "l1", []TableID{tb.ID})
	if err != nil || t1.State != TxnPrepare || t1.Label != "l1" || t1.DBID != tb.DBID {
		t.Fatal(t1, err)
	}
	_, err = c.BeginTxn("db", "l1", []TableID{tb.ID})
	var lu *LabelUsedError
	if !errors.As(err, &lu) || lu.TxnID != t1.ID || lu.State != TxnPrepare {
		t.Fatalf("reuse of a PREPARE label: %v", err)
	}
	wantCode(t, err, 1105, "Label [l1] has already been used, relate to txn [1], status [PREPARE].")
	// Labels are per database.
	if _, err := c.BeginTxn("db2", "l1", nil); err != nil {
		t.Fatal(err)
	}
	// Aborted frees the label; the new txn owns it.
	if err := c.AbortTxn(t1.ID, "user cancel"); err != nil {
		t.Fatal(err)
	}
	if err := c.AbortTxn(t1.ID, "again"); err != nil {
		t.Fatal("abort is idempotent", err)
	}
	t3, err := c.BeginTxn("db", "l1", []TableID{tb.ID})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := c.TxnByLabel("db", "l1"); got.ID != t3.ID {
		t.Fatal("label index")
	}
	if got, _ := c.Txn(t1.ID); got.State != TxnAborted || got.Reason != "user cancel" {
		t.Fatal("abort record", got)
	}
	// Visible labels stay used.
	if _, err := c.CommitTxn(t3.ID, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.FinishTxn(t3.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.BeginTxn("db", "l1", nil); !errors.As(err, &lu) || lu.State != TxnVisible {
		t.Fatal("visible label reused", err)
	}
	// Generated labels are unique.
	a, _ := c.BeginTxn("db", "", nil)
	b, _ := c.BeginTxn("db", "", nil)
	if a.Label == "" || a.Label == b.Label {
		t.Fatal("generated labels", a.Label, b.Label)
	}
	// Bad inputs.
	_, err = c.BeginTxn("nodb", "x", nil)
	wantCode(t, err, 1049, "")
	if _, err := c.BeginTxn("db2", "x", []TableID{tb.ID}); err == nil {
		t.Fatal("table of another db accepted")
	}
	if _, ok := c.TxnByLabel("nodb", "l1"); ok {
		t.Fatal("label in missing db")
	}
}

func TestTxnVersions(t *testing.T) {
	c, _ := newTestCatalog(t, 2)
	s := dupSpec("t", 2, 1)
	s.Columns = append(s.Columns, col("dt", s.Columns[0].Type))
	s.PartKind, s.PartColumn = PartRange, "k1"
	s.Partitions = []PartitionSpec{{Name: "p1", Upper: strDatum("100")}, {Name: "p2"}}
	tb := mustCreate(t, c, "db", s)
	p1, p2 := tb.Partitions[0], tb.Partitions[1]
	tab0, tab1 := p1.Tablets[0].ID, p1.Tablets[1].ID

	begin := func(label string) *Txn {
		x, err := c.BeginTxn("db", label, []TableID{tb.ID})
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	a, b := begin("a"), begin("b")
	ca, err := c.CommitTxn(a.ID, []PartitionID{p1.ID, p2.ID}, map[storage.TabletID]int64{tab0: 10, tab1: 5}, map[storage.TabletID]int64{tab0: 100})
	if err != nil {
		t.Fatal(err)
	}
	if ca.State != TxnCommitted || ca.Versions[p1.ID] != 2 || ca.Versions[p2.ID] != 2 || ca.CommitTime.IsZero() {
		t.Fatalf("commit a: %+v", ca)
	}
	if ca.Stats[tab0] != (storage.RowsetStats{Rows: 10, Bytes: 100}) || ca.Stats[tab1] != (storage.RowsetStats{Rows: 5}) {
		t.Fatal("stats", ca.Stats)
	}
	cb, err := c.CommitTxn(b.ID, []PartitionID{p1.ID}, map[storage.TabletID]int64{tab1: 1}, nil)
	if err != nil || cb.Versions[p1.ID] != 3 {
		t.Fatal("commit b", cb, err)
	}
	cur, _ := c.TableByID(tb.ID)
	if cur.Partitions[0].NextVersion != 4 || cur.Partitions[0].VisibleVersion != 1 || cur.Partitions[1].NextVersion != 3 {
		t.Fatalf("after commits: %+v", cur.Partitions[0])
	}
	if p1.NextVersion != 2 {
		t.Fatal("snapshot mutated")
	}
	if len(c.Txns(TxnCommitted)) != 2 {
		t.Fatal("Txns(COMMITTED)")
	}
	// b (version 3) publishes first; a's version 2 must not lower it.
	if err := c.FinishTxn(b.ID); err != nil {
		t.Fatal(err)
	}
	if err := c.FinishTxn(a.ID); err != nil {
		t.Fatal(err)
	}
	if err := c.FinishTxn(a.ID); err != nil {
		t.Fatal("finish is idempotent", err)
	}
	cur, _ = c.TableByID(tb.ID)
	q1, q2 := cur.Partitions[0], cur.Partitions[1]
	if q1.VisibleVersion != 3 || q2.VisibleVersion != 2 {
		t.Fatalf("visible %d %d", q1.VisibleVersion, q2.VisibleVersion)
	}
	if q1.RowCount != 16 || q1.DataSize != 100 || q1.Tablets[0].RowCount != 10 || q1.Tablets[1].RowCount != 6 || q2.RowCount != 0 {
		t.Fatalf("row counts %d %d %d %d", q1.RowCount, q1.Tablets[0].RowCount, q1.Tablets[1].RowCount, q2.RowCount)
	}
	if got, _ := c.Txn(a.ID); got.State != TxnVisible || got.State.String() != "VISIBLE" {
		t.Fatal("state", got.State)
	}

	// State machine errors.
	if _, err := c.CommitTxn(a.ID, nil, nil, nil); err == nil {
		t.Fatal("committed a visible txn")
	}
	if err := c.AbortTxn(a.ID, "x"); err == nil {
		t.Fatal("aborted a visible txn")
	}
	x := begin("x")
	if err := c.FinishTxn(x.ID); err == nil {
		t.Fatal("finished a PREPARE txn")
	}
	if _, err := c.CommitTxn(x.ID, []PartitionID{999}, nil, nil); err == nil {
		t.Fatal("unknown partition")
	}
	if _, err := c.CommitTxn(x.ID, []PartitionID{p2.ID}, map[storage.TabletID]int64{tab0: 1}, nil); err == nil {
		t.Fatal("tablet outside the committed partitions")
	}
	if _, err := c.CommitTxn(12345, nil, nil, nil); err == nil {
		t.Fatal("unknown txn")
	}
	if err := c.AbortTxn(12345, ""); err == nil {
		t.Fatal("unknown txn")
	}
	cx, _ := c.CommitTxn(x.ID, []PartitionID{p2.ID}, nil, nil)
	if err := c.AbortTxn(cx.ID, "x"); err == nil {
		t.Fatal("aborted a committed txn")
	}
	// A table dropped between commit and publish: finishing skips it.
	if _, err := c.DropTable("db", "t", false); err != nil {
		t.Fatal(err)
	}
	if err := c.FinishTxn(cx.ID); err != nil {
		t.Fatal(err)
	}
}

func TestCleanTxns(t *testing.T) {
	c, kv := newTestCatalog(t, 1)
	a, _ := c.BeginTxn("db", "a", nil)
	b, _ := c.BeginTxn("db", "b", nil)
	c.BeginTxn("db", "p", nil)
	c.AbortTxn(a.ID, "")
	c.CommitTxn(b.ID, nil, nil, nil)
	c.FinishTxn(b.ID)
	n, err := c.CleanTxns(testNow.Add(time.Second))
	if err != nil || n != 2 {
		t.Fatal(n, err)
	}
	if _, ok := c.TxnByLabel("db", "a"); ok {
		t.Fatal("label kept")
	}
	if _, err := c.BeginTxn("db", "b", nil); err != nil {
		t.Fatal("cleaned label not reusable", err)
	}
	c2 := openTest(t, kv)
	if len(c2.Txns(TxnPrepare)) != 2 || len(c2.Txns(TxnVisible)) != 0 {
		t.Fatal("clean not persisted")
	}
}
