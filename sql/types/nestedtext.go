package types

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// Doris 2.x text form of nested values, as the MySQL protocol sends them:
//
//	ARRAY   [1, 2, null]        ["a", "b"]        [[1], []]
//	MAP     {"k":1, "z":null}
//	STRUCT  {"a":1, "b":"x"}
//
// Strings, dates and datetimes inside are double-quoted, NULL is null.

// FormatNested renders row i (not NULL) of a nested array arr of type t.
func FormatNested(arr arrow.Array, i int, t T) string {
	var sb strings.Builder
	appendNested(&sb, arr, i, t, false)
	return sb.String()
}

// nestedDatumText is FormatNested with quotes and backslashes inside
// strings escaped, so that ParseNested reads every value back (a Datum's
// text; Doris prints strings unescaped).
func nestedDatumText(arr arrow.Array, i int, t T) string {
	var sb strings.Builder
	appendNested(&sb, arr, i, t, true)
	return sb.String()
}

func appendNested(sb *strings.Builder, arr arrow.Array, i int, t T, esc bool) {
	if arr.IsNull(i) {
		sb.WriteString("null")
		return
	}
	switch a := arr.(type) {
	case *array.Map:
		kt, vt := t.MapKV()
		s, e := a.ValueOffsets(i)
		keys, items := a.Keys(), a.Items()
		sb.WriteByte('{')
		for j := s; j < e; j++ {
			if j > s {
				sb.WriteString(", ")
			}
			appendElem(sb, keys, int(j), kt, esc)
			sb.WriteByte(':')
			appendElem(sb, items, int(j), vt, esc)
		}
		sb.WriteByte('}')
	case *array.List:
		et := t.Elem()
		s, e := a.ValueOffsets(i)
		vals := a.ListValues()
		sb.WriteByte('[')
		for j := s; j < e; j++ {
			if j > s {
				sb.WriteString(", ")
			}
			appendElem(sb, vals, int(j), et, esc)
		}
		sb.WriteByte(']')
	case *array.Struct:
		sb.WriteByte('{')
		for k, f := range t.Fields() {
			if k > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(`"` + f.Name + `":`)
			appendElem(sb, a.Field(k), i, f.T, esc)
		}
		sb.WriteByte('}')
	default:
		sb.WriteString(DatumAt(arr, i, t).String())
	}
}

