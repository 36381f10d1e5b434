package catalog

import (
	"reflect"
	"testing"

	"github.com/dorisgo/dorisgo/sql/types"
)

func viewSpec(name, query string, cols ...string) *ViewSpec {
	s := &ViewSpec{Name: name, Query: query, QueryDB: "db"}
	for _, c := range cols {
		s.Columns = append(s.Columns, col(c, types.IntT))
	}
	return s
}

// Views share the table namespace and the id sequence, replace in place,
// and answer MySQL's and Doris's errors for the wrong kind of object.
func TestViews(t *testing.T) {
	c, kv := newTestCatalog(t, 1)
	mustCreate(t, c, "db", dupSpec("t", 1, 1))
	v, err := c.CreateView("db", viewSpec("v", "SELECT k1 FROM t", "k1"), ViewCreate)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CreateView("db", viewSpec("v", "SELECT 1", "x"), ViewCreate)
	wantCode(t, err, 1050, "Table 'v' already exists")
	_, err = c.CreateView("db", viewSpec("t", "SELECT 1", "x"), ViewCreate)
	wantCode(t, err, 1050, "Table 't' already exists")
	_, err = c.CreateView("db", viewSpec("t", "SELECT 1", "x"), ViewOrReplace)
	wantCode(t, err, 1347, "'db.t' is not VIEW")
	_, err = c.CreateTable("db", dupSpec("v", 1, 1), false)
	wantCode(t, err, 1050, "Table 'v' already exists")
	_, err = c.CreateView("db", viewSpec("w", "SELECT 1, 2", "a", "A"), ViewCreate)
	wantCode(t, err, 1060, "Duplicate column name 'A'")
	_, err = c.CreateView("nodb", viewSpec("w", "SELECT 1", "a"), ViewCreate)
	wantCode(t, err, 1049, "")

	kept, err := c.CreateView("db", viewSpec("v", "SELECT 2", "other"), ViewIfNotExists)
	if err != nil || kept != v {
		t.Fatalf("IF NOT EXISTS: %+v, %v; want the existing view", kept, err)
	}
	r, err := c.CreateView("db", viewSpec("v", "SELECT k1, v FROM t", "k1", "v"), ViewOrReplace)
	if err != nil || r.ID != v.ID || r.Query != "SELECT k1, v FROM t" || len(r.Columns) != 2 {
		t.Fatalf("OR REPLACE: %+v, %v", r, err)
	}
	a, err := c.AlterView("db", viewSpec("v", "SELECT 3", "three"))
	if err != nil || a.ID != v.ID || a.Query != "SELECT 3" {
		t.Fatalf("ALTER: %+v, %v", a, err)
	}
	_, err = c.AlterView("db", viewSpec("t", "SELECT 1", "x"))
	wantCode(t, err, 1347, "'db.t' is not VIEW")
	_, err = c.AlterView("db", viewSpec("nosuch", "SELECT 1", "x"))
	wantCode(t, err, 1146, "Table 'db.nosuch' doesn't exist")

	_, err = c.DropView("db", "t", false)
	wantCode(t, err, 1347, "'db.t' is not VIEW. Use 'DROP TABLE db.t'.")
	_, err = c.DropView("db", "nosuch", false)
	wantCode(t, err, 1051, "Unknown table 'db.nosuch'")
	if got, err := c.DropView("db", "nosuch", true); got != nil || err != nil {
		t.Fatalf("DROP VIEW IF EXISTS nothing: %v, %v", got, err)
	}
	// Several at once: all or none; every missing name in one 1051.
	if _, err := c.CreateView("db", viewSpec("x", "SELECT 1", "one"), ViewCreate); err != nil {
		t.Fatal(err)
	}
	_, err = c.DropViews([]ViewName{{"db", "x"}, {"db", "n1"}, {"db", "n2"}}, false)
	wantCode(t, err, 1051, "Unknown table 'db.n1,db.n2'")
	if _, err := c.View("db", "x"); err != nil {
		t.Fatal("a failed DROP VIEW dropped a view")
	}
	if vs, err := c.DropViews([]ViewName{{"db", "x"}, {"db", "x"}, {"db", "n1"}}, true); err != nil || len(vs) != 1 {
		t.Fatalf("DROP VIEW IF EXISTS x, x, n1: %v, %v", vs, err)
	}
	_, err = c.DropTable("db", "v", true)
	wantCode(t, err, 1347, "'db.v' is not TABLE. Use 'DROP VIEW db.v'.")
	_, err = c.View("db", "t")
	wantCode(t, err, 1146, "")

	// Persisted: a reopened catalog has the same views, ids continue.
	w, err := c.CreateView("db", viewSpec("w", "SELECT 1", "one"), ViewCreate)
	if err != nil {
		t.Fatal(err)
	}
	c2 := openTest(t, kv)
	got, err := c2.Views("db")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := c.Views("db")
	if !reflect.DeepEqual(got, want) || len(got) != 2 || got[0].CreateTime != testNow {
		t.Fatalf("reopened views %+v, want %+v", got, want)
	}
	if n, err := c2.CreateView("db", viewSpec("n", "SELECT 1", "one"), ViewCreate); err != nil || n.ID <= w.ID {
		t.Fatalf("view id %v (%v) after a reopen, want above %d", n, err, w.ID)
	}
	if _, err := c2.DropView("db", "w", false); err != nil {
		t.Fatal(err)
	}
	if _, err := openTest(t, kv).View("db", "w"); err == nil {
		t.Fatal("dropped view back after reopen")
	}

	// DROP DATABASE drops its views, in the same write.
	if _, err := c2.DropDatabase("db", false); err != nil {
		t.Fatal(err)
	}
	c3 := openTest(t, kv)
	if _, err := c3.CreateDatabase("db", false); err != nil {
		t.Fatal(err)
	}
	if vs, _ := c3.Views("db"); len(vs) != 0 {
		t.Fatalf("views of a dropped database: %+v", vs)
	}
	if vs, _ := c2.Views("db"); len(vs) != 0 {
		t.Fatalf("views of a dropped database in memory: %+v", vs)
	}
}

// A failed write changes nothing: no view in memory, the name still free.
func TestViewAtomicFailure(t *testing.T) {
	c, kv := newTestCatalog(t, 1)
	kv.failNext = true
	if _, err := c.CreateView("db", viewSpec("v", "SELECT 1", "one"), ViewCreate); err == nil {
		t.Fatal("injected failure not reported")
	}
	if _, err := c.View("db", "v"); err == nil {
		t.Fatal("view created in memory despite failure")
	}
	if _, err := c.CreateView("db", viewSpec("v", "SELECT 1", "one"), ViewCreate); err != nil {
		t.Fatal(err)
	}
	kv.failNext = true
	if _, err := c.DropView("db", "v", false); err == nil {
		t.Fatal("injected failure not reported")
	}
	if _, err := c.View("db", "v"); err != nil {
		t.Fatal("view dropped in memory despite failure")
	}
}
