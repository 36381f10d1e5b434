package server

import (
	"slices"
	"strings"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// Privileges are Doris's (catalog/priv.go). Every statement is checked
// against the catalog as it is when the statement starts, never against
// what was true at login, so a GRANT, REVOKE or role change reaches every
// open connection on its next statement.
//
// Where the checks are:
//   - authorize, at the top of dispatch, for every statement kind by what
//     its text names; queries and INSERT ... SELECT also by their FROM
//     tables, before binding, so a missing privilege is 1142 whether or not
//     the table exists and no column name leaks through 1054;
//   - checkReads, after binding, on every table the bound plan scans (the
//     exact set: CTE and derived-table names resolved as the binder did);
//   - InitDB (USE, the handshake database), FieldList, kill, SHOW
//     PROCESSLIST and the listings (SHOW DATABASES/TABLES,
//     information_schema), which show only what the account may see;
//   - HTTP (server/httpapi, server/streamload, profiles.go): the same accounts by
//     basic auth and the same checks.

// account is the session's user identity: its name and the host pattern
// of the account it logged in as ('u'@'%'), as Doris's current_user().
type account struct{ user, host string }

func (a account) String() string { return "'" + a.user + "'@'" + a.host + "'" }

// access is the session's privileges now.
func (s *Session) access() *catalog.Access { return s.srv.cat.Access(s.acct.user, s.acct.host) }

func (s *Session) tableDenied(cmd, db, tbl string) error {
	return sqlerr.TableAccessDenied.New(cmd, s.acct.user, s.acct.host, db+"."+tbl)
}

func (s *Session) dbDenied(db string) error {
	return sqlerr.DBAccessDenied.New(s.acct.user, s.acct.host, db)
}

// needGlobal requires any of want on *.*; what names it in the 1227
// message as Doris does (ADMIN, NODE, GRANT, ...).
func needGlobal(a *catalog.Access, want catalog.Priv, what string) error {
	if a.Global(want) {
		return nil
	}
	return sqlerr.SpecificAccessDenied.New(what)
}

// needTable requires any of want on db.tbl (db "" is the current
// database; with none the statement itself reports 1046).
func (s *Session) needTable(a *catalog.Access, db, tbl string, want catalog.Priv, cmd string) error {
	db, err := s.dbName(db)
	if err != nil || a.Table(db, tbl, want) {
		return nil
	}
	return s.tableDenied(cmd, db, tbl)
}

// needDB requires any of want on db (1044).
func (s *Session) needDB(a *catalog.Access, db string, want catalog.Priv) error {
	if a.DB(db, want) {
		return nil
	}
	return s.dbDenied(db)
}

// authorize checks the privileges a statement needs before it runs.
func (s *Session) authorize(stmt parser.Statement) error {
	a := s.access()
	switch st := stmt.(type) {
	case *parser.Vitess:
		return s.authorizeVitess(a, st)
	case *parser.Set:
		for _, e := range st.Assignments {
			if globalAssignment(e) {
				return needGlobal(a, catalog.WantAdmin, "ADMIN")
			}
		}
	case *parser.DatabaseDDL:
		switch st.Op {
		case parser.CreateDatabase:
			return s.needDB(a, st.Name, catalog.WantCreate)
		case parser.DropDatabase:
			return s.needDB(a, st.Name, catalog.WantDrop)
		}
		return s.needDB(a, st.Name, catalog.WantAlter)
	case *parser.DDL:
		return s.authorizeDDL(a, st)
	case *parser.AlterIndexes:
		return s.needTable(a, st.Table.DB, st.Table.Name, catalog.WantAlter, "ALTER")
	case *parser.Show:
		return s.authorizeShow(a, st)
	case *parser.Explain:
		return s.authorize(st.Stmt)
	case *parser.CreateTable:
		return s.needTable(a, st.DB, st.Name, catalog.WantCreate, "CREATE")
	case *parser.AlterTableSet:
		return s.needTable(a, st.DB, st.Table, catalog.WantAlter, "ALTER")
	case *parser.AlterTable:
		return s.needTable(a, st.DB, st.Table, catalog.WantAlter, "ALTER")
	case *parser.ShowPartitions:
		return s.needTable(a, st.DB, st.Table, catalog.WantShow, "SHOW PARTITIONS")
	case *parser.Analyze:
		return s.needTable(a, st.DB, st.Table, catalog.WantSelect, "SELECT")
	case *parser.ShowColumnStats:
		return s.needTable(a, st.DB, st.Table, catalog.WantSelect, "SELECT")
	case *parser.ShowTableStats:
		return s.needTable(a, st.DB, st.Table, catalog.WantSelect, "SELECT")
	case *parser.DropStats:
		return s.needTable(a, st.DB, st.Table, catalog.WantDrop, "DROP")
	case *parser.ShowCreateTable:
		return s.needTable(a, st.DB, st.Table, catalog.WantShow, "SHOW CREATE TABLE")
	case *parser.ShowCreateView:
		return s.needTable(a, st.DB, st.View, catalog.WantShow, "SHOW CREATE VIEW")
	case *parser.CreateView:
		// Doris: CREATE_PRIV for CREATE VIEW, ALTER_PRIV for ALTER VIEW,
		// and SELECT on what the query reads (again after binding).
		want, cmd := catalog.WantCreate, "CREATE"
		if st.Alter {
			want, cmd = catalog.WantAlter, "ALTER"
		}
		if err := s.needTable(a, st.DB, st.Name, want, cmd); err != nil {
			return err
		}
		return s.checkRefs(a, st.Query.Reads())
	case *parser.AlterSystem:
		return needGlobal(a, catalog.WantNode, "NODE")
	case *parser.CancelAlterColumn:
		return s.needTable(a, st.DB, st.Table, catalog.WantAlter, "ALTER")
	case *parser.ShowBackends, *parser.ShowFrontends:
		return needGlobal(a, catalog.WantAdmin|catalog.WantNode, "ADMIN/OPERATOR")
	case *parser.ShowTablets, *parser.ShowProc, *parser.Admin, *parser.ShowTransaction:
		return needGlobal(a, catalog.WantAdmin, "ADMIN")
	case *parser.CreateUser, *parser.DropUser, *parser.CreateRole, *parser.DropRole, *parser.GrantRoles, *parser.ShowRoles:
		return needGlobal(a, catalog.WantGrant, "GRANT")
	case *parser.ShowGrants:
		if st.All || st.User != nil && (st.User.User != s.acct.user || hostOrAny(st.User.Host) != s.acct.host) {
			return needGlobal(a, catalog.WantGrant, "GRANT")
		}
	case *parser.SetPassword:
		if st.User == "" || st.User == s.acct.user && hostOrAny(st.Host) == s.acct.host {
			return nil // one's own password
		}
		if st.User == catalog.RootUser && s.acct.user != catalog.RootUser {
			return sqlerr.Doris.New("Can not set password for root user, except root itself")
		}
		return needGlobal(a, catalog.WantGrant, "GRANT")
	case *parser.GrantPrivs:
		return s.authorizeGrant(a, st)
	}
	return nil
}

func hostOrAny(h string) string {
	if h == "" {
		return "%"
	}
	return strings.ToLower(h)
}

// authorizeGrant applies Doris's rules for GRANT/REVOKE of privileges:
// granting NODE_PRIV takes NODE_PRIV; a role's grants take GRANT_PRIV on
// *.*; an account's take GRANT_PRIV at (or above) the target's level.
func (s *Session) authorizeGrant(a *catalog.Access, st *parser.GrantPrivs) error {
	if st.Unsupported != "" {
		return sqlerr.NotSupportedYet.New(st.Unsupported)
	}
	p, err := parsePrivs(st.Privs)
	if err != nil {
		return err
	}
	if p&catalog.NodePriv != 0 && !a.Global(catalog.WantNode) {
		return sqlerr.Doris.New("Only user with NODE_PRIV can grant/revoke NODE_PRIV to other user")
	}
	t := catalog.Target{DB: st.DB, Table: st.Table}
	ok := false
	switch {
	case st.Role != "" || t.Level() == catalog.LevelGlobal:
		ok = a.Global(catalog.WantGrant)
	case t.Level() == catalog.LevelDB:
		ok = a.DB(t.DB, catalog.WantGrant)
	default:
		ok = a.Table(t.DB, t.Table, catalog.WantGrant)
	}
	if !ok {
		return sqlerr.SpecificAccessDenied.New("GRANT")
	}
	return nil
}

func parsePrivs(names []string) (catalog.Priv, error) {
	var p catalog.Priv
	for _, n := range names {
		x, ok := catalog.ParsePriv(n)
		if !ok {
			return 0, sqlerr.Doris.New("Unknown privilege type: " + n)
		}
		p |= x
	}
	return p, nil
}

// authorizeVitess checks a query or DML statement: LOAD_PRIV on what
// INSERT, UPDATE and DELETE write (Doris's DELETE needs no SELECT), then
// SELECT_PRIV on every table read, an UPDATE's target included (its other
// columns are read back).
func (s *Session) authorizeVitess(a *catalog.Access, v *parser.Vitess) error {
	for _, t := range v.Writes() {
		if err := s.needTable(a, t.DB, t.Name, catalog.WantLoad, "LOAD"); err != nil {
			return err
		}
	}
	return s.checkRefs(a, v.Reads())
}

func (s *Session) authorizeDDL(a *catalog.Access, st *parser.DDL) error {
	switch st.Op {
	case parser.DDLDrop:
		for _, tn := range slices.Concat(st.Tables, st.Views) {
			if err := s.needTable(a, tn.DB, tn.Name, catalog.WantDrop, "DROP"); err != nil {
				return err
			}
		}
	case parser.DDLTruncate:
		// Doris's TRUNCATE needs LOAD_PRIV (it replaces the data).
		return s.needTable(a, st.Table.DB, st.Table.Name, catalog.WantLoad, "LOAD")
	case parser.DDLCreate:
		if !st.Table.IsEmpty() {
			return s.needTable(a, st.Table.DB, st.Table.Name, catalog.WantCreate, "CREATE")
		}
	default:
		if !st.Table.IsEmpty() {
			return s.needTable(a, st.Table.DB, st.Table.Name, catalog.WantAlter, "ALTER")
		}
	}
	return nil
}

func (s *Session) authorizeShow(a *catalog.Access, n *parser.Show) error {
	switch strings.ToLower(n.Type) {
	case "tables", "table status":
		db := n.Database
		if n.FromDB != "" {
			db = n.FromDB
		}
		if db, err := s.dbName(db); err == nil && !isSystemDB(db) && !a.SeesDB(db) {
			return s.dbDenied(db)
		}
	case "create database":
		if !isSystemDB(n.Database) && !a.SeesDB(n.Database) {
			return s.dbDenied(n.Database)
		}
	case "create table":
		return s.needTable(a, n.Table.DB, n.Table.Name, catalog.WantShow, "SHOW CREATE TABLE")
	case "columns", "fields", "index", "indexes", "keys":
		db := n.Table.DB
		if n.FromDB != "" {
			db = n.FromDB
		}
		if d, err := s.dbName(db); err == nil && isSystemDB(d) {
			return nil
		}
		return s.needTable(a, db, n.Table.Name, catalog.WantShow, "SHOW")
	}
	return nil
}

// globalAssignment reports a SET of a global system variable, read as
// set() reads it: SET GLOBAL x, SET PERSIST x, SET @@global.x.
func globalAssignment(e parser.Assignment) bool {
	if e.Scope == parser.ScopeGlobal || e.Scope == parser.ScopePersist || e.Scope == parser.ScopePersistOnly {
		return true
	}
	name := strings.ToLower(e.Name)
	if e.Scope == parser.ScopeUser || strings.HasPrefix(name, "@") && !strings.HasPrefix(name, "@@") {
		return false
	}
	return strings.HasPrefix(strings.TrimPrefix(name, "@@"), "global.")
}

// checkRefs requires SELECT on every table a query names (parser's Reads:
// CTE names are left out there), before it is bound; checkReads sees what
// the binder made of them.
func (s *Session) checkRefs(a *catalog.Access, refs []parser.TableName) error {
	for _, tn := range refs {
		if d, err := s.dbName(tn.DB); err == nil && isSystemDB(d) {
			continue
		}
		if err := s.needTable(a, tn.DB, tn.Name, catalog.WantSelect, "SELECT"); err != nil {
			return err
		}
	}
	return nil
}

// checkReads requires SELECT on every table the bound plan n scans, or on
// the view through which it scans it (Doris checks a view, not its tables).
func (s *Session) checkReads(n logical.Node) error {
	return s.checkScans(s.access(), n)
}

func (s *Session) checkScans(a *catalog.Access, n logical.Node) error {
	if sc, ok := n.(*logical.Scan); ok {
		db, name := sc.DB, sc.Table.Name
		if sc.View != "" {
			db, name = sc.ViewDB, sc.View
		}
		if !a.Table(db, name, catalog.WantSelect) {
			return s.tableDenied("SELECT", db, name)
		}
	}
	for _, in := range n.Inputs() {
		if err := s.checkScans(a, in); err != nil {
			return err
		}
	}
	return nil
}

// mayKill: one's own connections (same user name, as Doris compares
// them), or any with ADMIN_PRIV.
func (s *Session) mayKill(target *Session) bool {
	return target.info.User == s.info.User || s.access().Global(catalog.WantAdmin)
}
