package parser

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// createTable parses a Doris or MySQL CREATE TABLE with a column list
// (DORIS-PLANNING.md §7). CREATE TABLE ... LIKE / AS SELECT are left to
// vitess (ok == false). Index, charset and storage options are accepted
// and dropped.
func (c *cursor) createTable() (ct *CreateTable, ok bool) {
	c.i = 1
	c.accept("TEMPORARY")
	c.expect("TABLE")
	ct = &CreateTable{Properties: map[string]string{}}
	if c.accept("IF") {
		c.expect("NOT")
		c.expect("EXISTS")
		ct.IfNotExists = true
	}
	ct.DB, ct.Name = c.qualified()
	if c.err == nil && (!c.peek().isP("(") || c.peekAt(1).is("SELECT") || c.peekAt(1).is("LIKE")) {
		c.err = nil
		return nil, false
	}
	c.expectP("(")
	for c.err == nil {
		c.tableElement(ct)
		if !c.acceptP(",") {
			break
		}
	}
	c.expectP(")")
	for c.err == nil && c.peek().kind != tkEOF {
		c.tableOption(ct)
	}
	for _, pk := range ct.PrimaryKey {
		for i := range ct.Columns {
			if strings.EqualFold(ct.Columns[i].Name, pk) {
				ct.Columns[i].Nullable = false
			}
		}
	}
	return ct, true
}

// tableElement reads a column definition or an index/constraint clause.
func (c *cursor) tableElement(ct *CreateTable) {
	t := c.peek()
	switch t.upper() {
	case "CONSTRAINT":
		c.next()
		if !c.peek().is("PRIMARY") && !c.peek().is("UNIQUE") && !c.peek().is("FOREIGN") && !c.peek().is("CHECK") {
			c.ident()
		}
		c.tableElement(ct)
		return
	case "PRIMARY":
		c.next()
		c.expect("KEY")
		c.indexTail(func(cols []string) { ct.PrimaryKey = append(ct.PrimaryKey, cols...) })
		return
	case "UNIQUE", "KEY", "INDEX", "FULLTEXT", "SPATIAL", "FOREIGN", "CHECK":
		if !c.peekAt(1).isP(",") && !c.peekAt(1).isP(")") && t.kind == tkIdent {
			c.next()
			c.indexTail(nil)
			return
		}
	}
	c.columnDef(ct)
}

// indexTail skips an index definition after its leading keyword(s): an
// optional name, "(cols)", then any options up to the next ',' or ')'.
func (c *cursor) indexTail(cols func([]string)) {
	for c.err == nil && !c.peek().isP("(") {
		if c.peek().kind == tkEOF {
			c.fail(c.peek())
			return
		}
		c.next()
	}
	if cols != nil {
		cols(c.indexColumns())
	}
	for c.err == nil && !c.peek().isP(",") && !c.peek().isP(")") {
		if c.peek().kind == tkEOF {
			c.fail(c.peek())
			return
		}
		c.skipBalanced()
	}
}

// indexColumns reads "(a, b(10) DESC, ...)" returning the column names.
func (c *cursor) indexColumns() []string {
	c.expectP("(")
	var out []string
	for c.err == nil {
		out = append(out, c.ident())
		for c.err == nil && !c.peek().isP(",") && !c.peek().isP(")") {
			c.skipBalanced()
		}
		if !c.acceptP(",") {
			break
		}
	}
	c.expectP(")")
	return out
}

var aggNames = map[string]bool{"SUM": true, "MAX": true, "MIN": true, "REPLACE": true, "REPLACE_IF_NOT_NULL": true,
	"BITMAP_UNION": true, "HLL_UNION": true}

// columnDef: name type [agg] {NULL | NOT NULL | DEFAULT v | COMMENT 's' |
// AUTO_INCREMENT[(n)] | PRIMARY KEY | UNIQUE [KEY] | KEY | ON UPDATE f |
// CHARACTER SET x | COLLATE x}.
func (c *cursor) columnDef(ct *CreateTable) {
	col := ColumnDef{Name: c.ident(), Nullable: true}
	col.Type = c.columnType()
	for c.err == nil && !c.peek().isP(",") && !c.peek().isP(")") {
		t := c.next()
		switch u := t.upper(); {
		case aggNames[u] && col.Agg == "":
			col.Agg = u
		case u == "NULL":
			col.Nullable = true
		case u == "NOT":
			c.expect("NULL")
			col.Nullable = false
		case u == "DEFAULT":
			c.columnDefault(&col)
		case u == "COMMENT":
			col.Comment = c.str()
		case u == "AUTO_INCREMENT":
			col.AutoIncrement = true
			if c.peek().isP("(") {
				c.skipBalanced()
			}
		case u == "PRIMARY":
			c.expect("KEY")
			ct.PrimaryKey = append(ct.PrimaryKey, col.Name)
		case u == "UNIQUE":
			c.accept("KEY")
		case u == "KEY":
		case u == "ON":
			c.expect("UPDATE")
			c.next()
			if c.peek().isP("(") {
				c.skipBalanced()
			}
		case u == "CHARACTER" || u == "CHARSET" || u == "COLLATE":
			if u == "CHARACTER" {
				c.expect("SET")
			}
			c.acceptP("=")
			c.literal()
		case u == "SIGNED" || u == "UNSIGNED" || u == "ZEROFILL" || u == "BINARY":
		default:
			c.fail(t)
		}
	}
	ct.Columns = append(ct.Columns, col)
}

