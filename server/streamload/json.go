package streamload

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// jsonBatch accumulates the file columns of JSON rows as text; a key a row
// lacks gets its column's default (or NULL), an explicit null stays NULL.
type jsonBatch struct {
	p     *loadParser
	bs    []*array.StringBuilder // per file column
	set   []bool
	rows  int
	first int
}

func (p *loadParser) newJSONBatch(first int) *jsonBatch {
	b := &jsonBatch{p: p, first: first, set: make([]bool, len(p.file))}
	for i := range p.file {
		sb := array.NewStringBuilder(memory.DefaultAllocator)
		sb.Reserve(loadBatchRows)
		if i < len(p.dataHint) && p.dataHint[i] > 0 {
			sb.ReserveData(p.dataHint[i] + p.dataHint[i]/8)
		}
		b.bs = append(b.bs, sb)
	}
	return b
}

// endRow fills the file columns the row did not name.
func (b *jsonBatch) endRow() {
	for i, ok := range b.set {
		if !ok {
			if ci := b.p.file[i]; ci >= 0 && ci < len(b.p.to) && b.p.defs[ci] != nil {
				b.bs[i].BinaryBuilder.Append(b.p.defs[ci])
			} else {
				b.bs[i].AppendNull()
			}
		}
		b.set[i] = false
	}
	b.rows++
}

func (b *jsonBatch) record() arrow.Record {
	cols := make([]arrow.Array, len(b.bs))
	if len(b.p.dataHint) != len(b.bs) {
		b.p.dataHint = make([]int, len(b.bs))
	}
	fields := make([]arrow.Field, len(b.bs))
	for i, sb := range b.bs {
		b.p.dataHint[i] = sb.DataLen()
		cols[i] = sb.NewArray()
		sb.Release()
		fields[i] = arrow.Field{Name: b.p.plan.File[i].Name, Type: arrow.BinaryTypes.String, Nullable: true}
	}
	rec := array.NewRecord(arrow.NewSchema(fields, nil), cols, int64(b.rows))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// flush hands a text batch to the pipeline, to be typed and mapped there.
func (p *loadParser) flush(b *jsonBatch, emit func(loadWork) error) error {
	rec := b.record()
	if rec.NumRows() == 0 {
		rec.Release()
		return nil
	}
	return emit(func() (arrow.Record, error) {
		defer rec.Release()
		tb, err := p.jsonTyped(rec, b.first)
		if err != nil {
			return nil, err
		}
		return p.finish(tb)
	})
}

// jsonTyped types a text batch of file columns into a source batch.
func (p *loadParser) jsonTyped(rec arrow.Record, first int) (*typedBatch, error) {
	rows := int(rec.NumRows())
	a := p.newRowAsm(rows)
	strs := make([]*array.String, rec.NumCols())
	for i := range strs {
		strs[i] = rec.Column(i).(*array.String)
	}
	for r := 0; r < rows; r++ {
		for j, s := range strs {
			ci := p.file[j]
			if ci < 0 {
				continue
			}
			var f fault
			var v []byte
			if s.IsNull(r) {
				f = a.cols[ci].addNull()
			} else {
				str := s.Value(r)
				v = unsafe.Slice(unsafe.StringData(str), len(str))
				f = a.cols[ci].add(v)
			}
			if f != faultNone {
				a.fault(ci, f, v)
			}
			a.set[ci] = true
		}
		a.endRow()
	}
	b := &typedBatch{first: first, lineOf: func(r int) string { return jsonLine(rec, r) }}
	src, err := a.record(b)
	if err != nil {
		return nil, err
	}
	b.src = src
	return b, nil
}

// jsonLine renders row r of a text batch as a JSON object, for the error
// log (the row as read, its values as text).
func jsonLine(rec arrow.Record, r int) string {
	var sb strings.Builder
	sb.WriteByte('{')
	for i, c := range rec.Columns() {
		if i > 0 {
			sb.WriteString(", ")
		}
		k, _ := json.Marshal(rec.Schema().Field(i).Name)
		sb.Write(k)
		sb.WriteString(": ")
		if c.IsNull(r) {
			sb.WriteString("null")
			continue
		}
		v, _ := json.Marshal(c.(*array.String).Value(r))
		sb.Write(v)
	}
	sb.WriteByte('}')
	return sb.String()
}

func (p *loadParser) parseJSON(ctx context.Context, r io.Reader, emit func(loadWork) error) error {
	if p.jsonRoot != "" || p.jsonPaths != nil {
		return p.parseJSONPaths(ctx, r, emit)
	}
	dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<20))
	dec.UseNumber()
	row := 1
	b := p.newJSONBatch(row)
	add := func(obj map[string]any) error {
		for k, v := range obj {
			ci, ok := p.fileKeys[k]
			if !ok {
				if ci, ok = p.fileKeys[strings.ToLower(k)]; !ok {
					continue
				}
			}
			switch x := v.(type) {
			case nil:
				b.bs[ci].AppendNull()
			case string:
				b.bs[ci].Append(x)
			case json.Number:
				b.bs[ci].Append(x.String())
			case bool:
				if x {
					b.bs[ci].Append("1")
				} else {
					b.bs[ci].Append("0")
				}
			default:
				enc, _ := json.Marshal(x)
				b.bs[ci].Append(string(enc))
			}
			b.set[ci] = true
		}
		row++
		var err error
		b, err = p.nextRow(ctx, b, row, emit)
		return err
	}
	if p.stripOuter {
		tok, err := dec.Token()
		if err != nil {
			return sqlerr.Doris.New("bad JSON: " + err.Error())
		}
		if d, ok := tok.(json.Delim); !ok || d != '[' {
			return sqlerr.Doris.New("JSON data is not an array-object, strip_outer_array must be TRUE")
		}
		for dec.More() {
			var obj map[string]any
			if err := dec.Decode(&obj); err != nil {
				return jsonRowErr(row, err, true)
			}
			if err := add(obj); err != nil {
				return err
			}
		}
	} else {
		for {
			var obj map[string]any
			err := dec.Decode(&obj)
			if err == io.EOF {
				break
			}
			if err != nil {
				return jsonRowErr(row, err, false)
			}
			if err := add(obj); err != nil {
				return err
			}
		}
	}
	return p.flush(b, emit)
}

