package types

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
)

// Doris's nested types. Their element types live in T.Sub as type text
// (the spelling String prints), so T stays a comparable value that
// persists as JSON; Elem, MapKV and Fields parse it (memoized).
//
//	ARRAY<T>            arrow List of T (elements nullable)
//	MAP<K,V>            arrow Map (keys non-null, values nullable)
//	STRUCT<a:T, b:U>    arrow Struct (fields nullable)
//
// A Datum of a nested type holds its Doris text form in S ("[1, 2]"),
// which AppendDatum parses back; columnar code never goes through it.
// Kinds are persisted: never renumber.
const (
	Array Kind = 120 + iota
	Map
	Struct
)

// IsNested reports ARRAY, MAP and STRUCT.
func (t T) IsNested() bool { return t.Kind == Array || t.Kind == Map || t.Kind == Struct }

// Field is one STRUCT field.
type Field struct {
	Name string
	T    T
}

// ArrayOf returns ARRAY<elem>.
func ArrayOf(elem T) T { return T{Kind: Array, Sub: elem.String()} }

// MapOf returns MAP<k,v>.
func MapOf(k, v T) T { return T{Kind: Map, Sub: k.String() + "," + v.String()} }

// StructOf returns STRUCT<name:T, ...>.
func StructOf(fs []Field) T {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.Name + ":" + f.T.String()
	}
	return T{Kind: Struct, Sub: strings.Join(parts, ",")}
}

// parsed children of a Sub text, memoized: types are few, lookups many.
var subCache sync.Map // string → []Field

func (t T) children() []Field {
	key := strconv.Itoa(int(t.Kind)) + "|" + t.Sub
	if v, ok := subCache.Load(key); ok {
		return v.([]Field)
	}
	var fs []Field
	for _, part := range splitTop(t.Sub, ',') {
		f := Field{}
		if t.Kind == Struct {
			if i := topIndex(part, ':'); i >= 0 {
				f.Name, part = strings.TrimSpace(part[:i]), part[i+1:]
			}
		}
		ct, err := ParseType(part)
		if err != nil {
			ct = StringT
		}
		f.T = ct
		fs = append(fs, f)
	}
	subCache.Store(key, fs)
	return fs
}

// Elem is an ARRAY's element type.
func (t T) Elem() T {
	if cs := t.children(); t.Kind == Array && len(cs) == 1 {
		return cs[0].T
	}
	return NullT
}

// MapKV are a MAP's key and value types.
func (t T) MapKV() (T, T) {
	if cs := t.children(); t.Kind == Map && len(cs) == 2 {
		return cs[0].T, cs[1].T
	}
	return NullT, NullT
}

// Fields are a STRUCT's fields.
func (t T) Fields() []Field {
	if t.Kind != Struct {
		return nil
	}
	return t.children()
}

func nestedString(t T) string {
	switch t.Kind {
	case Map:
		k, v := t.MapKV()
		return "MAP<" + k.String() + "," + v.String() + ">"
	case Struct:
		parts := make([]string, 0, len(t.Fields()))
		for _, f := range t.Fields() {
			parts = append(parts, f.Name+":"+f.T.String())
		}
		return "STRUCT<" + strings.Join(parts, ",") + ">"
	}
	return "ARRAY<" + t.Elem().String() + ">"
}

func nestedLower(t T) string {
	switch t.Kind {
	case Map:
		k, v := t.MapKV()
		return "map<" + k.Lower() + "," + v.Lower() + ">"
	case Struct:
		parts := make([]string, 0, len(t.Fields()))
		for _, f := range t.Fields() {
			parts = append(parts, f.Name+":"+f.T.Lower())
		}
		return "struct<" + strings.Join(parts, ",") + ">"
	}
	return "array<" + t.Elem().Lower() + ">"
}

func nestedArrow(t T) arrow.DataType {
	switch t.Kind {
	case Map:
		k, v := t.MapKV()
		return arrow.MapOf(k.Arrow(), v.Arrow())
	case Struct:
		fs := make([]arrow.Field, len(t.Fields()))
		for i, f := range t.Fields() {
			fs[i] = arrow.Field{Name: f.Name, Type: f.T.Arrow(), Nullable: true}
		}
		return arrow.StructOf(fs...)
	}
	return arrow.ListOfField(arrow.Field{Name: "item", Type: t.Elem().Arrow(), Nullable: true})
}

