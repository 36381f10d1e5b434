package parser

import (
	"reflect"
	"testing"
)

// TestClassify checks what the server reads of the statements vitess
// parses, without a vitess node.
func TestClassify(t *testing.T) {
	set := mustOne(t, "SET GLOBAL a = ON, @u = (SELECT 1 + 2), @@session.b = DEFAULT").(*Set)
	var got []Assignment
	for _, a := range set.Assignments {
		a.Value = nil
		got = append(got, a)
	}
	want := []Assignment{
		{Scope: ScopeGlobal, Name: "a", Literal: "ON", IsLiteral: true, Text: "'ON'"},
		{Scope: ScopeUser, Name: "u", Text: "(select 1 + 2)"},
		{Scope: ScopeSession, Name: "b", Default: true, Text: "default"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SET:\n got %+v\nwant %+v", got, want)
	}
	txn := mustOne(t, "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED").(*Set).Assignments[0]
	if txn.Scope != ScopeSession || txn.Name != "transaction" || txn.Literal != "isolation level read committed" {
		t.Errorf("SET TRANSACTION: %+v", txn)
	}
	if v := set.Assignments[1].Value; v == nil || v.AST == nil || reflect.TypeOf(v.AST).String() != "*sqlparser.BinaryExpr" {
		t.Errorf("SET @u = (SELECT 1 + 2): value %#v, want the unwrapped 1 + 2", v)
	}

	for _, tc := range []struct {
		sql  string
		want Statement
	}{
		{"USE `d b`", &Use{DB: "d b"}},
		{"SHOW FULL TABLES FROM d LIKE 't%'", &Show{Type: "TABLES", Full: true, FromDB: "d", Like: "t%"}},
		{"SHOW GLOBAL VARIABLES WHERE Variable_name = 'x'", &Show{Type: "VARIABLES", Scope: "global", Where: &ShowWhere{Column: "variable_name", Op: "=", Value: "x"}}},
		{"SHOW CREATE DATABASE d", &Show{Type: "CREATE DATABASE", Database: "d"}},
		{"SHOW COLUMNS FROM t FROM d", &Show{Type: "COLUMNS", Table: TableName{"", "t"}, FromDB: "d"}},
		{"PREPARE s FROM 'SELECT ?'", &Prepare{Name: "s", Source: "SELECT ?"}},
		{"EXECUTE s USING @a, @b", &Execute{Name: "s", Vars: []string{"@a", "@b"}}},
		{"DEALLOCATE PREPARE s", &Deallocate{Name: "s"}},
		{"CREATE DATABASE IF NOT EXISTS d", &DatabaseDDL{Op: CreateDatabase, Name: "d", IfNotExists: true}},
		{"DROP SCHEMA IF EXISTS d", &DatabaseDDL{Op: DropDatabase, Name: "d", IfExists: true}},
		{"TRUNCATE TABLE d.t", &DDL{Op: DDLTruncate, Verb: "TRUNCATE", Table: TableName{"d", "t"}}},
		{"DROP TABLE t, d.u", &DDL{Op: DDLDrop, Verb: "DROP", Tables: []TableName{{"", "t"}, {"d", "u"}}}},
		{"RENAME TABLE a TO b", &DDL{Op: DDLOther, Verb: "RENAME"}},
		{"CREATE INDEX i ON d.t (c)", &AlterIndexes{Table: TableName{"d", "t"}}},
	} {
		got := mustOne(t, tc.sql)
		if p, ok := got.(interface{ parsed() *Parsed }); ok {
			*p.parsed() = Parsed{}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %#v\nwant %#v", tc.sql, got, tc.want)
		}
	}
	if k := mustOne(t, "KILL QUERY 7").(*Kill); k.Connection || k.ID == nil {
		t.Errorf("KILL QUERY 7: %#v", k)
	}
}

func TestKinds(t *testing.T) {
	for sql, want := range map[string]Kind{
		"SELECT 1":                          KindSelect,
		"SELECT 1 UNION SELECT 2":           KindSelect,
		"INSERT INTO t VALUES (1)":          KindInsert,
		"REPLACE INTO t VALUES (1)":         KindInsert,
		"UPDATE t SET a = 1":                KindUpdate,
		"DELETE FROM t WHERE a = 1":         KindDelete,
		"LOCK TABLES t READ":                KindOther,
		"INSERT OVERWRITE TABLE t SELECT 1": KindInsert,
	} {
		if v, ok := mustOne(t, sql).(*Vitess); !ok || v.Kind != want {
			t.Errorf("%s: %#v, want a *Vitess of kind %d", sql, mustOne(t, sql), want)
		}
	}
}

// TestReadsWrites checks the tables the privilege checks see.
func TestReadsWrites(t *testing.T) {
	for _, tc := range []struct {
		sql           string
		reads, writes []TableName
	}{
		{"WITH c AS (SELECT * FROM d.a) SELECT * FROM c JOIN b ON true WHERE EXISTS (SELECT 1 FROM e.x)", []TableName{{"d", "a"}, {"", "b"}, {"e", "x"}}, nil},
		{"SELECT 1 FROM dual", nil, nil},
		{"INSERT INTO d.t SELECT * FROM u", []TableName{{"", "u"}}, []TableName{{"d", "t"}}},
		{"INSERT INTO t VALUES (1)", nil, []TableName{{"", "t"}}},
		{"UPDATE t AS a JOIN u ON a.k = u.k SET a.v = u.v", []TableName{{"", "t"}, {"", "u"}}, []TableName{{"", "t"}}},
		{"DELETE FROM d.t WHERE k IN (SELECT k FROM u)", nil, []TableName{{"d", "t"}}},
	} {
		v := mustOne(t, tc.sql).(*Vitess)
		if got := v.Reads(); !reflect.DeepEqual(got, tc.reads) && !(len(got) == 0 && len(tc.reads) == 0) {
			t.Errorf("%s: reads %v, want %v", tc.sql, got, tc.reads)
		}
		if got := v.Writes(); !reflect.DeepEqual(got, tc.writes) {
			t.Errorf("%s: writes %v, want %v", tc.sql, got, tc.writes)
		}
	}
}

func TestPlaceholdersAndVariables(t *testing.T) {
	for sql, n := range map[string]int{
		"SELECT ? + ?, a FROM t WHERE b = ?": 3,
		"SET @a = ?":                         1,
		"SHOW TABLES":                        0,
		"CREATE USER u":                      0,
	} {
		if got := Placeholders(mustOne(t, sql)); got != n {
			t.Errorf("%s: %d placeholders, want %d", sql, got, n)
		}
	}
	if v := mustOne(t, "SELECT a FROM t WHERE b = ?").(*Vitess); !v.HasPlaceholder() || !v.HasUserVariable() {
		t.Errorf("a placeholder not seen")
	}
	if v := mustOne(t, "SELECT @@x, @y").(*Vitess); v.HasPlaceholder() || !v.HasUserVariable() {
		t.Errorf("@y: not a user variable")
	}
	if v := mustOne(t, "SELECT @@x").(*Vitess); v.HasUserVariable() {
		t.Errorf("@@x: a system variable taken for a user variable")
	}
	if h := HintsOf(mustOne(t, "EXPLAIN SELECT /*+ SET_VAR(a = 1) */ 1")); h == nil || len(h.SetVars) != 1 {
		t.Errorf("EXPLAIN: hints lost: %+v", h)
	}
	if h := HintsOf(mustOne(t, "USE d")); h == nil {
		t.Errorf("USE: no hints")
	}
}
