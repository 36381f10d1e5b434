package parser

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// Parse parses every statement of sql (split as Split does). An input with
// no statement at all is sqlerr.EmptyQuery (1065); syntax errors are
// sqlerr.ParseError (1064) with MySQL's message; an identifier over its
// limit is 1059 and parentheses nested too deep 1473 (names.go).
func Parse(sql string) ([]Statement, error) {
	var out []Statement
	for _, text := range Split(sql) {
		st, err := parseStatement(text)
		if err == nil && st != nil {
			err = checkNames(st)
		}
		st = classify(st)
		if err != nil {
			return nil, err
		}
		if st != nil {
			out = append(out, st)
		}
	}
	if len(out) == 0 {
		return nil, sqlerr.EmptyQuery.New()
	}
	return out, nil
}

// ParseOne parses exactly one statement; a second one is a syntax error.
func ParseOne(sql string) (Statement, error) {
	texts := Split(sql)
	if len(texts) == 0 {
		return nil, sqlerr.EmptyQuery.New()
	}
	if len(texts) > 1 {
		return nil, syntaxError(texts[1], 0)
	}
	st, err := parseStatement(texts[0])
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, sqlerr.EmptyQuery.New()
	}
	if err := checkNames(st); err != nil {
		return nil, err
	}
	return classify(st), nil
}

