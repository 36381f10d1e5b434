package catalog

import (
	"fmt"
	"sort"
	"strings"
)

// Priv is a set of Doris privileges (2.x). Bit i is Doris's Privilege
// index i (fe-core mysql/privilege/Privilege.java), so the persisted
// numbers mean what Doris's mean.
type Priv uint16

const (
	NodePriv   Priv = 1 << iota // cluster nodes: ALTER SYSTEM
	AdminPriv                   // everything but NODE_PRIV
	GrantPriv                   // users, roles and grants
	SelectPriv                  // read tables
	LoadPriv                    // INSERT, stream load, TRUNCATE
	AlterPriv                   // ALTER TABLE
	CreatePriv                  // CREATE DATABASE / TABLE
	DropPriv                    // DROP DATABASE / TABLE
	UsagePriv                   // resources (none here; granted on *.* only)
)

var privNames = [...]string{"Node_priv", "Admin_priv", "Grant_priv", "Select_priv", "Load_priv", "Alter_priv",
	"Create_priv", "Drop_priv", "Usage_priv"}

// What a statement asks for. As Doris's PrivPredicate these are OR sets:
// holding any one of the bits is enough; ADMIN_PRIV implies every
// privilege but NODE_PRIV.
const (
	WantSelect = AdminPriv | SelectPriv
	WantLoad   = AdminPriv | LoadPriv
	WantAlter  = AdminPriv | AlterPriv
	WantCreate = AdminPriv | CreatePriv
	WantDrop   = AdminPriv | DropPriv
	WantGrant  = AdminPriv | GrantPriv
	WantAdmin  = AdminPriv
	WantNode   = NodePriv
	// WantShow is "may see the object": any data privilege on it.
	WantShow = AdminPriv | SelectPriv | LoadPriv | AlterPriv | CreatePriv | DropPriv
	// AllPriv is what GRANT ALL gives (Doris's ALL / READ_WRITE).
	AllPriv = SelectPriv | LoadPriv | AlterPriv | CreatePriv | DropPriv
)

