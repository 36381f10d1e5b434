// Package types is layer 0: the SQL types dorisgo supports, their Arrow
// physical representation, and scalar values (Datum) with MySQL text
// formatting and parsing. Every other layer speaks these types.
//
// Physical mapping (one Arrow type per SQL kind, fixed so that storage,
// execution and the wire layer never disagree):
//
//	BOOLEAN            arrow.Boolean
//	TINYINT..BIGINT    Int8 / Int16 / Int32 / Int64
//	LARGEINT           Decimal128(38, 0)   (128-bit signed integer)
//	FLOAT / DOUBLE     Float32 / Float64
//	DECIMAL(p,s)       Decimal128(p, s)    (exact, never through float)
//	CHAR/VARCHAR/STRING String (UTF-8; compared byte-wise as Doris does)
//	DATE               Date32 (days since 1970-01-01)
//	DATETIME(n)        Timestamp(µs, no zone)
//	NULL               Null (the type of a bare NULL literal)
//	BITMAP / HLL       String holding the serialized structure (sql/sketch);
//	                   String, not Binary, so that every byte-string path
//	                   (storage codec, exchange, take, hashing) carries them
//	                   unchanged: arrow-go never checks a String for UTF-8
//	JSON               String holding compact JSON text (validated on input)
package types

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// Kind is a SQL type family.
type Kind uint8

const (
	Null Kind = iota
	Boolean
	TinyInt
	SmallInt
	Int
	BigInt
	LargeInt
	Float
	Double
	Decimal
	Char
	Varchar
	String
	Date
	DateTime
)

// Doris's object types: values are serialized structures (sql/sketch),
// only aggregated or passed to bitmap_* / hll_* functions, never compared.
// Numbered apart from the scalar kinds so kinds added above keep theirs.
const (
	Bitmap Kind = 100 + iota
	HLL
)

// JSON is Doris's JSON (JSONB) type: valid JSON only, kept as its compact
// text (the canonical form a cast to JSON produces), printed as JSON text.
// Numbered after the object kinds; kinds are persisted, never renumber.
const JSON Kind = 110

