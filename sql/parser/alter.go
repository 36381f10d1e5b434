package parser

import (
	"strings"
)

// AlterTable is a Doris ALTER TABLE [db.]t clause[, clause ...] with the
// clauses dorisgo runs or refuses by name (index clauses are left to
// vitess).
type AlterTable struct {
	DB, Table string
	Ops       []AlterOp
}

// AlterOpKind is one clause of ALTER TABLE.
type AlterOpKind uint8

const (
	AlterAddColumn       AlterOpKind = iota // ADD COLUMN c T ... | ADD COLUMN (c1 T, c2 T)
	AlterDropColumn                         // DROP COLUMN c
	AlterModifyColumn                       // MODIFY COLUMN c T ... | MODIFY COLUMN c COMMENT 's'
	AlterRenameColumn                       // RENAME COLUMN a b
	AlterRename                             // RENAME t2 | RENAME TO t2
	AlterModifyComment                      // MODIFY COMMENT 's'
	AlterAddPartition                       // ADD PARTITION [IF NOT EXISTS] p VALUES ... [DISTRIBUTED BY ...]
	AlterDropPartition                      // DROP PARTITION [IF EXISTS] p [FORCE]
	AlterModifyPartition                    // MODIFY PARTITION p SET (...)
	AlterSetProperties                      // SET ("k" = "v", ...)
	AlterOrderBy                            // ORDER BY (c1, c2, ...) [FROM rollup]: Order names the columns
	AlterUnsupported                        // a clause dorisgo does not run: Text names it
)

// AlterOp is one ALTER TABLE clause; which fields are set depends on Kind.
type AlterOp struct {
	Kind    AlterOpKind
	Columns []AlterColumn // ADD (one or more), MODIFY (one)
	// CommentOnly: MODIFY COLUMN c COMMENT 's' (no type given).
	CommentOnly bool
	// Name is the column (DROP, RENAME COLUMN), the new table name
	// (RENAME) or the partition (ADD/DROP/MODIFY PARTITION); NewName the
	// new column name of RENAME COLUMN.
	Name, NewName string
	IfExists      bool // DROP PARTITION IF EXISTS; ADD PARTITION IF NOT EXISTS
	Comment       string
	Partition     *PartitionDef
	Dist          *DistDef
	Properties    map[string]string
	// Rollup is the TO/FROM rollup of a column clause (refused).
	Rollup string
	// Text is the clause's words, for the error naming an unsupported one.
	Text string
	// Order is ORDER BY's column list.
	Order []string
}

// AlterColumn is a column definition of ADD or MODIFY COLUMN with its
// position.
type AlterColumn struct {
	ColumnDef
	IsKey bool   // KEY was written
	First bool   // FIRST
	After string // AFTER c
}

func (*AlterTable) statement() {}

// alterTable parses ALTER TABLE; ok is false for forms left to vitess
// (index clauses, and anything it cannot place).
func (c *cursor) alterTable() (st Statement, ok bool) {
	c.i = 2
	db, tbl := c.qualified()
	if c.err != nil {
		c.err = nil
		return nil, false
	}
	at := &AlterTable{DB: db, Table: tbl}
	start := c.i
	for c.err == nil {
		op, isOurs := c.alterOp()
		if !isOurs {
			c.err = nil
			c.i = start
			return nil, false
		}
		at.Ops = append(at.Ops, op)
		if !c.acceptP(",") {
			break
		}
	}
	if c.err == nil {
		_ = c.end()
	}
	return at, true
}

// alterWordsEnd reads the rest of an unsupported clause up to the next
// top-level ',' and returns its words.
func (c *cursor) alterRest(first int) string {
	for c.err == nil && c.peek().kind != tkEOF && !c.peek().isP(",") {
		c.skipBalanced()
	}
	if first >= len(c.toks) {
		return ""
	}
	end := len(c.src)
	if c.i < len(c.toks) {
		end = c.toks[c.i].pos
	}
	return strings.Join(strings.Fields(c.src[c.toks[first].pos:end]), " ")
}

