package wire

import (
	"bytes"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/x509"
	"encoding/binary"
	"encoding/pem"
	"math"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/packet"
)

// rawClient speaks the protocol by hand, without CLIENT_DEPRECATE_EOF, so
// the classic EOF paths and malformed input are exercised.
type rawClient struct {
	t    *testing.T
	nc   net.Conn
	pc   *packet.Conn
	salt []byte
	id   uint32
}

func dialRaw(t *testing.T, addr string) *rawClient {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
	t.Cleanup(func() { _ = nc.Close() })
	c := &rawClient{t: t, nc: nc, pc: packet.NewConn(nc)}
	g := c.read()
	if g[0] != 10 {
		t.Fatalf("greeting %x", g)
	}
	r := reader{b: g[1:]}
	r.nulString()
	c.id = r.u32()
	c.salt = append(c.salt, r.bytes(8)...)
	r.u8()
	capLo := r.u16()
	r.u8()
	if st := r.u16(); st&mysql.SERVER_STATUS_AUTOCOMMIT == 0 {
		t.Fatalf("greeting status %x", st)
	}
	capHi := r.u16()
	if caps := uint32(capLo) | uint32(capHi)<<16; caps != serverCaps {
		t.Fatalf("caps %x", caps)
	}
	r.bytes(11)
	c.salt = append(c.salt, r.bytes(12)...)
	r.u8()
	if p := r.nulString(); p != mysql.AUTH_NATIVE_PASSWORD || r.err != nil {
		t.Fatalf("plugin %q %v", p, r.err)
	}
	return c
}

func (c *rawClient) read() []byte {
	c.t.Helper()
	b, err := c.pc.ReadPacket()
	if err != nil {
		c.t.Fatal(err)
	}
	return b
}

func (c *rawClient) write(payload ...byte) {
	c.t.Helper()
	if err := c.pc.WritePacket(append([]byte{0, 0, 0, 0}, payload...)); err != nil {
		c.t.Fatal(err)
	}
}

// cmd sends a command (sequence restarts at 0).
func (c *rawClient) cmd(payload ...byte) {
	c.t.Helper()
	c.pc.ResetSequence()
	c.write(payload...)
}

const rawCaps = mysql.CLIENT_PROTOCOL_41 | mysql.CLIENT_SECURE_CONNECTION | mysql.CLIENT_PLUGIN_AUTH |
	mysql.CLIENT_CONNECT_ATTRS | mysql.CLIENT_MULTI_RESULTS | mysql.CLIENT_LONG_PASSWORD

func handshakeResp(caps uint32, user string, auth []byte, plugin string) []byte {
	b := binary.LittleEndian.AppendUint32(nil, caps)
	b = binary.LittleEndian.AppendUint32(b, 1<<24)
	b = append(b, 45)
	b = append(b, make([]byte, 23)...)
	b = append(b, user...)
	b = append(b, 0, byte(len(auth)))
	b = append(b, auth...)
	b = append(b, plugin...)
	b = append(b, 0)
	attrs := appendLenencString(appendLenencString(nil, "_client_name"), "raw")
	b = mysql.AppendLengthEncodedInteger(b, uint64(len(attrs)))
	return append(b, attrs...)
}

func (c *rawClient) login(user string) {
	c.t.Helper()
	c.write(handshakeResp(rawCaps, user, nil, mysql.AUTH_NATIVE_PASSWORD)...)
	c.expectOK()
}

func (c *rawClient) expectOK() []byte {
	c.t.Helper()
	b := c.read()
	if b[0] != mysql.OK_HEADER {
		c.t.Fatalf("want OK, got %q", b)
	}
	return b
}

func (c *rawClient) expectErr(code uint16) {
	c.t.Helper()
	b := c.read()
	if b[0] != mysql.ERR_HEADER || binary.LittleEndian.Uint16(b[1:]) != code {
		c.t.Fatalf("want ERR %d, got %q", code, b)
	}
}

func (c *rawClient) expectEOF() {
	c.t.Helper()
	if b := c.read(); b[0] != mysql.EOF_HEADER || len(b) != 5 {
		c.t.Fatalf("want EOF, got %q", b)
	}
}

