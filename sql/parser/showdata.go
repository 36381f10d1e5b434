package parser

import (
	"strconv"
	"strings"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// ShowTransaction is SHOW TRANSACTION [FROM db] WHERE id = n | label = 'l'
// | status = 's' (Doris: one condition, required).
type ShowTransaction struct {
	DB           string
	Field, Value string // Field: id, label or status (lower case)
}

func (*ShowTransaction) statement() {}

// ShowData is SHOW DATA [FROM [db.]table].
type ShowData struct{ DB, Table string }

func (*ShowData) statement() {}

var showTxnUsage = "Where clause should look like one of them: id = 123 or label = 'label' or status = 'prepare/precommitted/committed/visible/aborted'"

// showTransaction parses what follows SHOW TRANSACTION.
func (c *cursor) showTransaction() (Statement, error) {
	st := &ShowTransaction{}
	if c.accept("FROM") || c.accept("IN") {
		st.DB = c.ident()
	}
	if c.err != nil {
		return nil, c.err
	}
	if !c.accept("WHERE") {
		if c.peek().kind == tkEOF {
			return nil, sqlerr.Doris.New(showTxnUsage)
		}
		return nil, c.end()
	}
	st.Field = strings.ToLower(c.ident())
	c.expectP("=")
	st.Value = c.literal()
	if err := c.end(); err != nil {
		return nil, err
	}
	switch st.Field {
	case "id", "label", "status":
	default:
		return nil, sqlerr.Doris.New(showTxnUsage)
	}
	return st, nil
}

// showData parses what follows SHOW DATA.
func (c *cursor) showData() (Statement, error) {
	st := &ShowData{}
	if c.accept("FROM") || c.accept("IN") {
		st.DB, st.Table = c.qualified()
	}
	return st, c.end()
}

// ShowLoad is SHOW [STREAM] LOAD [FROM db] [WHERE cond [AND cond …]]
// [ORDER BY col [ASC|DESC], …] [LIMIT n]; a condition is
// LABEL = 'x', LABEL LIKE 'x%' or STATE|STATUS = 'x'.
type ShowLoad struct {
	Stream  bool
	DB      string
	Where   []ShowCond
	OrderBy []ShowOrder
	Limit   int // -1: none
}

func (*ShowLoad) statement() {}

// ShowCond is one condition of a SHOW … WHERE: Field (lower case) Op (=,
// LIKE) Value.
type ShowCond struct{ Field, Op, Value string }

// ShowOrder is one ORDER BY item of a SHOW.
type ShowOrder struct {
	Column string
	Desc   bool
}

// showLoad parses what follows SHOW LOAD or SHOW STREAM LOAD.
func (c *cursor) showLoad(stream bool) (Statement, error) {
	st := &ShowLoad{Stream: stream, Limit: -1}
	if c.accept("FROM") || c.accept("IN") {
		st.DB = c.ident()
	}
	if c.accept("WHERE") {
		for c.err == nil {
			cond := ShowCond{Field: strings.ToLower(c.ident())}
			switch {
			case c.acceptP("="):
				cond.Op = "="
			case c.accept("LIKE"):
				cond.Op = "LIKE"
			default:
				c.fail(c.peek())
			}
			cond.Value = c.literal()
			st.Where = append(st.Where, cond)
			if !c.accept("AND") {
				break
			}
		}
	}
	if c.accept("ORDER") {
		c.expect("BY")
		for c.err == nil {
			o := ShowOrder{Column: c.ident()}
			if c.accept("DESC") {
				o.Desc = true
			} else {
				c.accept("ASC")
			}
			st.OrderBy = append(st.OrderBy, o)
			if !c.acceptP(",") {
				break
			}
		}
	}
	if c.accept("LIMIT") {
		t := c.next()
		n, err := strconv.Atoi(t.val)
		if t.kind != tkNumber || err != nil || n < 0 {
			c.fail(t)
		}
		st.Limit = n
	}
	return st, c.end()
}
