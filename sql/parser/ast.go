package parser

import (
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/sql/types"
)

// Statement is one parsed statement. It is sealed: the concrete types are
// *Vitess, the statements classified out of vitess (classify.go) and the
// Doris statements declared in this file.
type Statement interface{ statement() }

// Vitess is a plain MySQL query or DML statement that vitess understands
// (SELECT/UNION, INSERT, UPDATE, DELETE; Kind says which), or another
// vitess statement the server does not run (KindOther), with the Doris
// hints found in its text. Only planner/bind reads AST.
type Vitess struct {
	AST   sqlparser.Statement
	Kind  Kind
	Hints *Hints // never nil
	Text  string // the statement as the user wrote it (hints included)
	// Label is an INSERT's Doris WITH LABEL ("" if none).
	Label string
	// Overwrite: Doris's INSERT OVERWRITE TABLE (the AST is the INSERT INTO).
	Overwrite bool
}

// KeysKind is a Doris table's data model.
type KeysKind uint8

const (
	KeysDefault   KeysKind = iota // no KEY clause given
	KeysDuplicate                 // DUPLICATE KEY
	KeysUnique                    // UNIQUE KEY
	KeysAggregate                 // AGGREGATE KEY
)

var keysNames = [...]string{"DEFAULT", "DUPLICATE", "UNIQUE", "AGGREGATE"}

func (k KeysKind) String() string { return keysNames[k] }

// PartKind is a table's partitioning scheme.
type PartKind uint8

const (
	PartNone  PartKind = iota
	PartRange          // PARTITION BY RANGE
	PartList           // PARTITION BY LIST
)

var partNames = [...]string{"NONE", "RANGE", "LIST"}

func (k PartKind) String() string { return partNames[k] }

// CreateTable is a Doris or plain MySQL CREATE TABLE with a column list.
type CreateTable struct {
	IfNotExists bool
	DB, Name    string
	Columns     []ColumnDef
	Keys        KeysKind
	KeyColumns  []string
	PartKind    PartKind
	PartColumn  string   // first partition column ("" if PartNone)
	PartColumns []string // all partition columns
	Partitions  []PartitionDef
	Dist        *DistDef          // nil if no DISTRIBUTED clause (plain MySQL CREATE TABLE)
	Properties  map[string]string // lower-cased keys; never nil
	Comment     string
	Engine      string
	// PrimaryKey comes from a MySQL PRIMARY KEY(...) clause or column
	// attribute; its columns are NOT NULL.
	PrimaryKey []string
}

// ColumnDef is one column of a CREATE TABLE.
type ColumnDef struct {
	Name string
	Type types.T
	// Nullable follows MySQL: true unless NOT NULL or PRIMARY KEY.
	Nullable bool
	// Agg is the AGGREGATE-table value aggregation: "SUM", "MAX", "MIN",
	// "REPLACE", "REPLACE_IF_NOT_NULL", or "".
	Agg string
	// Default is the DEFAULT literal's text (strings unquoted, functions
	// upper-cased such as CURRENT_TIMESTAMP); nil if none or DEFAULT NULL.
	Default       *string
	DefaultNull   bool // DEFAULT NULL was written
	Comment       string
	AutoIncrement bool
}

// PartitionDef is one PARTITION of a RANGE or LIST table. Values are the
// literal texts without quotes.
type PartitionDef struct {
	Name         string
	LessThan     []string // VALUES LESS THAN ("v", ...); nil with MaxValue
	MaxValue     bool     // VALUES LESS THAN MAXVALUE
	Lower, Upper []string // VALUES [("a"), ("b"))
	In           []string // LIST: VALUES IN ("a", "b")
}

// DistDef is the DISTRIBUTED BY clause.
type DistDef struct {
	Random  bool
	Columns []string // HASH columns; nil if Random
	Buckets int      // 0 = AUTO; 10 when BUCKETS is omitted
}

// AlterTableSet is ALTER TABLE [db.]t SET ("k" = "v", ...).
type AlterTableSet struct {
	DB, Table  string
	Properties map[string]string // lower-cased keys
}

// AlterSystemOp is the backend operation of ALTER SYSTEM.
type AlterSystemOp uint8

const (
	AddBackend AlterSystemOp = iota
	DropBackend
	DecommissionBackend
	DropBackendForce   // ALTER SYSTEM DROPP BACKEND: even if it holds a tablet's last replica
	CancelDecommission // CANCEL DECOMMISSION BACKEND
	AddFollower        // ALTER SYSTEM ADD FOLLOWER "host:edit_log_port"
	AddObserver
	DropFollower
	DropObserver
)

var alterSystemNames = [...]string{"ADD BACKEND", "DROP BACKEND", "DECOMMISSION BACKEND", "DROPP BACKEND", "CANCEL DECOMMISSION BACKEND",
	"ADD FOLLOWER", "ADD OBSERVER", "DROP FOLLOWER", "DROP OBSERVER"}

func (o AlterSystemOp) String() string { return alterSystemNames[o] }