// resultSet reads column definitions and rows of a classic (EOF) result set.
func (c *rawClient) resultSet() ([]*mysql.Field, [][]byte) {
	c.t.Helper()
	b := c.read()
	r := reader{b: b}
	n, _ := r.lenenc()
	var fs []*mysql.Field
	for i := uint64(0); i < n; i++ {
		f, err := mysql.FieldData(c.read()).Parse()
		if err != nil {
			c.t.Fatal(err)
		}
		fs = append(fs, f)
	}
	c.expectEOF()
	var rows [][]byte
	for {
		b := c.read()
		if b[0] == mysql.EOF_HEADER && len(b) < 9 {
			return fs, rows
		}
		if b[0] == mysql.ERR_HEADER {
			c.t.Fatalf("ERR in result: %q", b)
		}
		rows = append(rows, b)
	}
}

func (c *rawClient) closed() bool {
	_ = c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := c.pc.ReadPacket()
	return err != nil
}

func TestRawColumnDefinitions(t *testing.T) {
	_, addr := startServer(t, Config{}, newTestHandler())
	c := dialRaw(t, addr)
	c.login("root")
	c.cmd(append([]byte{mysql.COM_QUERY}, "select types"...)...)
	fs, rows := c.resultSet()
	if len(rows) != 3 {
		t.Fatalf("%d rows", len(rows))
	}
	type def struct {
		typ     byte
		length  uint32
		dec     uint8
		charset uint16
		flags   uint16
	}
	num := uint16(mysql.BINARY_FLAG | mysql.NUM_FLAG | mysql.NOT_NULL_FLAG)
	want := []def{
		{mysql.MYSQL_TYPE_TINY, 1, 0, 63, num},
		{mysql.MYSQL_TYPE_TINY, 4, 0, 63, num},
		{mysql.MYSQL_TYPE_SHORT, 6, 0, 63, num},
		{mysql.MYSQL_TYPE_LONG, 11, 0, 63, num | mysql.PRI_KEY_FLAG},
		{mysql.MYSQL_TYPE_LONGLONG, 20, 0, 63, mysql.BINARY_FLAG | mysql.NUM_FLAG},
		{mysql.MYSQL_TYPE_STRING, 160, 0, 45, 0},
		{mysql.MYSQL_TYPE_FLOAT, 12, 31, 63, mysql.BINARY_FLAG | mysql.NUM_FLAG},
		{mysql.MYSQL_TYPE_DOUBLE, 22, 31, 63, mysql.BINARY_FLAG | mysql.NUM_FLAG},
		{mysql.MYSQL_TYPE_NEWDECIMAL, 14, 2, 63, mysql.BINARY_FLAG | mysql.NUM_FLAG},
		{mysql.MYSQL_TYPE_STRING, 20, 0, 45, 0},
		{mysql.MYSQL_TYPE_VAR_STRING, 80, 0, 45, 0},
		{mysql.MYSQL_TYPE_BLOB, math.MaxUint32, 0, 45, mysql.BLOB_FLAG},
		{mysql.MYSQL_TYPE_DATE, 10, 0, 63, mysql.BINARY_FLAG},
		{mysql.MYSQL_TYPE_DATETIME, 19, 0, 63, mysql.BINARY_FLAG},
		{mysql.MYSQL_TYPE_DATETIME, 26, 6, 63, mysql.BINARY_FLAG},
		{mysql.MYSQL_TYPE_NULL, 0, 0, 63, mysql.BINARY_FLAG},
	}
	for i, f := range fs {
		got := def{f.Type, f.ColumnLength, f.Decimal, f.Charset, f.Flag}
		if got != want[i] || string(f.Name) != typeCols[i].Name {
			t.Errorf("column %s: %+v, want %+v", f.Name, got, want[i])
		}
	}
	// COM_FIELD_LIST: definitions with a NULL default, then EOF.
	c.cmd(append([]byte{mysql.COM_FIELD_LIST}, "t\x00%"...)...)
	for i := 0; i < 2; i++ {
		if b := c.read(); b[len(b)-1] != 0xfb {
			t.Fatalf("field list entry %q", b)
		}
	}
	c.expectEOF()
	c.cmd(append([]byte{mysql.COM_FIELD_LIST}, "nope"...)...) // no NUL: still parsed
	c.expectErr(1146)
}

func u32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

