package wire

import (
	"bytes"
	"net"
	"testing"
	"time"

	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/packet"
)

// bytesConn is a net.Conn reading from a fixed byte slice.
type bytesConn struct {
	net.Conn
	r *bytes.Reader
}

func (b *bytesConn) Read(p []byte) (int, error)       { return b.r.Read(p) }
func (b *bytesConn) Write(p []byte) (int, error)      { return len(p), nil }
func (b *bytesConn) SetReadDeadline(time.Time) error  { return nil }
func (b *bytesConn) SetWriteDeadline(time.Time) error { return nil }

// FuzzReadPacket: framing never panics, never returns more than max bytes.
func FuzzReadPacket(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 3}, uint16(16))
	f.Add([]byte{5, 0, 0, 0, 3, 's', 'e', 'l', 'e', 2, 0, 0, 1, 'x', 'y'}, uint16(4))
	f.Add([]byte{0xff, 0xff, 0xff, 0, 1, 2, 3}, uint16(100))
	f.Add([]byte{0, 0, 0, 5}, uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, max uint16) {
		pc := packet.NewTLSConn(&bytesConn{r: bytes.NewReader(data)})
		for i := 0; i < 8; i++ {
			p, err := readPacket(pc, int(max))
			if err != nil {
				return
			}
			if len(p) > int(max) {
				t.Fatalf("packet of %d bytes over max %d", len(p), max)
			}
		}
	})
}

// FuzzHandshakeResponse: the HandshakeResponse41 parser returns errors, never panics.
func FuzzHandshakeResponse(f *testing.F) {
	f.Add(handshakeResp(rawCaps, "root", nil, mysql.AUTH_NATIVE_PASSWORD))
	f.Add(handshakeResp(rawCaps|mysql.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA|mysql.CLIENT_CONNECT_WITH_DB, "u", []byte("0123456789abcdefghij"), "caching_sha2_password"))
	f.Add(handshakeResp(rawCaps, "root", nil, "")[:32])
	f.Add([]byte{0, 0x82, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		hr, err := parseHandshakeResponse(data)
		if err == nil && hr == nil {
			t.Fatal("nil response without error")
		}
	})
}

// FuzzStmtExecute: COM_STMT_EXECUTE decoding returns errors, never panics.
func FuzzStmtExecute(f *testing.F) {
	exec := func(id uint32, rest ...byte) []byte {
		return append(append(append(u32(id), 0), u32(1)...), rest...)
	}
	f.Add(exec(1, 0, 1, mysql.MYSQL_TYPE_LONGLONG, 0, mysql.MYSQL_TYPE_DATE, 0, 1, 0, 0, 0, 0, 0, 0, 0, 4, 0xd0, 7, 1, 2), uint8(2))
	f.Add(exec(2, 0, 0, 5), uint8(1))
	f.Add(exec(1, 0, 1, mysql.MYSQL_TYPE_NEWDECIMAL, 0, 4, '1', '.', '2', '5'), uint8(1))
	f.Add(exec(1, 0, 1, mysql.MYSQL_TYPE_TIME, 0, 8, 1, 1, 0, 0, 0, 2, 3, 4), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, n uint8) {
		stmts := map[uint32]*stmt{
			1: {id: 1, nParams: int(n % 9)},
			2: {id: 2, nParams: 1, types: []byte{mysql.MYSQL_TYPE_DATETIME, 0}, long: map[int][]byte{}},
			3: {id: 3, nParams: 2, types: []byte{mysql.MYSQL_TYPE_BLOB, 0, mysql.MYSQL_TYPE_TINY, 0x80}, long: map[int][]byte{0: []byte("x")}},
		}
		st, args, err := parseStmtExecute(data, stmts)
		if err == nil && st != nil && len(args) != st.nParams {
			t.Fatalf("%d args for %d params", len(args), st.nParams)
		}
	})
}
