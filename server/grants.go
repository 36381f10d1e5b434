package server

import (
	"fmt"
	"strings"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// grants runs GRANT, REVOKE, CREATE/DROP ROLE, SHOW GRANTS and SHOW ROLES;
// authorize has checked who may.
func (s *Session) grants(stmt parser.Statement, w wire.ResultWriter) error {
	cat := s.srv.cat
	var err error
	switch st := stmt.(type) {
	case *parser.GrantPrivs:
		var p catalog.Priv
		if p, err = parsePrivs(st.Privs); err != nil {
			return err
		}
		g := catalog.Grantee{User: st.User.User, Host: st.User.Host, Role: st.Role}
		t := catalog.Target{DB: st.DB, Table: st.Table}
		if st.Revoke {
			err = cat.Revoke(g, t, p)
		} else {
			err = cat.Grant(g, t, p)
		}
	case *parser.GrantRoles:
		if st.Revoke {
			err = cat.RevokeRoles(st.Roles, st.User.User, st.User.Host)
		} else {
			err = cat.GrantRoles(st.Roles, st.User.User, st.User.Host)
		}
	case *parser.CreateRole:
		err = cat.CreateRole(st.Name, st.Comment, st.IfNotExists)
	case *parser.DropRole:
		err = cat.DropRole(st.Name, st.IfExists)
	case *parser.ShowGrants:
		return s.showGrants(st, w)
	case *parser.ShowRoles:
		return s.showRoles(w)
	}
	if err != nil {
		return err
	}
	return w.WriteOK(wire.OK{})
}

// grantColumns are Doris 2.1's SHOW GRANTS columns (AuthProcDir); the
// catalog, column, resource and workload-group ones are always NULL here.
var grantColumns = []string{"UserIdentity", "Comment", "Password", "Roles", "GlobalPrivs", "CatalogPrivs",
	"DatabasePrivs", "TablePrivs", "ColPrivs", "ResourcePrivs", "WorkloadGroupPrivs"}

func (s *Session) showGrants(st *parser.ShowGrants, w wire.ResultWriter) error {
	cat := s.srv.cat
	var users []*catalog.User
	switch {
	case st.All:
		users = cat.Users()
	case st.User != nil:
		u, ok := cat.User(st.User.User, st.User.Host)
		if !ok {
			return sqlerr.NonexistingGrant.New(st.User.User, hostOrAny(st.User.Host))
		}
		users = []*catalog.User{u}
	default:
		u, ok := cat.User(s.acct.user, s.acct.host)
		if !ok {
			return sqlerr.NonexistingGrant.New(s.acct.user, s.acct.host)
		}
		users = []*catalog.User{u}
	}
	cols := make([]wire.Column, len(grantColumns))
	for i, n := range grantColumns {
		cols[i] = strCol(n)
	}
	null := types.NullDatum(types.StringT)
	var rows [][]types.Datum
	for _, u := range users {
		a := cat.Access(u.Name, u.Host)
		comment := ""
		switch {
		case u.Name == catalog.RootUser && u.Host == "%":
			comment = "ROOT"
		case u.Name == catalog.AdminUser && u.Host == "%":
			comment = "ADMIN"
		}
		password := "No"
		if len(u.NativeHash) > 0 {
			password = "Yes"
		}
		rows = append(rows, []types.Datum{str(fmt.Sprintf("'%s'@'%s'", u.Name, u.Host)), str(comment), str(password),
			str(strings.Join(a.Roles, ",")), orNull(a.Privs.Global.String()), null,
			orNull(strings.Join(a.Privs.DBEntries(), "; ")), orNull(strings.Join(a.Privs.TableEntries(), "; ")),
			null, null, null})
	}
	return writeTable(w, cols, rows)
}

func orNull(s string) types.Datum {
	if s == "" {
		return types.NullDatum(types.StringT)
	}
	return str(s)
}

// showRoles lists every role with its members and grants (Doris 2.1's
// columns).
func (s *Session) showRoles(w wire.ResultWriter) error {
	cat := s.srv.cat
	members := map[string][]string{}
	for _, u := range cat.Users() {
		for _, r := range cat.Access(u.Name, u.Host).Roles {
			members[r] = append(members[r], fmt.Sprintf("'%s'@'%s'", u.Name, u.Host))
		}
	}
	names := []string{"Name", "Comment", "Users", "GlobalPrivs", "CatalogPrivs", "DatabasePrivs", "TablePrivs",
		"ResourcePrivs", "WorkloadGroupPrivs"}
	cols := make([]wire.Column, len(names))
	for i, n := range names {
		cols[i] = strCol(n)
	}
	null := types.NullDatum(types.StringT)
	var rows [][]types.Datum
	for _, r := range cat.Roles() {
		rows = append(rows, []types.Datum{str(r.Name), str(r.Comment), str(strings.Join(members[r.Name], ", ")),
			orNull(r.Privs.Global.String()), null, orNull(strings.Join(r.Privs.DBEntries(), "; ")),
			orNull(strings.Join(r.Privs.TableEntries(), "; ")), null, null})
	}
	return writeTable(w, cols, rows)
}
