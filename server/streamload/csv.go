package streamload

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
	"github.com/dorisgo/dorisgo/sql/types"
)

// CSV fields are parsed straight into typed columns, with the strict load
// rules (eval.CastStrict): each column has a fast path for the usual text of
// its type, and any other text goes through eval.CastStrict on that one
// value, so what is accepted and the value stored are exactly those of the
// string-then-cast path (castRows). Types without a fast path keep that
// path for the whole batch. A value the cast refuses does not fail the
// batch: it is stored as NULL and reported (a fault), and the row's fate
// is decided later with Doris's rules (loadParser.finish).

// fault is what went wrong with one value of a row, or with the row.
type fault uint8

const (
	faultNone fault = iota
	// faultBadValue: the text is no value of the column's type (stored as
	// NULL; under strict_mode the row is filtered).
	faultBadValue
	// faultTooLong: a string longer than its column (stored as is; the
	// row is filtered).
	faultTooLong
	// faultNull: NULL for a NOT NULL column (the row is filtered).
	faultNull
	// faultStrict: faultBadValue under strict_mode.
	faultStrict
	// faultFields: a row with too few or too many fields.
	faultFields
)

// colParser accumulates one column of a batch.
type colParser interface {
	// add appends field's value; a value it cannot convert is stored as
	// NULL (faultBadValue), a too long string as is (faultTooLong).
	add(field []byte) fault
	// addNull appends NULL (faultNull for a NOT NULL column).
	addNull() fault
	// pad appends a placeholder for a row that will not be loaded.
	pad()
	// finish returns the column; bad learns the rows (0-based) and texts
	// of the values a column converting at the end found bad (stored as
	// NULL).
	finish(bad func(row int, text string)) (arrow.Array, error)
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
			us, ok := types.ParseDateTimeScale(bytesStr(b), c.Type.Scale)
			return arrow.Timestamp(us), ok
		})
	case types.Char, types.Varchar, types.String, types.Bitmap, types.HLL:
		// BITMAP / HLL columns are filled by a mapping (users =
		// to_bitmap(u)); their file field is only a placeholder.
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

func (f *intParseCol[T]) add(field []byte) fault {
	if v, ok := parseInt(field, f.lo, f.hi); ok {
		if f.mask.bits != nil {
			f.mask.set(len(f.vals), true)
		}
		f.vals = append(f.vals, T(v))
		return faultNone
	}
	return f.slow(field)
}