var kindNames = [...]string{
	Null: "NULL", Boolean: "BOOLEAN", TinyInt: "TINYINT", SmallInt: "SMALLINT", Int: "INT",
	BigInt: "BIGINT", LargeInt: "LARGEINT", Float: "FLOAT", Double: "DOUBLE", Decimal: "DECIMAL",
	Char: "CHAR", Varchar: "VARCHAR", String: "STRING", Date: "DATE", DateTime: "DATETIME",
	Bitmap: "BITMAP", HLL: "HLL", JSON: "JSON", Array: "ARRAY", Map: "MAP", Struct: "STRUCT",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// MaxDecimalPrecision is Doris DECIMALV3's limit.
const MaxDecimalPrecision = 38

// MaxVarcharLength is Doris' VARCHAR limit; STRING is unbounded (2 GiB).
const MaxVarcharLength = 65533

// T is a complete SQL type. Precision/Scale apply to DECIMAL (and Scale to
// DATETIME fractional seconds); Length to CHAR/VARCHAR.
type T struct {
	Kind      Kind `json:"k"`
	Precision int  `json:"p,omitempty"`
	Scale     int  `json:"s,omitempty"`
	Length    int  `json:"l,omitempty"`
	// Sub is a nested type's element types as type text (nested.go).
	Sub string `json:"sub,omitempty"`
}

// Convenience constructors for the fixed types.
var (
	NullT     = T{Kind: Null}
	BoolT     = T{Kind: Boolean}
	TinyIntT  = T{Kind: TinyInt}
	SmallIntT = T{Kind: SmallInt}
	IntT      = T{Kind: Int}
	BigIntT   = T{Kind: BigInt}
	LargeIntT = T{Kind: LargeInt}
	FloatT    = T{Kind: Float}
	DoubleT   = T{Kind: Double}
	StringT   = T{Kind: String}
	DateT     = T{Kind: Date}
	DateTimeT = T{Kind: DateTime}
	BitmapT   = T{Kind: Bitmap}
	HLLT      = T{Kind: HLL}
	JSONT     = T{Kind: JSON}
)

// DecimalT returns DECIMAL(p,s).
func DecimalT(p, s int) T { return T{Kind: Decimal, Precision: p, Scale: s} }

// VarcharT returns VARCHAR(n).
func VarcharT(n int) T { return T{Kind: Varchar, Length: n} }

// CharT returns CHAR(n).
func CharT(n int) T { return T{Kind: Char, Length: n} }

// String renders the type as SHOW CREATE TABLE / DESC print it.
func (t T) String() string {
	switch t.Kind {
	case Decimal:
		return fmt.Sprintf("DECIMAL(%d,%d)", t.Precision, t.Scale)
	case Char, Varchar:
		return fmt.Sprintf("%s(%d)", t.Kind, t.Length)
	case DateTime:
		if t.Scale > 0 {
			return fmt.Sprintf("DATETIME(%d)", t.Scale)
		}
	case Array, Map, Struct:
		return nestedString(t)
	}
	return t.Kind.String()
}

// Lower is the lower-case spelling used in DESC and information_schema.
func (t T) Lower() string {
	if t.IsNested() {
		return nestedLower(t) // STRUCT field names keep their case
	}
	return strings.ToLower(t.String())
}

// IsInteger reports TINYINT..LARGEINT (BOOLEAN excluded).
func (t T) IsInteger() bool { return t.Kind >= TinyInt && t.Kind <= LargeInt }

// IsNumeric reports integer, float and decimal kinds.
func (t T) IsNumeric() bool { return t.Kind >= TinyInt && t.Kind <= Decimal }

// IsFloat reports FLOAT and DOUBLE.
func (t T) IsFloat() bool { return t.Kind == Float || t.Kind == Double }

// IsOpaque reports the types Doris reads only through their functions
// (BITMAP, HLL, JSON, ARRAY, MAP, STRUCT): never compared, grouped or ordered.
func (t T) IsOpaque() bool { return t.IsObject() || t.Kind == JSON || t.IsNested() }

// IsString reports CHAR, VARCHAR and STRING.
func (t T) IsString() bool { return t.Kind == Char || t.Kind == Varchar || t.Kind == String }

// IsObject reports BITMAP and HLL.
func (t T) IsObject() bool { return t.Kind == Bitmap || t.Kind == HLL }

// IsTemporal reports DATE and DATETIME.
func (t T) IsTemporal() bool { return t.Kind == Date || t.Kind == DateTime }

// SameFamily is true when two types have the same physical representation
// and compare alike: all string kinds are one family, as Doris treats
// CHAR/VARCHAR/STRING of any length as the same type for bucket hashing.
func (t T) SameFamily(o T) bool {
	if t.IsString() && o.IsString() {
		return true
	}
	if t.Kind != o.Kind {
		return false
	}
	if t.Kind == Decimal {
		return t.Precision == o.Precision && t.Scale == o.Scale
	}
	if t.IsNested() {
		return t.Sub == o.Sub
	}
	if t.Kind == DateTime {
		// Same Timestamp(µs) array, but a DATETIME(p) column holds values
		// rounded to p digits: DATETIME(6) → (3) must go through a cast.
		return t.Scale == o.Scale
	}
	return true
}

// Width is the estimated byte width of one value, as DORIS-PLANNING.md §2
// uses for cost: 1 BOOLEAN/TINYINT, 2 SMALLINT, 4 INT/FLOAT/DATE,
// 8 BIGINT/DOUBLE/DATETIME, 16 LARGEINT/DECIMAL/strings.
func (t T) Width() int {
	switch t.Kind {
	case Boolean, TinyInt:
		return 1
	case SmallInt:
		return 2
	case Int, Float, Date:
		return 4
	case BigInt, Double, DateTime:
		return 8
	case Null:
		return 1
	}
	return 16
}

var (
	timestampUS = &arrow.TimestampType{Unit: arrow.Microsecond}
)

// Arrow returns the Arrow physical type for t.
func (t T) Arrow() arrow.DataType {
	switch t.Kind {
	case Null:
		return arrow.Null
	case Boolean:
		return arrow.FixedWidthTypes.Boolean
	case TinyInt:
		return arrow.PrimitiveTypes.Int8
	case SmallInt:
		return arrow.PrimitiveTypes.Int16
	case Int:
		return arrow.PrimitiveTypes.Int32
	case BigInt:
		return arrow.PrimitiveTypes.Int64
	case LargeInt:
		return &arrow.Decimal128Type{Precision: 38, Scale: 0}
	case Float:
		return arrow.PrimitiveTypes.Float32
	case Double:
		return arrow.PrimitiveTypes.Float64
	case Decimal:
		return &arrow.Decimal128Type{Precision: int32(t.Precision), Scale: int32(t.Scale)}
	case Char, Varchar, String, Bitmap, HLL, JSON:
		return arrow.BinaryTypes.String
	case Date:
		return arrow.FixedWidthTypes.Date32
	case DateTime:
		return timestampUS
	case Array, Map, Struct:
		return nestedArrow(t)
	}
	panic(fmt.Sprintf("types: no arrow type for %v", t))
}

// Column is a named, typed, nullable column: a table column or a result column.
type Column struct {
	Name     string `json:"name"`
	Type     T      `json:"type"`
	Nullable bool   `json:"nullable"`
}

// ArrowField returns the Arrow field for the column.
func (c Column) ArrowField() arrow.Field {
	return arrow.Field{Name: c.Name, Type: c.Type.Arrow(), Nullable: c.Nullable}
}

// ArrowSchema builds an Arrow schema from columns.
func ArrowSchema(cols []Column) *arrow.Schema {
	fs := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fs[i] = c.ArrowField()
	}
	return arrow.NewSchema(fs, nil)
}
