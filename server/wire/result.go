package wire

import (
	"encoding/binary"
	"math"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/go-mysql-org/go-mysql/mysql"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

type resultState uint8

const (
	stateIdle  resultState = iota // between results (none yet, or the previous had MORE_RESULTS)
	stateInSet                    // column definitions sent, rows may follow
	stateFinal                    // last result finished; nothing more may be written
)

// resultWriter streams the results of one COM_QUERY / COM_STMT_EXECUTE:
// every row becomes one packet in the connection's buffered writer, so a
// result set is never held in memory (WIRE-PROTOCOL.md item 7).
type resultWriter struct {
	c      *conn
	binary bool // COM_STMT_EXECUTE: binary rows
	more   bool
	state  resultState
	wrote  bool // at least one result finished
	cols   []Column
	wantID []arrow.Type
}

var _ ResultWriter = (*resultWriter)(nil)

func (w *resultWriter) SetMoreResults(more bool) { w.more = more }

func (w *resultWriter) status() uint16 {
	s := w.c.serverStatus()
	if w.more {
		s |= mysql.SERVER_MORE_RESULTS_EXISTS
	}
	return s
}

// finished records the end of a result.
func (w *resultWriter) finished() {
	w.wrote = true
	w.cols, w.wantID = nil, nil
	if w.more {
		w.state = stateIdle
	} else {
		w.state = stateFinal
	}
}

func (w *resultWriter) misuse(call string) error {
	return sqlerr.Assertf("wire: %s called in result state %d", call, w.state)
}

func (w *resultWriter) WriteOK(ok OK) error {
	if w.state != stateIdle {
		return w.misuse("WriteOK")
	}
	if r, isR := w.c.sess.(WarningReporter); isR && ok.Warnings == 0 {
		ok.Warnings = r.StatementWarnings()
	}
	err := w.c.send(appendOK(w.c.begin(), mysql.OK_HEADER, ok, w.status()))
	w.finished()
	return err
}

func (w *resultWriter) WriteColumns(cols []Column) error {
	if w.state != stateIdle {
		return w.misuse("WriteColumns")
	}
	w.state = stateInSet
	w.cols = cols
	w.wantID = make([]arrow.Type, len(cols))
	for i, c := range cols {
		if c.Type.Kind == types.Null {
			w.wantID[i] = arrow.NULL
		} else {
			w.wantID[i] = c.Type.Arrow().ID()
		}
	}
	c := w.c
	if err := c.send(mysqlLenenc(c.begin(), uint64(len(cols)))); err != nil {
		return err
	}
	for _, col := range cols {
		if err := c.send(append(c.begin(), field(col).Dump()...)); err != nil {
			return err
		}
	}
	if !c.deprecateEOF() {
		return c.send(appendEOF(c.begin(), 0, c.serverStatus()))
	}
	return nil
}

func mysqlLenenc(b []byte, n uint64) []byte { return mysql.AppendLengthEncodedInteger(b, n) }

func (w *resultWriter) WriteRows(rec arrow.Record) error {
	if w.state != stateInSet {
		return w.misuse("WriteRows")
	}
	if int(rec.NumCols()) != len(w.cols) {
		return sqlerr.Assertf("wire: record has %d columns, result set %d", rec.NumCols(), len(w.cols))
	}
	arrs := rec.Columns()
	for j, a := range arrs {
		// A NULL-typed column may carry any all-NULL array.
		if w.wantID[j] != arrow.NULL && a.DataType().ID() != w.wantID[j] {
			return sqlerr.Assertf("wire: column %q is %v but its Arrow array is %v", w.cols[j].Name, w.cols[j].Type, a.DataType())
		}
	}
	c := w.c
	n := int(rec.NumRows())
	for i := 0; i < n; i++ {
		b := c.begin()
		if w.binary {
			b = appendBinaryRow(b, w.cols, arrs, i)
		} else {
			b = appendTextRow(b, w.cols, arrs, i)
		}
		if err := c.send(b); err != nil {
			return err
		}
	}
	return nil
}

func (w *resultWriter) WriteEnd() error {
	if w.state != stateInSet {
		return w.misuse("WriteEnd")
	}
	err := w.c.sendEnd(w.status(), w.c.statementWarnings())
	w.finished()
	return err
}

// finish completes the command after Query/Execute returned err.
func (w *resultWriter) finish(err error) {
	c := w.c
	if err != nil {
		if w.state == stateFinal {
			// The client already saw the last result; an ERR now would be
			// read as the answer to its next command.
			c.log.Warn("wire: error after the final result was sent", "err", err)
			return
		}
		c.sendErr(err)
		return
	}
	switch w.state {
	case stateInSet:
		w.more = false
		_ = w.WriteEnd()
	case stateIdle:
		// Nothing written, or the last result promised more: close with OK.
		w.more = false
		_ = w.WriteOK(OK{})
	}
}

// appendTextRow encodes row i as lenenc strings (NULL = 0xfb).
func appendTextRow(b []byte, cols []Column, arrs []arrow.Array, i int) []byte {
	for j, a := range arrs {
		// BITMAP and HLL values show as NULL, as Doris answers them unless
		// return_object_data_as_binary is set (which dorisgo does not offer).
		if a.IsNull(i) || cols[j].Type.IsObject() {
			b = append(b, 0xfb)
			continue
		}
		switch a := a.(type) {
		case *array.Boolean:
			v := byte('0')
			if a.Value(i) {
				v = '1'
			}
			b = append(b, 1, v)
		case *array.Int8:
			b = appendShortNum(b, int64(a.Value(i)))
		case *array.Int16:
			b = appendShortNum(b, int64(a.Value(i)))
		case *array.Int32:
			b = appendShortNum(b, int64(a.Value(i)))
		case *array.Int64:
			b = appendShortNum(b, a.Value(i))
		case *array.Float32:
			b = appendTextFloat(b, float64(a.Value(i)), 32)
		case *array.Float64:
			b = appendTextFloat(b, a.Value(i), 64)
		case *array.Decimal128:
			b = appendLenencString(b, types.FormatDecimal(a.Value(i), cols[j].Type.Scale))
		case *array.String:
			b = appendLenencString(b, a.Value(i))
		case *array.Date32:
			b = appendLenencString(b, types.FormatDate(int32(a.Value(i))))
		case *array.Timestamp:
			b = appendLenencString(b, types.FormatDateTime(int64(a.Value(i)), cols[j].Type.Scale))
		case *array.List, *array.Map, *array.Struct:
			b = appendLenencString(b, types.FormatNested(a, i, cols[j].Type))
		default:
			b = append(b, 0xfb)
		}
	}
	return b
}

// appendShortNum writes an integer as a lenenc string; ≤ 20 digits fit a
// one-byte length.
func appendShortNum(b []byte, v int64) []byte {
	b = append(b, 0)
	start := len(b)
	b = strconv.AppendInt(b, v, 10)
	b[start-1] = byte(len(b) - start)
	return b
}

func appendTextFloat(b []byte, f float64, bits int) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, 0xfb) // MySQL has no NaN/Inf: NULL, as Doris prints
	}
	return appendLenencString(b, types.FormatFloat(f, bits))
}

