package show

import (
	"fmt"
	"strings"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// grantColumns are Doris 2.1's SHOW GRANTS columns (AuthProcDir); the
// catalog, column, resource and workload-group ones are always NULL here.
var grantColumns = []string{"UserIdentity", "Comment", "Password", "Roles", "GlobalPrivs", "CatalogPrivs",
	"DatabasePrivs", "TablePrivs", "ColPrivs", "ResourcePrivs", "WorkloadGroupPrivs"}

// Grants is SHOW [ALL] GRANTS [FOR user]; authorize has checked who may.
func (sh *Shows) Grants(s Session, st *parser.ShowGrants) (*Result, error) {
	cat := sh.cat
	var users []*catalog.User
	switch {
	case st.All:
		users = cat.Users()
	case st.User != nil:
		u, ok := cat.User(st.User.User, st.User.Host)
		if !ok {
			return nil, sqlerr.NonexistingGrant.New(st.User.User, hostOrAny(st.User.Host))
		}
		users = []*catalog.User{u}
	default:
		user, host := s.Account()
		u, ok := cat.User(user, host)
		if !ok {
			return nil, sqlerr.NonexistingGrant.New(user, host)
		}
		users = []*catalog.User{u}
	}
	cols := strCols(grantColumns)
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
	return table(cols, rows)
}

func orNull(s string) types.Datum {
	if s == "" {
		return types.NullDatum(types.StringT)
	}
	return str(s)
}

// Roles lists every role with its members and grants (Doris 2.1's
// columns).
func (sh *Shows) Roles() (*Result, error) {
	cat := sh.cat
	members := map[string][]string{}
	for _, u := range cat.Users() {
		for _, r := range cat.Access(u.Name, u.Host).Roles {
			members[r] = append(members[r], fmt.Sprintf("'%s'@'%s'", u.Name, u.Host))
		}
	}
	names := []string{"Name", "Comment", "Users", "GlobalPrivs", "CatalogPrivs", "DatabasePrivs", "TablePrivs",
		"ResourcePrivs", "WorkloadGroupPrivs"}
	cols := strCols(names)
	null := types.NullDatum(types.StringT)
	var rows [][]types.Datum
	for _, r := range cat.Roles() {
		rows = append(rows, []types.Datum{str(r.Name), str(r.Comment), str(strings.Join(members[r.Name], ", ")),
			orNull(r.Privs.Global.String()), null, orNull(strings.Join(r.Privs.DBEntries(), "; ")),
			orNull(strings.Join(r.Privs.TableEntries(), "; ")), null, null})
	}
	return table(cols, rows)
}

// hostOrAny is a user's host as the catalog keys it: % when none was
// written (the server's privilege check uses the same rule).
func hostOrAny(h string) string {
	if h == "" {
		return "%"
	}
	return strings.ToLower(h)
}
