package server

import (
	"slices"
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/planner/bind"
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
//   - HTTP (http.go, streamload.go, profiles.go): the same accounts by
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
		return s.authorizeVitess(a, st.AST)
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
		return s.checkRefs(a, st.Query.AST)
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

func (s *Session) authorizeVitess(a *catalog.Access, ast sqlparser.Statement) error {
	switch n := ast.(type) {
	case *sqlparser.Select, *sqlparser.SetOp, *sqlparser.ParenSelect:
		return s.checkRefs(a, ast)
	case *sqlparser.Delete:
		// Doris's DELETE needs LOAD_PRIV on its table (and no SELECT).
		for _, te := range n.TableExprs {
			if ate, ok := te.(*sqlparser.AliasedTableExpr); ok {
				if tn, ok := ate.Expr.(sqlparser.TableName); ok {
					if err := s.needTable(a, tn.DbQualifier.String(), tn.Name.String(), catalog.WantLoad, "LOAD"); err != nil {
						return err
					}
				}
			}
		}
	case *sqlparser.Update:
		// LOAD_PRIV on the target, which is written; SELECT_PRIV on every
		// table read, the target included (its other columns are read back).
		if te := bind.UpdateTarget(n.TableExprs); te != nil {
			tn := te.Expr.(sqlparser.TableName)
			if err := s.needTable(a, tn.DbQualifier.String(), tn.Name.String(), catalog.WantLoad, "LOAD"); err != nil {
				return err
			}
		}
		return s.checkRefs(a, n)
	case *sqlparser.Insert:
		if err := s.needTable(a, n.Table.DbQualifier.String(), n.Table.Name.String(), catalog.WantLoad, "LOAD"); err != nil {
			return err
		}
		if n.Rows != nil {
			return s.checkRefs(a, n.Rows)
		}
	case *sqlparser.Set:
		for _, e := range n.Exprs {
			if globalAssignment(e) {
				return needGlobal(a, catalog.WantAdmin, "ADMIN")
			}
		}
	case *sqlparser.DBDDL:
		switch n.Action {
		case sqlparser.CreateStr:
			return s.needDB(a, n.DBName, catalog.WantCreate)
		case sqlparser.DropStr:
			return s.needDB(a, n.DBName, catalog.WantDrop)
		}
		return s.needDB(a, n.DBName, catalog.WantAlter)
	case *sqlparser.DDL:
		switch n.Action {
		case sqlparser.DropStr:
			for _, tn := range slices.Concat(n.FromTables, n.FromViews) {
				if err := s.needTable(a, tn.DbQualifier.String(), tn.Name.String(), catalog.WantDrop, "DROP"); err != nil {
					return err
				}
			}
		case sqlparser.TruncateStr:
			// Doris's TRUNCATE needs LOAD_PRIV (it replaces the data).
			return s.needTable(a, n.Table.DbQualifier.String(), n.Table.Name.String(), catalog.WantLoad, "LOAD")
		case sqlparser.CreateStr:
			if !n.Table.IsEmpty() {
				return s.needTable(a, n.Table.DbQualifier.String(), n.Table.Name.String(), catalog.WantCreate, "CREATE")
			}
		default:
			if !n.Table.IsEmpty() {
				return s.needTable(a, n.Table.DbQualifier.String(), n.Table.Name.String(), catalog.WantAlter, "ALTER")
			}
		}
	case *sqlparser.AlterTable:
		return s.needTable(a, n.Table.DbQualifier.String(), n.Table.Name.String(), catalog.WantAlter, "ALTER")
	case *sqlparser.Show:
		return s.authorizeShow(a, n)
	}
	return nil
}

func (s *Session) authorizeShow(a *catalog.Access, n *sqlparser.Show) error {
	switch strings.ToLower(n.Type) {
	case "tables", "table status":
		db := n.Database
		if n.ShowTablesOpt != nil && n.ShowTablesOpt.DbName != "" {
			db = n.ShowTablesOpt.DbName
		}
		if db, err := s.dbName(db); err == nil && !isSystemDB(db) && !a.SeesDB(db) {
			return s.dbDenied(db)
		}
	case "create database":
		if !isSystemDB(n.Database) && !a.SeesDB(n.Database) {
			return s.dbDenied(n.Database)
		}
	case "create table":
		return s.needTable(a, n.Table.DbQualifier.String(), n.Table.Name.String(), catalog.WantShow, "SHOW CREATE TABLE")
	case "columns", "fields", "index", "indexes", "keys":
		db := n.Table.DbQualifier.String()
		if n.ShowTablesOpt != nil && n.ShowTablesOpt.DbName != "" {
			db = n.ShowTablesOpt.DbName
		}
		if d, err := s.dbName(db); err == nil && isSystemDB(d) {
			return nil
		}
		return s.needTable(a, db, n.Table.Name.String(), catalog.WantShow, "SHOW")
	}
	return nil
}

// globalAssignment reports a SET of a global system variable, read as
// set() reads it: SET GLOBAL x, SET PERSIST x, SET @@global.x.
func globalAssignment(e *sqlparser.SetVarExpr) bool {
	if e.Scope == sqlparser.SetScope_Global || e.Scope == sqlparser.SetScope_Persist || e.Scope == sqlparser.SetScope_PersistOnly {
		return true
	}
	name := strings.ToLower(e.Name.Name.String())
	if e.Scope == sqlparser.SetScope_User || strings.HasPrefix(name, "@") && !strings.HasPrefix(name, "@@") {
		return false
	}
	return strings.HasPrefix(strings.TrimPrefix(name, "@@"), "global.")
}

// checkRefs requires SELECT on every table a query names, before it is
// bound. Unqualified names that a WITH clause anywhere in the statement
// defines are skipped here (they may be CTEs); checkReads sees what the
// binder made of them.
func (s *Session) checkRefs(a *catalog.Access, node sqlparser.SQLNode) error {
	ctes := map[string]bool{}
	var refs []sqlparser.TableName
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *sqlparser.CommonTableExpr:
			if x != nil && x.AliasedTableExpr != nil {
				ctes[strings.ToLower(x.As.String())] = true
			}
		case *sqlparser.AliasedTableExpr:
			if x == nil {
				break
			}
			if tn, ok := x.Expr.(sqlparser.TableName); ok {
				refs = append(refs, tn)
			}
		}
		return true, nil
	}, node)
	for _, tn := range refs {
		db, name := tn.DbQualifier.String(), tn.Name.String()
		if db == "" && (ctes[strings.ToLower(name)] || strings.EqualFold(name, "dual")) {
			continue
		}
		if d, err := s.dbName(db); err == nil && isSystemDB(d) {
			continue
		}
		if err := s.needTable(a, db, name, catalog.WantSelect, "SELECT"); err != nil {
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
