package parser

import "strings"

// name reads a role name: a string or an identifier, quoted or not.
func (c *cursor) name() string {
	t := c.peek()
	if (t.kind != tkString && t.kind != tkIdent && t.kind != tkQuotedIdent) || t.unterminated {
		c.fail(t)
		return ""
	}
	c.i++
	return t.val
}

// createRole: CREATE ROLE [IF NOT EXISTS] name [COMMENT 'c'].
func (c *cursor) createRole() (Statement, error) {
	c.i = 2
	st := &CreateRole{}
	if c.accept("IF") {
		c.expect("NOT")
		c.expect("EXISTS")
		st.IfNotExists = true
	}
	st.Name = c.name()
	if c.accept("COMMENT") {
		st.Comment = c.str()
	}
	return st, c.end()
}

// dropRole: DROP ROLE [IF EXISTS] name.
func (c *cursor) dropRole() (Statement, error) {
	c.i = 2
	st := &DropRole{}
	if c.accept("IF") {
		c.expect("EXISTS")
		st.IfExists = true
	}
	st.Name = c.name()
	return st, c.end()
}

// grant parses Doris's GRANT and REVOKE (revoke: FROM instead of TO):
//
//	GRANT priv [, priv] ON {*.* | db.* | db.tbl | internal.db.tbl} TO {user | ROLE 'r'}
//	GRANT 'role' [, 'role'] TO user
//
// A list of strings is a list of roles, anything else privileges.
func (c *cursor) grant(revoke bool) (Statement, error) {
	c.i = 1
	to := "TO"
	if revoke {
		to = "FROM"
	}
	if c.peek().kind == tkString {
		st := &GrantRoles{Revoke: revoke}
		for c.err == nil {
			st.Roles = append(st.Roles, c.str())
			if !c.acceptP(",") {
				break
			}
		}
		c.expect(to)
		st.User = c.userIdent()
		return st, c.end()
	}
	st := &GrantPrivs{Revoke: revoke}
	for c.err == nil {
		t := c.peek()
		if t.kind != tkIdent {
			c.fail(t)
			break
		}
		c.i++
		p := t.upper()
		if p == "ALL" {
			c.accept("PRIVILEGES")
		}
		if c.peek().isP("(") {
			c.identList()
			st.Unsupported = "column privileges"
		}
		st.Privs = append(st.Privs, p)
		if !c.acceptP(",") {
			break
		}
	}
	c.expect("ON")
	if t := c.peek(); t.is("RESOURCE") || t.is("WORKLOAD") || t.is("CLUSTER") || t.is("STAGE") || t.is("STORAGE") || t.is("COMPUTE") {
		// Doris's other privilege objects; none exists here.
		for c.peek().kind != tkEOF && !c.peek().is(to) {
			c.i++
		}
		st.Unsupported = "privileges ON " + t.upper()
	} else {
		st.DB, st.Table = c.privTarget(st)
	}
	c.expect(to)
	if c.peek().is("ROLE") && c.peekAt(1).kind != tkEOF && !c.peekAt(1).isP("@") {
		c.i++
		st.Role = c.name()
	} else {
		st.User = c.userIdent()
	}
	return st, c.end()
}

// privTarget reads *.*, db.*, db.tbl, or a three-part name whose catalog
// is internal (or *): *.*.*, internal.db.*, internal.db.tbl.
func (c *cursor) privTarget(st *GrantPrivs) (db, table string) {
	var parts []string
	for c.err == nil {
		if c.acceptP("*") {
			parts = append(parts, "*")
		} else {
			parts = append(parts, c.ident())
		}
		if !c.acceptP(".") {
			break
		}
	}
	if len(parts) == 3 {
		if parts[0] != "*" && !strings.EqualFold(parts[0], "internal") {
			st.Unsupported = "privileges on catalog " + parts[0]
		}
		if parts[0] == "*" && parts[1] != "*" {
			c.fail(c.peek())
		}
		parts = parts[1:]
	}
	if len(parts) != 2 || (parts[0] == "*" && parts[1] != "*") {
		c.fail(c.peek())
		return "", ""
	}
	return parts[0], parts[1]
}

func (c *cursor) userIdent() UserIdent {
	u, h := c.userSpec()
	return UserIdent{User: u, Host: h}
}

// showGrants: SHOW GRANTS [FOR user], SHOW ALL GRANTS, SHOW ROLES; ok is
// false for another SHOW ALL ... (left to vitess).
func (c *cursor) showGrants() (Statement, bool) {
	c.i = 1
	switch {
	case c.accept("ROLES"):
		c.end()
		return &ShowRoles{}, true
	case c.accept("ALL"):
		if !c.accept("GRANTS") {
			return nil, false
		}
		c.end()
		return &ShowGrants{All: true}, true
	}
	c.expect("GRANTS")
	st := &ShowGrants{}
	if c.accept("FOR") {
		u := c.userIdent()
		st.User = &u
	}
	c.end()
	return st, true
}
