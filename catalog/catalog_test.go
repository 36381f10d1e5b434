package catalog

import (
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

func TestOpenFresh(t *testing.T) {
	kv := newMemKV()
	c := openTest(t, kv)
	if len(c.Databases()) != 0 || len(c.Backends()) != 0 || len(c.Groups()) != 0 {
		t.Fatal("fresh catalog not empty")
	}
	u, ok := c.LookupUser("root", "10.1.2.3")
	if !ok || u.Host != "%" || u.NativeHash != nil || u.Sha2Hash != nil {
		t.Fatalf("root@'%%' missing or has a password: %+v", u)
	}
	if a, ok := c.LookupUser("admin", "10.1.2.3"); !ok || a.Host != "%" || a.NativeHash != nil {
		t.Fatalf("admin@'%%' missing or has a password: %+v", a)
	}
	// Bootstrap runs once: root's new password survives a reopen.
	if err := c.SetPassword("root", "%", "pw"); err != nil {
		t.Fatal(err)
	}
	c = openTest(t, kv)
	if u, _ := c.LookupUser("root", "h"); u == nil || u.NativeHash == nil {
		t.Fatal("root re-bootstrapped on reopen")
	}
}

func TestDatabases(t *testing.T) {
	c, _ := newTestCatalog(t, 1)
	if _, err := c.CreateDatabase("db", false); err != nil {
		wantCode(t, err, 1007, "Can't create database 'db'; database exists")
	} else {
		t.Fatal("duplicate database created")
	}
	d, err := c.CreateDatabase("db", true)
	if err != nil || d.Name != "db" {
		t.Fatalf("if not exists: %v %v", d, err)
	}
	mustDB := func(name string) {
		if _, err := c.CreateDatabase(name, false); err != nil {
			t.Fatal(err)
		}
	}
	mustDB("b")
	mustDB("a")
	var names []string
	for _, d := range c.Databases() {
		names = append(names, d.Name)
	}
	if !reflect.DeepEqual(names, []string{"a", "b", "db"}) {
		t.Fatalf("Databases() = %v", names)
	}
	_, err = c.Database("nope")
	wantCode(t, err, 1049, "Unknown database 'nope'")
	_, err = c.Table("nope", "t")
	wantCode(t, err, 1049, "")
	_, err = c.Tables("nope")
	wantCode(t, err, 1049, "")
	_, err = c.DropDatabase("nope", false)
	wantCode(t, err, 1008, "Can't drop database 'nope'; database doesn't exist")
	if tabs, err := c.DropDatabase("nope", true); err != nil || tabs != nil {
		t.Fatal(tabs, err)
	}

	mustCreate(t, c, "a", dupSpec("t2", 2, 1))
	mustCreate(t, c, "a", dupSpec("t1", 2, 1))
	dropped, err := c.DropDatabase("a", false)
	if err != nil || len(dropped) != 2 || dropped[0].Name != "t1" || dropped[1].Name != "t2" {
		t.Fatalf("drop database: %v %v", dropped, err)
	}
	if _, ok := c.TableByID(dropped[0].ID); ok {
		t.Fatal("dropped table still reachable by id")
	}
	if _, err := c.Database("a"); err == nil {
		t.Fatal("dropped database still there")
	}
}

func TestTablesCreateDrop(t *testing.T) {
	c, _ := newTestCatalog(t, 3)
	t1 := mustCreate(t, c, "db", dupSpec("t1", 4, 1))
	if _, err := c.CreateTable("db", dupSpec("t1", 4, 1), false); err == nil {
		t.Fatal("duplicate table")
	} else {
		wantCode(t, err, 1050, "Table 't1' already exists")
	}
	same, err := c.CreateTable("db", dupSpec("t1", 8, 1), true)
	if err != nil || same != t1 {
		t.Fatalf("if not exists should return the existing table: %v", err)
	}
	mustCreate(t, c, "db", dupSpec("a0", 4, 1))
	tabs, _ := c.Tables("db")
	if len(tabs) != 2 || tabs[0].Name != "a0" || tabs[1].Name != "t1" {
		t.Fatalf("Tables() not sorted: %v", tabs)
	}
	if got, err := c.Table("db", "t1"); err != nil || got != t1 {
		t.Fatal("Table lookup", err)
	}
	if got, ok := c.TableByID(t1.ID); !ok || got != t1 {
		t.Fatal("TableByID")
	}
	_, err = c.Table("db", "zz")
	wantCode(t, err, 1146, "Table 'db.zz' doesn't exist")

	// Unpartitioned: one partition named after the table, version 1.
	if len(t1.Partitions) != 1 || t1.Partitions[0].Name != "t1" || t1.Partitions[0].VisibleVersion != 1 || t1.Partitions[0].NextVersion != 2 {
		t.Fatalf("partition: %+v", t1.Partitions[0])
	}
	if t1.NumKeys != 1 || !t1.Columns[0].IsKey || t1.Columns[1].IsKey {
		t.Fatal("keys")
	}
	if got := t1.DistColumns(); len(got) != 1 || got[0].Name != "k1" {
		t.Fatal("DistColumns", got)
	}
	if t1.ColumnIndex("K2") != 1 || t1.ColumnIndex("nope") != -1 {
		t.Fatal("ColumnIndex")
	}
	if s := t1.Schema(); s.NumKeys != 1 || len(s.Columns) != 3 {
		t.Fatal("Schema")
	}
	vals := []types.Datum{types.IntDatum(42)}
	if got, want := c.BucketOf(t1, vals), types.Bucket(types.HashDatums(vals), 4); got != want {
		t.Fatal("BucketOf", got, want)
	}

	dropped, err := c.DropTable("db", "t1", false)
	if err != nil || dropped != t1 {
		t.Fatal("drop", err)
	}
	_, err = c.DropTable("db", "t1", false)
	wantCode(t, err, 1051, "Unknown table 'db.t1'")
	if tb, err := c.DropTable("db", "t1", true); tb != nil || err != nil {
		t.Fatal("drop if exists", err)
	}
	_, err = c.DropTable("nodb", "t1", true)
	wantCode(t, err, 1049, "")
}

func TestTruncate(t *testing.T) {
	c, _ := newTestCatalog(t, 3)
	s := dupSpec("t", 3, 2)
	s.PartKind, s.PartColumn = PartRange, "k1"
	s.Partitions = []PartitionSpec{{Name: "p1", Upper: strDatum("10")}, {Name: "p2"}}
	old := mustCreate(t, c, "db", s)
	tx, _ := c.BeginTxn("db", "l1", []TableID{old.ID})
	if _, err := c.CommitTxn(tx.ID, []PartitionID{old.Partitions[0].ID}, map[storage.TabletID]int64{old.Partitions[0].Tablets[0].ID: 5}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.FinishTxn(tx.ID); err != nil {
		t.Fatal(err)
	}
	loaded, _ := c.TableByID(old.ID)
	gotOld, nt, err := c.TruncateTable("db", "t", noCreate)
	if err != nil || gotOld != loaded {
		t.Fatal(err)
	}
	if nt.ID != old.ID || len(nt.Partitions) != 2 {
		t.Fatal("truncate changed id or partitions")
	}
	seen := map[storage.TabletID]bool{}
	for _, p := range loaded.Partitions {
		for _, tb := range p.Tablets {
			seen[tb.ID] = true
		}
	}
	for i, p := range nt.Partitions {
		op := loaded.Partitions[i]
		if p.ID == op.ID || p.Name != op.Name || !reflect.DeepEqual(p.Upper, op.Upper) {
			t.Fatalf("partition %d: %+v vs %+v", i, p, op)
		}
		if p.VisibleVersion != 1 || p.NextVersion != 2 || p.RowCount != 0 || p.DataSize != 0 {
			t.Fatalf("versions/rows not reset: %+v", p)
		}
		for _, tb := range p.Tablets {
			if seen[tb.ID] || tb.RowCount != 0 {
				t.Fatalf("tablet %d reused or has rows", tb.ID)
			}
		}
		if !reflect.DeepEqual(firstBackends(p), firstBackends(op)) {
			t.Fatal("placement rules changed")
		}
	}
	if loaded.Partitions[0].RowCount != 5 {
		t.Fatal("old snapshot was mutated")
	}
	// The txn against a truncated partition cannot commit.
	tx2, _ := c.BeginTxn("db", "l2", []TableID{old.ID})
	if _, err := c.CommitTxn(tx2.ID, []PartitionID{old.Partitions[1].ID}, nil, nil); err == nil {
		t.Fatal("commit into truncated partition")
	}
	_, _, err = c.TruncateTable("db", "zz", noCreate)
	wantCode(t, err, 1146, "")

	// While the new tablets are being created the table is still the old
	// one (queries plan over tablets that exist), ids reserved for the new
	// ones are not handed out again, and a DROP meanwhile stops the switch.
	cur, _ := c.TableByID(old.ID)
	_, nt2, err := c.TruncateTable("db", "t", func(nt *Table) error {
		if now, _ := c.TableByID(old.ID); now != cur {
			t.Fatal("table switched before its new tablets were created")
		}
		s2 := s
		s2.Name = "other"
		other := mustCreate(t, c, "db", s2)
		mine := map[storage.TabletID]bool{}
		for _, p := range nt.Partitions {
			for _, tb := range p.Tablets {
				mine[tb.ID] = true
			}
		}
		for _, p := range other.Partitions {
			for _, tb := range p.Tablets {
				if mine[tb.ID] {
					t.Fatalf("tablet id %d reserved by TRUNCATE handed out again", tb.ID)
				}
			}
		}
		return nil
	})
	if err != nil || nt2 == nil {
		t.Fatal(err)
	}
	_, nt3, err := c.TruncateTable("db", "t", func(*Table) error {
		_, err := c.DropTable("db", "t", false)
		return err
	})
	if err == nil || nt3 == nil {
		t.Fatalf("truncate of a table dropped meanwhile: %v (new table %v)", err, nt3 != nil)
	}
	if _, ok := c.TableByID(old.ID); ok {
		t.Fatal("a truncate brought a dropped table back")
	}
}

func noCreate(*Table) error { return nil }

// TestAtomicFailure: a failed Apply changes nothing in memory (ids included).
func TestAtomicFailure(t *testing.T) {
	c, kv := newTestCatalog(t, 3)
	before := kv.snapshot()
	seq := c.seq
	steps := []struct {
		name string
		f    func() error
	}{
		{"create db", func() error { _, err := c.CreateDatabase("x", false); return err }},
		{"create table", func() error { _, err := c.CreateTable("db", dupSpec("t", 4, 1), false); return err }},
		{"add backend", func() error { _, err := c.AddBackend("h", 1); return err }},
		{"create user", func() error { return c.CreateUser("u", "%", "pw", false) }},
		{"begin txn", func() error { _, err := c.BeginTxn("db", "l", nil); return err }},
	}
	for _, s := range steps {
		kv.failNext = true
		if err := s.f(); err == nil {
			t.Fatalf("%s: injected failure not reported", s.name)
		}
	}
	if !reflect.DeepEqual(kv.snapshot(), before) || c.seq != seq {
		t.Fatal("failed writes changed the KV or the sequences")
	}
	if _, err := c.Database("x"); err == nil {
		t.Fatal("db created in memory despite failure")
	}
	if _, err := c.Table("db", "t"); err == nil {
		t.Fatal("table created in memory despite failure")
	}
	if len(c.Backends()) != 3 || len(c.Txns(TxnPrepare)) != 0 {
		t.Fatal("backend or txn created despite failure")
	}
	if _, ok := c.LookupUser("u", "x"); ok {
		t.Fatal("user created despite failure")
	}
	// Ids after the failures continue where they were.
	tb := mustCreate(t, c, "db", dupSpec("t", 2, 1))
	if tb.Partitions[0].Tablets[0].ID != 10100 {
		t.Fatalf("tablet ids leaked: %d", tb.Partitions[0].Tablets[0].ID)
	}
}

// TestOneApplyPerMutation: every mutating call is exactly one KV write,
// except TRUNCATE: it reserves its new ids in one and switches the table
// (after the caller created the tablets) in another.
func TestOneApplyPerMutation(t *testing.T) {
	c, kv := newTestCatalog(t, 3)
	s := dupSpec("t", 4, 1)
	s.ColocateWith = "g"
	calls := []struct {
		f       func() error
		applies int
	}{
		{func() error { _, err := c.CreateTable("db", s, false); return err }, 1},
		{func() error { return c.SetGroupStable("db", "g", false) }, 1},
		{func() error { _, _, err := c.TruncateTable("db", "t", noCreate); return err }, 2},
		{func() error { return c.SetColocateGroup("db", "t", "") }, 1},
		{func() error { _, err := c.DropTable("db", "t", false); return err }, 1},
		{func() error { _, err := c.DropDatabase("db", false); return err }, 1},
	}
	for i, call := range calls {
		n := kv.applies
		if err := call.f(); err != nil {
			t.Fatal(i, err)
		}
		if kv.applies != n+call.applies {
			t.Fatalf("call %d: %d applies, want %d", i, kv.applies-n, call.applies)
		}
	}
}

// state is everything the catalog persists, in comparable form.
type state struct {
	Seq      seqs
	DBs      []*Database
	Tables   []*Table
	Backends []Backend
	Groups   []*ColocateGroup
	Users    []*User
	Txns     []*Txn
}

func stateOf(c *Catalog) state {
	s := state{Seq: c.seq, DBs: c.Databases(), Groups: c.Groups(), Users: c.Users()}
	for _, d := range s.DBs {
		tabs, _ := c.Tables(d.Name)
		s.Tables = append(s.Tables, tabs...)
	}
	for _, be := range c.Backends() {
		b := *be
		b.Alive, b.LastHeartbeat, b.LastStartTime, b.ErrMsg = false, testNow, testNow, ""
		s.Backends = append(s.Backends, b)
	}
	for st := TxnPrepare; st <= TxnAborted; st++ {
		s.Txns = append(s.Txns, c.Txns(st)...)
	}
	sort.Slice(s.Txns, func(i, j int) bool { return s.Txns[i].ID < s.Txns[j].ID })
	return s
}

func TestReopenRestoresEverything(t *testing.T) {
	c, kv := newTestCatalog(t, 4)
	if _, err := c.CreateDatabase("other", false); err != nil {
		t.Fatal(err)
	}
	// Range, list, colocate (per-db and global), aggregate, decimals.
	r := dupSpec("ranged", 3, 2)
	r.Columns = append(r.Columns, col("dt", types.DateT), col("big", types.LargeIntT))
	r.PartKind, r.PartColumn = PartRange, "dt"
	r.Partitions = []PartitionSpec{{Name: "p1", Upper: strDatum("2024-01-01")}, {Name: "p2", Upper: strDatum("2025-01-01")}, {Name: "pmax"}}
	r.ColocateWith = "g"
	r.Properties = map[string]string{"colocate_with": "g", "replication_num": "2"}
	r.Comment = "a comment"
	mustCreate(t, c, "db", r)
	l := dupSpec("listed", 2, 1)
	l.Columns[1].Default = strPtr("x")
	l.PartKind, l.PartColumn = PartList, "k2"
	l.Partitions = []PartitionSpec{{Name: "pa", Values: []types.Datum{types.StringDatum("a"), types.StringDatum("b")}}, {Name: "pc", Values: []types.Datum{types.StringDatum("c")}}}
	mustCreate(t, c, "db", l)
	lg := dupSpec("largekey", 2, 1)
	lg.Columns[0] = col("k1", types.LargeIntT)
	lg.PartKind, lg.PartColumn = PartRange, "k1"
	lg.Partitions = []PartitionSpec{{Name: "p1", Upper: strDatum("170141183460469231731687303715884105727")}}
	mustCreate(t, c, "db", lg)
	a := &TableSpec{
		Name:    "agg",
		Columns: []Column{col("k", types.IntT), aggCol("s", types.DecimalT(12, 2), storage.AggSum), aggCol("m", types.VarcharT(8), storage.AggReplace)},
		Keys:    storage.AggKeys, Dist: DistSpec{Kind: DistHash, Columns: []string{"k"}, Buckets: 4}, ReplicationNum: 1, ColocateWith: "__global__x",
	}
	mustCreate(t, c, "other", a)
	if err := c.CreateUser("alice", "10.%", "secret", false); err != nil {
		t.Fatal(err)
	}
	ranged, _ := c.Table("db", "ranged")
	tx, _ := c.BeginTxn("db", "lbl", []TableID{ranged.ID})
	if _, err := c.CommitTxn(tx.ID, []PartitionID{ranged.Partitions[1].ID}, map[storage.TabletID]int64{ranged.Partitions[1].Tablets[2].ID: 7}, map[storage.TabletID]int64{ranged.Partitions[1].Tablets[2].ID: 700}); err != nil {
		t.Fatal(err)
	}
	tx2, _ := c.BeginTxn("db", "lbl2", []TableID{ranged.ID})
	tx3, _ := c.BeginTxn("db", "", []TableID{ranged.ID})
	if err := c.FinishTxn(tx.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CommitTxn(tx2.ID, []PartitionID{ranged.Partitions[0].ID}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.AbortTxn(tx3.ID, "cancelled"); err != nil {
		t.Fatal(err)
	}
	if err := c.SetGroupStable("other", "__global__x", false); err != nil {
		t.Fatal(err)
	}
	if err := c.SetBackendHTTPPort(10000, 8040); err != nil {
		t.Fatal(err)
	}
	before := stateOf(c)

	c2 := openTest(t, kv)
	// Liveness is in memory only: revive the backends before comparing.
	for _, be := range c2.Backends() {
		if be.Alive {
			t.Fatal("liveness persisted")
		}
		c2.SetBackendState(be.ID, true, "", testNow)
	}
	after := stateOf(c2)
	if !reflect.DeepEqual(before, after) {
		for i, tb := range before.Tables {
			if !reflect.DeepEqual(tb, after.Tables[i]) {
				t.Errorf("table %s differs:\n%+v\n%+v", tb.Name, tb, after.Tables[i])
			}
		}
		t.Fatalf("reopen differs:\nbefore %+v\nafter  %+v", before, after)
	}
	if got, ok := c2.TxnByLabel("db", "lbl"); !ok || got.State != TxnVisible {
		t.Fatal("label index not rebuilt")
	}
	if g, ok := c2.Group(0, "__global__x"); !ok || !g.Unstable || !g.MarkedUnstable {
		t.Fatal("admin mark lost")
	}
	// Big LARGEINT bound survived exactly.
	lk, _ := c2.Table("db", "largekey")
	if lk.Partitions[0].Upper.String() != "170141183460469231731687303715884105727" {
		t.Fatal("largeint bound", lk.Partitions[0].Upper.String())
	}
	// A reopened catalog keeps allocating fresh ids.
	nt := mustCreate(t, c2, "db", dupSpec("later", 1, 1))
	if int64(nt.ID) < before.Seq.ID || int64(nt.Partitions[0].Tablets[0].ID) != before.Seq.Tablet {
		t.Fatal("sequences not restored")
	}
}

func strPtr(s string) *string { return &s }

// TestConcurrentReaders runs DDL against readers under -race.
func TestConcurrentReaders(t *testing.T) {
	c, _ := newTestCatalog(t, 3)
	tb := mustCreate(t, c, "db", dupSpec("t", 4, 1))
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if x, ok := c.TableByID(tb.ID); ok {
					p := x.Partitions[0]
					if p.VisibleVersion >= p.NextVersion {
						t.Error("inconsistent snapshot")
						return
					}
				}
				c.Groups()
				c.Backends()
				c.Tables("db")
			}
		}()
	}
	for i := range 50 {
		tx, err := c.BeginTxn("db", "", []TableID{tb.ID})
		if err != nil {
			t.Fatal(err)
		}
		cur, _ := c.TableByID(tb.ID)
		if _, err := c.CommitTxn(tx.ID, []PartitionID{cur.Partitions[0].ID}, nil, nil); err != nil {
			t.Fatal(err)
		}
		if err := c.FinishTxn(tx.ID); err != nil {
			t.Fatal(err)
		}
		c.SetBackendState(10000, i%2 == 0, "", testNow)
	}
	close(stop)
	wg.Wait()
	cur, _ := c.TableByID(tb.ID)
	if cur.Partitions[0].VisibleVersion != 51 {
		t.Fatal("versions", cur.Partitions[0].VisibleVersion)
	}
}

func TestErrorKinds(t *testing.T) {
	// LabelUsedError is a sqlerr 1105 as well.
	err := error(&LabelUsedError{Label: "l", TxnID: 3, State: TxnVisible})
	if e := sqlerr.As(err); e.Code != 1105 || !strings.Contains(e.Message, "Label [l] has already been used") {
		t.Fatal(e)
	}
}
