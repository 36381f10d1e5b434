package parser

import "strings"

// TxnOp is what a transaction statement does.
type TxnOp uint8

const (
	TxnBegin TxnOp = iota
	TxnCommit
	TxnRollback
)

// TxnStmt is BEGIN [WITH LABEL l] | START TRANSACTION | COMMIT [WORK] |
// ROLLBACK [WORK]. Savepoints and other options are refused by the
// parser's caller with a clear error (Unsupported names them).
type TxnStmt struct {
	Op    TxnOp
	Label string
	// Unsupported names a clause dorisgo does not implement ("" if none).
	Unsupported string
}

func (*TxnStmt) statement() {}

// txnStmt parses a transaction statement; first is its upper-cased first word.
func (c *cursor) txnStmt(first string) (Statement, error) {
	c.i = 1
	st := &TxnStmt{}
	switch first {
	case "BEGIN":
		st.Op = TxnBegin
		c.accept("WORK")
		if c.accept("WITH") {
			c.expect("LABEL")
			st.Label = c.name()
		}
	case "START":
		st.Op = TxnBegin
		c.expect("TRANSACTION")
		if t := c.peek(); t.kind != tkEOF {
			// WITH CONSISTENT SNAPSHOT, READ ONLY, READ WRITE: dorisgo
			// has READ COMMITTED statements only.
			st.Unsupported = "START TRANSACTION " + c.rest()
			return st, nil
		}
	case "COMMIT", "ROLLBACK":
		st.Op = TxnCommit
		if first == "ROLLBACK" {
			st.Op = TxnRollback
		}
		c.accept("WORK")
		if t := c.peek(); t.kind != tkEOF {
			// AND [NO] CHAIN, [NO] RELEASE, ROLLBACK TO SAVEPOINT.
			st.Unsupported = first + " " + c.rest()
			return st, nil
		}
	}
	return st, c.end()
}

// rest is the source text from the current token to the end.
func (c *cursor) rest() string {
	t := c.peek()
	if t.kind == tkEOF {
		return ""
	}
	return strings.Join(strings.Fields(c.src[t.pos:]), " ")
}

// insertLabel finds Doris's WITH LABEL clause of an INSERT (after the
// table name and any PARTITION clause, before the column list or the
// rows): INSERT INTO t [PARTITION (p)] WITH LABEL l [(cols)] VALUES | SELECT.
// It returns the label and the byte range to blank for vitess.
func insertLabel(sig []token) (label string, span [2]int, ok bool) {
	depth := 0
	for i := 2; i+2 < len(sig); i++ {
		t := sig[i]
		switch {
		case t.isP("("):
			depth++
		case t.isP(")"):
			depth--
		case depth == 0 && (t.is("VALUES") || t.is("VALUE") || t.is("SELECT") || t.is("SET")):
			return "", span, false
		case depth == 0 && t.is("WITH") && sig[i+1].is("LABEL"):
			n := sig[i+2]
			if n.kind != tkIdent && n.kind != tkQuotedIdent && n.kind != tkString || n.unterminated {
				return "", span, false
			}
			return n.val, [2]int{t.pos, n.end}, true
		}
	}
	return "", span, false
}