// nextRow ends b's row; a full batch goes to the pipeline and the next
// one, starting at row, takes its place.
func (p *loadParser) nextRow(ctx context.Context, b *jsonBatch, row int, emit func(loadWork) error) (*jsonBatch, error) {
	b.endRow()
	if b.rows < loadBatchRows {
		return b, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := p.flush(b, emit); err != nil {
		return nil, err
	}
	return p.newJSONBatch(row), nil
}

// jsonRowErr says why row of a JSON load could not be read, in terms of
// the data: a value of the wrong shape names the shape expected and the
// one found (encoding/json's own text names Go types).
func jsonRowErr(row int, err error, inArray bool) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		msg := fmt.Sprintf("bad JSON at row %d: expected an object of column names and values, got %s", row, jsonShape(te.Value))
		if te.Value == "array" && !inArray {
			msg += " (to load an array of objects, set the header strip_outer_array: true)"
		}
		return sqlerr.Doris.New(msg)
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return sqlerr.Doris.New(fmt.Sprintf("bad JSON at row %d (byte %d): %v", row, syn.Offset, err))
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return sqlerr.Doris.New(fmt.Sprintf("bad JSON at row %d: the data ends inside a value", row))
	}
	return sqlerr.Doris.New(fmt.Sprintf("bad JSON at row %d: %v", row, err))
}

// jsonShape names a JSON value kind as UnmarshalTypeError.Value gives it.
func jsonShape(v string) string {
	switch v {
	case "array":
		return "an array"
	case "object":
		return "an object"
	case "number", "string", "bool":
		return "a " + v
	}
	if strings.HasPrefix(v, "number") {
		return "a number"
	}
	return v
}

// loadConverters is how many goroutines turn parsed pieces into typed
