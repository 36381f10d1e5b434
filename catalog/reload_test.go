package catalog

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// A reload rebuilds what the KV holds and keeps this frontend's heartbeat
// state: a catalog reopened from a second handle on the same KV sees a
// table created through the first after Reload, not before.
func TestReloadFollowsTheKV(t *testing.T) {
	master, kv := newTestCatalog(t, 3)
	follower := openTest(t, kv)
	follower.SetBackendState(10000, true, "", testNow)
	if _, err := master.CreateTable("db", dupSpec("t", 4, 1), false); err != nil {
		t.Fatal(err)
	}
	if _, err := follower.Table("db", "t"); err == nil {
		t.Fatal("the follower saw the table before reloading")
	}
	if err := follower.Reload(); err != nil {
		t.Fatal(err)
	}
	tb, err := follower.Table("db", "t")
	if err != nil || len(tb.Partitions[0].Tablets) != 4 {
		t.Fatalf("after Reload: %v, %v", tb, err)
	}
	if be, _ := follower.Backend(10000); !be.Alive {
		t.Fatal("Reload forgot the backend's heartbeat state")
	}
	if be, _ := follower.Backend(10001); be.Alive {
		t.Fatal("a backend this frontend never heard from is alive after Reload")
	}
	if _, err := master.DropDatabase("db", false); err != nil {
		t.Fatal(err)
	}
	if err := follower.Reload(); err != nil {
		t.Fatal(err)
	}
	if _, err := follower.Database("db"); err == nil {
		t.Fatal("a dropped database survived Reload")
	}
}

// BenchmarkReload measures a follower's reload of a catalog of 200 tables
// and 2,000 transactions (go test ./catalog -bench Reload).
func BenchmarkReload(b *testing.B) {
	t := &testing.T{}
	c, _ := newTestCatalog(t, 3)
	var ids []TableID
	for i := range 200 {
		tb, err := c.CreateTable("db", dupSpec(fmt.Sprintf("t%d", i), 8, 3), false)
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, tb.ID)
	}
	for i := range 2000 {
		if _, err := c.BeginTxn("db", fmt.Sprintf("l%d", i), ids[i%200:i%200+1]); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		if err := c.Reload(); err != nil {
			b.Fatal(err)
		}
	}
}

// teeKV hands every write the master persists to a follower as a journal
// entry would.
type teeKV struct {
	*memKV
	follower **Catalog
	t        *testing.T
}

func (k teeKV) Apply(ops []storage.MetaOp) error {
	if err := k.memKV.Apply(ops); err != nil {
		return err
	}
	if *k.follower != nil {
		if err := (*k.follower).ApplyReplicated(ops); err != nil {
			k.t.Fatalf("ApplyReplicated: %v", err)
		}
	}
	return nil
}

// A follower applying the master's writes one batch at a time holds what
// a catalog loaded afresh from the same KV holds, through DDL of every
// kind, colocate groups, views, users, roles and grants, transactions,
// statistics, backends, and drops.
func TestApplyReplicatedMatchesAFreshLoad(t *testing.T) {
	kv := newMemKV()
	master := openTest(t, kv)
	var follower *Catalog
	master.kv = teeKV{memKV: kv, follower: &follower, t: t}
	follower = openTest(t, kv)
	check := func(step string) {
		t.Helper()
		fresh := openTest(t, kv)
		for _, be := range follower.Backends() {
			fresh.SetBackendState(be.ID, be.Alive, be.ErrMsg, be.LastHeartbeat)
		}
		fresh.mu.RLock()
		follower.mu.RLock()
		defer fresh.mu.RUnlock()
		defer follower.mu.RUnlock()
		pairs := []struct {
			name string
			a, b any
		}{
			{"seq", follower.seq, fresh.seq}, {"dbs", follower.dbs, fresh.dbs}, {"dbNames", follower.dbNames, fresh.dbNames},
			{"tables", follower.tables, fresh.tables}, {"tableNames", follower.tableNames, fresh.tableNames},
			{"views", follower.views, fresh.views}, {"viewNames", follower.viewNames, fresh.viewNames},
			{"backends", follower.backends, fresh.backends}, {"groups", follower.groups, fresh.groups}, {"groupKeys", follower.groupKeys, fresh.groupKeys},
			{"users", follower.users, fresh.users}, {"roles", follower.roles, fresh.roles}, {"txns", follower.txns, fresh.txns},
			{"labels", follower.labels, fresh.labels}, {"stats", len(follower.stats), len(fresh.stats)}, {"alterJobs", len(follower.alterJobs), len(fresh.alterJobs)},
		}
		for _, p := range pairs {
			if !reflect.DeepEqual(p.a, p.b) {
				t.Fatalf("after %s the follower's %s differs from a fresh load:\n follower %s\n fresh    %s", step, p.name, show(p.a), show(p.b))
			}
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		be, err := master.AddBackend("127.0.0.1", 9060+i)
		must(err)
		// Heartbeats are this frontend's own: the follower hears them too.
		master.SetBackendState(be.ID, true, "", testNow)
		follower.SetBackendState(be.ID, true, "", testNow)
	}
	_, err := master.CreateDatabase("db", false)
	must(err)
	check("CREATE DATABASE")
	a, err := master.CreateTable("db", dupSpec("a", 4, 2), false)
	must(err)
	s := dupSpec("b", 4, 1)
	s.ColocateWith = "g"
	_, err = master.CreateTable("db", s, false)
	must(err)
	check("CREATE TABLE with a colocate group")
	_, err = master.CreateView("db", &ViewSpec{Name: "v", Query: "SELECT k1 FROM a", QueryDB: "db", Columns: []Column{col("k1", types.BigIntT)}}, ViewCreate)
	must(err)
	_, err = master.RenameTable("db", "a", "a2")
	must(err)
	check("CREATE VIEW, RENAME")
	must(master.CreateUser("u", "%", "pw", false))
	must(master.CreateRole("r", "", false))
	must(master.Grant(Grantee{Role: "r"}, Target{"db", "*"}, SelectPriv))
	must(master.GrantRoles([]string{"r"}, "u", "%"))
	check("users, roles and grants")
	for i := range 3 {
		tx, err := master.BeginTxn("db", fmt.Sprintf("l%d", i), []TableID{a.ID})
		must(err)
		switch i {
		case 0:
			_, err = master.CommitTxn(tx.ID, []PartitionID{a.Partitions[0].ID}, map[storage.TabletID]int64{a.Partitions[0].Tablets[0].ID: 5}, nil)
			must(err)
			must(master.FinishTxn(tx.ID))
		case 1:
			must(master.AbortTxn(tx.ID, "test"))
		}
	}
	// A label reused after its abort: the newest transaction wins it.
	_, err = master.BeginTxn("db", "l1", []TableID{a.ID})
	must(err)
	check("transactions")
	must(master.SetStatistics(a.ID, 5, "test", map[string]*ColumnStatistic{"k1": {NDV: 5}}))
	check("statistics")
	must(master.DropStatistics(a.ID, nil))
	must(master.SetBackendDecommissioned(10000, true))
	must(master.DropBackend("127.0.0.1", 9062))
	check("backends")
	_, err = master.DropView("db", "v", false)
	must(err)
	_, err = master.DropTable("db", "a2", false)
	must(err)
	check("DROP VIEW, DROP TABLE")
	_, err = master.DropDatabase("db", false)
	must(err)
	must(master.DropUser("u", "%", false))
	must(master.DropRole("r", false))
	check("DROP DATABASE, USER, ROLE")
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	return string(b)
}
