package parser

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

func mustOne(t *testing.T, sql string) Statement {
	t.Helper()
	st, err := ParseOne(sql)
	if err != nil {
		t.Fatalf("%q: %v", sql, err)
	}
	return st
}

func vitessAST(t *testing.T, sql string) sqlparser.Statement {
	t.Helper()
	v, ok := mustOne(t, sql).(*Vitess)
	if !ok {
		t.Fatalf("%q: not *Vitess", sql)
	}
	return v.AST
}

// TestMySQLSurface pins the statement (or, for a query the binder takes,
// the vitess node type) of every MySQL form the rest of dorisgo relies on.
func TestMySQLSurface(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want any
	}{
		{"SHOW FULL TABLES", &Show{}},
		{"SHOW TABLES", &Show{}},
		{"SHOW DATABASES", &Show{}},
		{"SHOW TABLE STATUS", &Show{}},
		{"SHOW VARIABLES LIKE 'auto%'", &Show{}},
		{"SHOW PROCESSLIST", &Show{}},
		{"KILL QUERY 3", &Kill{}},
		{"KILL 3", &Kill{}},
		{"SELECT @@version_comment LIMIT 1", &sqlparser.Select{}},
		{"SET NAMES utf8mb4", &Set{}},
		{"SET @@session.x = 1", &Set{}},
		{"SET GLOBAL x = 1", &Set{}},
		{"SET SESSION disable_join_reorder = true", &Set{}},
		{"INSERT INTO t SELECT * FROM u", &sqlparser.Insert{}},
		{"INSERT INTO t (a, b) VALUES (1, 'x'), (2, NULL)", &sqlparser.Insert{}},
		{"TRUNCATE TABLE t", &DDL{}},
		{"TRUNCATE t", &DDL{}},
		{"DESC t", &Show{}},
		{"DESCRIBE db.t", &Show{}},
		{"EXPLAIN t", &Show{}},
		{"SHOW COLUMNS FROM t", &Show{}},
		{"SELECT * FROM information_schema.columns WHERE table_schema = 'd'", &sqlparser.Select{}},
		{"WITH c AS (SELECT 1 AS x) SELECT * FROM c", &sqlparser.Select{}},
		{"SELECT row_number() OVER (PARTITION BY a ORDER BY b) FROM t", &sqlparser.Select{}},
		{"SELECT sum(a) OVER (ORDER BY b ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t", &sqlparser.Select{}},
		{"SELECT a FROM t UNION ALL SELECT a FROM u", &sqlparser.SetOp{}},
		{"SELECT a FROM t INTERSECT SELECT a FROM u", &sqlparser.SetOp{}},
		{"SELECT a FROM t EXCEPT SELECT a FROM u", &sqlparser.SetOp{}},
		{"SELECT * FROM t JOIN u ON t.a <=> u.a", &sqlparser.Select{}},
		{"SELECT CAST(a AS SIGNED), CAST(a AS DECIMAL(10,2)), CAST(a AS DATE), CAST(a AS CHAR) FROM t", &sqlparser.Select{}},
		{"SELECT DATE_ADD(d, INTERVAL 1 DAY) FROM t", &sqlparser.Select{}},
		{"SELECT GROUP_CONCAT(x SEPARATOR ',') FROM t", &sqlparser.Select{}},
		{"SELECT COUNT(DISTINCT a, b) FROM t", &sqlparser.Select{}},
		{"SELECT a FROM t WHERE a NOT IN (SELECT b FROM u)", &sqlparser.Select{}},
		{"SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.b = t.a)", &sqlparser.Select{}},
		{"SELECT `a b` FROM `db`.`t`", &sqlparser.Select{}},
		{"SELECT a FROM t LIMIT 1, 2", &sqlparser.Select{}},
		{"SELECT a, SUM(b) FROM t GROUP BY ROLLUP(a)", &sqlparser.Select{}},
		{"SELECT a, SUM(b) FROM t GROUP BY a WITH ROLLUP", &sqlparser.Select{}},
		{"SELECT a, SUM(b) FROM t GROUP BY a, b WITH ROLLUP ORDER BY a", &sqlparser.Select{}},
		{"UPDATE t SET a = 1 WHERE b = 2", &sqlparser.Update{}},
		{"DELETE FROM t WHERE b = 2", &sqlparser.Delete{}},
		{"USE db", &Use{}},
		{"DROP TABLE IF EXISTS t", &DDL{}},
		{"DROP DATABASE d", &DatabaseDDL{}},
		{"CREATE DATABASE IF NOT EXISTS d", &DatabaseDDL{}},
		{"/*!40101 SET NAMES utf8 */", &Set{}},
	} {
		if want, ok := tc.want.(Statement); ok {
			if got := mustOne(t, tc.sql); reflect.TypeOf(got) != reflect.TypeOf(want) {
				t.Errorf("%q: got %T, want %T", tc.sql, got, want)
			}
			continue
		}
		ast := vitessAST(t, tc.sql)
		if reflect.TypeOf(ast) != reflect.TypeOf(tc.want) {
			t.Errorf("%q: got %T, want %T", tc.sql, ast, tc.want)
		}
	}
}