// parseStatement parses one statement text; nil, nil means it was empty
// (e.g. a conditional comment for another server version).
func parseStatement(text string) (Statement, error) {
	toks := lex(text)
	sig := significant(toks)
	w := func(i int) string {
		if i < len(sig) {
			return sig[i].upper()
		}
		return ""
	}
	c := &cursor{src: text, toks: sig}
	switch w(0) {
	case "CREATE":
		if w(1) == "USER" {
			return c.createUser()
		}
		if w(1) == "ROLE" {
			return c.createRole()
		}
		if w(1) == "TABLE" || (w(1) == "TEMPORARY" && w(2) == "TABLE") {
			if st, ok, err := createTableAs(text, sig); ok {
				return st, err
			}
			if ct, ok := c.createTable(); ok {
				return ct, c.err
			}
		}
		if viewOptions[w(1)] {
			if cv, ok := c.createView(); ok {
				return cv, c.err
			}
		}
	case "DROP":
		if w(1) == "USER" {
			return c.dropUser()
		}
		if w(1) == "ROLE" {
			return c.dropRole()
		}
		if w(1) == "STATS" {
			c.i = 2
			return c.dropStats()
		}
		if span, ok := dropForce(sig); ok {
			return parseVitess(text, toks, [][2]int{span})
		}
	case "KILL":
		if w(1) == "ANALYZE" {
			return nil, sqlerr.NotSupportedYet.New("KILL ANALYZE (an ANALYZE job runs to its end)")
		}
	case "ANALYZE":
		if w(1) == "TABLE" {
			c.i = 1
			return c.analyze()
		}
		return nil, sqlerr.NotSupportedYet.New("ANALYZE " + w(1) + " (only ANALYZE TABLE t [(c, ...)] [WITH SYNC] [WITH SAMPLE ...])")
	case "GRANT", "REVOKE":
		return c.grant(w(0) == "REVOKE")
	case "ADMIN":
		return &Admin{Text: text}, nil
	case "DELETE":
		if rewritten, ok := (&cursor{src: text, toks: sig}).deleteUsingAlias(); ok {
			st, err := parseVitess(rewritten, lex(rewritten), nil)
			if v, isV := st.(*Vitess); isV && err == nil {
				v.Text = text
			}
			return st, err
		}
		if st, ok, err := c.deletePartitions(toks); ok {
			return st, err
		}
	case "UPDATE":
		if rewritten, ok := updateFrom(text, sig); ok {
			st, err := parseVitess(rewritten, lex(rewritten), nil)
			if v, isV := st.(*Vitess); isV && err == nil {
				v.Text = text
			}
			return st, err
		}
	case "BEGIN", "COMMIT", "ROLLBACK":
		return c.txnStmt(w(0))
	case "START":
		if w(1) == "TRANSACTION" {
			return c.txnStmt(w(0))
		}
	case "INSERT":
		if rewritten, ok := insertOverwrite(text, sig); ok {
			st, err := parseStatement(rewritten)
			if v, isV := st.(*Vitess); isV && err == nil {
				v.Text, v.Overwrite = text, true
			}
			return st, err
		}
		if label, span, ok := insertLabel(sig); ok {
			st, err := parseVitess(text, toks, [][2]int{span})
			if v, isV := st.(*Vitess); isV && err == nil {
				v.Label = label
			}
			return st, err
		}
	case "CANCEL":
		if w(1) == "ALTER" && w(2) == "TABLE" && w(3) == "COLUMN" && w(4) == "FROM" {
			c.i = 5
			st := &CancelAlterColumn{}
			st.DB, st.Table = c.qualified()
			return st, c.end()
		}
		if w(1) == "ALTER" {
			return &AlterJobs{Text: strings.Join(strings.Fields(text), " ")}, nil
		}
		if w(1) == "DECOMMISSION" && w(2) == "BACKEND" {
			c.i = 3
			return c.backendList(&AlterSystem{Op: CancelDecommission})
		}
	case "SAVEPOINT", "RELEASE":
		return &TxnStmt{Op: TxnBegin, Unsupported: strings.Join(strings.Fields(text), " ")}, nil
	case "SET":
		if w(1) == "PASSWORD" {
			return c.setPassword()
		}
	case "SHOW":
		switch w(1) {
		case "ALTER":
			if w(2) == "TABLE" && w(3) == "COLUMN" {
				c.i = 4
				st, err := c.showLoad(false)
				if err != nil {
					return nil, err
				}
				return &ShowAlterColumn{ShowLoad: *st.(*ShowLoad)}, nil
			}
			return &AlterJobs{Text: strings.Join(strings.Fields(text), " ")}, nil
		case "AUTO":
			if w(2) == "ANALYZE" {
				return nil, sqlerr.NotSupportedYet.New("SHOW AUTO ANALYZE (SHOW ANALYZE lists the automatic jobs too)")
			}
		case "COLUMN", "TABLE":
			if w(1) == "COLUMN" && w(2) == "CACHED" && w(3) == "STATS" {
				return nil, sqlerr.NotSupportedYet.New("SHOW COLUMN CACHED STATS (SHOW COLUMN STATS shows what the planner uses)")
			}
			if w(2) == "STATS" {
				c.i = 3
				if w(1) == "COLUMN" {
					return c.showColumnStats()
				}
				return c.showTableStats()
			}
		case "ANALYZE":
			c.i = 2
			return c.showAnalyze()
		case "BACKENDS":
			c.i = 2
			return &ShowBackends{}, c.end()
		case "FRONTENDS":
			c.i = 2
			return &ShowFrontends{}, c.end()
		case "DELETE":
			c.i = 2
			return c.showDelete()
		case "TRANSACTION":
			c.i = 2
			return c.showTransaction()
		case "DATA":
			c.i = 2
			return c.showData()
		case "LOAD":
			c.i = 2
			return c.showLoad(false)
		case "STREAM":
			if w(2) == "LOAD" {
				c.i = 3
				return c.showLoad(true)
			}
		case "TABLETS", "PARTITIONS":
			c.i = 2
			c.expect("FROM")
			db, tbl := c.qualified()
			if w(1) == "TABLETS" {
				return &ShowTablets{DB: db, Table: tbl}, c.end()
			}
			return &ShowPartitions{DB: db, Table: tbl}, c.end()
		case "PROC":
			c.i = 2
			p := c.str()
			return &ShowProc{Path: p}, c.end()
		case "QUERY":
			if w(2) == "PROFILE" {
				c.i = 3
				p := c.str()
				return &ShowQueryProfile{Path: p}, c.end()
			}
		case "GRANTS", "ALL", "ROLES":
			if st, ok := c.showGrants(); ok {
				return st, c.err
			}
		case "CREATE":
			if w(2) == "TABLE" {
				c.i = 3
				db, tbl := c.qualified()
				return &ShowCreateTable{DB: db, Table: tbl}, c.end()
			}
			if w(2) == "VIEW" {
				c.i = 3
				db, v := c.qualified()
				return &ShowCreateView{DB: db, View: v}, c.end()
			}
		}
	case "ALTER":
		if w(1) == "SYSTEM" {
			return c.alterSystem()
		}
		if viewOptions[w(1)] && w(1) != "OR" {
			if cv, ok := c.createView(); ok {
				return cv, c.err
			}
		}
		if w(1) == "TABLE" {
			if st, ok := c.alterTableSet(); ok {
				return st, c.err
			}
			if st, ok := c.alterTable(); ok {
				return st, c.err
			}
		}
	case "EXPLAIN", "DESC", "DESCRIBE":
		if st, ok := c.explain(toks); ok {
			return st, c.err
		}
	}
	return parseVitess(text, toks, nil)
}

