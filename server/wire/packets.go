package wire

import (
	"bytes"
	"encoding/binary"
	"errors"

	"github.com/go-mysql-org/go-mysql/mysql"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// errMalformed is returned by every decoder for truncated or inconsistent input.
var errMalformed = errors.New("wire: malformed packet")

// reader decodes a packet payload without ever indexing past its end
// (go-mysql's helpers panic on short input: WIRE-PROTOCOL.md item 1).
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail() { r.err = errMalformed }

func (r *reader) left() int { return len(r.b) }

func (r *reader) bytes(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b) {
		r.fail()
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) u8() byte {
	b := r.bytes(1)
	if b == nil {
		return 0
	}
	return b[0]
}

func (r *reader) u16() uint16 {
	b := r.bytes(2)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint16(b)
}

func (r *reader) u32() uint32 {
	b := r.bytes(4)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}

func (r *reader) u64() uint64 {
	b := r.bytes(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

// lenenc reads a length-encoded integer; null reports the 0xfb marker.
func (r *reader) lenenc() (n uint64, null bool) {
	switch c := r.u8(); c {
	case 0xfb:
		return 0, true
	case 0xfc:
		return uint64(r.u16()), false
	case 0xfd:
		b := r.bytes(3)
		if b == nil {
			return 0, false
		}
		return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16, false
	case 0xfe:
		return r.u64(), false
	case 0xff:
		r.fail()
		return 0, false
	default:
		return uint64(c), false
	}
}

// lenencBytes reads a length-encoded string.
func (r *reader) lenencBytes() []byte {
	n, _ := r.lenenc()
	if r.err != nil || n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	return r.bytes(int(n))
}

// nulString reads up to a NUL (consumed) or, leniently, to the end.
func (r *reader) nulString() string {
	if r.err != nil {
		return ""
	}
	i := bytes.IndexByte(r.b, 0)
	if i < 0 {
		s := string(r.b)
		r.b = nil
		return s
	}
	s := string(r.b[:i])
	r.b = r.b[i+1:]
	return s
}

// Packet builders. Every packet starts with 4 bytes reserved for the header
// that packet.Conn.WritePacket fills in.

func appendLenencString(b []byte, s string) []byte {
	b = mysql.AppendLengthEncodedInteger(b, uint64(len(s)))
	return append(b, s...)
}

func appendOK(b []byte, header byte, ok OK, status uint16) []byte {
	b = append(b, header)
	b = mysql.AppendLengthEncodedInteger(b, ok.AffectedRows)
	b = mysql.AppendLengthEncodedInteger(b, ok.LastInsertID)
	b = binary.LittleEndian.AppendUint16(b, status)
	b = binary.LittleEndian.AppendUint16(b, ok.Warnings)
	// MySQL 5.7 servers write the info as a length-encoded string
	// (net_store_data), and libmariadb reads it so whatever the
	// capabilities: a bare string<EOF> makes the C client fail with 2027.
	if ok.Info == "" {
		return b
	}
	return appendLenencString(b, ok.Info)
}

func appendEOF(b []byte, warnings, status uint16) []byte {
	b = append(b, mysql.EOF_HEADER)
	b = binary.LittleEndian.AppendUint16(b, warnings)
	return binary.LittleEndian.AppendUint16(b, status)
}

func appendErr(b []byte, e *sqlerr.Error) []byte {
	b = append(b, mysql.ERR_HEADER)
	b = binary.LittleEndian.AppendUint16(b, uint16(e.Code))
	state := e.State
	if len(state) != 5 {
		state = "HY000"
	}
	b = append(b, '#')
	b = append(b, state...)
	return append(b, e.Message...)
}
