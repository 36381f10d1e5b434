package wire

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/go-mysql-org/go-mysql/mysql"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// stmt is a prepared statement of one connection.
type stmt struct {
	id      uint32
	p       Prepared
	nParams int
	// types holds (type, flags) per parameter from the last execute that
	// bound them; executes with new-params-bound-flag 0 reuse them (item 3).
	types   []byte
	long    map[int][]byte // COM_STMT_SEND_LONG_DATA, per parameter (item 16)
	longLen int
	longErr error
}

func (s *stmt) resetLong() {
	s.long, s.longLen, s.longErr = nil, 0, nil
}

func (c *conn) stmtPrepare(ctx context.Context, sql string) {
	p, err := c.sess.Prepare(ctx, sql)
	if err != nil {
		_ = c.sendErr(err)
		return
	}
	n, cols := p.NumParams(), p.Columns()
	if n < 0 || n > math.MaxUint16 || len(cols) > math.MaxUint16 {
		_ = c.sendErr(sqlerr.Assertf("wire: prepared statement with %d params, %d columns", n, len(cols)))
		return
	}
	c.nextStmt++
	st := &stmt{id: c.nextStmt, p: p, nParams: n}
	c.stmts[st.id] = st
	b := append(c.begin(), mysql.OK_HEADER)
	b = binary.LittleEndian.AppendUint32(b, st.id)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(cols)))
	b = binary.LittleEndian.AppendUint16(b, uint16(n))
	b = append(b, 0, 0, 0) // filler, warning count
	if c.send(b) != nil {
		return
	}
	// Real definitions from the session (item 6).
	if n > 0 {
		params := p.Params()
		for i := 0; i < n; i++ {
			col := paramPlaceholder
			if i < len(params) {
				col = params[i]
			}
			if c.send(append(c.begin(), field(col).Dump()...)) != nil {
				return
			}
		}
		if !c.deprecateEOF() && c.send(appendEOF(c.begin(), 0, c.serverStatus())) != nil {
			return
		}
	}
	if len(cols) > 0 {
		for _, col := range cols {
			if c.send(append(c.begin(), field(col).Dump()...)) != nil {
				return
			}
		}
		if !c.deprecateEOF() {
			_ = c.send(appendEOF(c.begin(), 0, c.serverStatus()))
		}
	}
}

func (c *conn) stmtExecute(ctx context.Context, body []byte) {
	st, args, err := parseStmtExecute(body, c.stmts)
	if st != nil {
		if err == nil && st.longErr != nil {
			err = st.longErr
		}
		st.resetLong() // long data is consumed by one execute, as in MySQL
	}
	if err != nil {
		_ = c.sendErr(err)
		return
	}
	w := &resultWriter{c: c, binary: true}
	w.finish(c.sess.Execute(ctx, st.p, args, w))
}

// stmtSendLongData appends a chunk to a parameter. It never answers; errors
// surface at the next execute.
func (c *conn) stmtSendLongData(body []byte) {
	if len(body) < 6 {
		return
	}
	st := c.stmts[binary.LittleEndian.Uint32(body)]
	if st == nil {
		return
	}
	i, data := int(binary.LittleEndian.Uint16(body[4:])), body[6:]
	switch {
	case i >= st.nParams:
		st.longErr = sqlerr.WrongArguments.New("mysqld_stmt_send_long_data")
	case st.longLen+len(data) > c.srv.limits().MaxAllowedPacket:
		st.longErr = sqlerr.NetPacketTooLarge.New()
	default:
		if st.long == nil {
			st.long = map[int][]byte{}
		}
		st.long[i] = append(st.long[i], data...)
		st.longLen += len(data)
	}
}

func (c *conn) stmtReset(body []byte) {
	if len(body) < 4 {
		_ = c.sendErr(sqlerr.WrongArguments.New("mysqld_stmt_reset"))
		return
	}
	id := binary.LittleEndian.Uint32(body)
	st := c.stmts[id]
	if st == nil {
		_ = c.sendErr(sqlerr.UnknownStmt.New(strconv.FormatUint(uint64(id), 10), "mysqld_stmt_reset"))
		return
	}
	st.resetLong()
	_ = c.sendOK(OK{})
}

