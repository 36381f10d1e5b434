package eval

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dorisgo/dorisgo/sql/types"
)

// castToJSON converts to Doris's JSON type. Strings must hold one valid
// JSON document, kept in compact form (whitespace outside strings dropped,
// key order and number text kept, as Doris's JSONB prints them); anything
// else is NULL under an explicit cast (with a warning) and an error for a
// load or INSERT (strict: Doris's "json parse error"), which stream load
// then turns into a NULL or a filtered row by its own rules. Numbers and
// booleans become the JSON scalar; dates the JSON string of their text.
func (ev *evaluator) castToJSON(a vec, from types.T, o castOpts) (vec, error) {
	m := a.arr.Len()
	b := array.NewStringBuilder(ev.mem)
	defer b.Release()
	b.Reserve(m)
	var buf bytes.Buffer
	for i := 0; i < m; i++ {
		if a.arr.IsNull(i) {
			b.AppendNull()
			continue
		}
		switch {
		case from.IsString() || from.Kind == types.JSON:
			s := a.arr.(*array.String).Value(i)
			buf.Reset()
			if err := json.Compact(&buf, []byte(s)); err != nil {
				if o.strict {
					return vec{}, o.errValue("json", s, i)
				}
				if o.explicit {
					o.failed("JSON", s, false)
				}
				b.AppendNull()
				continue
			}
			b.BinaryBuilder.Append(buf.Bytes())
		case from.Kind == types.Boolean:
			if a.arr.(*array.Boolean).Value(i) {
				b.Append("true")
			} else {
				b.Append("false")
			}
		case from.IsNumeric():
			s := types.DatumAt(a.arr, i, from).String()
			if from.IsFloat() {
				f, _ := strconv.ParseFloat(s, 64)
				s = strconv.FormatFloat(f, 'g', -1, 64)
			}
			b.Append(s)
		default:
			q, _ := json.Marshal(types.DatumAt(a.arr, i, from).String())
			b.BinaryBuilder.Append(q)
		}
	}
	return vec{arr: b.NewArray(), scalar: a.scalar, owned: true}, nil
}
