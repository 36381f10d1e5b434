package wire

import (
	"github.com/go-mysql-org/go-mysql/mysql"

	"github.com/dorisgo/dorisgo/sql/types"
)

// Collation ids sent in column definitions and the greeting. 45 is
// utf8mb4_general_ci, which 5.7-era clients know (255 is MySQL 8 only).
const (
	collationUTF8MB4 = 45
	collationBinary  = 63
)

// field maps a column to MySQL metadata. Types follow Doris FE
// (PrimitiveType.toMysqlType) and lengths/flags follow MySQL 5.7:
//
//	BOOLEAN      TINY(1)                 binary, BINARY|NUM
//	TINYINT      TINY(4)    SMALLINT SHORT(6)   INT LONG(11)   BIGINT LONGLONG(20)
//	LARGEINT     STRING(40 chars), utf8mb4   (Doris: MYSQL_TYPE_STRING; the value is decimal text)
//	FLOAT        FLOAT(12), decimals 31  DOUBLE DOUBLE(22), decimals 31 (31 = not fixed)
//	DECIMAL(p,s) NEWDECIMAL(p+1+[s>0]), decimals s
//	CHAR(n)      STRING(4n)  VARCHAR(n) VAR_STRING(4n)  STRING BLOB(2^32-1), all utf8mb4
//	DATE         DATE(10)    DATETIME(s) DATETIME(19[+1+s]), decimals s, binary
//	ARRAY/MAP/STRUCT STRING(2^24-1), utf8mb4, the value's Doris text
//
// NOT_NULL and PRI_KEY come from the column; UNSIGNED is never set.
func field(c Column) *mysql.Field {
	f := &mysql.Field{
		Schema:   []byte(c.Schema),
		Table:    []byte(c.Table),
		OrgTable: []byte(c.OrgTable),
		Name:     []byte(c.Name),
		OrgName:  []byte(c.OrgName),
		Charset:  collationBinary,
	}
	const numFlags = mysql.BINARY_FLAG | mysql.NUM_FLAG
	t := c.Type
	switch t.Kind {
	case types.Null:
		f.Type, f.Flag = mysql.MYSQL_TYPE_NULL, mysql.BINARY_FLAG
	case types.Boolean:
		f.Type, f.ColumnLength, f.Flag = mysql.MYSQL_TYPE_TINY, 1, numFlags
	case types.TinyInt:
		f.Type, f.ColumnLength, f.Flag = mysql.MYSQL_TYPE_TINY, 4, numFlags
	case types.SmallInt:
		f.Type, f.ColumnLength, f.Flag = mysql.MYSQL_TYPE_SHORT, 6, numFlags
	case types.Int:
		f.Type, f.ColumnLength, f.Flag = mysql.MYSQL_TYPE_LONG, 11, numFlags
	case types.BigInt:
		f.Type, f.ColumnLength, f.Flag = mysql.MYSQL_TYPE_LONGLONG, 20, numFlags
	case types.LargeInt:
		f.Type, f.ColumnLength, f.Charset = mysql.MYSQL_TYPE_STRING, 40*4, collationUTF8MB4
	case types.Float:
		f.Type, f.ColumnLength, f.Decimal, f.Flag = mysql.MYSQL_TYPE_FLOAT, 12, 31, numFlags
	case types.Double:
		f.Type, f.ColumnLength, f.Decimal, f.Flag = mysql.MYSQL_TYPE_DOUBLE, 22, 31, numFlags
	case types.Decimal:
		n := t.Precision + 1 // sign
		if t.Scale > 0 {
			n++ // point
		}
		f.Type, f.ColumnLength, f.Decimal, f.Flag = mysql.MYSQL_TYPE_NEWDECIMAL, uint32(n), uint8(t.Scale), numFlags
	case types.Char:
		f.Type, f.ColumnLength, f.Charset = mysql.MYSQL_TYPE_STRING, charLen(t.Length), collationUTF8MB4
	case types.Varchar:
		f.Type, f.ColumnLength, f.Charset = mysql.MYSQL_TYPE_VAR_STRING, charLen(t.Length), collationUTF8MB4
	case types.String:
		f.Type, f.ColumnLength, f.Charset, f.Flag = mysql.MYSQL_TYPE_BLOB, 1<<32-1, collationUTF8MB4, mysql.BLOB_FLAG
	case types.Date:
		f.Type, f.ColumnLength, f.Flag = mysql.MYSQL_TYPE_DATE, 10, mysql.BINARY_FLAG
	case types.DateTime:
		n := 19
		if t.Scale > 0 {
			n += 1 + t.Scale
		}
		f.Type, f.ColumnLength, f.Decimal, f.Flag = mysql.MYSQL_TYPE_DATETIME, uint32(n), uint8(t.Scale), mysql.BINARY_FLAG
	case types.Array, types.Map, types.Struct:
		// Doris sends nested values as their text in a STRING column.
		f.Type, f.ColumnLength, f.Charset = mysql.MYSQL_TYPE_STRING, 1<<24-1, collationUTF8MB4
	default:
		f.Type, f.Charset = mysql.MYSQL_TYPE_VAR_STRING, collationUTF8MB4
	}
	if !c.Nullable {
		f.Flag |= mysql.NOT_NULL_FLAG
	}
	if c.PrimaryKey {
		f.Flag |= mysql.PRI_KEY_FLAG
	}
	return f
}

// charLen is the byte length of n utf8mb4 characters (4 bytes each).
func charLen(n int) uint32 {
	if n <= 0 {
		n = types.MaxVarcharLength
	}
	return uint32(n) * 4
}

// paramPlaceholder is the definition sent for parameters the session did not describe.
var paramPlaceholder = Column{Name: "?", Type: types.VarcharT(0), Nullable: true}
