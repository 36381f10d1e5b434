package parser

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

func TestCreateView(t *testing.T) {
	for _, tc := range []struct {
		sql   string
		want  CreateView // Query compared by its text
		query string
	}{
		{"CREATE VIEW v AS SELECT a FROM t", CreateView{Name: "v"}, "SELECT a FROM t"},
		{"create or replace view if not exists db.v (x, y COMMENT 'the y') comment 'c' as select a, b from t where a > 1",
			CreateView{OrReplace: true, IfNotExists: true, DB: "db", Name: "v",
				Columns: []ViewColumn{{Name: "x"}, {Name: "y", Comment: "the y"}}, Comment: "c"},
			"select a, b from t where a > 1"},
		{"CREATE ALGORITHM = MERGE DEFINER = `root`@`%` SQL SECURITY DEFINER VIEW `v` AS (SELECT 1) UNION SELECT 2 WITH LOCAL CHECK OPTION",
			CreateView{Name: "v"}, "(SELECT 1) UNION SELECT 2"},
		{"CREATE DEFINER = CURRENT_USER() VIEW v AS WITH c AS (SELECT 1 AS one) SELECT * FROM c",
			CreateView{Name: "v"}, "WITH c AS (SELECT 1 AS one) SELECT * FROM c"},
		{"ALTER VIEW db.v (k) AS SELECT a FROM t JOIN [shuffle] u ON t.a = u.a",
			CreateView{Alter: true, DB: "db", Name: "v", Columns: []ViewColumn{{Name: "k"}}},
			"SELECT a FROM t JOIN [shuffle] u ON t.a = u.a"},
	} {
		st, err := ParseOne(tc.sql)
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		cv, ok := st.(*CreateView)
		if !ok {
			t.Errorf("%s: got %T", tc.sql, st)
			continue
		}
		if cv.Query == nil || cv.Query.Text != tc.query {
			t.Errorf("%s: query %+v, want text %q", tc.sql, cv.Query, tc.query)
			continue
		}
		if _, ok := cv.Query.AST.(sqlparser.SelectStatement); !ok {
			t.Errorf("%s: query AST %T", tc.sql, cv.Query.AST)
		}
		got := *cv
		got.Query = nil
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.sql, got, tc.want)
		}
	}
	// The join hint inside the view's query is kept with its query.
	st, _ := ParseOne("CREATE VIEW v AS SELECT * FROM t JOIN [broadcast] u ON t.a = u.a")
	if h := st.(*CreateView).Query.Hints; len(h.Join) != 1 {
		t.Errorf("view query hints: %+v", h)
	}
}

func TestCreateViewErrors(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		code sqlerr.Code
	}{
		{"CREATE VIEW v", 1064},
		{"CREATE VIEW v AS", 1064},
		{"CREATE VIEW v AS INSERT INTO t VALUES (1)", 1064},
		{"CREATE VIEW v AS SELECT FROM", 1064},
		{"CREATE VIEW v (a AS SELECT 1", 1064},
		{"ALTER VIEW IF NOT EXISTS v AS SELECT 1", 1064},
		{"CREATE VIEW v AS SELECT 1 FROM t WITH CHECK", 1064},
	} {
		_, err := ParseOne(tc.sql)
		if err == nil {
			t.Errorf("%q: parsed", tc.sql)
			continue
		}
		if got := sqlerr.As(err).Code; got != tc.code {
			t.Errorf("%q: %v, want code %d", tc.sql, err, tc.code)
		}
	}
	long := "CREATE VIEW v (" + strings.Repeat("c", 65) + ") AS SELECT 1"
	if _, err := ParseOne(long); sqlerr.As(err).Code != sqlerr.TooLongIdent.Code {
		t.Errorf("65-character column name: %v, want 1059", err)
	}
}

// CREATE DEFINER = ... for something else than a view is vitess's.
func TestCreateDefinerNotView(t *testing.T) {
	st, err := ParseOne("CREATE DEFINER = `root`@`%` TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET @x = 1")
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := st.(*DDL); !ok || d.Op != DDLCreate {
		t.Fatalf("got %T, want vitess's CREATE as *DDL", st)
	}
}

func TestShowCreateViewAndDropView(t *testing.T) {
	st, err := ParseOne("SHOW CREATE VIEW db.v")
	if err != nil || !reflect.DeepEqual(st, &ShowCreateView{DB: "db", View: "v"}) {
		t.Fatalf("SHOW CREATE VIEW: %#v, %v", st, err)
	}
	// DROP VIEW is vitess's, classified as a DDL: Views, IfExists.
	st, err = ParseOne("DROP VIEW IF EXISTS v1, db.v2")
	if err != nil {
		t.Fatal(err)
	}
	ddl, ok := st.(*DDL)
	if !ok || ddl.Op != DDLDrop || !ddl.IfExists || len(ddl.Views) != 2 || ddl.Views[1] != (TableName{"db", "v2"}) || len(ddl.Tables) != 0 {
		t.Fatalf("DROP VIEW: %#v", st)
	}
}