// columnDefault reads the value after DEFAULT.
func (c *cursor) columnDefault(col *ColumnDef) {
	t := c.peek()
	switch {
	case t.is("NULL"):
		c.next()
		col.DefaultNull = true
	case t.isP("("):
		start := t.pos
		c.skipBalanced()
		v := c.src[start:c.peek().pos]
		col.Default = &v
	case t.kind == tkIdent:
		c.next()
		v := strings.ToUpper(t.val)
		if c.peek().isP("(") {
			c.skipBalanced()
		}
		col.Default = &v
	default:
		v := c.literal()
		col.Default = &v
	}
}

// columnType reads a type name with its arguments and maps it onto
// types.T, MySQL spellings included (INT UNSIGNED widens to BIGINT so every
// value still fits). Unknown types are syntax errors at the type name.
func (c *cursor) columnType() types.T {
	t := c.next()
	if t.kind != tkIdent {
		c.fail(t)
		return types.T{}
	}
	name := t.upper()
	if nt, ok := c.nestedType(name); ok {
		return nt
	}
	var args []int
	if c.peek().isP("(") {
		c.next()
		for c.err == nil {
			n := c.next()
			v, err := strconv.Atoi(n.val)
			if n.kind != tkNumber || err != nil {
				c.fail(n)
				return types.T{}
			}
			args = append(args, v)
			if !c.acceptP(",") {
				break
			}
		}
		c.expectP(")")
	}
	if name == "DOUBLE" {
		c.accept("PRECISION")
	}
	unsigned := false
	for {
		if c.accept("UNSIGNED") {
			unsigned = true
		} else if !c.accept("SIGNED") && !c.accept("ZEROFILL") {
			break
		}
	}
	arg := func(i, def int) int {
		if i < len(args) {
			return args[i]
		}
		return def
	}
	bad := func(format string, a ...any) types.T {
		if c.err == nil {
			c.err = sqlerr.ParseError.New(fmt.Sprintf(format, a...))
		}
		return types.T{}
	}
	switch name {
	case "TINYINT":
		if unsigned {
			return types.SmallIntT
		}
		return types.TinyIntT
	case "SMALLINT":
		if unsigned {
			return types.IntT
		}
		return types.SmallIntT
	case "MEDIUMINT":
		return types.IntT
	case "INT", "INTEGER":
		if unsigned {
			return types.BigIntT
		}
		return types.IntT
	case "BIGINT":
		if unsigned {
			return types.LargeIntT
		}
		return types.BigIntT
	case "LARGEINT":
		return types.LargeIntT
	case "BOOLEAN", "BOOL":
		return types.BoolT
	case "FLOAT":
		if len(args) == 1 && args[0] > 24 {
			return types.DoubleT
		}
		return types.FloatT
	case "DOUBLE", "REAL":
		return types.DoubleT
	case "DECIMAL", "DECIMALV3", "DECIMALV2", "NUMERIC", "DEC", "FIXED":
		p, s := arg(0, 10), arg(1, 0)
		if p < 1 || p > types.MaxDecimalPrecision {
			return bad("Too-big precision %d specified for '%s'. Maximum is %d.", p, name, types.MaxDecimalPrecision)
		}
		if s > p {
			return bad("For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column '%s').", name)
		}
		return types.DecimalT(p, s)
	case "CHAR", "CHARACTER", "NCHAR":
		if n := arg(0, 1); n >= 1 && n <= 255 {
			return types.CharT(n)
		}
		return bad("Column length too big for %s (max = 255)", name)
	case "VARCHAR", "NVARCHAR":
		if n := arg(0, types.MaxVarcharLength); n >= 1 && n <= types.MaxVarcharLength {
			return types.VarcharT(n)
		}
		return bad("Column length too big for %s (max = %d)", name, types.MaxVarcharLength)
	case "STRING", "TEXT", "TINYTEXT", "MEDIUMTEXT", "LONGTEXT", "BLOB", "TINYBLOB", "MEDIUMBLOB", "LONGBLOB", "VARBINARY", "BINARY":
		return types.StringT
	case "BITMAP":
		return types.BitmapT
	case "HLL":
		return types.HLLT
	case "JSON", "JSONB":
		return types.JSONT
	case "DATE", "DATEV2":
		return types.DateT
	case "DATETIME", "DATETIMEV2", "TIMESTAMP":
		if n := arg(0, 0); n >= 0 && n <= 6 {
			return types.T{Kind: types.DateTime, Scale: n}
		}
		return bad("Too-big precision %d specified for '%s'. Maximum is 6.", arg(0, 0), name)
	}
	c.fail(t)
	return types.T{}
}