func appendElem(sb *strings.Builder, arr arrow.Array, i int, t T, esc bool) {
	if arr.IsNull(i) || arr.DataType().ID() == arrow.NULL {
		sb.WriteString("null")
		return
	}
	if t.IsNested() {
		appendNested(sb, arr, i, t, esc)
		return
	}
	s := DatumAt(arr, i, t).String()
	if t.IsString() || t.IsTemporal() || t.Kind == JSON {
		sb.WriteByte('"')
		if esc && strings.ContainsAny(s, `"\`) {
			s = dquoteEscaper.Replace(s)
		}
		sb.WriteString(s)
		sb.WriteByte('"')
		return
	}
	sb.WriteString(s)
}

// ParseNested appends the value written as s (the text form above, also
// with single quotes or unquoted strings, and a struct as {v1, v2}) to b,
// a builder of t's Arrow type. On error nothing usable was appended and
// the caller discards the builder's row (AppendNested does it).
func ParseNested(s string, t T) (*NestedValue, error) {
	p := &textParser{s: s}
	v, err := p.value(t)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(p.s) {
		return nil, fmt.Errorf("unexpected %q after the value", p.s[p.i:])
	}
	return v, nil
}

// NestedValue is a parsed nested value, appended with Append.
type NestedValue struct {
	Null  bool
	Elems []*NestedValue // array elements, map keys and values interleaved, struct fields
	D     Datum          // a scalar
}

// Append appends v to b (a builder of t's Arrow type).
func (v *NestedValue) Append(b array.Builder, t T) {
	if v == nil || v.Null {
		b.AppendNull()
		return
	}
	switch bb := b.(type) {
	case *array.MapBuilder:
		kt, vt := t.MapKV()
		bb.Append(true)
		for j := 0; j+1 < len(v.Elems); j += 2 {
			v.Elems[j].Append(bb.KeyBuilder(), kt)
			v.Elems[j+1].Append(bb.ItemBuilder(), vt)
		}
	case *array.ListBuilder:
		bb.Append(true)
		for _, e := range v.Elems {
			e.Append(bb.ValueBuilder(), t.Elem())
		}
	case *array.StructBuilder:
		bb.Append(true)
		for k, f := range t.Fields() {
			var e *NestedValue
			if k < len(v.Elems) {
				e = v.Elems[k]
			}
			e.Append(bb.FieldBuilder(k), f.T)
		}
	default:
		AppendDatum(b, v.D)
	}
}

// AppendNested parses s as a value of t and appends it to b; text that is
// not a value of t appends NULL and reports false.
func AppendNested(b array.Builder, s string, t T) bool {
	v, err := ParseNested(s, t)
	if err != nil {
		b.AppendNull()
		return false
	}
	v.Append(b, t)
	return true
}

type textParser struct {
	s string
	i int
}

func (p *textParser) ws() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *textParser) peek() byte {
	p.ws()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *textParser) expect(c byte) error {
	if p.peek() != c {
		return fmt.Errorf("expected %q at offset %d", c, p.i)
	}
	p.i++
	return nil
}

// token reads a quoted string or a bare word; quoted reports quotes.
func (p *textParser) token() (string, bool, error) {
	p.ws()
	if p.i >= len(p.s) {
		return "", false, fmt.Errorf("value expected at the end")
	}
	if q := p.s[p.i]; q == '"' || q == '\'' {
		var sb strings.Builder
		for j := p.i + 1; j < len(p.s); j++ {
			c := p.s[j]
			switch {
			case c == '\\' && j+1 < len(p.s):
				j++
				sb.WriteByte(p.s[j])
			case c == q:
				p.i = j + 1
				return sb.String(), true, nil
			default:
				sb.WriteByte(c)
			}
		}
		return "", false, fmt.Errorf("unterminated string")
	}
	start := p.i
	for p.i < len(p.s) && !strings.ContainsRune(",]}:", rune(p.s[p.i])) {
		p.i++
	}
	return strings.TrimSpace(p.s[start:p.i]), false, nil
}

func (p *textParser) isNull() bool {
	p.ws()
	if len(p.s)-p.i >= 4 && strings.EqualFold(p.s[p.i:p.i+4], "null") {
		rest := p.s[p.i+4:]
		r := strings.TrimLeft(rest, " \t")
		if r == "" || strings.ContainsRune(",]}:", rune(r[0])) {
			p.i += 4
			return true
		}
	}
	return false
}

func (p *textParser) value(t T) (*NestedValue, error) {
	if p.isNull() {
		return &NestedValue{Null: true}, nil
	}
	switch t.Kind {
	case Array:
		if err := p.expect('['); err != nil {
			return nil, err
		}
		v := &NestedValue{}
		if p.peek() == ']' {
			p.i++
			return v, nil
		}
		for {
			e, err := p.value(t.Elem())
			if err != nil {
				return nil, err
			}
			v.Elems = append(v.Elems, e)
			if p.peek() == ',' {
				p.i++
				continue
			}
			return v, p.expect(']')
		}
	case Map, Struct:
		if err := p.expect('{'); err != nil {
			return nil, err
		}
		v := &NestedValue{}
		if p.peek() == '}' {
			p.i++
			if t.Kind == Struct {
				return nil, fmt.Errorf("empty struct")
			}
			return v, nil
		}
		fs := t.Fields()
		kt, vt := t.MapKV()
		named := false
		for n := 0; ; n++ {
			if t.Kind == Map {
				k, err := p.value(kt)
				if err != nil {
					return nil, err
				}
				if k.Null {
					return nil, fmt.Errorf("a map key is null")
				}
				if err := p.expect(':'); err != nil {
					return nil, err
				}
				e, err := p.value(vt)
				if err != nil {
					return nil, err
				}
				v.Elems = append(v.Elems, k, e)
			} else {
				if n >= len(fs) {
					return nil, fmt.Errorf("too many struct fields")
				}
				if v.Elems == nil {
					v.Elems = make([]*NestedValue, len(fs))
				}
				// {"name":v} (by name, any order) or positional {v}: a
				// name is a quoted token followed by ':'.
				at, save := n, p.i
				if c := p.peek(); c == '"' || c == '\'' {
					if name, _, err := p.token(); err == nil && p.peek() == ':' {
						p.i++
						at, named = -1, true
						for k, f := range fs {
							if strings.EqualFold(f.Name, name) {
								at = k
							}
						}
						if at < 0 {
							return nil, fmt.Errorf("struct has no field %q", name)
						}
					} else {
						p.i = save
					}
				}
				e, err := p.value(fs[at].T)
				if err != nil {
					return nil, err
				}
				v.Elems[at] = e
			}
			if p.peek() == ',' {
				p.i++
				continue
			}
			if t.Kind == Struct && !named && n+1 != len(fs) {
				return nil, fmt.Errorf("struct needs %d fields", len(fs))
			}
			return v, p.expect('}')
		}
	}
	tok, quoted, err := p.token()
	if err != nil {
		return nil, err
	}
	if tok == "" && !quoted {
		return nil, fmt.Errorf("value expected at offset %d", p.i)
	}
	d, ok := ParseScalar(tok, t)
	if !ok {
		return nil, fmt.Errorf("%q is not a %s", tok, t)
	}
	return &NestedValue{D: d}, nil
}

// ParseScalar reads text as a value of the scalar type t (strictly: the
// whole text must be the value).
func ParseScalar(s string, t T) (Datum, bool) {
	d := Datum{T: t}
	switch {
	case t.Kind == Boolean:
		switch strings.ToLower(s) {
		case "true", "1":
			d.I = 1
		case "false", "0":
		default:
			return d, false
		}
	case t.Kind >= TinyInt && t.Kind <= BigInt:
		n, ok, fits := ParseDecimal(s, 38, 0)
		if !ok || !fits {
			return d, false
		}
		bi := n.BigInt()
		if !bi.IsInt64() {
			return d, false
		}
		d.I = bi.Int64()
		lim := map[Kind]int64{TinyInt: 1 << 7, SmallInt: 1 << 15, Int: 1 << 31}[t.Kind]
		if lim != 0 && (d.I >= lim || d.I < -lim) {
			return d, false
		}
	case t.Kind == LargeInt:
		// 39 digits: more than DECIMAL(38)'s parser takes.
		bi, ok := new(big.Int).SetString(strings.TrimPrefix(s, "+"), 10)
		if !ok || bi.Cmp(maxInt128) > 0 || bi.Cmp(minInt128) < 0 {
			return d, false
		}
		d.Dec = decimal128.FromBigInt(bi)
	case t.Kind == Decimal:
		n, ok, fits := ParseDecimal(s, t.Precision, t.Scale)
		if !ok || !fits {
			return d, false
		}
		d.Dec = n
	case t.IsFloat():
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return d, false
		}
		d.F = f
	case t.IsString() || t.Kind == JSON:
		d.S = s
	case t.Kind == Date:
		v, ok := ParseDate(s)
		if !ok {
			return d, false
		}
		d.I = int64(v)
	case t.Kind == DateTime:
		v, ok := ParseDateTimeScale(s, t.Scale)
		if !ok {
			return d, false
		}
		d.I = v
	default:
		return d, false
	}
	return d, true
}

// dquoteEscaper escapes a string inside double quotes (built once: a
// Replacer builds its tables on first use).
var dquoteEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`)