// parseStmtExecute decodes COM_STMT_EXECUTE (after the command byte) into
// typed parameters (item 4). It never panics; st is returned whenever the
// statement id was found.
func parseStmtExecute(body []byte, stmts map[uint32]*stmt) (*stmt, []types.Datum, error) {
	r := reader{b: body}
	id := r.u32()
	r.u8()  // flags: cursor types are ignored, rows are always streamed
	r.u32() // iteration count, always 1
	if r.err != nil {
		return nil, nil, sqlerr.WrongArguments.New("mysqld_stmt_execute")
	}
	st := stmts[id]
	if st == nil {
		return nil, nil, sqlerr.UnknownStmt.New(strconv.FormatUint(uint64(id), 10), "mysqld_stmt_execute")
	}
	n := st.nParams
	if n == 0 {
		return st, nil, nil
	}
	nulls := r.bytes((n + 7) / 8)
	if bound := r.u8(); bound == 1 {
		if t := r.bytes(2 * n); r.err == nil {
			st.types = append([]byte(nil), t...)
		}
	}
	if r.err != nil || st.types == nil {
		return st, nil, sqlerr.WrongArguments.New("mysqld_stmt_execute")
	}
	args := make([]types.Datum, n)
	for i := range args {
		if data, ok := st.long[i]; ok {
			args[i] = types.StringDatum(string(data))
			continue
		}
		if nulls[i/8]&(1<<(i%8)) != 0 {
			args[i] = types.NullDatum(types.NullT)
			continue
		}
		d, err := readParam(&r, st.types[2*i], st.types[2*i+1]&mysql.PARAM_UNSIGNED != 0)
		if err != nil {
			return st, nil, err
		}
		args[i] = d
	}
	return st, args, nil
}

// readParam decodes one binary-protocol value of MySQL type typ. Integers
// become BIGINT (LARGEINT above MaxInt64), FLOAT/DOUBLE keep their width,
// DECIMAL text becomes DECIMAL(p,s) with p and s of the text, dates become
// DATE/DATETIME, everything else VARCHAR.
func readParam(r *reader, typ byte, unsigned bool) (types.Datum, error) {
	bad := func() (types.Datum, error) {
		return types.Datum{}, sqlerr.WrongArguments.New("mysqld_stmt_execute")
	}
	var d types.Datum
	switch typ {
	case mysql.MYSQL_TYPE_NULL:
		return types.NullDatum(types.NullT), nil
	case mysql.MYSQL_TYPE_TINY:
		v := r.u8()
		if unsigned {
			d = types.IntDatum(int64(v))
		} else {
			d = types.IntDatum(int64(int8(v)))
		}
	case mysql.MYSQL_TYPE_SHORT, mysql.MYSQL_TYPE_YEAR:
		v := r.u16()
		if unsigned {
			d = types.IntDatum(int64(v))
		} else {
			d = types.IntDatum(int64(int16(v)))
		}
	case mysql.MYSQL_TYPE_LONG, mysql.MYSQL_TYPE_INT24:
		v := r.u32()
		if unsigned {
			d = types.IntDatum(int64(v))
		} else {
			d = types.IntDatum(int64(int32(v)))
		}
	case mysql.MYSQL_TYPE_LONGLONG:
		v := r.u64()
		switch {
		case unsigned && v > math.MaxInt64:
			d = types.Datum{T: types.LargeIntT, Dec: decimal128.FromU64(v)}
		default:
			d = types.IntDatum(int64(v))
		}
	case mysql.MYSQL_TYPE_FLOAT:
		d = types.Datum{T: types.FloatT, F: float64(math.Float32frombits(r.u32()))}
	case mysql.MYSQL_TYPE_DOUBLE:
		d = types.FloatDatum(math.Float64frombits(r.u64()))
	case mysql.MYSQL_TYPE_DECIMAL, mysql.MYSQL_TYPE_NEWDECIMAL:
		s := string(r.lenencBytes())
		if r.err != nil {
			return bad()
		}
		return decimalParam(s)
	case mysql.MYSQL_TYPE_DATE, mysql.MYSQL_TYPE_DATETIME, mysql.MYSQL_TYPE_TIMESTAMP,
		mysql.MYSQL_TYPE_NEWDATE, mysql.MYSQL_TYPE_DATETIME2, mysql.MYSQL_TYPE_TIMESTAMP2:
		b := r.bytes(int(r.u8()))
		if r.err != nil {
			return bad()
		}
		return dateParam(b, typ == mysql.MYSQL_TYPE_DATE || typ == mysql.MYSQL_TYPE_NEWDATE)
	case mysql.MYSQL_TYPE_TIME, mysql.MYSQL_TYPE_TIME2:
		b := r.bytes(int(r.u8()))
		if r.err != nil {
			return bad()
		}
		return timeParam(b)
	case mysql.MYSQL_TYPE_VARCHAR, mysql.MYSQL_TYPE_VAR_STRING, mysql.MYSQL_TYPE_STRING,
		mysql.MYSQL_TYPE_TINY_BLOB, mysql.MYSQL_TYPE_MEDIUM_BLOB, mysql.MYSQL_TYPE_LONG_BLOB,
		mysql.MYSQL_TYPE_BLOB, mysql.MYSQL_TYPE_ENUM, mysql.MYSQL_TYPE_SET, mysql.MYSQL_TYPE_JSON,
		mysql.MYSQL_TYPE_GEOMETRY, mysql.MYSQL_TYPE_BIT:
		d = types.StringDatum(string(r.lenencBytes()))
	default:
		return bad()
	}
	if r.err != nil {
		return bad()
	}
	return d, nil
}

