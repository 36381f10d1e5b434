package streamload

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// readJSONPathHeaders reads json_root and jsonpaths (Doris's JSONPath
// subset: $, .name, ['name'], [n]) into gjson paths, and the headers that
// only tune Doris's parser: fuzzy_parse (assume one key order) and
// num_as_string (keep numbers' text: what dorisgo always does, so a
// DECIMAL never passes through a double).
func (p *loadParser) readJSONPathHeaders(h http.Header) error {
	tuned := false
	for _, name := range []string{"fuzzy_parse", "num_as_string"} {
		on, err := boolHeader(h, name)
		if err != nil {
			return err
		}
		tuned = tuned || on
	}
	if v := strings.TrimSpace(h.Get("json_root")); v != "" {
		path, err := jsonPathToGJSON(v)
		if err != nil {
			return sqlerr.Doris.New("Invalid json_root: " + v + ": " + err.Error())
		}
		p.jsonRoot, p.jsonRootText = path, v
	}
	if v := strings.TrimSpace(h.Get("jsonpaths")); v != "" {
		var paths []string
		if err := json.Unmarshal([]byte(v), &paths); err != nil || len(paths) == 0 {
			return sqlerr.Doris.New(`Invalid jsonpaths: ` + v + `: expected a JSON array of paths, e.g. ["$.k", "$.v"]`)
		}
		for _, s := range paths {
			path, err := jsonPathToGJSON(s)
			if err != nil {
				return sqlerr.Doris.New("Invalid jsonpaths: " + s + ": " + err.Error())
			}
			p.jsonPaths = append(p.jsonPaths, path)
		}
	}
	if (tuned || p.jsonRoot != "" || p.jsonPaths != nil) && p.format != "json" {
		return sqlerr.Doris.New("jsonpaths, json_root, fuzzy_parse and num_as_string apply to format json only")
	}
	return nil
}

// jsonPathToGJSON turns $.a.b[0]['c.d'] into gjson's a.b.0.c\.d ("" for $).
func jsonPathToGJSON(s string) (string, error) {
	if !strings.HasPrefix(s, "$") {
		return "", fmt.Errorf("a path starts with $")
	}
	var parts []string
	for i := 1; i < len(s); {
		switch {
		case s[i] == '.':
			j := i + 1
			for j < len(s) && s[j] != '.' && s[j] != '[' {
				j++
			}
			if j == i+1 {
				return "", fmt.Errorf("empty name at offset %d", i)
			}
			parts = append(parts, gjsonEscape(s[i+1:j]))
			i = j
		case s[i] == '[' && i+1 < len(s) && (s[i+1] == '\'' || s[i+1] == '"'):
			q := s[i+1]
			end := strings.IndexByte(s[i+2:], q)
			if end < 0 || i+2+end+1 >= len(s) || s[i+2+end+1] != ']' {
				return "", fmt.Errorf("unterminated [%c…%c] at offset %d", q, q, i)
			}
			parts = append(parts, gjsonEscape(s[i+2:i+2+end]))
			i += 2 + end + 2
		case s[i] == '[':
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				return "", fmt.Errorf("unterminated [ at offset %d", i)
			}
			n, err := strconv.Atoi(s[i+1 : i+end])
			if err != nil || n < 0 {
				return "", fmt.Errorf("bad array index %q", s[i+1:i+end])
			}
			parts = append(parts, strconv.Itoa(n))
			i += end + 1
		default:
			return "", fmt.Errorf("unexpected %q at offset %d", s[i], i)
		}
	}
	return strings.Join(parts, "."), nil
}

// gjsonEscape escapes the characters gjson reads as path syntax.
func gjsonEscape(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		switch name[i] {
		case '.', '*', '?', '|', '#', '@', '\\', '!', '=', '<', '>', '%':
			b.WriteByte('\\')
		}
		b.WriteByte(name[i])
	}
	return b.String()
}

// jsonAt is the value at a gjson path of doc ("" path: doc itself).
func jsonAt(doc []byte, path string) gjson.Result {
	if path == "" {
		return gjson.ParseBytes(doc)
	}
	return gjson.GetBytes(doc, path)
}

// parseJSONPaths reads a JSON body under json_root and/or jsonpaths: each
// document (one, or one per line) is narrowed to json_root, taken as an
// array of rows under strip_outer_array, and each row's file columns are
// read by jsonpaths (by key otherwise).
func (p *loadParser) parseJSONPaths(ctx context.Context, r io.Reader, emit func(loadWork) error) error {
	dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<20))
	row := 1
	b := p.newJSONBatch(row)
	addRow := func(obj gjson.Result) error {
		if !obj.IsObject() {
			return sqlerr.Doris.New(fmt.Sprintf("bad JSON at row %d: expected an object of column names and values, got %s", row, jsonKind(obj)))
		}
		if p.jsonPaths != nil {
			for i, path := range p.jsonPaths {
				if i < len(b.bs) {
					b.put(i, jsonAt([]byte(obj.Raw), path))
				}
			}
		} else {
			obj.ForEach(func(k, v gjson.Result) bool {
				ci, ok := p.fileKeys[k.Str]
				if !ok {
					ci, ok = p.fileKeys[strings.ToLower(k.Str)]
				}
				if ok {
					b.put(ci, v)
				}
				return true
			})
		}
		row++
		var err error
		b, err = p.nextRow(ctx, b, row, emit)
		return err
	}
	for {
		var doc json.RawMessage
		err := dec.Decode(&doc)
		if err == io.EOF {
			break
		}
		if err != nil {
			return jsonRowErr(row, err, p.stripOuter)
		}
		v := jsonAt(doc, p.jsonRoot)
		if !v.Exists() {
			return sqlerr.Doris.New(fmt.Sprintf("JSON Root not found: %s (at row %d)", p.jsonRootText, row))
		}
		if p.stripOuter {
			if !v.IsArray() {
				return sqlerr.Doris.New("JSON data is not an array-object, strip_outer_array must be TRUE")
			}
			var ferr error
			v.ForEach(func(_, el gjson.Result) bool {
				ferr = addRow(el)
				return ferr == nil
			})
			if ferr != nil {
				return ferr
			}
			continue
		}
		if v.IsArray() {
			return sqlerr.Doris.New(fmt.Sprintf("bad JSON at row %d: expected an object of column names and values, got an array (to load an array of objects, set the header strip_outer_array: true)", row))
		}
		if err := addRow(v); err != nil {
			return err
		}
	}
	return p.flush(b, emit)
}

// put stores a JSON value as file column i's text: strings unquoted,
// numbers as written, booleans as 1/0, objects and arrays as JSON; a
// missing path or null is NULL.
func (b *jsonBatch) put(i int, v gjson.Result) {
	switch v.Type {
	case gjson.Null:
		if !v.Exists() {
			return // unset: endRow gives it the column's default or NULL
		}
		b.bs[i].AppendNull()
	case gjson.String:
		b.bs[i].Append(v.Str)
	case gjson.True:
		b.bs[i].Append("1")
	case gjson.False:
		b.bs[i].Append("0")
	default:
		b.bs[i].Append(v.Raw)
	}
	b.set[i] = true
}

func jsonKind(v gjson.Result) string {
	switch {
	case v.IsArray():
		return "an array"
	case v.Type == gjson.String:
		return "a string"
	case v.Type == gjson.Number:
		return "a number"
	case v.Type == gjson.True || v.Type == gjson.False:
		return "a bool"
	case v.Type == gjson.Null:
		return "null"
	}
	return "a value"
}
