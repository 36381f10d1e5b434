package parser

import "strings"

// userSpec reads 'user'[@'host'] (quoted or bare); host defaults to "%".
func (c *cursor) userSpec() (user, host string) {
	t := c.next()
	switch {
	case (t.kind == tkString || t.kind == tkQuotedIdent || t.kind == tkIdent) && !t.unterminated:
		user = t.val
	default:
		c.fail(t)
		return "", ""
	}
	host = "%"
	if c.acceptP("@") {
		h := c.next()
		if (h.kind != tkString && h.kind != tkQuotedIdent && h.kind != tkIdent) || h.unterminated {
			c.fail(h)
		}
		host = h.val
	}
	return user, host
}

// createUser: CREATE USER [IF NOT EXISTS] user [IDENTIFIED [WITH plugin] BY [PASSWORD] 'pw'] [DEFAULT ROLE 'r'].
func (c *cursor) createUser() (Statement, error) {
	c.i = 2
	st := &CreateUser{}
	if c.accept("IF") {
		c.expect("NOT")
		c.expect("EXISTS")
		st.IfNotExists = true
	}
	st.User, st.Host = c.userSpec()
	if c.accept("IDENTIFIED") {
		if c.accept("WITH") {
			c.literal()
		}
		c.expect("BY")
		c.accept("PASSWORD")
		st.Password = c.str()
	}
	if c.accept("DEFAULT") {
		c.expect("ROLE")
		st.Role = c.name()
	}
	return st, c.end()
}

// dropUser: DROP USER [IF EXISTS] user.
func (c *cursor) dropUser() (Statement, error) {
	c.i = 2
	st := &DropUser{}
	if c.accept("IF") {
		c.expect("EXISTS")
		st.IfExists = true
	}
	st.User, st.Host = c.userSpec()
	return st, c.end()
}

// setPassword: SET PASSWORD [FOR user] = PASSWORD('pw') | 'pw'.
func (c *cursor) setPassword() (Statement, error) {
	c.i = 2
	st := &SetPassword{}
	if c.accept("FOR") {
		st.User, st.Host = c.userSpec()
	}
	c.expectP("=")
	if c.accept("PASSWORD") {
		c.expectP("(")
		st.Password = c.str()
		c.expectP(")")
	} else {
		st.Password = c.str()
	}
	return st, c.end()
}

// alterSystem: ALTER SYSTEM ADD|DROP|DECOMMISSION BACKEND "h:p"[, ...].
func (c *cursor) alterSystem() (Statement, error) {
	c.i = 2
	st := &AlterSystem{}
	switch op := c.next(); op.upper() {
	case "ADD":
		st.Op = AddBackend
	case "DROP":
		st.Op = DropBackend
	case "DROPP":
		st.Op = DropBackendForce
	case "DECOMMISSION":
		st.Op = DecommissionBackend
	default:
		c.fail(op)
	}
	switch kind := c.next(); kind.upper() {
	case "BACKEND":
	case "FOLLOWER", "OBSERVER":
		fe := map[string]map[AlterSystemOp]AlterSystemOp{
			"FOLLOWER": {AddBackend: AddFollower, DropBackend: DropFollower},
			"OBSERVER": {AddBackend: AddObserver, DropBackend: DropObserver},
		}[kind.upper()]
		op, ok := fe[st.Op]
		if !ok {
			c.fail(kind)
		}
		st.Op = op
	default:
		c.fail(kind)
	}
	return c.backendList(st)
}

// backendList reads the "h:p"[, ...] list ending ALTER SYSTEM and CANCEL
// DECOMMISSION BACKEND.
func (c *cursor) backendList(st *AlterSystem) (Statement, error) {
	for c.err == nil {
		st.HostPorts = append(st.HostPorts, c.str())
		if !c.acceptP(",") {
			break
		}
	}
	return st, c.end()
}

// alterTableSet: ALTER TABLE [db.]t SET ("k" = "v", ...). Other ALTER TABLE
// forms are left to vitess (ok == false).
func (c *cursor) alterTableSet() (st Statement, ok bool) {
	c.i = 2
	db, tbl := c.qualified()
	if c.err != nil || !c.peek().is("SET") || !c.peekAt(1).isP("(") {
		c.err = nil
		return nil, false
	}
	c.i++
	props := c.properties()
	c.end()
	return &AlterTableSet{DB: db, Table: tbl, Properties: props}, true
}

// explainable are the words that start a statement EXPLAIN can wrap; DESC
// followed by anything else is DESCRIBE <table>, which vitess handles.
var explainable = map[string]bool{"SELECT": true, "WITH": true, "INSERT": true, "UPDATE": true, "DELETE": true, "REPLACE": true}

// explain: EXPLAIN [VERBOSE | ANALYZE | (TYPE DISTRIBUTED) | FORMAT=x] stmt.
// The wrapped statement is parsed by vitess on the full text with the
// prefix blanked, so error offsets stay those of the user's text.
func (c *cursor) explain(all []token) (st Statement, ok bool) {
	c.i = 1
	mode := ExplainPlain
	switch t := c.peek(); {
	case t.is("VERBOSE"):
		c.i++
		mode = ExplainVerbose
	case t.is("ANALYZE"):
		c.i++
		mode = ExplainAnalyze
	case t.isP("(") && c.peekAt(1).is("TYPE"):
		c.i += 2
		if !c.peek().is("DISTRIBUTED") {
			c.fail(c.peek())
			return nil, true
		}
		c.i++
		c.expectP(")")
		mode = ExplainDistributed
	case t.is("FORMAT") && c.peekAt(1).isP("="):
		c.i += 3
	}
	inner := c.peek()
	isStmt := explainable[inner.upper()] || inner.isP("(")
	if !isStmt {
		if mode == ExplainPlain && c.i == 1 {
			return nil, false // DESC t, EXPLAIN t
		}
		c.fail(inner)
		return nil, true
	}
	if c.err != nil {
		return nil, true
	}
	v, err := parseVitess(c.src, all, [][2]int{{0, inner.pos}})
	if err != nil {
		c.err = err
		return nil, true
	}
	if vs, isV := v.(*Vitess); isV {
		vs.Text = strings.TrimSpace(c.src[inner.pos:])
	}
	return &Explain{Mode: mode, Stmt: v}, true
}