// splitTop splits s at sep outside <>, () and quotes.
func splitTop(s string, sep byte) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<', '(':
			depth++
		case '>', ')':
			depth--
		case sep:
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

func topIndex(s string, c byte) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<', '(':
			depth++
		case '>', ')':
			depth--
		case c:
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// ParseType reads a type as String prints it (and Doris's common
// spellings: INT(11), TEXT, VARCHAR without length, DATETIMEV2(3)).
func ParseType(s string) (T, error) {
	s = strings.TrimSpace(s)
	name, args := s, ""
	if i := strings.IndexAny(s, "<("); i >= 0 {
		name, args = strings.TrimSpace(s[:i]), s[i:]
	}
	name = strings.ToUpper(name)
	inner := func(open, close byte) (string, bool) {
		if len(args) < 2 || args[0] != open || args[len(args)-1] != close {
			return "", false
		}
		return args[1 : len(args)-1], true
	}
	nums := func() []int {
		in, ok := inner('(', ')')
		if !ok {
			return nil
		}
		var ns []int
		for _, p := range strings.Split(in, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(p))
			if err != nil {
				return nil
			}
			ns = append(ns, n)
		}
		return ns
	}
	bad := fmt.Errorf("unknown type %q", s)
	switch name {
	case "ARRAY":
		in, ok := inner('<', '>')
		if !ok {
			return T{}, bad
		}
		e, err := ParseType(in)
		if err != nil {
			return T{}, err
		}
		return ArrayOf(e), nil
	case "MAP":
		in, ok := inner('<', '>')
		parts := splitTop(in, ',')
		if !ok || len(parts) != 2 {
			return T{}, bad
		}
		k, err := ParseType(parts[0])
		if err != nil {
			return T{}, err
		}
		v, err := ParseType(parts[1])
		if err != nil {
			return T{}, err
		}
		return MapOf(k, v), nil
	case "STRUCT":
		in, ok := inner('<', '>')
		if !ok {
			return T{}, bad
		}
		var fs []Field
		for _, p := range splitTop(in, ',') {
			i := topIndex(p, ':')
			if i < 0 {
				return T{}, bad
			}
			ft, err := ParseType(p[i+1:])
			if err != nil {
				return T{}, err
			}
			fs = append(fs, Field{Name: strings.Trim(strings.TrimSpace(p[:i]), "`"), T: ft})
		}
		if len(fs) == 0 {
			return T{}, bad
		}
		return StructOf(fs), nil
	case "DECIMAL", "DECIMALV3", "DECIMALV2":
		ns := nums()
		p, sc := 10, 0
		if len(ns) > 0 {
			p = ns[0]
		}
		if len(ns) > 1 {
			sc = ns[1]
		}
		if p < 1 || p > MaxDecimalPrecision || sc > p || sc < 0 {
			return T{}, bad
		}
		return DecimalT(p, sc), nil
	case "CHAR":
		if ns := nums(); len(ns) == 1 {
			return CharT(ns[0]), nil
		}
		return CharT(1), nil
	case "VARCHAR":
		if ns := nums(); len(ns) == 1 {
			return VarcharT(ns[0]), nil
		}
		return VarcharT(MaxVarcharLength), nil
	case "STRING", "TEXT":
		return StringT, nil
	case "DATETIME", "DATETIMEV2":
		if ns := nums(); len(ns) == 1 && ns[0] >= 0 && ns[0] <= 6 {
			return T{Kind: DateTime, Scale: ns[0]}, nil
		}
		return DateTimeT, nil
	case "DATE", "DATEV2":
		return DateT, nil
	case "INT", "INTEGER":
		return IntT, nil
	case "BOOL":
		return BoolT, nil
	case "JSONB":
		return JSONT, nil
	case "NULL":
		return NullT, nil // the element type of an empty array literal
	}
	for k, n := range kindNames {
		if n != "" && n == name && Kind(k) != Null {
			return T{Kind: Kind(k)}, nil
		}
	}
	return T{}, bad
}