// parseVitess runs vitess on text with the Doris hints (and any prefix
// listed in blank) replaced by spaces, so that every byte offset vitess
// reports is also an offset into the user's text.
func parseVitess(text string, toks []token, blank [][2]int) (Statement, error) {
	if lateralView(toks) {
		return nil, sqlerr.NotSupportedYet.New("LATERAL VIEW (explode and the other table functions of arrays)")
	}
	clean, hints, err := extractHints(text, toks, blank)
	if err != nil {
		return nil, err
	}
	clean, inserted := rewriteRollup(clean)
	ast, err := vitessParse(clean)
	if err == sqlparser.ErrEmpty {
		return nil, nil
	}
	if err != nil {
		if e := nestingError(err); e != nil {
			return nil, e
		}
		return nil, vitessError(clean, text, err, inserted)
	}
	if err := hints.attach(ast); err != nil {
		return nil, err
	}
	return &Vitess{AST: ast, Kind: kindOf(ast), Hints: hints.Hints, Text: text}, nil
}

// vitessParse is sqlparser.Parse made panic-free: the generated parser has
// panicked on odd inputs before, and a bad query must never kill a session.
func vitessParse(sql string) (ast sqlparser.Statement, err error) {
	defer func() {
		if r := recover(); r != nil {
			ast, err = nil, fmt.Errorf("syntax error at position %d", len(sql)+1)
		}
	}()
	return sqlparser.Parse(sql)
}

var positionRE = regexp.MustCompile(`at position (\d+)`)

