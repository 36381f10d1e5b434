package catalog

import (
	"strings"
	"testing"
)

// MoveBucket: the group's sequence names the new backend (persisted), the
// group is unstable until every member's tablet of the bucket moved there,
// then stable; impossible moves are refused naming the bucket and group.
func TestMoveBucket(t *testing.T) {
	c, kv := newTestCatalog(t, 3)
	a := mustCreate(t, c, "db", colocated("a", 4, 1, "g"))
	mustCreate(t, c, "db", colocated("b", 4, 1, "g"))
	be, err := c.AddBackend("127.0.0.1", 9100)
	if err != nil {
		t.Fatal(err)
	}
	c.SetBackendState(be.ID, true, "", testNow)
	g, _ := c.GroupOfTable(a)
	from := g.BucketSeq[0][0]
	for _, bad := range []struct {
		bucket   int
		from, to BackendID
	}{{4, from, be.ID}, {0, be.ID, from}, {0, from, from}, {0, from, 99999}} {
		if err := c.MoveBucket(g.ID, bad.bucket, bad.from, bad.to); err == nil || !strings.Contains(err.Error(), "colocate group g") {
			t.Errorf("MoveBucket(%d, %d→%d): %v, want a refusal naming the group", bad.bucket, bad.from, bad.to, err)
		}
	}
	if err := c.MoveBucket(g.ID, 0, from, be.ID); err != nil {
		t.Fatal(err)
	}
	g, _ = c.GroupOfTable(a)
	if g.BucketSeq[0][0] != be.ID || !g.Unstable || !strings.Contains(g.ErrMsg, "bucket 0") {
		t.Fatalf("after MoveBucket: seq %v unstable %v (%s)", g.BucketSeq[0], g.Unstable, g.ErrMsg)
	}
	if g2, _ := openTest(t, kv).GroupOfTable(a); g2.BucketSeq[0][0] != be.ID {
		t.Fatalf("MoveBucket not persisted: %v", g2.BucketSeq[0])
	}
	for i, name := range []string{"a", "b"} {
		tb, err := c.Table("db", name)
		if err != nil {
			t.Fatal(err)
		}
		p := tb.Partitions[0]
		tab := p.Tablets[0]
		if err := c.AddCloneReplica(tab.ID, be.ID); err != nil {
			t.Fatal(err)
		}
		if err := c.FinishRepair(Repair{Tablet: tab.ID, To: be.ID, Version: p.VisibleVersion, Drop: from}); err != nil {
			t.Fatal(err)
		}
		g, _ = c.GroupOfTable(a)
		if last := i == 1; g.Unstable == last {
			t.Fatalf("after moving %s's tablet: unstable %v (%s), want %v", name, g.Unstable, g.ErrMsg, !last)
		}
	}
	if g.BucketSeq[0][0] != be.ID {
		t.Errorf("the repairs changed the sequence: %v", g.BucketSeq[0])
	}
}