func TestDorisStatements(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want Statement
	}{
		{"SHOW BACKENDS", &ShowBackends{}},
		{"show tablets from db1.t", &ShowTablets{DB: "db1", Table: "t"}},
		{"SHOW TABLETS FROM `t`", &ShowTablets{Table: "t"}},
		{"SHOW PARTITIONS FROM t", &ShowPartitions{Table: "t"}},
		{"SHOW PROC '/colocation_group'", &ShowProc{Path: "/colocation_group"}},
		{`SHOW PROC "/colocation_group/10005.10008"`, &ShowProc{Path: "/colocation_group/10005.10008"}},
		{"SHOW CREATE TABLE d.t", &ShowCreateTable{DB: "d", Table: "t"}},
		{`ALTER SYSTEM ADD BACKEND "127.0.0.1:9050"`, &AlterSystem{Op: AddBackend, HostPorts: []string{"127.0.0.1:9050"}}},
		{`ALTER SYSTEM DROP BACKEND "h1:1", "h2:2"`, &AlterSystem{Op: DropBackend, HostPorts: []string{"h1:1", "h2:2"}}},
		{`ALTER SYSTEM DECOMMISSION BACKEND 'h:1'`, &AlterSystem{Op: DecommissionBackend, HostPorts: []string{"h:1"}}},
		{`ALTER SYSTEM DROPP BACKEND "h:1"`, &AlterSystem{Op: DropBackendForce, HostPorts: []string{"h:1"}}},
		{`CANCEL DECOMMISSION BACKEND "h:1", "h:2"`, &AlterSystem{Op: CancelDecommission, HostPorts: []string{"h:1", "h:2"}}},
		{`ALTER SYSTEM ADD FOLLOWER "h:9010"`, &AlterSystem{Op: AddFollower, HostPorts: []string{"h:9010"}}},
		{`alter system add observer 'h:9010'`, &AlterSystem{Op: AddObserver, HostPorts: []string{"h:9010"}}},
		{`ALTER SYSTEM DROP FOLLOWER "h:9010"`, &AlterSystem{Op: DropFollower, HostPorts: []string{"h:9010"}}},
		{`ALTER SYSTEM DROP OBSERVER "h:9010"`, &AlterSystem{Op: DropObserver, HostPorts: []string{"h:9010"}}},
		{"SHOW FRONTENDS", &ShowFrontends{}},
		{`ALTER TABLE d.t SET ("colocate_with" = "g1")`, &AlterTableSet{DB: "d", Table: "t", Properties: map[string]string{"colocate_with": "g1"}}},
		{`ALTER TABLE t SET ("Colocate_With" = "")`, &AlterTableSet{Table: "t", Properties: map[string]string{"colocate_with": ""}}},
		{"CREATE USER 'u'@'h' IDENTIFIED BY 'pw'", &CreateUser{User: "u", Host: "h", Password: "pw"}},
		{"CREATE USER IF NOT EXISTS u", &CreateUser{IfNotExists: true, User: "u", Host: "%"}},
		{"CREATE USER 'u'@'%' IDENTIFIED WITH mysql_native_password BY 'p'", &CreateUser{User: "u", Host: "%", Password: "p"}},
		{"DROP USER 'u'@'h'", &DropUser{User: "u", Host: "h"}},
		{"DROP USER IF EXISTS `u`", &DropUser{IfExists: true, User: "u", Host: "%"}},
		{"SET PASSWORD = PASSWORD('x')", &SetPassword{Password: "x"}},
		{"SET PASSWORD = 'x'", &SetPassword{Password: "x"}},
		{"SET PASSWORD FOR 'u'@'h' = PASSWORD('p w')", &SetPassword{User: "u", Host: "h", Password: "p w"}},
	} {
		got := mustOne(t, tc.sql)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.sql, got, tc.want)
		}
	}
	// ALTER TABLE column and partition clauses are Doris's (alter.go);
	// index clauses stay vitess statements.
	if _, ok := mustOne(t, "ALTER TABLE t ADD COLUMN c INT").(*AlterTable); !ok {
		t.Errorf("ALTER TABLE ADD COLUMN: want *AlterTable")
	}
	if a, ok := mustOne(t, "ALTER TABLE t ADD INDEX i (c)").(*AlterIndexes); !ok || a.HasOther || a.Table.Name != "t" {
		t.Errorf("ALTER TABLE ADD INDEX: want *AlterIndexes")
	}
}