// vitessError turns a vitess error into MySQL's 1064. vitess reports the
// offset just past the offending token; MySQL quotes the text from that
// token's start, or nothing when the statement ended too early.
func vitessError(clean, text string, err error, inserted []insertion) error {
	m := positionRE.FindStringSubmatch(err.Error())
	if m == nil {
		msg := err.Error()
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		return sqlerr.ParseError.New(msg)
	}
	end, _ := strconv.Atoi(m[1])
	end--
	if end >= len(strings.TrimRight(clean, " \t\r\n")) {
		// The reported token is the last one: either it is wrong, or the
		// input stopped early. Extending the input tells them apart: an
		// early stop moves the error past the original end.
		_, err2 := vitessParse(clean + " ;")
		if m2 := positionRE.FindStringSubmatch(fmt.Sprint(err2)); err2 == nil || m2 == nil || atoi(m2[1])-1 > len(clean) {
			return syntaxError(text, len(text))
		}
	}
	start := end
	for _, t := range significant(lex(clean)) {
		if t.kind == tkEOF || t.pos >= end {
			break
		}
		start = t.pos
		if t.end >= end {
			break
		}
	}
	return syntaxError(text, min(mapBack(start, inserted), len(text)))
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// syntaxError is MySQL's ER_PARSE_ERROR quoting up to 80 characters of src
// from byte offset pos.
func syntaxError(src string, pos int) *sqlerr.Error {
	near := src[pos:]
	if utf8.RuneCountInString(near) > 80 {
		r := []rune(near)
		near = string(r[:80])
	}
	line := 1 + strings.Count(src[:pos], "\n")
	return sqlerr.ParseError.New(fmt.Sprintf("You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '%s' at line %d", near, line))
}

// cursor walks significant tokens for the hand-written Doris parsers. The
// first error sticks: later calls return zero values and peek sees EOF, so
// a parse function checks c.err once at the end.
type cursor struct {
	src  string
	toks []token
	i    int
	err  error
}

func (c *cursor) peek() token {
	if c.err != nil {
		return token{kind: tkEOF, pos: len(c.src), end: len(c.src)}
	}
	return c.toks[c.i]
}

func (c *cursor) peekAt(k int) token {
	if c.err != nil || c.i+k >= len(c.toks) {
		return token{kind: tkEOF, pos: len(c.src), end: len(c.src)}
	}
	return c.toks[c.i+k]
}

func (c *cursor) next() token {
	t := c.peek()
	if t.kind != tkEOF {
		c.i++
	}
	return t
}

// fail records a syntax error at t (if none yet).
func (c *cursor) fail(t token) {
	if c.err == nil {
		c.err = syntaxError(c.src, t.pos)
	}
}

func (c *cursor) accept(kw string) bool {
	if c.peek().is(kw) {
		c.i++
		return true
	}
	return false
}

func (c *cursor) acceptP(p string) bool {
	if c.peek().isP(p) {
		c.i++
		return true
	}
	return false
}

func (c *cursor) expect(kw string) {
	if !c.accept(kw) {
		c.fail(c.peek())
	}
}

func (c *cursor) expectP(p string) {
	if !c.acceptP(p) {
		c.fail(c.peek())
	}
}

// end requires the statement to be over.
func (c *cursor) end() error {
	if t := c.peek(); t.kind != tkEOF {
		c.fail(t)
	}
	return c.err
}

// ident reads an identifier, quoted or not.
func (c *cursor) ident() string {
	t := c.peek()
	if (t.kind != tkIdent && t.kind != tkQuotedIdent) || t.unterminated {
		c.fail(t)
		return ""
	}
	c.i++
	return t.val
}

// qualified reads [db.]name.
func (c *cursor) qualified() (db, name string) {
	name = c.ident()
	if c.acceptP(".") {
		db, name = name, c.ident()
	}
	return db, name
}

// str reads a string literal.
func (c *cursor) str() string {
	t := c.peek()
	if t.kind != tkString || t.unterminated {
		c.fail(t)
		return ""
	}
	c.i++
	return t.val
}

// literal reads a string, a (signed) number or a bare word, returning its
// text without quotes.
func (c *cursor) literal() string {
	t := c.peek()
	switch {
	case t.kind == tkString && !t.unterminated, t.kind == tkNumber, t.kind == tkIdent:
		c.i++
		return t.val
	case t.isP("-") || t.isP("+"):
		c.i++
		n := c.peek()
		if n.kind != tkNumber {
			c.fail(n)
			return ""
		}
		c.i++
		if t.val == "-" {
			return "-" + n.val
		}
		return n.val
	}
	c.fail(t)
	return ""
}

// identList reads "(a, b, ...)".
func (c *cursor) identList() []string {
	c.expectP("(")
	var out []string
	for c.err == nil {
		out = append(out, c.ident())
		if !c.acceptP(",") {
			break
		}
	}
	c.expectP(")")
	return out
}

// properties reads ("k" = "v", ...), lower-casing keys.
func (c *cursor) properties() map[string]string {
	props := map[string]string{}
	c.expectP("(")
	if c.acceptP(")") {
		return props
	}
	for c.err == nil {
		k := c.literal()
		c.expectP("=")
		props[strings.ToLower(k)] = c.literal()
		if !c.acceptP(",") {
			break
		}
	}
	c.expectP(")")
	return props
}

// skipBalanced skips one token, or a whole parenthesised group; running
// into the end of the input is an error, so callers' loops always advance.
func (c *cursor) skipBalanced() {
	depth := 0
	for {
		t := c.next()
		switch {
		case t.kind == tkEOF:
			c.fail(t)
			return
		case t.isP("("):
			depth++
		case t.isP(")"):
			depth--
		}
		if depth <= 0 {
			return
		}
	}
}

// dropForce finds Doris's trailing FORCE of DROP TABLE / DATABASE / SCHEMA
// (skip the recycle bin; dorisgo has none, so the drop is the same) and
// returns its span for parseVitess to blank. A table or database named
// force (DROP TABLE force, DROP TABLE IF EXISTS db.force) is not one.
func dropForce(sig []token) (span [2]int, ok bool) {
	n := len(sig)
	for n > 0 && (sig[n-1].kind == tkEOF || sig[n-1].isP(";")) {
		n--
	}
	if n < 4 || !(sig[1].is("TABLE") || sig[1].is("DATABASE") || sig[1].is("SCHEMA")) || !sig[n-1].is("FORCE") {
		return span, false
	}
	if prev := sig[n-2]; prev.is("EXISTS") || prev.isP(",") || prev.isP(".") {
		return span, false
	}
	return [2]int{sig[n-1].pos, sig[n-1].end}, true
}