// appendBinaryRow encodes row i in the binary protocol: 0x00, a NULL bitmap
// with offset 2, then each non-NULL value in its column type's encoding.
func appendBinaryRow(b []byte, cols []Column, arrs []arrow.Array, i int) []byte {
	b = append(b, mysql.OK_HEADER)
	bm := len(b)
	for k := 0; k < (len(arrs)+7+2)/8; k++ {
		b = append(b, 0)
	}
	null := func(j int) { b[bm+(j+2)/8] |= 1 << ((j + 2) % 8) }
	for j, a := range arrs {
		if a.IsNull(i) || cols[j].Type.IsObject() {
			null(j)
			continue
		}
		switch a := a.(type) {
		case *array.Boolean:
			v := byte(0)
			if a.Value(i) {
				v = 1
			}
			b = append(b, v)
		case *array.Int8:
			b = append(b, byte(a.Value(i)))
		case *array.Int16:
			b = binary.LittleEndian.AppendUint16(b, uint16(a.Value(i)))
		case *array.Int32:
			b = binary.LittleEndian.AppendUint32(b, uint32(a.Value(i)))
		case *array.Int64:
			b = binary.LittleEndian.AppendUint64(b, uint64(a.Value(i)))
		case *array.Float32:
			f := a.Value(i)
			if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
				null(j)
				continue
			}
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
		case *array.Float64:
			f := a.Value(i)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				null(j)
				continue
			}
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
		case *array.Decimal128:
			b = appendLenencString(b, types.FormatDecimal(a.Value(i), cols[j].Type.Scale))
		case *array.String:
			b = appendLenencString(b, a.Value(i))
		case *array.Date32:
			y, m, d := types.CivilFromDays(int32(a.Value(i)))
			b = append(b, 4)
			b = binary.LittleEndian.AppendUint16(b, uint16(y))
			b = append(b, byte(m), byte(d))
		case *array.Timestamp:
			b = appendBinaryDateTime(b, int64(a.Value(i)))
		case *array.List, *array.Map, *array.Struct:
			// Sent as text, as the text protocol does (a STRING column).
			b = appendLenencString(b, types.FormatNested(a, i, cols[j].Type))
		default:
			null(j)
		}
	}
	return b
}

// appendBinaryDateTime writes the 7-byte form, or 11 bytes with microseconds.
func appendBinaryDateTime(b []byte, us int64) []byte {
	t := time.UnixMicro(us).UTC()
	micro := t.Nanosecond() / 1000
	n := byte(7)
	if micro != 0 {
		n = 11
	}
	b = append(b, n)
	b = binary.LittleEndian.AppendUint16(b, uint16(t.Year()))
	b = append(b, byte(t.Month()), byte(t.Day()), byte(t.Hour()), byte(t.Minute()), byte(t.Second()))
	if micro != 0 {
		b = binary.LittleEndian.AppendUint32(b, uint32(micro))
	}
	return b
}
