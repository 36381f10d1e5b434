package physical_test

import (
	"strings"
	"testing"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/sql/types"
)

// A cycle of views that slipped into the catalog (two sessions each
// redefining one view over the other at the same moment pass their own
// checks) is refused when queried, with MySQL's 1462, not a stack overflow;
// so is a chain of views that would expand past the table limit.
func TestViewCycleAtQueryTime(t *testing.T) {
	e := newEnv(t)
	one := []catalog.Column{{Column: types.Column{Name: "k", Type: types.IntT}}}
	for _, v := range [][2]string{{"v1", "SELECT k FROM v2"}, {"v2", "SELECT k FROM v1"}} {
		if _, err := e.cat.CreateView(e.db, &catalog.ViewSpec{Name: v[0], Query: v[1], QueryDB: e.db, Columns: one}, catalog.ViewCreate); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{"SELECT * FROM v1", "SELECT 1 FROM dual WHERE 1 IN (SELECT k FROM v2)"} {
		if _, _, err := e.plan(q, e.vars); err == nil || !strings.Contains(err.Error(), "1462") || !strings.Contains(err.Error(), "contains view recursion") {
			t.Errorf("%s: %v, want 1462", q, err)
		}
	}
	// 12 levels, each naming the one below twice: 4,096 expansions.
	if _, err := e.cat.CreateView(e.db, &catalog.ViewSpec{Name: "w0", Query: "SELECT 1 AS k", QueryDB: e.db, Columns: one}, catalog.ViewCreate); err != nil {
		t.Fatal(err)
	}
	prev := "w0"
	for i := 1; i <= 12; i++ {
		name := "w" + string(rune('a'+i))
		q := "SELECT x.k FROM " + prev + " x JOIN " + prev + " y ON x.k = y.k"
		if _, err := e.cat.CreateView(e.db, &catalog.ViewSpec{Name: name, Query: q, QueryDB: e.db, Columns: one}, catalog.ViewCreate); err != nil {
			t.Fatal(err)
		}
		prev = name
	}
	if _, _, err := e.plan("SELECT * FROM "+prev, e.vars); err == nil || !strings.Contains(err.Error(), "1116") {
		t.Errorf("4,096 view expansions: %v, want 1116", err)
	}
}
