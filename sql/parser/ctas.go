package parser

import "strings"

// CreateTableAs is Doris's CREATE TABLE t [(c, …)] [ENGINE=olap] [KEY …]
// [PARTITION …] [DISTRIBUTED BY …] [PROPERTIES (…)] AS SELECT …: Create
// holds the table options (no columns: they come from the query), Names
// the column names given (nil: the query's), Query the SELECT.
type CreateTableAs struct {
	Create *CreateTable
	Names  []string
	Query  *Vitess
	Text   string
}

func (*CreateTableAs) statement() {}

// createTableAs recognizes CREATE TABLE … AS SELECT (ok false: not one).
func createTableAs(text string, sig []token) (st Statement, ok bool, err error) {
	i := 2
	if len(sig) > 2 && sig[1].is("TEMPORARY") {
		i = 3
	}
	// The AS that starts the query: at depth 0, followed by SELECT, WITH or "(".
	depth, as := 0, -1
	for j := i; j+1 < len(sig); j++ {
		t := sig[j]
		switch {
		case t.isP("("):
			depth++
		case t.isP(")"):
			depth--
		case depth == 0 && t.is("AS") && (sig[j+1].is("SELECT") || sig[j+1].is("WITH") || sig[j+1].isP("(")):
			as = j
		}
		if as >= 0 {
			break
		}
	}
	if as < 0 {
		return nil, false, nil
	}
	query := text[sig[as+1].pos:]
	qs, err := parseStatement(query)
	if err != nil {
		return nil, true, err
	}
	q, isV := qs.(*Vitess)
	if !isV {
		return nil, true, syntaxError(text, sig[as+1].pos)
	}
	// The head: an optional list of bare column names right after the
	// table name, then the options CREATE TABLE takes; parsed as CREATE
	// TABLE with one placeholder column.
	head := sig[:as:as]
	c := &cursor{src: text, toks: append(head, token{kind: tkEOF, pos: sig[as].pos, end: sig[as].pos})}
	c.i = i
	if c.accept("IF") {
		c.expect("NOT")
		c.expect("EXISTS")
	}
	c.qualified()
	if c.err != nil {
		return nil, true, c.err
	}
	nameEnd := c.i
	var names []string
	opts := nameEnd
	if nameEnd < len(head) && head[nameEnd].isP("(") {
		k := nameEnd + 1
		for ; k < len(head); k++ {
			t := head[k]
			if t.kind != tkIdent && t.kind != tkQuotedIdent {
				return nil, true, syntaxError(text, t.pos)
			}
			names = append(names, t.val)
			k++
			if k < len(head) && head[k].isP(")") {
				break
			}
			if k >= len(head) || !head[k].isP(",") {
				return nil, true, syntaxError(text, head[min(k, len(head)-1)].pos)
			}
		}
		opts = k + 1
	}
	optText := ""
	if opts < len(head) {
		optText = text[head[opts].pos:sig[as].pos]
	}
	fake := text[:head[nameEnd-1].end] + " (`__ctas_placeholder` INT) " + optText
	fs, err := parseStatement(fake)
	if err != nil {
		return nil, true, err
	}
	ct, isCT := fs.(*CreateTable)
	if !isCT {
		return nil, true, syntaxError(text, head[0].pos)
	}
	ct.Columns = nil
	return &CreateTableAs{Create: ct, Names: names, Query: q, Text: strings.TrimSpace(text)}, true, nil
}