// decimalParam types decimal text by its own digits: "-12.340" → DECIMAL(5,3).
// More than 38 digits falls back to DOUBLE.
func decimalParam(s string) (types.Datum, error) {
	t := strings.TrimLeft(strings.TrimSpace(s), "+-")
	if strings.ContainsAny(t, "eE") {
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return types.Datum{}, sqlerr.WrongArguments.New("mysqld_stmt_execute")
		}
		return types.FloatDatum(f), nil
	}
	intPart, frac, _ := strings.Cut(t, ".")
	scale := len(frac)
	prec := max(len(strings.TrimLeft(intPart, "0"))+scale, 1)
	if prec > types.MaxDecimalPrecision {
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return types.Datum{}, sqlerr.WrongArguments.New("mysqld_stmt_execute")
		}
		return types.FloatDatum(f), nil
	}
	n, ok, fits := types.ParseDecimal(s, prec, scale)
	if !ok || !fits {
		return types.Datum{}, sqlerr.WrongArguments.New("mysqld_stmt_execute")
	}
	return types.DecimalDatum(n, prec, scale), nil
}

// dateParam decodes the 0/4/7/11-byte binary date form. Zero or invalid
// dates are passed on as text so the SQL layer reports them as it would a
// text literal.
func dateParam(b []byte, dateOnly bool) (types.Datum, error) {
	var y, mo, d, h, mi, s, us int
	switch len(b) {
	case 0:
	case 4, 7, 11:
		y, mo, d = int(binary.LittleEndian.Uint16(b)), int(b[2]), int(b[3])
		if len(b) >= 7 {
			h, mi, s = int(b[4]), int(b[5]), int(b[6])
		}
		if len(b) == 11 {
			us = int(binary.LittleEndian.Uint32(b[7:]))
		}
	default:
		return types.Datum{}, sqlerr.WrongArguments.New("mysqld_stmt_execute")
	}
	t := time.Date(y, time.Month(mo), d, h, mi, s, us*1000, time.UTC)
	valid := y <= 9999 && mo >= 1 && mo <= 12 && d >= 1 && h < 24 && mi < 60 && s < 60 && us < 1e6 &&
		t.Day() == d
	if dateOnly {
		if !valid {
			return types.StringDatum(fmt.Sprintf("%04d-%02d-%02d", y, mo, d)), nil
		}
		return types.Datum{T: types.DateT, I: int64(types.DaysFromCivil(y, mo, d))}, nil
	}
	if !valid {
		return types.StringDatum(fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d", y, mo, d, h, mi, s)), nil
	}
	dt := types.DateTimeT
	if us != 0 {
		dt.Scale = 6
	}
	return types.Datum{T: dt, I: t.UnixMicro()}, nil
}

// timeParam decodes the 0/8/12-byte binary TIME form into '[-]HHH:MM:SS[.ffffff]'
// text; dorisgo has no TIME type.
func timeParam(b []byte) (types.Datum, error) {
	if len(b) == 0 {
		return types.StringDatum("00:00:00"), nil
	}
	if len(b) != 8 && len(b) != 12 {
		return types.Datum{}, sqlerr.WrongArguments.New("mysqld_stmt_execute")
	}
	sign := ""
	if b[0] == 1 {
		sign = "-"
	}
	hours := int64(binary.LittleEndian.Uint32(b[1:]))*24 + int64(b[5])
	s := fmt.Sprintf("%s%02d:%02d:%02d", sign, hours, b[6], b[7])
	if len(b) == 12 {
		s += fmt.Sprintf(".%06d", binary.LittleEndian.Uint32(b[8:]))
	}
	return types.StringDatum(s), nil
}