func TestRawPreparedStatements(t *testing.T) {
	_, addr := startServer(t, Config{}, newTestHandler())
	c := dialRaw(t, addr)
	c.login("root")
	prepare := func(q string, params int) uint32 {
		c.cmd(append([]byte{mysql.COM_STMT_PREPARE}, q...)...)
		b := c.expectOK()
		id := binary.LittleEndian.Uint32(b[1:])
		if n := binary.LittleEndian.Uint16(b[7:]); int(n) != params {
			t.Fatalf("params %d", n)
		}
		for i := 0; i < params; i++ {
			f, err := mysql.FieldData(c.read()).Parse()
			if err != nil || f.Type != mysql.MYSQL_TYPE_LONGLONG || string(f.Name) != "?" {
				t.Fatalf("param def %+v %v", f, err)
			}
		}
		c.expectEOF()
		return id
	}
	id := prepare("echo ?, ?", 2)
	exec := func(payload []byte) [][]byte {
		c.cmd(append([]byte{mysql.COM_STMT_EXECUTE}, payload...)...)
		_, rows := c.resultSet()
		return rows
	}
	head := func(id uint32) []byte { return append(append(u32(id), 0), u32(1)...) }
	// First execute binds types: DATE and LONGLONG unsigned.
	p := append(head(id), 0, 1, mysql.MYSQL_TYPE_DATE, 0, mysql.MYSQL_TYPE_LONGLONG, 0x80)
	p = append(p, 4, 0xd0, 0x07, 1, 2) // 2000-01-02
	p = binary.LittleEndian.AppendUint64(p, 41)
	rows := exec(p)
	// binary row: 0x00, bitmap (1 byte for 4 columns), DATE, lenenc type, LONGLONG, lenenc type
	want := []byte{0, 0, 4, 0xd0, 0x07, 1, 2, 4, 'D', 'A', 'T', 'E'}
	if !bytes.HasPrefix(rows[0], want) {
		t.Fatalf("row %q", rows[0])
	}
	// Re-execute with new-params-bound-flag 0: the stored types apply (item 3).
	p = append(head(id), 0, 0)
	p = append(p, 7, 0xe8, 0x07, 2, 29, 13, 14, 15) // a DATETIME sent for a DATE param: truncated
	p = binary.LittleEndian.AppendUint64(p, 99)
	rows = exec(p)
	if !bytes.Contains(rows[0], binary.LittleEndian.AppendUint64(nil, 99)) || !bytes.HasPrefix(rows[0], []byte{0, 0, 4, 0xe8, 0x07, 2, 29}) {
		t.Fatalf("re-executed row %q", rows[0])
	}
	// NULL bitmap and long data: param 0 from SEND_LONG_DATA, param 1 NULL.
	c.cmd(append(append([]byte{mysql.COM_STMT_SEND_LONG_DATA}, u32(id)...), 0, 0, 'h', 'e', 'l')...)
	c.cmd(append(append([]byte{mysql.COM_STMT_SEND_LONG_DATA}, u32(id)...), 0, 0, 'l', 'o')...)
	rows = exec(append(head(id), 2, 1, mysql.MYSQL_TYPE_BLOB, 0, mysql.MYSQL_TYPE_LONGLONG, 0))
	if !bytes.HasPrefix(rows[0], []byte{0, 0x10, 5, 'h', 'e', 'l', 'l', 'o'}) {
		t.Fatalf("long data row %q", rows[0])
	}
	// DECIMAL and DATETIME with microseconds, unsigned > MaxInt64.
	id2 := prepare("echo ?, ?, ?", 3)
	p = append(head(id2), 0, 1, mysql.MYSQL_TYPE_NEWDECIMAL, 0, mysql.MYSQL_TYPE_DATETIME, 0, mysql.MYSQL_TYPE_LONGLONG, 0x80)
	p = appendLenencString(p, "-12.340")
	p = append(p, 11, 0xe8, 0x07, 2, 29, 13, 14, 15)
	p = binary.LittleEndian.AppendUint32(p, 5)
	p = binary.LittleEndian.AppendUint64(p, math.MaxUint64)
	row := exec(p)[0]
	for _, s := range []string{"\x07-12.340\x0cDECIMAL(5,3)", "\x0bDATETIME(6)", "\x1418446744073709551615\x08LARGEINT"} {
		if !bytes.Contains(row, []byte(s)) {
			t.Fatalf("row %q lacks %q", row, s)
		}
	}
	// Reset answers OK; close answers nothing; the closed id is unknown.
	c.cmd(append([]byte{mysql.COM_STMT_RESET}, u32(id)...)...)
	c.expectOK()
	c.cmd(append([]byte{mysql.COM_STMT_CLOSE}, u32(id)...)...)
	c.cmd(mysql.COM_PING)
	c.expectOK()
	c.cmd(append([]byte{mysql.COM_STMT_EXECUTE}, head(id)...)...)
	c.expectErr(1243)
	// COM_RESET_CONNECTION drops the other statement too.
	c.cmd(mysql.COM_RESET_CONNECTION)
	c.expectOK()
	c.cmd(append([]byte{mysql.COM_STMT_EXECUTE}, head(id2)...)...)
	c.expectErr(1243)
	// A flag-0 execute of a fresh statement has no types: an error, not NULLs.
	id3 := prepare("echo ?", 1)
	c.cmd(append(append([]byte{mysql.COM_STMT_EXECUTE}, head(id3)...), 0, 0, 1)...)
	c.expectErr(1210)
}