// alterOp reads one clause; isOurs is false for an index clause.
func (c *cursor) alterOp() (op AlterOp, isOurs bool) {
	first := c.i
	t := c.next()
	switch u := t.upper(); u {
	case "ADD":
		switch {
		case c.peek().is("INDEX") || c.peek().is("KEY") || c.peek().is("UNIQUE") || c.peek().is("FULLTEXT") ||
			c.peek().is("SPATIAL") || c.peek().is("PRIMARY") || c.peek().is("CONSTRAINT") || c.peek().is("FOREIGN"):
			return op, false
		case c.accept("COLUMN"):
			op.Kind = AlterAddColumn
			if c.acceptP("(") {
				for c.err == nil {
					op.Columns = append(op.Columns, c.alterColumn())
					if !c.acceptP(",") {
						break
					}
				}
				c.expectP(")")
			} else {
				op.Columns = append(op.Columns, c.alterColumn())
			}
			c.alterColumnTail(&op)
			return op, true
		case c.peek().kind == tkIdent && !c.peek().is("PARTITION") && !c.peek().is("TEMPORARY") && !c.peek().is("ROLLUP") &&
			(c.peekAt(1).kind == tkIdent):
			// MySQL's ADD c T (COLUMN is optional there).
			op.Kind = AlterAddColumn
			op.Columns = append(op.Columns, c.alterColumn())
			c.alterColumnTail(&op)
			return op, true
		case c.peek().is("PARTITION"):
			c.next()
			op.Kind = AlterAddPartition
			if c.accept("IF") {
				c.expect("NOT")
				c.expect("EXISTS")
				op.IfExists = true
			}
			op.Name = c.ident()
			op.Partition = c.partitionValues(op.Name)
			if c.peek().isP("(") {
				op.Properties = c.properties()
			}
			if c.peek().is("DISTRIBUTED") {
				ct := &CreateTable{Properties: map[string]string{}}
				c.tableOption(ct)
				op.Dist = ct.Dist
			}
			return op, true
		}
	case "DROP":
		switch {
		case c.peek().is("INDEX") || c.peek().is("KEY") || c.peek().is("PRIMARY") || c.peek().is("FOREIGN") || c.peek().is("CONSTRAINT"):
			return op, false
		case c.accept("COLUMN"):
			op.Kind = AlterDropColumn
			op.Name = c.ident()
			if c.accept("FROM") {
				op.Rollup = c.ident()
			}
			if c.peek().is("PROPERTIES") {
				c.next()
				op.Properties = c.properties()
			}
			return op, true
		case c.accept("PARTITION"):
			op.Kind = AlterDropPartition
			if c.accept("IF") {
				c.expect("EXISTS")
				op.IfExists = true
			}
			op.Name = c.ident()
			c.accept("FORCE")
			return op, true
		}
	case "MODIFY":
		switch {
		case c.accept("COLUMN"):
			op.Kind = AlterModifyColumn
			if c.peekAt(1).is("COMMENT") {
				op.CommentOnly = true
				op.Name = c.ident()
				c.expect("COMMENT")
				op.Comment = c.str()
				return op, true
			}
			op.Columns = append(op.Columns, c.alterColumn())
			c.alterColumnTail(&op)
			return op, true
		case c.accept("COMMENT"):
			op.Kind = AlterModifyComment
			op.Comment = c.str()
			return op, true
		case c.accept("PARTITION"):
			op.Kind = AlterModifyPartition
			if c.peek().isP("(") {
				c.skipBalanced()
				op.Name = "(...)"
			} else {
				op.Name = c.ident()
			}
			c.expect("SET")
			op.Properties = c.properties()
			return op, true
		}
	case "RENAME":
		switch {
		case c.accept("COLUMN"):
			op.Kind = AlterRenameColumn
			op.Name = c.ident()
			c.accept("TO")
			op.NewName = c.ident()
			return op, true
		case c.peek().is("INDEX") || c.peek().is("KEY"):
			return op, false
		case c.peek().is("ROLLUP") || c.peek().is("PARTITION"):
		default:
			op.Kind = AlterRename
			if c.peek().is("TO") || c.peek().is("AS") {
				c.next()
			}
			op.Name = c.ident()
			return op, true
		}
	case "SET":
		if c.peek().isP("(") {
			op.Kind = AlterSetProperties
			op.Properties = c.properties()
			return op, true
		}
	case "ORDER":
		if c.accept("BY") && c.peek().isP("(") {
			c.next()
			op.Kind = AlterOrderBy
			for c.err == nil {
				op.Order = append(op.Order, c.ident())
				if !c.acceptP(",") {
					break
				}
			}
			c.expectP(")")
			if c.accept("FROM") {
				op.Rollup = c.ident()
			}
			c.alterColumnTail(&op)
			return op, true
		}
	case "COMMENT":
		op.Kind = AlterModifyComment
		c.acceptP("=")
		op.Comment = c.str()
		return op, true
	}
	op.Kind = AlterUnsupported
	op.Text = c.alterRest(first)
	return op, true
}

