package catalog

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

func colocated(name string, buckets, replicas int, group string) *TableSpec {
	s := dupSpec(name, buckets, replicas)
	s.ColocateWith = group
	return s
}

func TestColocateRules(t *testing.T) {
	cases := []struct {
		name string
		spec func() *TableSpec
		msg  string // "" = joins fine
	}{
		{"bucket num", func() *TableSpec { return colocated("b", 8, 1, "g") }, "Colocate tables must have same bucket num: 8 should be 4"},
		{"dist column count", func() *TableSpec {
			s := colocated("b", 4, 1, "g")
			s.KeyColumns = []string{"k1", "k2"}
			s.Dist.Columns = []string{"k1", "k2"}
			return s
		}, "Colocate tables distribution columns size must be the same : 1"},
		{"dist column type", func() *TableSpec {
			s := colocated("b", 4, 1, "g")
			s.Columns[0].Type = types.IntT
			return s
		}, "Colocate tables distribution columns must have the same data type: k1 should be BIGINT"},
		{"replication num", func() *TableSpec { return colocated("b", 4, 2, "g") }, "Colocate tables must have same replication num: 1"},
		{"auto buckets take the group's", func() *TableSpec { return colocated("b", 0, 1, "g") }, ""},
		{"other db's group is another group", func() *TableSpec { return colocated("b", 8, 1, "g") }, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newTestCatalog(t, 3)
			a := mustCreate(t, c, "db", colocated("a", 4, 1, "g"))
			db := "db"
			if tc.name == "other db's group is another group" {
				db = "db2"
				if _, err := c.CreateDatabase(db, false); err != nil {
					t.Fatal(err)
				}
			}
			b, err := c.CreateTable(db, tc.spec(), false)
			if tc.msg != "" {
				wantCode(t, err, 5063, tc.msg)
				g, _ := c.GroupOfTable(a)
				if len(g.Tables) != 1 {
					t.Fatal("failed member joined the group")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			ga, _ := c.GroupOfTable(a)
			gb, _ := c.GroupOfTable(b)
			if (db == "db") != (ga.ID == gb.ID) {
				t.Fatalf("group identity: %d vs %d", ga.ID, gb.ID)
			}
		})
	}
}

func TestColocatePlacement(t *testing.T) {
	c, _ := newTestCatalog(t, 3)
	// DORIS-PLANNING.md §3 worked example ids (replication 1).
	li := mustCreate(t, c, "db", colocated("li", 8, 1, "g"))
	od := mustCreate(t, c, "db", colocated("od", 8, 1, "g"))
	rt := mustCreate(t, c, "db", dupSpec("rt", 4, 1))
	cu := mustCreate(t, c, "db", dupSpec("cu", 2, 1))
	for _, x := range []struct {
		t     *Table
		first storage.TabletID
	}{{li, 10100}, {od, 10108}, {rt, 10116}, {cu, 10120}} {
		if got := x.t.Partitions[0].Tablets[0].ID; got != x.first {
			t.Fatalf("%s first tablet %d, want %d", x.t.Name, got, x.first)
		}
	}
	g, ok := c.Group(li.DBID, "g")
	if !ok || g.Unstable || g.BucketNum != 8 || g.ReplicaNum != 1 || !reflect.DeepEqual(g.Tables, []TableID{li.ID, od.ID}) ||
		!reflect.DeepEqual(g.DistTypes, []types.T{types.BigIntT}) {
		t.Fatalf("group %+v", g)
	}
	if !reflect.DeepEqual(firstBackends(li.Partitions[0]), firstBackends(od.Partitions[0])) {
		t.Fatal("colocated buckets on different backends")
	}

	// Later members follow BucketSeq even after the backend set changes,
	// for every partition; replicas keep the sequence's order.
	c2, _ := newTestCatalog(t, 4)
	a := mustCreate(t, c2, "db", colocated("a", 3, 2, "g"))
	ga, _ := c2.GroupOfTable(a)
	c2.SetBackendState(10003, false, "", testNow)
	s := colocated("b", 3, 2, "g")
	s.Columns[0].Type = types.IntT // INT and BIGINT are different families
	if _, err := c2.CreateTable("db", s, false); err == nil {
		t.Fatal("INT joined a BIGINT group")
	}
	s = colocated("b", 3, 2, "g")
	s.Columns = append(s.Columns, col("dt", types.DateT))
	s.PartKind, s.PartColumn = PartRange, "dt"
	s.Partitions = []PartitionSpec{{Name: "p1", Upper: strDatum("2024-01-01")}, {Name: "p2"}}
	b, err := c2.CreateTable("db", s, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range b.Partitions {
		for i, tb := range p.Tablets {
			var bes []BackendID
			for _, r := range tb.Replicas {
				bes = append(bes, r.BackendID)
			}
			if !reflect.DeepEqual(bes, ga.BucketSeq[i]) {
				t.Fatalf("partition %s bucket %d on %v, seq %v", p.Name, i, bes, ga.BucketSeq[i])
			}
		}
	}

	// String distribution columns of any length are one family.
	v := &TableSpec{Name: "v1", Columns: []Column{col("s", types.VarcharT(10))}, Dist: DistSpec{Kind: DistHash, Columns: []string{"s"}, Buckets: 2}, ReplicationNum: 1, ColocateWith: "sg"}
	mustCreate(t, c, "db", v)
	v2 := *v
	v2.Name, v2.Columns = "v2", []Column{col("s", types.StringT)}
	mustCreate(t, c, "db", &v2)
}

func TestColocateGlobalAndDrop(t *testing.T) {
	c, _ := newTestCatalog(t, 2)
	if _, err := c.CreateDatabase("db2", false); err != nil {
		t.Fatal(err)
	}
	a := mustCreate(t, c, "db", colocated("a", 2, 1, "__global__g"))
	b := mustCreate(t, c, "db2", colocated("b", 2, 1, "__global__g"))
	ga, _ := c.GroupOfTable(a)
	gb, _ := c.GroupOfTable(b)
	if ga.ID != gb.ID || ga.DBID != 0 {
		t.Fatal("global group not shared across databases")
	}
	if g, ok := c.Group(12345, "__global__g"); !ok || g.ID != ga.ID {
		t.Fatal("global lookup must ignore the db")
	}
	if _, err := c.CreateTable("db2", colocated("c", 4, 1, "__global__g"), false); err == nil {
		t.Fatal("global group rules not enforced")
	}
	if _, err := c.DropTable("db", "a", false); err != nil {
		t.Fatal(err)
	}
	if g, _ := c.Group(0, "__global__g"); !reflect.DeepEqual(g.Tables, []TableID{b.ID}) {
		t.Fatal("dropped member still in group", g.Tables)
	}
	if _, err := c.DropDatabase("db2", false); err != nil {
		t.Fatal(err)
	}
	if len(c.Groups()) != 0 {
		t.Fatal("group outlived its last member")
	}
	// The name is free again and a new group starts fresh.
	n := mustCreate(t, c, "db", colocated("n", 4, 1, "__global__g"))
	if g, _ := c.GroupOfTable(n); g.BucketNum != 4 {
		t.Fatal("stale group reused")
	}
}

func TestGroupStability(t *testing.T) {
	c, kv := newTestCatalog(t, 3)
	mustCreate(t, c, "db", colocated("a", 3, 1, "g"))
	mustCreate(t, c, "db", colocated("x", 2, 1, "other"))
	stable := func(name string) bool {
		t.Helper()
		d, _ := c.Database("db")
		g, ok := c.Group(d.ID, name)
		if !ok {
			t.Fatal("no group", name)
		}
		if g.Unstable == (g.ErrMsg == "") {
			t.Fatalf("ErrMsg %q inconsistent with Unstable=%v", g.ErrMsg, g.Unstable)
		}
		return !g.Unstable
	}
	steps := []struct {
		name  string
		do    func() error
		g, gx bool // expected stability of g (3 buckets: all BEs) and other (2 buckets: 10000, 10001)
	}{
		{"new", func() error { return nil }, true, true},
		{"backend 10002 dead", func() error { c.SetBackendState(10002, false, "x", testNow); return nil }, false, true},
		{"backend 10002 back", func() error { c.SetBackendState(10002, true, "", testNow); return nil }, true, true},
		{"admin marks unstable", func() error { return c.SetGroupStable("db", "g", false) }, false, true},
		{"admin marks stable", func() error { return c.SetGroupStable("db", "g", true) }, true, true},
		{"decommissioned", func() error { return c.SetBackendDecommissioned(10001, true) }, false, false},
		{"recommissioned", func() error { return c.SetBackendDecommissioned(10001, false) }, true, true},
		{"dropped", func() error { return c.DropBackend("127.0.0.1", 9062) }, false, true},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatal(s.name, err)
		}
		if stable("g") != s.g || stable("other") != s.gx {
			t.Fatalf("%s: stable(g)=%v stable(other)=%v", s.name, stable("g"), stable("other"))
		}
	}
	if err := c.SetGroupStable("db", "nope", true); err == nil {
		t.Fatal("unknown group")
	}
	if err := c.SetGroupStable("nodb", "g", true); err == nil {
		t.Fatal("unknown db")
	}
	// The admin mark is persisted; liveness is not.
	if err := c.SetGroupStable("db", "other", false); err != nil {
		t.Fatal(err)
	}
	c2 := openTest(t, kv)
	for _, be := range c2.Backends() {
		c2.SetBackendState(be.ID, true, "", testNow)
	}
	d, _ := c2.Database("db")
	if g, _ := c2.Group(d.ID, "other"); !g.Unstable || !g.MarkedUnstable {
		t.Fatal("admin mark lost on reopen")
	}
}

func TestAlterColocate(t *testing.T) {
	c, _ := newTestCatalog(t, 3)
	a := mustCreate(t, c, "db", colocated("a", 4, 1, "g"))
	// b, placed after a (least loaded: its buckets start elsewhere),
	// joins; the group is unstable until the tablet scheduler has moved
	// b's replicas onto its sequence.
	mustCreate(t, c, "db", dupSpec("b", 4, 1))
	if err := c.SetColocateGroup("db", "b", "g"); err != nil {
		t.Fatal(err)
	}
	b, _ := c.Table("db", "b")
	g, _ := c.GroupOfTable(a)
	if b.ColocateGroup != "g" || b.Properties["colocate_with"] != "g" || len(g.Tables) != 2 || !g.Unstable ||
		!strings.Contains(g.ErrMsg, "of table b is not on the backends of bucket") {
		t.Fatalf("join: %+v %+v", b, g)
	}
	// Three replicas on three backends: any placement is the group's, so
	// joining keeps the group stable.
	mustCreate(t, c, "db", colocated("a3", 2, 3, "g3"))
	mustCreate(t, c, "db", dupSpec("b3", 2, 3))
	if err := c.SetColocateGroup("db", "b3", "g3"); err != nil {
		t.Fatal(err)
	}
	b3, _ := c.Table("db", "b3")
	if g3, _ := c.GroupOfTable(b3); len(g3.Tables) != 2 || g3.Unstable {
		t.Fatalf("join g3: %+v", g3)
	}
	// Mismatch is rejected with the CREATE rules.
	mustCreate(t, c, "db", dupSpec("c8", 8, 1))
	wantCode(t, c.SetColocateGroup("db", "c8", "g"), 5063, "Colocate tables must have same bucket num: 8 should be 4")
	r := dupSpec("r", 4, 1)
	r.Dist = DistSpec{Kind: DistRandom, Buckets: 4}
	mustCreate(t, c, "db", r)
	wantCode(t, c.SetColocateGroup("db", "r", "g"), 1105, "Random distribution for colocate table is unsupported")
	wantCode(t, c.SetColocateGroup("db", "zz", "g"), 1146, "")
	if g, _ := c.GroupOfTable(a); len(g.Tables) != 2 {
		t.Fatal("a refused join changed the group", g)
	}
	// A new group from ALTER takes the table's placement.
	if err := c.SetColocateGroup("db", "c8", "h"); err != nil {
		t.Fatal(err)
	}
	c8, _ := c.Table("db", "c8")
	h, _ := c.GroupOfTable(c8)
	if h.BucketNum != 8 || !reflect.DeepEqual(h.BucketSeq, tablePlacement(c8)) || h.Unstable {
		t.Fatalf("new group %+v", h)
	}
	// Moving between groups: leaving the last member drops h.
	if err := c.SetColocateGroup("db", "c8", ""); err != nil {
		t.Fatal(err)
	}
	d, _ := c.Database("db")
	if _, ok := c.Group(d.ID, "h"); ok {
		t.Fatal("empty group kept")
	}
	if c8, _ := c.Table("db", "c8"); c8.ColocateGroup != "" || c8.Properties != nil {
		t.Fatal("colocate property kept", c8.Properties)
	}
	// No-op alters.
	if err := c.SetColocateGroup("db", "a", "g"); err != nil {
		t.Fatal(err)
	}
	if err := c.SetColocateGroup("db", "c8", ""); err != nil {
		t.Fatal(err)
	}
}

func TestTruncateColocate(t *testing.T) {
	c, _ := newTestCatalog(t, 3)
	a := mustCreate(t, c, "db", colocated("a", 3, 1, "g"))
	c.SetBackendState(10000, false, "", testNow)
	_, nt, err := c.TruncateTable("db", "a", noCreate)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(firstBackends(nt.Partitions[0]), firstBackends(a.Partitions[0])) {
		t.Fatal("truncate of a colocate table left the group's sequence")
	}
}

// A new group's sequence spreads its buckets evenly over the backends
// (the colocate balancer would move a bucket of an uneven one at once),
// the extra ones on the least loaded: here g's two members left 10000
// with 4 replicas and the others with 2, and h's 4 buckets still go one
// to each backend, the fourth to a lighter one.
func TestNewGroupSequenceEven(t *testing.T) {
	c, _ := newTestCatalog(t, 3)
	mustCreate(t, c, "db", colocated("a", 4, 1, "g"))
	mustCreate(t, c, "db", colocated("b", 4, 1, "g"))
	h := mustCreate(t, c, "db", colocated("x", 4, 1, "h"))
	g, _ := c.GroupOfTable(h)
	slots := map[BackendID]int{}
	for _, seq := range g.BucketSeq {
		slots[seq[0]]++
	}
	if len(slots) != 3 || slots[10000] != 1 {
		t.Fatalf("h's sequence %v: buckets per backend %v, want all three, one on the loaded 10000", g.BucketSeq, slots)
	}
}