func TestRawMalformedAndMisc(t *testing.T) {
	srv, addr := startServer(t, Config{}, newTestHandler())
	c := dialRaw(t, addr)
	c.login("root")
	c.cmd() // empty command packet
	c.expectErr(1047)
	c.cmd(0x99)
	c.expectErr(1047)
	c.cmd(mysql.COM_STMT_EXECUTE, 1)
	c.expectErr(1210)
	c.cmd(mysql.COM_STMT_EXECUTE, 0xff, 0xff, 0xff, 0xff, 0, 1, 0, 0, 0)
	c.expectErr(1243)
	c.cmd(mysql.COM_STMT_SEND_LONG_DATA, 1) // no answer
	c.cmd(mysql.COM_SET_OPTION, 0, 0)
	c.expectEOF()
	c.cmd(mysql.COM_STATISTICS)
	if b := c.read(); !strings.HasPrefix(string(b), "Uptime: ") {
		t.Fatalf("statistics %q", b)
	}
	c.cmd(append([]byte{mysql.COM_INIT_DB}, "nope"...)...)
	c.expectErr(1049)
	c.cmd(append([]byte{mysql.COM_INIT_DB}, "db2"...)...)
	c.expectOK()
	// Multi-results on the EOF path: result set, OK, result set.
	c.cmd(append([]byte{mysql.COM_QUERY}, "multi"...)...)
	c.resultSet()
	if b := c.expectOK(); binary.LittleEndian.Uint16(b[3:])&mysql.SERVER_MORE_RESULTS_EXISTS == 0 {
		t.Fatalf("OK without MORE_RESULTS: %q", b)
	}
	c.resultSet()
	// COM_PROCESS_KILL becomes "KILL <id>": the own connection closes.
	c.cmd(append([]byte{mysql.COM_PROCESS_KILL}, u32(c.id)...)...)
	c.expectOK()
	if !c.closed() {
		t.Fatal("killed connection open")
	}

	// Pre-auth garbage never takes the server down.
	for _, p := range [][]byte{
		{},
		{1, 2, 3},
		handshakeResp(rawCaps, "root", nil, "")[:40], // user without NUL
		append(handshakeResp(rawCaps|mysql.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA, "root", nil, "")[:37], 0xfe, 1, 0, 0, 0, 0, 0, 0, 0x80), // lenenc overrun
		handshakeResp(rawCaps&^mysql.CLIENT_PROTOCOL_41, "root", nil, ""),
		append(handshakeResp(rawCaps, "root", nil, mysql.AUTH_NATIVE_PASSWORD)[:60], 0xfd, 0xff, 0xff), // attrs overrun
	} {
		g := dialRaw(t, addr)
		g.write(p...)
		if b, err := g.pc.ReadPacket(); err == nil && b[0] != mysql.ERR_HEADER {
			t.Fatalf("garbage %q accepted: %q", p, b)
		}
	}
	d := dialRaw(t, addr)
	d.login("root")
	d.cmd(mysql.COM_PING)
	d.expectOK()
	_ = srv
}