func TestExplain(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		mode ExplainMode
		text string
	}{
		{"EXPLAIN SELECT * FROM t", ExplainPlain, "SELECT * FROM t"},
		{"explain verbose select 1", ExplainVerbose, "select 1"},
		{"EXPLAIN (TYPE DISTRIBUTED) SELECT a FROM t JOIN [shuffle] u ON t.a = u.a", ExplainDistributed, "SELECT a FROM t JOIN [shuffle] u ON t.a = u.a"},
		{"EXPLAIN ANALYZE SELECT 1", ExplainAnalyze, "SELECT 1"},
		{"DESC SELECT 1", ExplainPlain, "SELECT 1"},
		{"EXPLAIN FORMAT=TREE SELECT 1", ExplainPlain, "SELECT 1"},
		{"EXPLAIN INSERT INTO t SELECT * FROM u", ExplainPlain, "INSERT INTO t SELECT * FROM u"},
	} {
		e, ok := mustOne(t, tc.sql).(*Explain)
		if !ok {
			t.Fatalf("%q: not *Explain", tc.sql)
		}
		v := e.Stmt.(*Vitess)
		if e.Mode != tc.mode || v.Text != tc.text {
			t.Errorf("%q: mode %v text %q", tc.sql, e.Mode, v.Text)
		}
	}
	e := mustOne(t, "EXPLAIN SELECT * FROM a JOIN [broadcast] b ON a.x = b.x").(*Explain)
	if len(e.Stmt.(*Vitess).Hints.Join) != 1 {
		t.Errorf("EXPLAIN lost the join hint")
	}
}

func syntaxMsg(near string, line int) string {
	return "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '" +
		near + "' at line " + strconv.Itoa(line)
}

func TestSyntaxErrors(t *testing.T) {
	for _, tc := range []struct {
		sql, near string
		line      int
	}{
		{"select * from where t", "where t", 1},
		{"select * from t where", "", 1},
		{"select * frm t", "frm t", 1},
		{"select 1\nfrom t whre x", "x", 2},
		{"select a from t join [shuffle] u on t.a = u.a whre 1", "whre 1", 1},
		{"selec 1", "selec 1", 1},
		{"SHOW TABLETS t", "t", 1},
		{"SHOW PROC /x", "/x", 1},
		{"ALTER SYSTEM ADD BACKEND h", "h", 1},
		{"ALTER SYSTEM DECOMMISSION FOLLOWER 'h:1'", "FOLLOWER 'h:1'", 1},
		{"ALTER SYSTEM ADD FRONTEND 'h:1'", "FRONTEND 'h:1'", 1},
		{"CREATE TABLE t (a FOO) DISTRIBUTED BY HASH(a)", "FOO) DISTRIBUTED BY HASH(a)", 1},
		{"CREATE TABLE t (a INT)\nDISTRIBUTED BY HASH(a) BUCKETS x", "x", 2},
		{"CREATE TABLE t (a INT,) DUPLICATE KEY(a)", ") DUPLICATE KEY(a)", 1},
		{"CREATE TABLE t (a INT) PROPERTIES (\"a\" = \"b\"", "", 1},
		{"CREATE USER 'u'@", "", 1},
		{"EXPLAIN VERBOSE t", "t", 1},
		{"select 'it''s' frm t", "t", 1},
		{"select x from t where y = 'abc' 'def' and", "", 1},
		{"select " + strings.Repeat("a+", 60) + "+", "", 1},
		{"selec " + strings.Repeat("a+", 60), "selec " + strings.Repeat("a+", 37), 1},
		{"select a from t group by a with rollup whre", "whre", 1},
		{"select a from t group by a, b with rollup limit x y", "y", 1},
		{"EXPLAIN VERBOSE select *\n frm t", "frm t", 2},
		{"EXPLAIN", "", 1},
		{"select /* c */ * /* d */ frm /* e */ t", "frm /* e */ t", 1},
	} {
		_, err := ParseOne(tc.sql)
		e := sqlerr.As(err)
		if err == nil || e.Code != 1064 {
			t.Errorf("%q: want 1064, got %v", tc.sql, err)
			continue
		}
		if want := syntaxMsg(tc.near, tc.line); e.Message != want {
			t.Errorf("%q:\n got %s\nwant %s", tc.sql, e.Message, want)
		}
	}
}

