package server

import (
	"bytes"
	"math"
	"strconv"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/sql/eval"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// CSV fields are parsed straight into typed columns, with the strict load
// rules of toStorage: each column has a fast path for the usual text of
// its type, and any other text goes through eval.CastStrict on that one
// value, so what is accepted, the value stored and the error (message and
// row number) are exactly those of the string-then-cast path. Types
// without a fast path keep that path for the whole batch.

// colParser accumulates one column of a batch.
type colParser interface {
	add(field []byte, row int) error
	addNull(row int) error
	finish(firstRow int) (arrow.Array, error)
}

// bytesStr views b as a string without copying; the result must not outlive b.
func bytesStr(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// plain reports whether a field has no surrounding space or non-ASCII
// edge, so that the fast parsers see exactly what the cast would.
func plain(b []byte) bool {
	return len(b) > 0 && b[0] > ' ' && b[0] < utf8.RuneSelf && b[len(b)-1] > ' ' && b[len(b)-1] < utf8.RuneSelf
}

func newColParser(c types.Column, rows int) colParser {
	switch c.Type.Kind {
	case types.TinyInt:
		return newIntParseCol[int8](c, rows, math.MinInt8, math.MaxInt8)
	case types.SmallInt:
		return newIntParseCol[int16](c, rows, math.MinInt16, math.MaxInt16)
	case types.Int:
		return newIntParseCol[int32](c, rows, math.MinInt32, math.MaxInt32)
	case types.BigInt:
		return newIntParseCol[int64](c, rows, math.MinInt64, math.MaxInt64)
	case types.Double:
		return newFixed[float64](c, rows, func(b []byte) (float64, bool) {
			if !plain(b) {
				return 0, false
			}
			f, err := strconv.ParseFloat(bytesStr(b), 64)
			return f, err == nil
		})
	case types.Decimal:
		p, s := c.Type.Precision, c.Type.Scale
		return newFixed[decimal128.Num](c, rows, func(b []byte) (decimal128.Num, bool) {
			if !plain(b) {
				return decimal128.Num{}, false
			}
			d, ok, fits := types.ParseDecimal(bytesStr(b), p, s)
			return d, ok && fits
		})
	case types.Date:
		return newFixed[arrow.Date32](c, rows, func(b []byte) (arrow.Date32, bool) {
			us, ok := types.ParseDateTime(bytesStr(b))
			if !ok {
				return 0, false
			}
			days := us / (86400 * 1e6)
			if us%(86400*1e6) < 0 {
				days--
			}
			return arrow.Date32(days), true
		})
	case types.DateTime:
		return newFixed[arrow.Timestamp](c, rows, func(b []byte) (arrow.Timestamp, bool) {
			us, ok := types.ParseDateTime(bytesStr(b))
			return arrow.Timestamp(us), ok
		})
	case types.Char, types.Varchar, types.String:
		sc := &stringCol{col: c, offsets: make([]int32, 1, rows+1)}
		if c.Type.Length > 0 && c.Type.Kind != types.String {
			sc.maxLen = c.Type.Length
		}
		return sc
	}
	return &castCol{col: c, b: array.NewStringBuilder(memory.DefaultAllocator)}
}

// parseInt parses plain decimal digits within [lo, hi]; anything else
// (signs other than a leading '-', spaces, fractions, exponents, out of
// range) takes the slow path.
func parseInt(b []byte, lo, hi int64) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, v >= lo && v <= hi
}

// intParseCol is an integer column: a fixedCol whose fast path is inlined.
type intParseCol[T int8 | int16 | int32 | int64] struct {
	*fixedCol[T]
	lo, hi int64
}

func newIntParseCol[T int8 | int16 | int32 | int64](c types.Column, rows int, lo, hi int64) *intParseCol[T] {
	return &intParseCol[T]{fixedCol: newFixed[T](c, rows, nil), lo: lo, hi: hi}
}

func (f *intParseCol[T]) add(field []byte, row int) error {
	if v, ok := parseInt(field, f.lo, f.hi); ok {
		if f.mask.bits != nil {
			f.mask.set(len(f.vals), true)
		}
		f.vals = append(f.vals, T(v))
		return nil
	}
	return f.slow(field, row)
}

// castOne converts one field the slow, exact way.
func castOne(c types.Column, field []byte, row int) (arrow.Array, error) {
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	sb.Append(string(field))
	arr := sb.NewArray()
	sb.Release()
	defer arr.Release()
	out, err := eval.CastStrict(arr, types.StringT, c.Type, c.Name, row, memory.DefaultAllocator)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// nullMask tracks validity lazily: no bitmap until the first NULL.
type nullMask struct {
	bits  []byte
	nulls int
}

func (m *nullMask) set(i int, valid bool) {
	if valid && m.bits == nil {
		return
	}
	if m.bits == nil {
		m.bits = make([]byte, bitutil.BytesForBits(int64(max(i+1, 64))))
		bitutil.SetBitsTo(m.bits, 0, int64(i), true)
	}
	if need := int(bitutil.BytesForBits(int64(i + 1))); need > len(m.bits) {
		m.bits = append(m.bits, make([]byte, max(need, 2*len(m.bits))-len(m.bits))...)
	}
	if valid {
		bitutil.SetBit(m.bits, i)
	} else {
		bitutil.ClearBit(m.bits, i)
		m.nulls++
	}
}

func (m *nullMask) buffer() *memory.Buffer {
	if m.bits == nil {
		return nil
	}
	return memory.NewBufferBytes(m.bits)
}

func badNull(c types.Column) error { return sqlerr.BadNull.New(c.Name) }

// fixedCol is a fixed-width column with a fast parser.
type fixedCol[T arrow.FixedWidthType] struct {
	col   types.Column
	vals  []T
	mask  nullMask
	parse func([]byte) (T, bool)
}

func newFixed[T arrow.FixedWidthType](c types.Column, rows int, parse func([]byte) (T, bool)) *fixedCol[T] {
	return &fixedCol[T]{col: c, vals: make([]T, 0, rows), parse: parse}
}

func (f *fixedCol[T]) add(field []byte, row int) error {
	if v, ok := f.parse(field); ok {
		if f.mask.bits != nil {
			f.mask.set(len(f.vals), true)
		}
		f.vals = append(f.vals, v)
		return nil
	}
	return f.slow(field, row)
}

// slow appends what eval.CastStrict makes of field (or its error).
func (f *fixedCol[T]) slow(field []byte, row int) error {
	out, err := castOne(f.col, field, row)
	if err != nil {
		return err
	}
	defer out.Release()
	if out.IsNull(0) {
		return f.addNull(row)
	}
	vals := arrow.GetData[T](out.Data().Buffers()[1].Bytes())
	f.mask.set(len(f.vals), true)
	f.vals = append(f.vals, vals[out.Data().Offset()])
	return nil
}

func (f *fixedCol[T]) addNull(int) error {
	if !f.col.Nullable {
		return badNull(f.col)
	}
	f.mask.set(len(f.vals), false)
	var zero T
	f.vals = append(f.vals, zero)
	return nil
}

func (f *fixedCol[T]) finish(int) (arrow.Array, error) {
	n := len(f.vals)
	data := array.NewData(f.col.Type.Arrow(), n,
		[]*memory.Buffer{f.mask.buffer(), memory.NewBufferBytes(arrow.GetBytes(f.vals))}, nil, f.mask.nulls, 0)
	defer data.Release()
	return array.MakeFromData(data), nil
}

// stringCol is a CHAR/VARCHAR/STRING column; maxLen > 0 bounds its
// values in characters.
type stringCol struct {
	col     types.Column
	maxLen  int
	hint    *atomic.Int64 // the last batch's data size, for the next
	offsets []int32
	data    []byte
	mask    nullMask
}

func (s *stringCol) add(field []byte, row int) error {
	if s.maxLen > 0 && len(field) > s.maxLen && utf8.RuneCount(field) > s.maxLen {
		return sqlerr.DataTooLong.New(s.col.Name, row)
	}
	s.mask.set(len(s.offsets)-1, true)
	s.data = append(s.data, field...)
	s.offsets = append(s.offsets, int32(len(s.data)))
	return nil
}

func (s *stringCol) addNull(int) error {
	if !s.col.Nullable {
		return badNull(s.col)
	}
	s.mask.set(len(s.offsets)-1, false)
	s.offsets = append(s.offsets, int32(len(s.data)))
	return nil
}

func (s *stringCol) finish(int) (arrow.Array, error) {
	n := len(s.offsets) - 1
	if s.hint != nil {
		s.hint.Store(int64(len(s.data)))
	}
	data := array.NewData(arrow.BinaryTypes.String, n,
		[]*memory.Buffer{s.mask.buffer(), memory.NewBufferBytes(arrow.GetBytes(s.offsets)), memory.NewBufferBytes(s.data)},
		nil, s.mask.nulls, 0)
	defer data.Release()
	return array.MakeFromData(data), nil
}

// castCol keeps the text of a column without a fast parser and casts the
// whole batch at the end.
type castCol struct {
	col types.Column
	b   *array.StringBuilder
}

func (c *castCol) add(field []byte, _ int) error {
	c.b.BinaryBuilder.Append(field)
	return nil
}

func (c *castCol) addNull(int) error {
	c.b.AppendNull()
	return nil
}

func (c *castCol) finish(firstRow int) (arrow.Array, error) {
	arr := c.b.NewArray()
	c.b.Release()
	defer arr.Release()
	out, err := eval.CastStrict(arr, types.StringT, c.col.Type, c.col.Name, firstRow, memory.DefaultAllocator)
	if err != nil {
		return nil, err
	}
	if !c.col.Nullable && out.NullN() > 0 {
		out.Release()
		return nil, badNull(c.col)
	}
	return out, nil
}

// csvChunk is a run of whole lines of a CSV body; first numbers its first
// non-empty line.
type csvChunk struct {
	data  []byte
	first int
}

// parseChunk turns a chunk into one typed batch of the table's columns.
func (p *loadParser) parseChunk(c csvChunk, rows int) (arrow.Record, error) {
	cols := make([]colParser, len(p.t.Columns))
	for i, tc := range p.t.Columns {
		cols[i] = newColParser(tc.Column, rows)
		if sc, ok := cols[i].(*stringCol); ok {
			h := int(p.strHint[i].Load())
			sc.data = make([]byte, 0, h+h/8)
			sc.hint = &p.strHint[i]
		}
	}
	set := make([]bool, len(cols))
	defs := make([][]byte, len(cols))
	for i, d := range p.defaults {
		if d != nil {
			defs[i] = []byte(*d)
		}
	}
	row := c.first
	data := c.data
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, p.lineSep); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if p.lineSep == '\n' && len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		if len(line) == 0 {
			continue
		}
		if err := p.typedRow(cols, set, defs, line, row); err != nil {
			return nil, err
		}
		row++
	}
	arrs := make([]arrow.Array, len(cols))
	release := func() {
		for _, a := range arrs {
			if a != nil {
				a.Release()
			}
		}
	}
	for i, cp := range cols {
		a, err := cp.finish(c.first)
		if err != nil {
			release()
			return nil, err
		}
		arrs[i] = a
	}
	rec := array.NewRecord(p.schema, arrs, int64(row-c.first))
	release()
	return rec, nil
}