func TestRawCachingSha2FullAuth(t *testing.T) {
	_, addr := startServer(t, Config{}, newTestHandler())
	// carol has only a native hash: a caching_sha2 scramble cannot be checked
	// fast, so the server asks for full authentication and the client uses RSA.
	c := dialRaw(t, addr)
	scr := mysql.CalcCachingSha2Password(c.salt, "pw3")
	c.write(handshakeResp(rawCaps, "carol", scr, mysql.AUTH_CACHING_SHA2_PASSWORD)...)
	if b := c.read(); !bytes.Equal(b, []byte{1, mysql.CACHE_SHA2_FULL_AUTH}) {
		t.Fatalf("want full auth, got %q", b)
	}
	c.write(2) // request public key
	b := c.read()
	blk, _ := pem.Decode(b[1:])
	pub, err := x509.ParsePKIXPublicKey(blk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	plain := []byte("pw3\x00")
	for i := range plain {
		plain[i] ^= c.salt[i%len(c.salt)]
	}
	enc, err := rsa.EncryptOAEP(sha1.New(), randReader{}, pub.(*rsa.PublicKey), plain, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.write(enc...)
	c.expectOK()

	// The native scramble in COM_CHANGE_USER switches to alice.
	stage1 := sha1.Sum([]byte("secret"))
	stage2 := sha1.Sum(stage1[:])
	h := sha1.New()
	h.Write(c.salt)
	h.Write(stage2[:])
	reply := h.Sum(nil)
	for i := range reply {
		reply[i] ^= stage1[i]
	}
	p := append([]byte{mysql.COM_CHANGE_USER}, "alice\x00"...)
	p = append(append(p, 20), reply...)
	p = append(p, "db1\x00"...)
	p = append(p, 45, 0)
	p = append(p, mysql.AUTH_NATIVE_PASSWORD+"\x00"...)
	c.cmd(p...)
	c.expectOK()
	c.cmd(append([]byte{mysql.COM_QUERY}, "whoami"...)...)
	_, rows := c.resultSet()
	if !bytes.Contains(rows[0], []byte("\x05alice\x03db1")) {
		t.Fatalf("whoami after change user %q", rows[0])
	}
}

// randReader is a deterministic byte source for RSA-OAEP padding in tests.
type randReader struct{}

func (randReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(i*7 + 1)
	}
	return len(p), nil
}

func TestRawWaitTimeoutAndPacketLimit(t *testing.T) {
	_, addr := startServer(t, Config{WaitTimeout: 50 * time.Millisecond}, newTestHandler())
	c := dialRaw(t, addr)
	c.login("root")
	if !c.closed() { // idle past wait_timeout
		t.Fatal("idle connection not closed")
	}
	_, addr = startServer(t, Config{MaxAllowedPacket: 1000}, newTestHandler())
	c = dialRaw(t, addr)
	c.login("root")
	c.cmd(append([]byte{mysql.COM_QUERY}, strings.Repeat("x", 2000)...)...)
	c.expectErr(1153)
	if _, err := c.pc.ReadPacket(); err == nil {
		t.Fatal("connection open after 1153")
	}
}

// TestRawWarningCount: the OK packet and the EOF closing a result set carry
// the statement's warning count (the session's WarningReporter); the EOF
// after the column definitions does not.
func TestRawWarningCount(t *testing.T) {
	_, addr := startServer(t, Config{}, newTestHandler())
	c := dialRaw(t, addr)
	c.login("root")
	c.cmd(append([]byte{mysql.COM_QUERY}, "warn ok"...)...)
	ok := c.expectOK()
	// header, affected rows 1, insert id 0, status (2), warnings (2)
	if w := binary.LittleEndian.Uint16(ok[5:]); w != 2 {
		t.Errorf("OK warnings %d, want 2 (%x)", w, ok)
	}
	c.cmd(append([]byte{mysql.COM_QUERY}, "warn rows"...)...)
	b := c.read() // column count
	if b[0] != 1 {
		t.Fatalf("column count %x", b)
	}
	c.read() // the column
	if eof := c.read(); eof[0] != mysql.EOF_HEADER || binary.LittleEndian.Uint16(eof[1:]) != 0 {
		t.Errorf("EOF after columns %x, want 0 warnings", eof)
	}
	c.read() // the row
	eof := c.read()
	if eof[0] != mysql.EOF_HEADER || binary.LittleEndian.Uint16(eof[1:]) != 3 {
		t.Errorf("closing EOF %x, want 3 warnings", eof)
	}
	c.cmd(append([]byte{mysql.COM_QUERY}, "select 1"...)...)
	c.resultSet()
	c.cmd(append([]byte{mysql.COM_QUERY}, "insert"...)...)
	if ok := c.expectOK(); binary.LittleEndian.Uint16(ok[5:]) != 0 {
		t.Errorf("OK of a statement without warnings: %x", ok)
	}
}