// alterColumn reads a column definition of ADD/MODIFY COLUMN: name type
// [KEY] [agg] {NULL | NOT NULL | DEFAULT v | COMMENT 's' | AUTO_INCREMENT}
// [FIRST | AFTER c].
func (c *cursor) alterColumn() AlterColumn {
	col := AlterColumn{ColumnDef: ColumnDef{Name: c.ident(), Nullable: true}}
	col.Type = c.columnType()
	for c.err == nil {
		t := c.peek()
		if t.kind == tkEOF || t.isP(",") || t.isP(")") || t.is("TO") || t.is("PROPERTIES") || t.is("FROM") {
			return col
		}
		c.next()
		switch u := t.upper(); {
		case u == "KEY":
			col.IsKey = true
		case aggNames[u] && col.Agg == "":
			col.Agg = u
		case u == "NULL":
			col.Nullable = true
		case u == "NOT":
			c.expect("NULL")
			col.Nullable = false
		case u == "DEFAULT":
			c.columnDefault(&col.ColumnDef)
		case u == "COMMENT":
			col.Comment = c.str()
		case u == "AUTO_INCREMENT":
			col.AutoIncrement = true
			if c.peek().isP("(") {
				c.skipBalanced()
			}
		case u == "FIRST":
			col.First = true
		case u == "AFTER":
			col.After = c.ident()
		case u == "CHARACTER" || u == "CHARSET" || u == "COLLATE":
			if u == "CHARACTER" {
				c.expect("SET")
			}
			c.acceptP("=")
			c.literal()
		default:
			c.fail(t)
		}
	}
	return col
}

// alterColumnTail reads [TO rollup] [PROPERTIES (...)] after column clauses.
func (c *cursor) alterColumnTail(op *AlterOp) {
	if c.accept("TO") || c.accept("IN") {
		op.Rollup = c.ident()
	}
	if c.accept("PROPERTIES") {
		op.Properties = c.properties()
	}
}

// partitionValues reads an ADD PARTITION's VALUES clause: LESS THAN
// (v | MAXVALUE), [(lo), (hi)) or IN (...).
func (c *cursor) partitionValues(name string) *PartitionDef {
	p := &PartitionDef{Name: name}
	c.expect("VALUES")
	c.partitionBounds(p, PartNone)
	return p
}

// AlterJobs is SHOW ALTER ... or CANCEL ALTER ...: Doris's schema change
// and rollup jobs, which dorisgo does not run (heavy changes answer 1235).
type AlterJobs struct {
	Text string
}

func (*AlterJobs) statement() {}

// ShowAlterColumn is SHOW ALTER TABLE COLUMN [FROM db] [WHERE …] [ORDER
// BY …] [LIMIT n]: the schema change jobs (the clauses as SHOW LOAD's).
type ShowAlterColumn struct{ ShowLoad }

func (*ShowAlterColumn) statement() {}

// CancelAlterColumn is CANCEL ALTER TABLE COLUMN FROM [db.]t.
type CancelAlterColumn struct{ DB, Table string }

func (*CancelAlterColumn) statement() {}
