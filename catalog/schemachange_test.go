package catalog

import (
	"testing"

	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// A schema change job: shadow tablets on the replicas' backends, one job
// per table, the commit refused after a load and accepted (one write:
// table, conversion txn, job) once the conversion covers it, and all of
// it after a reopen.
func TestSchemaChangeJob(t *testing.T) {
	c, kv := newTestCatalog(t, 3)
	tb := mustCreate(t, c, "db", dupSpec("t", 2, 2))
	load := func() {
		t.Helper()
		tx, err := c.BeginTxn("db", "", []TableID{tb.ID})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.CommitTxns([]TxnCommit{{ID: tx.ID, Partitions: []PartitionID{tb.Partitions[0].ID}}}); err != nil {
			t.Fatal(err)
		}
		if err := c.FinishTxn(tx.ID); err != nil {
			t.Fatal(err)
		}
	}
	load()
	job, err := c.BeginSchemaChange("db", "t", func(t *Table) error {
		return t.HeavyModifyColumn(Column{Column: types.Column{Name: "v", Type: types.BigIntT, Nullable: true}}, ColumnPos{})
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.BeginSchemaChange("db", "t", func(*Table) error { return nil })
	wantCode(t, err, 1105, "Table[t]'s state(SCHEMA_CHANGE) is not NORMAL. Do not allow doing ALTER ops")
	old := tb.Partitions[0]
	sh := job.Shadow.Partitions[0]
	if sh.ID != old.ID || len(sh.Tablets) != 2 || job.Shadow.Columns[2].Type != types.BigIntT || job.Shadow.SchemaVersion != 1 {
		t.Fatalf("shadow %+v", job.Shadow)
	}
	for i, st := range sh.Tablets {
		if st.ID == old.Tablets[i].ID || st.Replicas[0].BackendID != old.Tablets[i].Replicas[0].BackendID {
			t.Fatalf("shadow tablet %+v of %+v", st, old.Tablets[i])
		}
	}
	conv, err := c.BeginTxnWith("db", "conv", []TableID{tb.ID}, TxnInfo{Source: "SCHEMA_CHANGE"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetAlterJob(job.ID, AlterRunning, "", conv.ID, map[PartitionID]storage.Version{old.ID: 2}); err != nil {
		t.Fatal(err)
	}
	load() // version 3 arrives after the conversion of version 2
	if ch, err := c.ChangedPartitions(job.ID); err != nil || len(ch) != 1 {
		t.Fatalf("changed partitions %v, %v", ch, err)
	}
	if _, err := c.CommitSchemaChange(job.ID, []storage.TxnID{conv.ID}, nil, nil); err == nil {
		t.Fatal("commit after a load the conversion missed succeeded")
	}
	if cur, _ := c.TableByID(tb.ID); cur.Columns[2].Type != types.IntT || cur.Partitions[0].Tablets[0].ID != old.Tablets[0].ID {
		t.Fatal("a refused commit changed the table")
	}
	if _, err := c.SetAlterJob(job.ID, AlterRunning, "", 0, map[PartitionID]storage.Version{old.ID: 3}); err != nil {
		t.Fatal(err)
	}
	rows := map[storage.TabletID]int64{sh.Tablets[0].ID: 5, sh.Tablets[1].ID: 7}
	nt, err := c.CommitSchemaChange(job.ID, []storage.TxnID{conv.ID}, rows, nil)
	if err != nil {
		t.Fatal(err)
	}
	check := func(c *Catalog, nt *Table) {
		t.Helper()
		p := nt.Partitions[0]
		if nt.Columns[2].Type != types.BigIntT || nt.SchemaVersion != 1 || p.Tablets[0].ID != sh.Tablets[0].ID || p.RowCount != 12 ||
			p.VisibleVersion != OverwriteVersion || p.NextVersion != OverwriteVersion+1 || p.ID != old.ID {
			t.Fatalf("table after the swap: %+v %+v", nt, p)
		}
		if tx, _ := c.Txn(conv.ID); tx.State != TxnVisible {
			t.Fatalf("conversion txn %s", tx.State)
		}
		jobs := c.AlterJobs(0)
		if len(jobs) != 1 || jobs[0].State != AlterFinished || c.RunningAlterJob(tb.ID) != nil {
			t.Fatalf("jobs %+v", jobs)
		}
	}
	check(c, nt)
	if j := c.AlterJobs(0)[0]; len(j.Retired) != 1 || j.Retired[0].Tablets[0].ID != old.Tablets[0].ID {
		t.Fatalf("retired partitions %+v", j.Retired)
	}
	if err := c.RetiredDropped(job.ID); err != nil || c.AlterJobs(0)[0].Retired != nil {
		t.Fatalf("RetiredDropped: %v", err)
	}
	c2 := openTest(t, kv)
	nt2, _ := c2.TableByID(tb.ID)
	check(c2, nt2)
}
