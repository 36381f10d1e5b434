package eval

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/tidwall/gjson"

	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// JSON functions over JSON text (there is no JSON column type yet). Paths
// are Doris/MySQL's: $ the document, .key or ."quoted key" a member, [n]
// an array element, [*] and .* every element or member. A document that
// is not JSON, or a path that does not parse, gives NULL (as Doris).
// Results that are JSON are compact (Doris prints JSONB without spaces).

// jsonPath translates a Doris path to gjson's syntax ("" = the document).
func jsonPath(p string) (string, bool) {
	p = strings.TrimSpace(p)
	if !strings.HasPrefix(p, "$") {
		return "", false
	}
	var parts []string
	i := 1
	for i < len(p) {
		switch p[i] {
		case '.':
			i++
			if i < len(p) && p[i] == '"' {
				j := strings.IndexByte(p[i+1:], '"')
				if j < 0 {
					return "", false
				}
				parts = append(parts, gjsonEscape(p[i+1:i+1+j]))
				i += j + 2
				continue
			}
			j := i
			for j < len(p) && p[j] != '.' && p[j] != '[' {
				j++
			}
			if j == i {
				return "", false
			}
			if k := p[i:j]; k == "*" {
				parts = append(parts, "@values")
			} else {
				parts = append(parts, gjsonEscape(k))
			}
			i = j
		case '[':
			j := strings.IndexByte(p[i:], ']')
			if j < 0 {
				return "", false
			}
			idx := strings.TrimSpace(p[i+1 : i+j])
			if idx == "*" {
				parts = append(parts, "#")
			} else if n, err := strconv.Atoi(idx); err == nil && n >= 0 {
				parts = append(parts, strconv.Itoa(n))
			} else {
				return "", false
			}
			i += j + 1
		case ' ':
			i++
		default:
			return "", false
		}
	}
	// A trailing [*] is the array itself (its elements, as MySQL returns).
	if n := len(parts); n > 0 && parts[n-1] == "#" {
		parts = parts[:n-1]
	}
	return strings.Join(parts, "."), true
}

func gjsonEscape(k string) string {
	var b strings.Builder
	for i := 0; i < len(k); i++ {
		switch k[i] {
		case '.', '*', '?', '|', '#', '@', '\\', '!', '=', '<', '>', '%', '{', '}', '[', ']', ',', ':':
			b.WriteByte('\\')
		}
		b.WriteByte(k[i])
	}
	return b.String()
}

// jsonGet evaluates path on doc; ok=false for invalid input or no match.
func jsonGet(doc, path string) (gjson.Result, bool) {
	if !gjson.Valid(doc) {
		return gjson.Result{}, false
	}
	gp, ok := jsonPath(path)
	if !ok {
		return gjson.Result{}, false
	}
	if gp == "" {
		return gjson.Parse(doc), true
	}
	r := gjson.Get(doc, gp)
	return r, r.Exists()
}

// compactJSON drops insignificant whitespace (raw is valid JSON: gjson
// returned it from a validated document).
func compactJSON(raw string) string {
	if !strings.ContainsAny(raw, " \t\r\n") {
		return raw
	}
	var b bytes.Buffer
	if json.Compact(&b, []byte(raw)) != nil {
		return raw
	}
	return b.String()
}

