package parser

import (
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// deletePartitions parses DELETE FROM [db.]t with one of Doris's partition
// clauses after the table name, PARTITION p, PARTITION (p, ...) or
// PARTITIONS (p, ...): vitess reads only MySQL's PARTITION (p, ...), so the
// clause is blanked for vitess and its names are set on the Delete. ok is
// false when the statement has no such clause (vitess parses it as is).
func (c *cursor) deletePartitions(toks []token) (st Statement, ok bool, err error) {
	c.i = 1
	for c.accept("LOW_PRIORITY") || c.accept("QUICK") || c.accept("IGNORE") {
	}
	if !c.accept("FROM") {
		return nil, false, nil
	}
	c.qualified()
	start := c.peek()
	if c.err != nil {
		return nil, false, nil
	}
	switch {
	case start.is("TEMPORARY") && c.peekAt(1).is("PARTITION"):
		return nil, true, sqlerr.Doris.New("Do not support deleting temp partitions")
	case start.is("PARTITION") || start.is("PARTITIONS"):
	default:
		return nil, false, nil
	}
	c.i++
	var names []string
	if c.peek().isP("(") {
		names = c.identList()
	} else {
		names = []string{c.ident()}
	}
	if c.err != nil {
		return nil, true, c.err
	}
	end := c.toks[c.i-1].end
	v, err := parseVitess(c.src, toks, [][2]int{{start.pos, end}})
	if err != nil {
		return nil, true, err
	}
	d, isDelete := v.(*Vitess).AST.(*sqlparser.Delete)
	if !isDelete {
		return nil, true, syntaxError(c.src, start.pos)
	}
	d.Partitions = nil
	for _, n := range names {
		d.Partitions = append(d.Partitions, sqlparser.NewColIdent(n))
	}
	return v, true, nil
}

// deleteUsingAlias rewrites Doris's DELETE FROM [db.]t alias USING items
// WHERE … into MySQL's DELETE alias FROM [db.]t AS alias, items WHERE …,
// which vitess reads and which means the same (the rows of t the join
// matches); ok is false for any other statement.
func (c *cursor) deleteUsingAlias() (string, bool) {
	c.i = 1
	if !c.accept("FROM") {
		return "", false
	}
	start := c.peek()
	c.qualified()
	if c.err != nil {
		return "", false
	}
	end := c.toks[c.i-1].end
	c.accept("AS")
	a := c.peek()
	if a.kind != tkIdent || a.is("USING") || a.is("WHERE") || a.is("PARTITION") || a.is("PARTITIONS") || a.is("TEMPORARY") {
		return "", false
	}
	c.i++
	using := c.peek()
	if !using.is("USING") || c.err != nil {
		return "", false
	}
	return "DELETE " + a.val + " FROM " + c.src[start.pos:end] + " AS " + a.val + ", " + c.src[using.end:], true
}

// ShowDelete is SHOW DELETE [FROM db].
type ShowDelete struct{ DB string }

func (*ShowDelete) statement() {}

// showDelete: SHOW DELETE [FROM db] (the cursor is past DELETE).
func (c *cursor) showDelete() (Statement, error) {
	st := &ShowDelete{}
	if c.accept("FROM") || c.accept("IN") {
		st.DB = c.ident()
	}
	return st, c.end()
}