// String lists the privileges as SHOW GRANTS does: "Select_priv,Load_priv".
func (p Priv) String() string {
	var names []string
	for i, n := range privNames {
		if p&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return strings.Join(names, ",")
}

// ParsePriv reads one privilege of a GRANT or REVOKE: Doris's names
// (SELECT_PRIV, ..., ALL, READ_ONLY, READ_WRITE) and MySQL's (SELECT,
// INSERT, ALTER, CREATE, DROP, GRANT, USAGE), case-insensitively. MySQL's
// USAGE means "no privilege" and is the empty set.
func ParsePriv(name string) (Priv, bool) {
	switch n := strings.ToUpper(name); n {
	case "ALL", "ALL PRIVILEGES", "READ_WRITE":
		return AllPriv, true
	case "READ_ONLY", "SELECT":
		return SelectPriv, true
	case "INSERT", "LOAD":
		return LoadPriv, true
	case "ALTER":
		return AlterPriv, true
	case "CREATE":
		return CreatePriv, true
	case "DROP":
		return DropPriv, true
	case "GRANT":
		return GrantPriv, true
	case "USAGE":
		return 0, true
	default:
		for i, pn := range privNames {
			if strings.EqualFold(pn, n) {
				return 1 << i, true
			}
		}
	}
	return 0, false
}

// Level is where a grant applies.
type Level uint8

const (
	LevelGlobal Level = iota // *.*
	LevelDB                  // db.*
	LevelTable               // db.tbl
)

// Target is what a grant is on: *.* (DB "*"), db.* (Table "*") or db.tbl.
type Target struct{ DB, Table string }

// Level of the target.
func (t Target) Level() Level {
	switch {
	case t.DB == "*":
		return LevelGlobal
	case t.Table == "*":
		return LevelDB
	}
	return LevelTable
}

func (t Target) String() string { return t.DB + "." + t.Table }

// PrivTable is the privileges one user or role holds at each level.
// Names are stored as written; like the catalog's own names they are
// case-sensitive.
type PrivTable struct {
	Global Priv                       `json:"global,omitempty"`
	DBs    map[string]Priv            `json:"dbs,omitempty"`
	Tables map[string]map[string]Priv `json:"tables,omitempty"` // db → table → privileges
}

// At is what the table grants exactly at t (not inherited from above).
func (pt PrivTable) At(t Target) Priv {
	switch t.Level() {
	case LevelGlobal:
		return pt.Global
	case LevelDB:
		return pt.DBs[t.DB]
	}
	return pt.Tables[t.DB][t.Table]
}

// Empty reports a table that grants nothing.
func (pt PrivTable) Empty() bool { return pt.Global == 0 && len(pt.DBs) == 0 && len(pt.Tables) == 0 }

// clone copies the maps, so the copy can be changed while readers keep
// the original (catalog snapshots are immutable).
func (pt PrivTable) clone() PrivTable {
	out := PrivTable{Global: pt.Global}
	if len(pt.DBs) > 0 {
		out.DBs = make(map[string]Priv, len(pt.DBs))
		for k, v := range pt.DBs {
			out.DBs[k] = v
		}
	}
	if len(pt.Tables) > 0 {
		out.Tables = make(map[string]map[string]Priv, len(pt.Tables))
		for db, m := range pt.Tables {
			mm := make(map[string]Priv, len(m))
			for k, v := range m {
				mm[k] = v
			}
			out.Tables[db] = mm
		}
	}
	return out
}

// set returns a copy of pt with exactly p at t (p == 0 removes the entry).
func (pt PrivTable) set(t Target, p Priv) PrivTable {
	out := pt.clone()
	switch t.Level() {
	case LevelGlobal:
		out.Global = p
	case LevelDB:
		if out.DBs == nil {
			out.DBs = map[string]Priv{}
		}
		out.DBs[t.DB] = p
		if p == 0 {
			delete(out.DBs, t.DB)
		}
	default:
		if out.Tables == nil {
			out.Tables = map[string]map[string]Priv{}
		}
		m := out.Tables[t.DB]
		if m == nil {
			m = map[string]Priv{}
			out.Tables[t.DB] = m
		}
		m[t.Table] = p
		if p == 0 {
			delete(m, t.Table)
			if len(m) == 0 {
				delete(out.Tables, t.DB)
			}
		}
	}
	return out
}

// merge adds o's grants to pt (pt must own its maps).
func (pt *PrivTable) merge(o PrivTable) {
	pt.Global |= o.Global
	for db, p := range o.DBs {
		if pt.DBs == nil {
			pt.DBs = map[string]Priv{}
		}
		pt.DBs[db] |= p
	}
	for db, m := range o.Tables {
		if pt.Tables == nil {
			pt.Tables = map[string]map[string]Priv{}
		}
		mm := pt.Tables[db]
		if mm == nil {
			mm = map[string]Priv{}
			pt.Tables[db] = mm
		}
		for t, p := range m {
			mm[t] |= p
		}
	}
}

// DBEntries lists the database grants as SHOW GRANTS prints them,
// "internal.db: Select_priv", sorted by database.
func (pt PrivTable) DBEntries() []string {
	var out []string
	for _, db := range sortedKeys(pt.DBs) {
		out = append(out, fmt.Sprintf("internal.%s: %s", db, pt.DBs[db]))
	}
	return out
}

// TableEntries lists the table grants, "internal.db.t: Select_priv".
func (pt PrivTable) TableEntries() []string {
	var out []string
	for _, db := range sortedKeys(pt.Tables) {
		m := pt.Tables[db]
		for _, t := range sortedKeys(m) {
			out = append(out, fmt.Sprintf("internal.%s.%s: %s", db, t, m[t]))
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Role is a named set of grants. The built-in roles operator (NODE_PRIV
// and ADMIN_PRIV) and admin (ADMIN_PRIV) cannot be changed or dropped.
type Role struct {
	Name    string    `json:"name"`
	Comment string    `json:"comment,omitempty"`
	Privs   PrivTable `json:"privs"`
	Builtin bool      `json:"-"`
}

// The built-in users and roles, as in Doris.
const (
	RootUser     = "root"
	AdminUser    = "admin"
	OperatorRole = "operator"
	AdminRole    = "admin"
)

func builtinRoles() map[string]*Role {
	return map[string]*Role{
		OperatorRole: {Name: OperatorRole, Comment: "built-in operator role", Privs: PrivTable{Global: NodePriv | AdminPriv}, Builtin: true},
		AdminRole:    {Name: AdminRole, Comment: "built-in admin role", Privs: PrivTable{Global: AdminPriv}, Builtin: true},
	}
}

// isBuiltinRole: role names compare case-insensitively for the built-ins,
// so 'Admin' cannot shadow admin.
func isBuiltinRole(name string) bool {
	return strings.EqualFold(name, OperatorRole) || strings.EqualFold(name, AdminRole)
}

// isBuiltinUser reports the names reserved for the built-in accounts.
func isBuiltinUser(name string) bool { return name == RootUser || name == AdminUser }

// builtinRoleOf is the role the built-in account name@host holds without a
// grant (root: operator, admin: admin), or "".
func builtinRoleOf(name, host string) string {
	if host != "%" {
		return ""
	}
	switch name {
	case RootUser:
		return OperatorRole
	case AdminUser:
		return AdminRole
	}
	return ""
}

// Access is one account's effective privileges: its own grants merged
// with its roles'. The server builds one per statement from the current
// catalog, so a GRANT or REVOKE is seen by the next statement of every
// open connection.
type Access struct {
	User, Host string   // the account ("" if it does not exist)
	Roles      []string // sorted, built-in role included
	Privs      PrivTable
}

// Global: any of want held on *.*.
func (a *Access) Global(want Priv) bool { return a.Privs.Global&want != 0 }

// DB: any of want held on *.* or db.*.
func (a *Access) DB(db string, want Priv) bool {
	return a.Global(want) || a.Privs.DBs[db]&want != 0
}

// Table: any of want held on *.*, db.* or db.tbl.
func (a *Access) Table(db, tbl string, want Priv) bool {
	return a.DB(db, want) || a.Privs.Tables[db][tbl]&want != 0
}

// SeesDB: the database is listed and may be USEd: some data privilege on
// it or on one of its tables (Doris's checkDbPriv with SHOW).
func (a *Access) SeesDB(db string) bool {
	if a.DB(db, WantShow) {
		return true
	}
	for _, p := range a.Privs.Tables[db] {
		if p&WantShow != 0 {
			return true
		}
	}
	return false
}

// SeesTable: the table is listed and may be described.
func (a *Access) SeesTable(db, tbl string) bool { return a.Table(db, tbl, WantShow) }