var jsonKernels = map[string]kernel{
	"json_extract": strKernel(func(r *strRow) (string, bool) {
		if r.n == 2 {
			v, ok := jsonGet(r.s(0), r.s(1))
			return compactJSON(v.Raw), ok
		}
		var found []string
		for k := 1; k < r.n; k++ {
			if v, ok := jsonGet(r.s(0), r.s(k)); ok {
				found = append(found, compactJSON(v.Raw))
			}
		}
		if found == nil {
			return "", false
		}
		return "[" + strings.Join(found, ",") + "]", true
	}),
	"get_json_string": strKernel(func(r *strRow) (string, bool) {
		v, ok := jsonGet(r.s(0), r.s(1))
		if !ok || v.Type == gjson.Null {
			return "", false
		}
		if v.Type == gjson.String {
			return v.Str, true
		}
		return compactJSON(v.Raw), true
	}),
	"get_json_int": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		return jsonNum(ev, c, args, func(v gjson.Result) (int64, bool) {
			n, ok := jsonInt(v)
			return n, ok && n >= math.MinInt32 && n <= math.MaxInt32
		})
	},
	"get_json_bigint": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		return jsonNum(ev, c, args, jsonInt)
	},
	"get_json_double": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		m := ev.rows(args)
		b := array.NewFloat64Builder(ev.mem)
		defer b.Release()
		r := newStrRow(args)
		for i := 0; i < m; i++ {
			r.row = i
			if !r.null(i) {
				if v, ok := jsonGet(r.s(0), r.s(1)); ok && v.Type == gjson.Number {
					b.Append(v.Float())
					continue
				}
			}
			b.AppendNull()
		}
		return builderVec(b, args), nil
	},
	"json_object": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		return jsonBuild(ev, c, args, true)
	},
	"json_array": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		return jsonBuild(ev, c, args, false)
	},
	"json_quote": strKernel(func(r *strRow) (string, bool) { return jsonQuote(r.s(0)), true }),
	"json_unquote": strKernel(func(r *strRow) (string, bool) {
		s := r.s(0)
		if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
			var out string
			if json.Unmarshal([]byte(s), &out) == nil {
				return out, true
			}
		}
		return s, true
	}),
	"json_contains": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		m := ev.rows(args)
		buf, out := boolBuf(ev.mem, m)
		valid := ev.validityMut(m, args...)
		vb := valid.Bytes()
		r := newStrRow(args)
		for i := 0; i < m; i++ {
			r.row = i
			if !bitutil.BitIsSet(vb, i) {
				continue
			}
			doc := r.s(0)
			if r.n == 3 {
				v, ok := jsonGet(doc, r.s(2))
				if !ok {
					bitutil.ClearBit(vb, i)
					continue
				}
				doc = v.Raw
			}
			a, err1 := decodeJSON(doc)
			b, err2 := decodeJSON(r.s(1))
			if err1 != nil || err2 != nil {
				bitutil.ClearBit(vb, i)
				continue
			}
			if jsonContains(a, b) {
				bitutil.SetBit(out, i)
			}
		}
		return ev.fixedVec(types.BoolT, m, valid, buf, args), nil
	},
	"json_length": jsonIntKernel(func(r *strRow) (int64, bool) {
		v, ok := jsonAt(r)
		if !ok {
			return 0, false
		}
		switch {
		case v.IsArray():
			return int64(len(v.Array())), true
		case v.IsObject():
			n := 0
			v.ForEach(func(_, _ gjson.Result) bool { n++; return true })
			return int64(n), true
		}
		return 1, true
	}),
	"json_keys": strKernel(func(r *strRow) (string, bool) {
		v, ok := jsonAt(r)
		if !ok || !v.IsObject() {
			return "", false
		}
		var keys []string
		v.ForEach(func(k, _ gjson.Result) bool { keys = append(keys, jsonQuote(k.Str)); return true })
		return "[" + strings.Join(keys, ",") + "]", true
	}),
	"json_valid": jsonIntKernel(func(r *strRow) (int64, bool) {
		if gjson.Valid(r.s(0)) {
			return 1, true
		}
		return 0, true
	}),
	"json_type": strKernel(func(r *strRow) (string, bool) {
		v, ok := jsonAt(r)
		if !ok {
			return "", false
		}
		switch v.Type {
		case gjson.Null:
			return "null", true
		case gjson.True, gjson.False:
			return "bool", true
		case gjson.String:
			return "string", true
		case gjson.Number:
			if n, ok := jsonInt(v); ok {
				if n >= math.MinInt32 && n <= math.MaxInt32 {
					return "int", true
				}
				return "bigint", true
			}
			return "double", true
		}
		if v.IsArray() {
			return "array", true
		}
		return "object", true
	}),
	"json_exists_path": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		m := ev.rows(args)
		buf, out := boolBuf(ev.mem, m)
		valid := ev.validityMut(m, args...)
		vb := valid.Bytes()
		r := newStrRow(args)
		for i := 0; i < m; i++ {
			r.row = i
			if !bitutil.BitIsSet(vb, i) {
				continue
			}
			if _, ok := jsonPath(r.s(1)); !ok || !gjson.Valid(r.s(0)) {
				bitutil.ClearBit(vb, i)
				continue
			}
			if _, ok := jsonGet(r.s(0), r.s(1)); ok {
				bitutil.SetBit(out, i)
			}
		}
		return ev.fixedVec(types.BoolT, m, valid, buf, args), nil
	},
}

// jsonAt is argument 0 at the optional path argument 1.
func jsonAt(r *strRow) (gjson.Result, bool) {
	p := "$"
	if r.n == 2 {
		p = r.s(1)
	}
	return jsonGet(r.s(0), p)
}

// jsonInt reads an integral JSON number exactly (from its text, so that
// values past 2^53 keep their digits).
func jsonInt(v gjson.Result) (int64, bool) {
	if v.Type != gjson.Number {
		return 0, false
	}
	n, err := strconv.ParseInt(v.Raw, 10, 64)
	return n, err == nil
}

