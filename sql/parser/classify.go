package parser

import (
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// The statements below are those vitess parses that the server runs
// itself, read out of the vitess tree here so that no layer above the
// binder sees a vitess node. Queries and DML stay *Vitess, which the
// binder takes whole; everything else vitess parses stays *Vitess too,
// with Kind KindOther.

// Kind says what a *Vitess statement is.
type Kind uint8

const (
	KindOther   Kind = iota // a statement the server does not run
	KindSelect              // SELECT, UNION / INTERSECT / EXCEPT, (SELECT ...)
	KindInsert              // INSERT, REPLACE
	KindUpdate              // UPDATE
	KindDelete              // DELETE
	KindExplain             // an EXPLAIN form the Doris parser left to vitess
)

var kindNames = [...]string{"OTHER", "SELECT", "INSERT", "UPDATE", "DELETE", "EXPLAIN"}

func (k Kind) String() string { return kindNames[k] }

func kindOf(ast sqlparser.Statement) Kind {
	switch ast.(type) {
	case *sqlparser.Select, *sqlparser.SetOp, *sqlparser.ParenSelect:
		return KindSelect
	case *sqlparser.Insert:
		return KindInsert
	case *sqlparser.Update:
		return KindUpdate
	case *sqlparser.Delete:
		return KindDelete
	case *sqlparser.Explain:
		return KindExplain
	}
	return KindOther
}

// Parsed is what every statement classified out of vitess keeps of it:
// the hints found in its text and how many placeholders (?) it holds.
type Parsed struct {
	Hints  *Hints // never nil
	params int
}

func (p *Parsed) parsed() *Parsed { return p }

// Expr is an expression the binder binds (a SET value, KILL's id, a stream
// load's where); above the binder it is only passed on.
type Expr struct {
	AST sqlparser.Expr // for planner/bind
}

// TableName is [db.]name as written (DB "" when unqualified).
type TableName struct{ DB, Name string }

func tableName(tn sqlparser.TableName) TableName {
	return TableName{DB: tn.DbQualifier.String(), Name: tn.Name.String()}
}

// IsEmpty reports no table named.
func (t TableName) IsEmpty() bool { return t.Name == "" }

// Use is USE db.
type Use struct {
	Parsed
	DB string
}

// SetScope is the scope keyword of one SET assignment.
type SetScope uint8

const (
	ScopeNone        SetScope = iota // SET x = ... (or @@x, @@global.x: see Assignment.Name)
	ScopeSession                     // SET SESSION x
	ScopeGlobal                      // SET GLOBAL x
	ScopePersist                     // SET PERSIST x
	ScopePersistOnly                 // SET PERSIST_ONLY x
	ScopeUser                        // SET @x
)

var setScopes = map[sqlparser.SetScope]SetScope{
	sqlparser.SetScope_None: ScopeNone, sqlparser.SetScope_Session: ScopeSession, sqlparser.SetScope_Global: ScopeGlobal,
	sqlparser.SetScope_Persist: ScopePersist, sqlparser.SetScope_PersistOnly: ScopePersistOnly, sqlparser.SetScope_User: ScopeUser,
}

// Set is SET a = x, ... (system and user variables, SET NAMES, SET
// TRANSACTION).
type Set struct {
	Parsed
	Assignments []Assignment
}

// Assignment is one name = value of a SET.
type Assignment struct {
	Scope SetScope
	// Name is the variable as vitess gives it: the scope it reads (SET @u,
	// SET @@session.b) is in Scope, any other prefix is kept ("names" for
	// SET NAMES, "transaction" for SET TRANSACTION ...).
	Name string
	// Value is the right-hand side, a (SELECT e) without FROM (or FROM
	// DUAL) read as e.
	Value *Expr
	// Word is a bare word right-hand side (SET prefer_join_method =
	// shuffle): a column name without @; "" otherwise.
	Word string
	// Default: the right-hand side is DEFAULT.
	Default bool
	// Literal is the right-hand side's text when it is a literal (SET
	// TRANSACTION's characteristic), with IsLiteral; Text is the
	// right-hand side as vitess prints it.
	Literal   string
	IsLiteral bool
	Text      string
}

// Prepare is PREPARE name FROM 'text' | @var.
type Prepare struct {
	Parsed
	Name string
	// Source is the statement text, or the variable (@v) holding it.
	Source string
}

// Execute is EXECUTE name [USING @a, ...].
type Execute struct {
	Parsed
	Name string
	Vars []string // as written, @ included
}

// Deallocate is DEALLOCATE PREPARE name (and DROP PREPARE name).
type Deallocate struct {
	Parsed
	Name string
}

// Kill is KILL [CONNECTION | QUERY] id.
type Kill struct {
	Parsed
	ID         *Expr
	Connection bool // not KILL QUERY
}

// Show is a SHOW that vitess parses (SHOW DATABASES / TABLES / VARIABLES /
// CREATE TABLE / COLUMNS / ...).
type Show struct {
	Parsed
	// Type is vitess's name for it: "databases", "tables", "variables",
	// "create table", "columns", "table status", ... in the case vitess gives
	// it (usually as written).
	Type     string
	Full     bool
	Scope    string    // SHOW GLOBAL|SESSION VARIABLES, as written
	Database string    // SHOW CREATE DATABASE db, SHOW TABLE STATUS FROM db
	Table    TableName // SHOW CREATE TABLE / COLUMNS FROM t
	// FromDB is the FROM db of SHOW TABLES / COLUMNS ("" if none).
	FromDB string
	// Like is the LIKE pattern ("" if none).
	Like string
	// Where is SHOW VARIABLES WHERE column op 'value' (nil if there is no
	// WHERE of that form).
	Where *ShowWhere
}

// ShowWhere is a SHOW's WHERE of the form column op 'literal'.
type ShowWhere struct {
	Column string // lower-cased, as vitess prints it
	Op     string // lower-cased: "=", "like", ...
	Value  string
}

// DatabaseOp is what a DatabaseDDL does.
type DatabaseOp uint8

const (
	CreateDatabase DatabaseOp = iota
	DropDatabase
	AlterDatabase
)

// DatabaseDDL is CREATE / DROP / ALTER DATABASE (or SCHEMA).
type DatabaseDDL struct {
	Parsed
	Op          DatabaseOp
	Name        string
	IfExists    bool
	IfNotExists bool
}

// DDLOp is what a DDL does.
type DDLOp uint8

const (
	DDLDrop     DDLOp = iota // DROP TABLE / VIEW
	DDLTruncate              // TRUNCATE [TABLE]
	DDLCreate                // CREATE TABLE ... LIKE, CREATE VIEW vitess parsed, ...
	DDLOther                 // RENAME TABLE, ...
)

// DDL is a table or view statement vitess parses: DROP TABLE / VIEW,
// TRUNCATE, and the others the server refuses.
type DDL struct {
	Parsed
	Op DDLOp
	// Verb is the statement's action, upper-cased ("RENAME", ...).
	Verb     string
	IfExists bool
	Table    TableName   // all but DDLDrop; may be empty for DDLOther
	Tables   []TableName // DDLDrop: the tables
	Views    []TableName // DDLDrop: the views
}

// AlterIndexes is vitess's ALTER TABLE (ALTER TABLE t ADD / DROP INDEX,
// CREATE / DROP INDEX ... ON t).
type AlterIndexes struct {
	Parsed
	Table TableName
	// Other is the upper-cased action of the first clause that is not an
	// index clause, with HasOther.
	Other    string
	HasOther bool
}

func (*Use) statement()          {}
func (*Set) statement()          {}
func (*Prepare) statement()      {}
func (*Execute) statement()      {}
func (*Deallocate) statement()   {}
func (*Kill) statement()         {}
func (*Show) statement()         {}
func (*DatabaseDDL) statement()  {}
func (*DDL) statement()          {}
func (*AlterIndexes) statement() {}

// classify turns a *Vitess the server runs itself into its own statement;
// others are returned as they are.
func classify(st Statement) Statement {
	v, ok := st.(*Vitess)
	if !ok {
		return st
	}
	p := func() Parsed { return Parsed{Hints: v.Hints, params: countPlaceholders(v.AST)} }
	switch n := v.AST.(type) {
	case *sqlparser.Use:
		return &Use{Parsed: p(), DB: n.DBName.String()}
	case *sqlparser.Set:
		out := &Set{Parsed: p()}
		for _, e := range n.Exprs {
			out.Assignments = append(out.Assignments, assignment(e))
		}
		return out
	case *sqlparser.Prepare:
		return &Prepare{Parsed: p(), Name: n.Name, Source: n.Expr}
	case *sqlparser.Execute:
		return &Execute{Parsed: p(), Name: n.Name, Vars: n.VarList}
	case *sqlparser.Deallocate:
		return &Deallocate{Parsed: p(), Name: n.Name}
	case *sqlparser.Kill:
		return &Kill{Parsed: p(), ID: &Expr{AST: n.ConnID}, Connection: n.Connection}
	case *sqlparser.Show:
		return show(p(), n)
	case *sqlparser.DBDDL:
		op := AlterDatabase
		switch n.Action {
		case sqlparser.CreateStr:
			op = CreateDatabase
		case sqlparser.DropStr:
			op = DropDatabase
		}
		return &DatabaseDDL{Parsed: p(), Op: op, Name: n.DBName, IfExists: n.IfExists, IfNotExists: n.IfNotExists}
	case *sqlparser.DDL:
		return ddl(p(), n)
	case *sqlparser.AlterTable:
		out := &AlterIndexes{Parsed: p(), Table: tableName(n.Table)}
		for _, d := range n.Statements {
			if d.IndexSpec == nil {
				out.Other, out.HasOther = strings.ToUpper(d.Action), true
				break
			}
		}
		return out
	}
	return v
}

func assignment(e *sqlparser.SetVarExpr) Assignment {
	a := Assignment{Scope: setScopes[e.Scope], Name: e.Name.Name.String(), Value: &Expr{AST: scalarSelect(e.Expr)},
		Text: sqlparser.String(e.Expr)}
	switch x := e.Expr.(type) {
	case *sqlparser.ColName:
		if name := x.Name.String(); !strings.HasPrefix(name, "@") {
			a.Word = name
		}
	case *sqlparser.Default:
		a.Default = true
	case *sqlparser.SQLVal:
		a.Literal, a.IsLiteral = string(x.Val), true
	}
	return a
}

// scalarSelect unwraps SET's (SELECT expr) without FROM to the expression,
// as clients write to drop a mode from @@sql_mode with REPLACE; anything
// else is returned as is.
func scalarSelect(e sqlparser.Expr) sqlparser.Expr {
	sq, ok := e.(*sqlparser.Subquery)
	if !ok {
		return e
	}
	sel, ok := sq.Select.(*sqlparser.Select)
	if !ok || len(sel.SelectExprs) != 1 || sel.Where != nil || sel.GroupBy != nil || sel.Having != nil || sel.Limit != nil {
		return e
	}
	for _, te := range sel.From {
		ate, ok := te.(*sqlparser.AliasedTableExpr)
		if !ok {
			return e
		}
		if tn, ok := ate.Expr.(sqlparser.TableName); !ok || !strings.EqualFold(tn.Name.String(), "dual") {
			return e
		}
	}
	ae, ok := sel.SelectExprs[0].(*sqlparser.AliasedExpr)
	if !ok {
		return e
	}
	return ae.Expr
}

func show(p Parsed, n *sqlparser.Show) *Show {
	out := &Show{Parsed: p, Type: n.Type, Full: n.Full, Scope: n.Scope, Database: n.Database, Table: tableName(n.Table)}
	if n.Filter != nil {
		out.Like = n.Filter.Like
		out.Where = showWhere(n.Filter.Filter)
	}
	if o := n.ShowTablesOpt; o != nil {
		out.FromDB = o.DbName
		if o.Filter != nil {
			out.Like = o.Filter.Like
		}
	}
	return out
}

func showWhere(f sqlparser.Expr) *ShowWhere {
	cmp, ok := f.(*sqlparser.ComparisonExpr)
	if !ok {
		return nil
	}
	lit, ok := cmp.Right.(*sqlparser.SQLVal)
	if !ok {
		return nil
	}
	return &ShowWhere{Column: strings.ToLower(sqlparser.String(cmp.Left)), Op: strings.ToLower(cmp.Operator), Value: string(lit.Val)}
}

func ddl(p Parsed, n *sqlparser.DDL) *DDL {
	out := &DDL{Parsed: p, Verb: strings.ToUpper(n.Action), IfExists: n.IfExists, Table: tableName(n.Table)}
	switch n.Action {
	case sqlparser.DropStr:
		out.Op = DDLDrop
		for _, tn := range n.FromTables {
			out.Tables = append(out.Tables, tableName(tn))
		}
		for _, tn := range n.FromViews {
			out.Views = append(out.Views, tableName(tn))
		}
	case sqlparser.TruncateStr:
		out.Op = DDLTruncate
	case sqlparser.CreateStr:
		out.Op = DDLCreate
	default:
		out.Op = DDLOther
	}
	return out
}