// tableOption reads one clause after the column list.
func (c *cursor) tableOption(ct *CreateTable) {
	t := c.next()
	switch u := t.upper(); u {
	case "ENGINE":
		c.acceptP("=")
		ct.Engine = c.literal()
	case "DUPLICATE", "UNIQUE", "AGGREGATE":
		c.expect("KEY")
		ct.Keys = map[string]KeysKind{"DUPLICATE": KeysDuplicate, "UNIQUE": KeysUnique, "AGGREGATE": KeysAggregate}[u]
		ct.KeyColumns = c.identList()
	case "PRIMARY":
		c.expect("KEY")
		ct.PrimaryKey = append(ct.PrimaryKey, c.identList()...)
	case "COMMENT":
		c.acceptP("=")
		ct.Comment = c.str()
	case "PARTITION":
		c.expect("BY")
		c.partitions(ct)
	case "DISTRIBUTED":
		c.expect("BY")
		d := &DistDef{Buckets: 10}
		if c.accept("RANDOM") {
			d.Random = true
		} else {
			c.expect("HASH")
			d.Columns = c.identList()
		}
		if c.accept("BUCKETS") {
			if !c.accept("AUTO") {
				n := c.next()
				v, err := strconv.Atoi(n.val)
				if n.kind != tkNumber || err != nil || v <= 0 {
					c.fail(n)
				}
				d.Buckets = v
			} else {
				d.Buckets = 0
			}
		}
		ct.Dist = d
	case "PROPERTIES":
		for k, v := range c.properties() {
			ct.Properties[k] = v
		}
	case "DEFAULT":
		// DEFAULT CHARSET=x / DEFAULT COLLATE=x: the next option names it.
	case "CHARACTER", "CHARSET", "COLLATE", "AUTO_INCREMENT", "ROW_FORMAT", "KEY_BLOCK_SIZE",
		"AVG_ROW_LENGTH", "MAX_ROWS", "MIN_ROWS", "CHECKSUM", "STATS_PERSISTENT", "PACK_KEYS", "COMPRESSION":
		if u == "CHARACTER" {
			c.expect("SET")
		}
		c.acceptP("=")
		c.literal()
	case "ROLLUP":
		c.skipBalanced()
	default:
		if !t.isP(",") {
			c.fail(t)
		}
	}
}

// partitions: RANGE|LIST (cols) (PARTITION p VALUES ..., ...).
func (c *cursor) partitions(ct *CreateTable) {
	switch {
	case c.accept("RANGE"):
		ct.PartKind = PartRange
	case c.accept("LIST"):
		ct.PartKind = PartList
	default:
		c.fail(c.peek())
		return
	}
	ct.PartColumns = c.identList()
	if len(ct.PartColumns) > 0 {
		ct.PartColumn = ct.PartColumns[0]
	}
	c.expectP("(")
	if c.acceptP(")") {
		return
	}
	for c.err == nil {
		c.expect("PARTITION")
		c.accept("IF") // PARTITION IF NOT EXISTS p
		if c.accept("NOT") {
			c.expect("EXISTS")
		}
		p := PartitionDef{Name: c.ident()}
		c.expect("VALUES")
		c.partitionBounds(&p, ct.PartKind)
		if c.peek().isP("(") { // per-partition properties
			c.skipBalanced()
		}
		ct.Partitions = append(ct.Partitions, p)
		if !c.acceptP(",") {
			break
		}
	}
	c.expectP(")")
}

// valueTuple reads ("v", ...); a MAXVALUE inside makes the bound open.
// partitionBounds reads what follows a partition's VALUES: IN (...) for a
// list partition, LESS THAN (v | MAXVALUE) or [(lo), (hi)) for a range
// one; kind is the table's (PartNone: not known, ALTER TABLE ADD PARTITION).
func (c *cursor) partitionBounds(p *PartitionDef, kind PartKind) {
	switch {
	case kind == PartList || kind == PartNone && c.peek().is("IN"):
		c.expect("IN")
		c.expectP("(")
		for c.err == nil {
			// Doris's one-value tuple form, as SHOW CREATE TABLE prints it: IN (("a"), ("b")).
			if c.acceptP("(") {
				p.In = append(p.In, c.literal())
				c.expectP(")")
			} else {
				p.In = append(p.In, c.literal())
			}
			if !c.acceptP(",") {
				break
			}
		}
		c.expectP(")")
	case c.accept("LESS"):
		c.expect("THAN")
		if c.accept("MAXVALUE") {
			p.MaxValue = true
		} else {
			p.LessThan, p.MaxValue = c.valueTuple()
		}
	case c.acceptP("["):
		p.Lower, _ = c.valueTuple()
		c.expectP(",")
		p.Upper, _ = c.valueTuple()
		c.expectP(")")
	default:
		c.fail(c.peek())
	}
}

func (c *cursor) valueTuple() (vals []string, maxValue bool) {
	c.expectP("(")
	for c.err == nil {
		if c.accept("MAXVALUE") {
			maxValue = true
		} else {
			vals = append(vals, c.literal())
		}
		if !c.acceptP(",") {
			break
		}
	}
	c.expectP(")")
	if maxValue {
		return nil, true
	}
	return vals, false
}