func jsonNum(ev *evaluator, c *expr.Call, args []vec, f func(gjson.Result) (int64, bool)) (vec, error) {
	m := ev.rows(args)
	r := newStrRow(args)
	vals := make([]int64, m)
	ok := make([]bool, m)
	for i := 0; i < m; i++ {
		r.row = i
		if !r.null(i) {
			if v, found := jsonGet(r.s(0), r.s(1)); found {
				vals[i], ok[i] = f(v)
			}
		}
	}
	return ev.intResult(c.T, m, vals, ok, args), nil
}

// jsonIntKernel lifts a row function to an INT (Doris' json_length and
// json_valid type) result.
func jsonIntKernel(f func(r *strRow) (int64, bool)) kernel {
	return func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		m := ev.rows(args)
		r := newStrRow(args)
		vals := make([]int64, m)
		ok := make([]bool, m)
		for i := 0; i < m; i++ {
			r.row = i
			if !r.null(i) {
				vals[i], ok[i] = f(r)
			}
		}
		return ev.intResult(c.T, m, vals, ok, args), nil
	}
}

// intResult builds an INT or BIGINT column from values and validity.
func (ev *evaluator) intResult(t types.T, m int, vals []int64, ok []bool, args []vec) vec {
	if t.Kind == types.Int {
		b := array.NewInt32Builder(ev.mem)
		defer b.Release()
		for i := range vals {
			if ok[i] {
				b.Append(int32(vals[i]))
			} else {
				b.AppendNull()
			}
		}
		return builderVec(b, args)
	}
	b := array.NewInt64Builder(ev.mem)
	defer b.Release()
	for i := range vals {
		if ok[i] {
			b.Append(vals[i])
		} else {
			b.AppendNull()
		}
	}
	return builderVec(b, args)
}

// jsonQuote writes s as a JSON string literal (no HTML escaping).
func jsonQuote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// jsonValue renders one SQL value as JSON: numbers and booleans as such,
// NULL as null, everything else as a string.
func jsonValue(d types.Datum) string {
	if d.Null {
		return "null"
	}
	switch {
	case d.T.Kind == types.Boolean:
		if d.I != 0 {
			return "true"
		}
		return "false"
	case d.T.IsNumeric():
		return d.String()
	}
	return jsonQuote(d.String())
}

func jsonBuild(ev *evaluator, c *expr.Call, args []vec, object bool) (vec, error) {
	m := ev.rows(args)
	if len(args) == 0 {
		m = 1
	}
	b := array.NewStringBuilder(ev.mem)
	defer b.Release()
	var sb strings.Builder
	for i := 0; i < m; i++ {
		sb.Reset()
		if object {
			sb.WriteByte('{')
		} else {
			sb.WriteByte('[')
		}
		for k, a := range args {
			if k > 0 {
				if object && k%2 == 1 {
					sb.WriteByte(':')
				} else {
					sb.WriteByte(',')
				}
			}
			var d types.Datum
			if a.isNull(i) {
				d = types.NullDatum(c.Args[k].Type())
			} else {
				d = types.DatumAt(a.arr, a.idx(i), c.Args[k].Type())
			}
			if object && k%2 == 0 {
				if d.Null {
					return vec{}, sqlerr.Doris.New("JSON documents may not contain NULL member names")
				}
				sb.WriteString(jsonQuote(d.String()))
				continue
			}
			sb.WriteString(jsonValue(d))
		}
		if object {
			sb.WriteByte('}')
		} else {
			sb.WriteByte(']')
		}
		b.Append(sb.String())
	}
	out := builderVec(b, args)
	out.scalar = allScalar(args)
	return out, nil
}

func decodeJSON(s string) (any, error) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, sqlerr.Doris.New("trailing data")
	}
	return v, nil
}

// jsonContains is MySQL's JSON_CONTAINS: a scalar contains an equal
// scalar; an array contains a value that some element contains (each
// element of an array candidate); an object contains an object whose
// every member it contains.
func jsonContains(target, cand any) bool {
	switch t := target.(type) {
	case []any:
		if ca, ok := cand.([]any); ok {
			for _, c := range ca {
				if !jsonContains(t, c) {
					return false
				}
			}
			return true
		}
		for _, e := range t {
			if jsonContains(e, cand) {
				return true
			}
		}
		return false
	case map[string]any:
		co, ok := cand.(map[string]any)
		if !ok {
			return false
		}
		for k, cv := range co {
			tv, ok := t[k]
			if !ok || !jsonContains(tv, cv) {
				return false
			}
		}
		return true
	case json.Number:
		c, ok := cand.(json.Number)
		if !ok {
			return false
		}
		a, _ := t.Float64()
		b, _ := c.Float64()
		return a == b
	}
	return target == cand
}
