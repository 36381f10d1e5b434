package parser

import "strconv"

// Statistics statements (Doris 2.x): ANALYZE TABLE, SHOW COLUMN STATS,
// SHOW TABLE STATS, SHOW ANALYZE, DROP STATS.

// Analyze is ANALYZE TABLE [db.]t [(c, ...)] [WITH SYNC] [WITH SAMPLE
// PERCENT n | ROWS n].
type Analyze struct {
	DB, Table string
	Columns   []string // none: every column
	Sync      bool
	// SamplePercent (1..100) or SampleRows (> 0) when WITH SAMPLE is given.
	SamplePercent int
	SampleRows    int64
}

// ShowColumnStats is SHOW COLUMN STATS [db.]t [(c, ...)].
type ShowColumnStats struct {
	DB, Table string
	Columns   []string
}

// ShowTableStats is SHOW TABLE STATS [db.]t.
type ShowTableStats struct{ DB, Table string }

// ShowAnalyze is SHOW ANALYZE [[db.]t | job_id].
type ShowAnalyze struct {
	DB, Table string
	JobID     int64 // 0: not given
}

// DropStats is DROP STATS [db.]t [(c, ...)].
type DropStats struct {
	DB, Table string
	Columns   []string
}

func (*Analyze) statement()         {}
func (*ShowColumnStats) statement() {}
func (*ShowTableStats) statement()  {}
func (*ShowAnalyze) statement()     {}
func (*DropStats) statement()       {}

// columnList reads an optional (c, ...).
func (c *cursor) columnList() []string {
	if !c.acceptP("(") {
		return nil
	}
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

// number reads an unsigned integer literal.
func (c *cursor) number() int64 {
	t := c.peek()
	n, err := strconv.ParseInt(t.val, 10, 64)
	if t.kind != tkNumber || err != nil {
		c.fail(t)
		return 0
	}
	c.i++
	return n
}

// analyze: ANALYZE TABLE ... (c.i at TABLE).
func (c *cursor) analyze() (Statement, error) {
	c.expect("TABLE")
	st := &Analyze{}
	st.DB, st.Table = c.qualified()
	st.Columns = c.columnList()
	for c.err == nil && c.accept("WITH") {
		switch t := c.next(); {
		case t.is("SYNC"):
			st.Sync = true
		case t.is("SAMPLE"):
			switch u := c.next(); {
			case u.is("PERCENT"):
				p := c.peek()
				n := c.number()
				if c.err == nil && (n <= 0 || n > 100) {
					c.fail(p)
				}
				st.SamplePercent = int(n)
			case u.is("ROWS"):
				p := c.peek()
				n := c.number()
				if c.err == nil && n <= 0 {
					c.fail(p)
				}
				st.SampleRows = n
			default:
				c.fail(u)
			}
		default:
			c.fail(t)
		}
	}
	return st, c.end()
}

// showStats: SHOW COLUMN STATS / SHOW TABLE STATS / SHOW ANALYZE (c.i
// past the keywords).
func (c *cursor) showColumnStats() (Statement, error) {
	st := &ShowColumnStats{}
	st.DB, st.Table = c.qualified()
	st.Columns = c.columnList()
	return st, c.end()
}

func (c *cursor) showTableStats() (Statement, error) {
	st := &ShowTableStats{}
	st.DB, st.Table = c.qualified()
	return st, c.end()
}

func (c *cursor) showAnalyze() (Statement, error) {
	st := &ShowAnalyze{}
	switch t := c.peek(); {
	case t.kind == tkNumber:
		st.JobID = c.number()
	case t.kind != tkEOF:
		st.DB, st.Table = c.qualified()
	}
	return st, c.end()
}

func (c *cursor) dropStats() (Statement, error) {
	st := &DropStats{}
	st.DB, st.Table = c.qualified()
	st.Columns = c.columnList()
	return st, c.end()
}