func TestRollupRewrite(t *testing.T) {
	got := sqlparser.String(vitessAST(t, "SELECT a, b, SUM(c) FROM t GROUP BY a, b WITH ROLLUP HAVING a > 1"))
	if want := "select a, b, SUM(c) from t group by ROLLUP(a, b) having a > 1"; got != want {
		t.Errorf("got %s", got)
	}
	got = sqlparser.String(vitessAST(t, "SELECT * FROM (SELECT a FROM t GROUP BY a WITH ROLLUP) s GROUP BY s.a WITH ROLLUP"))
	if want := "select * from (select a from t group by ROLLUP(a)) as s group by ROLLUP(s.a)"; got != want {
		t.Errorf("got %s", got)
	}
}

// Doris's CAST targets vitess lacks become MySQL's: BIGINT/INT/… SIGNED,
// VARCHAR/STRING/TEXT CHAR; a CAST's AS only, never an alias; an error
// after a widened type still points at the user's text.
func TestCastTypeRewrite(t *testing.T) {
	for in, want := range map[string]string{
		"SELECT CAST(a AS BIGINT), CAST(b AS int) FROM t":                      "select CAST(a as SIGNED), __cast_int(b) from t",
		"SELECT CAST(a AS VARCHAR(10)), CAST(CAST(b AS STRING) AS TEXT) x":     "select CAST(a as CHAR(10)), CAST(CAST(b as CHAR) as CHAR) x",
		"SELECT CAST((a + 1) AS TINYINT) AS v FROM t WHERE CAST(s AS INT) > 1": "select __cast_tinyint((a + 1)) v from t where __cast_int(s) > 1",
	} {
		if got := sqlparser.String(vitessAST(t, in)); got != want {
			t.Errorf("%s:\n got %s\nwant %s", in, got, want)
		}
	}
	_, err := ParseOne("SELECT CAST(a AS INT) FROM t WHERE ) x")
	e := sqlerr.As(err)
	if e == nil || e.Code != 1064 || !strings.Contains(e.Message, "near ') x'") {
		t.Errorf("error after a rewritten CAST: %v", err)
	}
}