// typedRow splits one line into fields and appends them; columns the row
// does not name get their default (or NULL).
func (p *loadParser) typedRow(cols []colParser, set []bool, defs [][]byte, line []byte, row int) error {
	n := 0
	single := len(p.sep) == 1
	for {
		i := -1
		if single {
			// Fields are short: a plain loop beats IndexByte's setup.
			sep := p.sep[0]
			for j, c := range line {
				if c == sep {
					i = j
					break
				}
			}
		} else {
			i = bytes.Index(line, p.sep)
		}
		field := line
		if i >= 0 {
			field = line[:i]
		}
		if n >= len(p.fileCols) {
			return sqlerr.Doris.New("too many columns in row " + strconv.Itoa(row) + ": expected " + strconv.Itoa(len(p.fileCols)))
		}
		if ci := p.fileCols[n]; ci >= 0 {
			var err error
			// \N is NULL, as in Doris.
			if len(field) == 2 && field[0] == '\\' && field[1] == 'N' {
				err = cols[ci].addNull(row)
			} else {
				err = cols[ci].add(field, row)
			}
			if err != nil {
				return err
			}
			set[ci] = true
		}
		n++
		if i < 0 {
			break
		}
		line = line[i+len(p.sep):]
	}
	if n != len(p.fileCols) {
		return sqlerr.Doris.New("column count mismatch in row " + strconv.Itoa(row) + ": expected " +
			strconv.Itoa(len(p.fileCols)) + ", got " + strconv.Itoa(n))
	}
	for i, ok := range set {
		if ok {
			set[i] = false
			continue
		}
		var err error
		if p.defaults[i] != nil {
			err = cols[i].add(defs[i], row)
		} else {
			err = cols[i].addNull(row)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
