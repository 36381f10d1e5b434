package catalog

import (
	"reflect"
	"strings"
	"testing"
)

// TestDeleteInfos: a DELETE's info rides on its transaction, is listed
// once visible (not while committed, never when aborted) and survives a
// reopen.
func TestDeleteInfos(t *testing.T) {
	c, kv := newTestCatalog(t, 1)
	tb := mustCreate(t, c, "db", dupSpec("t", 2, 1))
	info := DeleteInfo{TableName: "t", AllPartitions: true, Partitions: []string{"t"}, Conditions: []string{`k1 EQ "1"`}}
	d1, err := c.BeginDelete("db", tb.ID, info)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(d1.Label, "delete_") || len(d1.Label) != len("delete_")+36 || d1.Delete == nil || d1.Delete.TableID != tb.ID {
		t.Fatalf("delete txn %+v", d1)
	}
	d2, err := c.BeginDelete("db", tb.ID, DeleteInfo{TableName: "t", Conditions: []string{"k2 IS NULL"}})
	if err != nil {
		t.Fatal(err)
	}
	if d1.Label == d2.Label {
		t.Fatal("two deletes got one label")
	}
	if _, err := c.CommitTxn(d1.ID, []PartitionID{tb.Partitions[0].ID}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Deletes("db"); len(got) != 0 {
		t.Fatalf("committed, not yet visible delete listed: %+v", got)
	}
	if err := c.FinishTxn(d1.ID); err != nil {
		t.Fatal(err)
	}
	if err := c.AbortTxn(d2.ID, "failed"); err != nil {
		t.Fatal(err)
	}
	check := func(c *Catalog, what string) {
		t.Helper()
		got, err := c.Deletes("db")
		if err != nil || len(got) != 1 || got[0].ID != d1.ID || !reflect.DeepEqual(*got[0].Delete, *d1.Delete) {
			t.Fatalf("%s: deletes %+v (%v), want txn %d", what, got, err, d1.ID)
		}
	}
	check(c, "open")
	check(openTest(t, kv), "reopened")
	if _, err := c.Deletes("nodb"); err == nil {
		t.Fatal("deletes of an unknown database")
	}
}
