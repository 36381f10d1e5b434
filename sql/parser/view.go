package parser

import (
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// CreateView is CREATE [OR REPLACE] VIEW [IF NOT EXISTS] [db.]v
// [(col [COMMENT 'c'], ...)] [COMMENT 'c'] AS query (Doris's form, and
// MySQL's), or with Alter set ALTER VIEW [db.]v [(cols)] [COMMENT 'c'] AS
// query. MySQL's ALGORITHM, DEFINER and SQL SECURITY options and WITH
// CHECK OPTION are accepted and dropped: a view here is never updatable.
type CreateView struct {
	Alter       bool
	OrReplace   bool
	IfNotExists bool
	DB, Name    string
	Columns     []ViewColumn // nil: the query's output names
	Comment     string
	// Query is the view's query; its Text is the query as written (no
	// CHECK OPTION), which is what the catalog keeps.
	Query *Vitess
}

// ViewColumn is one name of a view's column list.
type ViewColumn struct{ Name, Comment string }

// ShowCreateView is SHOW CREATE VIEW [db.]v.
type ShowCreateView struct{ DB, View string }

func (*CreateView) statement()     {}
func (*ShowCreateView) statement() {}

// viewOptions are MySQL's words between CREATE/ALTER and VIEW.
var viewOptions = map[string]bool{"VIEW": true, "OR": true, "ALGORITHM": true, "DEFINER": true, "SQL": true}

// createView parses CREATE/ALTER ... VIEW; ok is false when the words
// after the options are not VIEW (CREATE DEFINER = x PROCEDURE ...), which
// is left to vitess.
func (c *cursor) createView() (st *CreateView, ok bool) {
	st = &CreateView{Alter: c.peek().is("ALTER")}
	c.i = 1
	if !st.Alter && c.accept("OR") {
		c.expect("REPLACE")
		st.OrReplace = true
	}
	for c.err == nil && !c.peek().is("VIEW") {
		switch t := c.next(); t.upper() {
		case "ALGORITHM":
			c.expectP("=")
			c.ident()
		case "DEFINER":
			c.expectP("=")
			if c.accept("CURRENT_USER") {
				if c.acceptP("(") {
					c.expectP(")")
				}
			} else {
				c.userSpec()
			}
		case "SQL":
			c.expect("SECURITY")
			c.ident()
		default:
			c.err = nil
			return nil, false
		}
	}
	c.expect("VIEW")
	if !st.Alter && c.accept("IF") {
		c.expect("NOT")
		c.expect("EXISTS")
		st.IfNotExists = true
	}
	st.DB, st.Name = c.qualified()
	if c.acceptP("(") {
		for c.err == nil {
			col := ViewColumn{Name: c.ident()}
			if c.accept("COMMENT") {
				col.Comment = c.str()
			}
			st.Columns = append(st.Columns, col)
			if !c.acceptP(",") {
				break
			}
		}
		c.expectP(")")
	}
	if c.accept("COMMENT") {
		st.Comment = c.str()
	}
	c.expect("AS")
	if c.err != nil {
		return st, true
	}
	body := c.peek()
	end := len(c.src)
	if n := len(c.toks); n >= 4 && c.toks[n-2].is("OPTION") && c.toks[n-3].is("CHECK") {
		w := n - 4
		if c.toks[w].is("CASCADED") || c.toks[w].is("LOCAL") {
			w--
		}
		if w > c.i && c.toks[w].is("WITH") {
			end = c.toks[w].pos
		}
	}
	text := c.src[:end]
	// The prefix is blanked rather than cut, so vitess's error offsets
	// stay those of the user's text (as EXPLAIN does).
	v, err := parseVitess(text, lex(text), [][2]int{{0, body.pos}})
	if err != nil {
		c.err = err
		return st, true
	}
	q, isV := v.(*Vitess)
	if !isV {
		c.fail(body)
		return st, true
	}
	if _, isSel := q.AST.(sqlparser.SelectStatement); !isSel {
		c.fail(body)
		return st, true
	}
	q.Text = strings.TrimSpace(text[body.pos:])
	st.Query = q
	return st, true
}