// ORDER BY … NULLS FIRST/LAST (Doris, SQL standard) becomes a marker call
// around the item's expression, in ORDER BY, window ORDER BY and set
// operations, keeping ASC/DESC.
func TestNullsOrderRewrite(t *testing.T) {
	for in, want := range map[string]string{
		"SELECT a FROM t ORDER BY a NULLS LAST, b + 1 DESC NULLS FIRST":                    "select a from t order by __nulls_last(a) asc, __nulls_first(b + 1) desc",
		"SELECT row_number() OVER (PARTITION BY a ORDER BY f(b, c) ASC NULLS LAST) FROM t": "select row_number() over (partition by a order by __nulls_last(f(b, c)) asc) from t",
		"SELECT a FROM t UNION SELECT b FROM u ORDER BY 1 DESC NULLS LAST":                 "select a from t union select b from u order by __nulls_last(1) desc",
	} {
		if got := sqlparser.String(vitessAST(t, in)); got != want {
			t.Errorf("%s:\n got %s\nwant %s", in, got, want)
		}
	}
}

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want []string
	}{
		{"select 1; select 2", []string{"select 1", "select 2"}},
		{"select ';' ; select \"a;b\";", []string{"select ';'", "select \"a;b\""}},
		{"select 'a\\';b'; select 2", []string{"select 'a\\';b'", "select 2"}},
		{"select `a;b` from t; ;;  ; ", []string{"select `a;b` from t"}},
		{"select 1 /* ; */ ; -- x; y\n select 2 # ;\n", []string{"select 1 /* ; */", "-- x; y\n select 2 # ;"}},
		{"-- only a comment; \n /* c */ ; ", nil},
		{"select 1--2; select 3", []string{"select 1--2", "select 3"}},
		{"select 'unterminated; select 2", []string{"select 'unterminated; select 2"}},
	} {
		if got := Split(tc.sql); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Split(%q) = %q, want %q", tc.sql, got, tc.want)
		}
	}
	sts, err := Parse("select 1; select ';'; SHOW BACKENDS;")
	if err != nil || len(sts) != 3 {
		t.Fatalf("Parse multi: %v %d", err, len(sts))
	}
	if _, ok := sts[2].(*ShowBackends); !ok {
		t.Errorf("third statement %T", sts[2])
	}
	for _, empty := range []string{"", "  ;  ; ", "-- c\n", "/* x */"} {
		if _, err := Parse(empty); !errors.Is(err, sqlerr.EmptyQuery.Match()) {
			t.Errorf("Parse(%q) = %v, want 1065", empty, err)
		}
	}
	if _, err := ParseOne("select 1; select 2"); sqlerr.As(err).Code != 1064 {
		t.Errorf("ParseOne of two statements: %v", err)
	}
}

func TestGroupingSetsRewrite(t *testing.T) {
	for _, tc := range []struct{ sql, want string }{
		{"SELECT a FROM t GROUP BY CUBE(a, b)", "select a from t group by CUBE(a, b)"},
		{"SELECT a FROM t GROUP BY a, cube (b)", "select a from t group by a, cube(b)"},
		{"SELECT a FROM t GROUP BY GROUPING SETS ((a), ROLLUP(b))", "select a from t group by GROUPING_SETS((a), ROLLUP(b))"},
		{"SELECT a FROM t GROUP BY GROUPING SETS ((a, b), (a), ( ), ())", "select a from t group by GROUPING_SETS((a, b), (a), (null), (null))"},
		{"SELECT a FROM t GROUP BY grouping\n sets ((a), ()) HAVING GROUPING(a) = 0", "select a from t group by GROUPING_SETS((a), (null)) having GROUPING(a) = 0"},
	} {
		if got := sqlparser.String(vitessAST(t, tc.sql)); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.sql, got, tc.want)
		}
	}
	for _, tc := range []struct{ sql, near string }{
		{"select a from t group by cube(a) whre", "whre"},
		{"select a from t group by grouping sets ((a), ()) whre", "whre"},
		{"select a from t group by grouping sets ((a), () whre", "whre"},
		{"select a from t group by a with rollup with rollup", "with rollup"},
	} {
		_, err := ParseOne(tc.sql)
		if e := sqlerr.As(err); err == nil || e.Message != syntaxMsg(tc.near, 1) {
			t.Errorf("%q: %v", tc.sql, err)
		}
	}
}

// TestRestoreCasts: a column named by a rewritten CAST shows the CAST.
func TestRestoreCasts(t *testing.T) {
	for in, want := range map[string]string{
		"`__cast_int`(s      )":                      "CAST(s AS INT)",
		"`__cast_tinyint`    (k           )":         "CAST(k AS TINYINT)",
		"`__cast_tinyint`((a + 1)          ) + 1":    "CAST((a + 1) AS TINYINT) + 1",
		"`__cast_int`(concat(')', `__cast_int`(x)))": "CAST(concat(')', CAST(x AS INT)) AS INT)",
		"plain": "plain",
	} {
		if got := RestoreCasts(in); got != want {
			t.Errorf("RestoreCasts(%q) = %q, want %q", in, got, want)
		}
	}
}