// AlterSystem is ALTER SYSTEM ADD|DROP|DECOMMISSION BACKEND "host:port", ...
type AlterSystem struct {
	Op        AlterSystemOp
	HostPorts []string
}

// ShowBackends is SHOW BACKENDS.
type ShowBackends struct{}

// ShowFrontends is SHOW FRONTENDS.
type ShowFrontends struct{}

// ShowTablets is SHOW TABLETS FROM [db.]t.
type ShowTablets struct{ DB, Table string }

// ShowPartitions is SHOW PARTITIONS FROM [db.]t.
type ShowPartitions struct{ DB, Table string }

// ShowProc is SHOW PROC '/path'.
type ShowProc struct{ Path string }

// ShowCreateTable is SHOW CREATE TABLE [db.]t.
type ShowCreateTable struct{ DB, Table string }

// ExplainMode selects the EXPLAIN output.
type ExplainMode uint8

const (
	ExplainPlain       ExplainMode = iota // EXPLAIN
	ExplainVerbose                        // EXPLAIN VERBOSE
	ExplainDistributed                    // EXPLAIN (TYPE DISTRIBUTED)
	ExplainAnalyze                        // EXPLAIN ANALYZE
)

var explainNames = [...]string{"PLAIN", "VERBOSE", "DISTRIBUTED", "ANALYZE"}

func (m ExplainMode) String() string { return explainNames[m] }

// Explain is EXPLAIN [VERBOSE | (TYPE DISTRIBUTED) | ANALYZE] <statement>.
type Explain struct {
	Mode ExplainMode
	Stmt Statement // usually *Vitess
}

// CreateUser is CREATE USER [IF NOT EXISTS] 'u'[@'h'] [IDENTIFIED BY 'pw']
// [DEFAULT ROLE 'r'].
type CreateUser struct {
	IfNotExists          bool
	User, Host, Password string // Host defaults to "%"
	Role                 string // DEFAULT ROLE ("" if none)
}

// DropUser is DROP USER [IF EXISTS] 'u'[@'h'].
type DropUser struct {
	IfExists   bool
	User, Host string // Host defaults to "%"
}

// SetPassword is SET PASSWORD [FOR 'u'@'h'] = PASSWORD('pw') | 'pw'.
type SetPassword struct {
	User, Host string // empty User: the current user
	Password   string
}

// UserIdent is 'user'@'host'; Host is "%" when omitted.
type UserIdent struct{ User, Host string }

// GrantPrivs is GRANT privs ON target TO user | ROLE 'r', or with Revoke
// REVOKE privs ON target FROM user | ROLE 'r'. Privs are as written,
// upper-cased (ALL PRIVILEGES is "ALL"); DB and Table are "*" for *.* and
// db.* (Doris's three-part internal.db.tbl is read as db.tbl).
type GrantPrivs struct {
	Revoke    bool
	Privs     []string
	DB, Table string
	User      UserIdent // when Role == ""
	Role      string
	// Unsupported names a Doris form parsed but not available here
	// (column privileges, ON RESOURCE, another catalog); the statement
	// fails with 1235.
	Unsupported string
}

// GrantRoles is GRANT 'r1', ... TO user, or with Revoke REVOKE ... FROM user.
type GrantRoles struct {
	Revoke bool
	Roles  []string
	User   UserIdent
}

// CreateRole is CREATE ROLE [IF NOT EXISTS] 'r' [COMMENT 'c'].
type CreateRole struct {
	IfNotExists   bool
	Name, Comment string
}

// DropRole is DROP ROLE [IF EXISTS] 'r'.
type DropRole struct {
	IfExists bool
	Name     string
}

// ShowGrants is SHOW GRANTS [FOR user] (User nil: the current user) or
// SHOW ALL GRANTS.
type ShowGrants struct {
	All  bool
	User *UserIdent
}

// ShowRoles is SHOW ROLES.
type ShowRoles struct{}

// Admin is any Doris ADMIN statement (ADMIN SET FRONTEND CONFIG, ADMIN
// CHECK TABLET, ...), kept as text: each needs ADMIN_PRIV.
type Admin struct{ Text string }

func (*Vitess) statement()          {}
func (*CreateTable) statement()     {}
func (*AlterTableSet) statement()   {}
func (*AlterSystem) statement()     {}
func (*ShowBackends) statement()    {}
func (*ShowFrontends) statement()   {}
func (*ShowTablets) statement()     {}
func (*ShowPartitions) statement()  {}
func (*ShowProc) statement()        {}
func (*ShowCreateTable) statement() {}
func (*Explain) statement()         {}
func (*CreateUser) statement()      {}
func (*DropUser) statement()        {}
func (*SetPassword) statement()     {}
func (*GrantPrivs) statement()      {}
func (*GrantRoles) statement()      {}
func (*CreateRole) statement()      {}
func (*DropRole) statement()        {}
func (*ShowGrants) statement()      {}
func (*ShowRoles) statement()       {}
func (*Admin) statement()           {}
