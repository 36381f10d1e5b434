package catalog

import (
	"errors"
	"testing"
	"time"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

var testNow = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

func openTest(t *testing.T, kv *memKV) *Catalog {
	t.Helper()
	c, err := Open(kv)
	if err != nil {
		t.Fatal(err)
	}
	c.now = func() time.Time { return testNow }
	return c
}

// newTestCatalog opens a fresh catalog with n alive backends (ids 10000..)
// and a database "db".
func newTestCatalog(t *testing.T, n int) (*Catalog, *memKV) {
	t.Helper()
	kv := newMemKV()
	c := openTest(t, kv)
	addBackendsAndDB(t, c, n)
	return c, kv
}

// addBackendsAndDB adds n alive backends (ids 10000..) and database "db".
func addBackendsAndDB(t *testing.T, c *Catalog, n int) {
	t.Helper()
	for i := range n {
		be, err := c.AddBackend("127.0.0.1", 9060+i)
		if err != nil {
			t.Fatal(err)
		}
		c.SetBackendState(be.ID, true, "", testNow)
	}
	if _, err := c.CreateDatabase("db", false); err != nil {
		t.Fatal(err)
	}
}

func col(name string, typ types.T) Column {
	return Column{Column: types.Column{Name: name, Type: typ, Nullable: true}}
}

func aggCol(name string, typ types.T, agg storage.AggType) Column {
	c := col(name, typ)
	c.Agg = agg
	return c
}

// dupSpec is a DUPLICATE KEY(k1) table (k1 BIGINT, k2 VARCHAR(32), v INT)
// hashed on k1.
func dupSpec(name string, buckets, replicas int) *TableSpec {
	return &TableSpec{
		Name:           name,
		Columns:        []Column{col("k1", types.BigIntT), col("k2", types.VarcharT(32)), col("v", types.IntT)},
		Keys:           storage.DupKeys,
		KeyColumns:     []string{"k1"},
		Dist:           DistSpec{Kind: DistHash, Columns: []string{"k1"}, Buckets: buckets},
		ReplicationNum: replicas,
	}
}

func mustCreate(t *testing.T, c *Catalog, db string, s *TableSpec) *Table {
	t.Helper()
	tb, err := c.CreateTable(db, s, false)
	if err != nil {
		t.Fatalf("create %s: %v", s.Name, err)
	}
	return tb
}

// wantCode asserts err is a sqlerr with the code (and, if msg != "", message).
func wantCode(t *testing.T, err error, code sqlerr.Code, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want error %d %q, got nil", code, msg)
	}
	var e *sqlerr.Error
	if !errors.As(err, &e) {
		t.Fatalf("want sqlerr %d, got %T %v", code, err, err)
	}
	if e.Code != code || (msg != "" && e.Message != msg) {
		t.Fatalf("want %d %q, got %d %q", code, msg, e.Code, e.Message)
	}
}

func strDatum(s string) *types.Datum { d := types.StringDatum(s); return &d }

func tabletIDs(p *Partition) []storage.TabletID {
	var ids []storage.TabletID
	for _, tb := range p.Tablets {
		ids = append(ids, tb.ID)
	}
	return ids
}

func firstBackends(p *Partition) []BackendID {
	var ids []BackendID
	for _, tb := range p.Tablets {
		ids = append(ids, tb.Replicas[0].BackendID)
	}
	return ids
}

func sqlerrCode(c uint16) sqlerr.Code { return sqlerr.Code(c) }