// castOne converts one field the slow, exact way; nil if the strict cast
// refuses it.
func castOne(c types.Column, field []byte) arrow.Array {
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	sb.Append(string(field))
	arr := sb.NewArray()
	sb.Release()
	defer arr.Release()
	out, err := eval.CastStrict(arr, types.StringT, c.Type, c.Name, 1, memory.DefaultAllocator)
	if err != nil {
		return nil
	}
	return out
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

func (f *fixedCol[T]) add(field []byte) fault {
	if v, ok := f.parse(field); ok {
		if f.mask.bits != nil {
			f.mask.set(len(f.vals), true)
		}
		f.vals = append(f.vals, v)
		return faultNone
	}
	return f.slow(field)
}

// slow appends what eval.CastStrict makes of field (NULL if it refuses).
func (f *fixedCol[T]) slow(field []byte) fault {
	out := castOne(f.col, field)
	if out == nil {
		f.pad()
		return faultBadValue
	}
	defer out.Release()
	if out.IsNull(0) {
		return f.addNull()
	}
	vals := arrow.GetData[T](out.Data().Buffers()[1].Bytes())
	f.mask.set(len(f.vals), true)
	f.vals = append(f.vals, vals[out.Data().Offset()])
	return faultNone
}

func (f *fixedCol[T]) addNull() fault {
	f.pad()
	if !f.col.Nullable {
		return faultNull
	}
	return faultNone
}

func (f *fixedCol[T]) pad() {
	f.mask.set(len(f.vals), false)
	var zero T
	f.vals = append(f.vals, zero)
}

func (f *fixedCol[T]) finish(func(int, string)) (arrow.Array, error) {
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

func (s *stringCol) add(field []byte) fault {
	s.mask.set(len(s.offsets)-1, true)
	s.data = append(s.data, field...)
	s.offsets = append(s.offsets, int32(len(s.data)))
	if s.maxLen > 0 && len(field) > s.maxLen && utf8.RuneCount(field) > s.maxLen {
		return faultTooLong
	}
	return faultNone
}

func (s *stringCol) addNull() fault {
	s.pad()
	if !s.col.Nullable {
		return faultNull
	}
	return faultNone
}

func (s *stringCol) pad() {
	s.mask.set(len(s.offsets)-1, false)
	s.offsets = append(s.offsets, int32(len(s.data)))
}

func (s *stringCol) finish(func(int, string)) (arrow.Array, error) {
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

func (c *castCol) add(field []byte) fault {
	c.b.BinaryBuilder.Append(field)
	return faultNone
}

func (c *castCol) addNull() fault {
	c.b.AppendNull()
	if !c.col.Nullable {
		return faultNull
	}
	return faultNone
}

func (c *castCol) pad() { c.b.AppendNull() }

func (c *castCol) finish(bad func(int, string)) (arrow.Array, error) {
	arr := c.b.NewArray()
	c.b.Release()
	defer arr.Release()
	texts := arr.(*array.String)
	return castRows(arr, types.StringT, c.col.Type, c.col.Name, func(i int) { bad(i, texts.Value(i)) })
}

// csvChunk is a run of whole lines of a CSV body; first numbers its first
// non-empty line in the load.
type csvChunk struct {
	data  []byte
	first int
}

// nextLine cuts the next line off data (without its delimiter, nor a '\r'
// before a '\n' delimiter).
func nextLine(data []byte, sep byte) (line, rest []byte) {
	line = data
	if i := bytes.IndexByte(data, sep); i >= 0 {
		line, rest = data[:i], data[i+1:]
	}
	if sep == '\n' && len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	return line, rest
}

// parseChunk turns a chunk into one typed source batch.
func (p *loadParser) parseChunk(c csvChunk, rows int) (*typedBatch, error) {
	a := p.newRowAsm(rows)
	for data := c.data; len(data) > 0; {
		var line []byte
		line, data = nextLine(data, p.lineSep)
		if len(line) == 0 {
			continue
		}
		p.typedRow(a, line)
	}
	b := &typedBatch{first: c.first, faults: a.faults, lineOf: chunkLines(c.data, p.lineSep)}
	rec, err := a.record(b)
	if err != nil {
		return nil, err
	}
	b.src = rec
	return b, nil
}

// chunkLines finds row i's line in a chunk, indexing the chunk's lines on
// the first call (only rows that fail need their line).
func chunkLines(data []byte, sep byte) func(i int) string {
	var lines [][]byte
	return func(i int) string {
		if lines == nil {
			for rest := data; len(rest) > 0; {
				var line []byte
				line, rest = nextLine(rest, sep)
				if len(line) > 0 {
					lines = append(lines, line)
				}
			}
		}
		if i < len(lines) {
			return string(lines[i])
		}
		return ""
	}
}

// typedRow splits one line into fields and appends them; columns the row
// does not name get their default (or NULL).
func (p *loadParser) typedRow(a *rowAsm, line []byte) {
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
		if n < len(p.file) {
			if ci := p.file[n]; ci >= 0 {
				var f fault
				// \N is NULL, as in Doris.
				if len(field) == 2 && field[0] == '\\' && field[1] == 'N' {
					f = a.cols[ci].addNull()
				} else {
					f = a.cols[ci].add(field)
				}
				if f != faultNone {
					a.fault(ci, f, field)
				}
				a.set[ci] = true
			}
		}
		n++
		if i < 0 {
			break
		}
		line = line[i+len(p.sep):]
	}
	if n != len(p.file) {
		a.badFields(n)
		return
	}
	a.endRow()
}
