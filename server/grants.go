package server

import (
	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/parser"
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
		return showTo(w)(s.srv.shows.Grants(showSession{s}, st))
	case *parser.ShowRoles:
		return showTo(w)(s.srv.shows.Roles())
	}
	if err != nil {
		return err
	}
	return w.WriteOK(wire.OK{})
}
