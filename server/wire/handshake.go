package wire

import (
	"crypto/rand"
	"crypto/tls"
	"encoding/binary"

	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/packet"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// serverCaps is what the greeting advertises (item 12). DEPRECATE_EOF is
// implemented on every path that ends with EOF (result sets, PREPARE
// metadata, FIELD_LIST, SET_OPTION); COMPRESS, SESSION_TRACK,
// QUERY_ATTRIBUTES and LOCAL_FILES are not.
const serverCaps = mysql.CLIENT_LONG_PASSWORD | mysql.CLIENT_FOUND_ROWS | mysql.CLIENT_LONG_FLAG |
	mysql.CLIENT_CONNECT_WITH_DB | mysql.CLIENT_PROTOCOL_41 | mysql.CLIENT_SSL |
	mysql.CLIENT_TRANSACTIONS | mysql.CLIENT_SECURE_CONNECTION | mysql.CLIENT_MULTI_STATEMENTS |
	mysql.CLIENT_MULTI_RESULTS | mysql.CLIENT_PS_MULTI_RESULTS | mysql.CLIENT_PLUGIN_AUTH |
	mysql.CLIENT_CONNECT_ATTRS | mysql.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA | mysql.CLIENT_DEPRECATE_EOF

// handshakeResponse is a decoded HandshakeResponse41 (or SSLRequest).
type handshakeResponse struct {
	caps       uint32
	maxPacket  uint32
	charset    byte
	sslRequest bool
	user       string
	auth       []byte
	db         string
	plugin     string
	attrs      map[string]string
}

// parseHandshakeResponse decodes a HandshakeResponse41. It never panics:
// every field is bounds-checked, and strings at the very end may lack their
// NUL (some clients omit it).
func parseHandshakeResponse(data []byte) (*handshakeResponse, error) {
	r := reader{b: data}
	hr := &handshakeResponse{caps: r.u32(), maxPacket: r.u32(), charset: r.u8()}
	r.bytes(23)
	if r.err != nil {
		return nil, r.err
	}
	if hr.caps&mysql.CLIENT_PROTOCOL_41 == 0 {
		return nil, errMalformed
	}
	if r.left() == 0 && hr.caps&mysql.CLIENT_SSL != 0 {
		hr.sslRequest = true
		return hr, nil
	}
	if r.left() == 0 {
		return nil, errMalformed
	}
	hr.user = r.nulString()
	switch {
	case hr.caps&mysql.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA != 0:
		hr.auth = r.lenencBytes()
	case hr.caps&mysql.CLIENT_SECURE_CONNECTION != 0:
		hr.auth = r.bytes(int(r.u8()))
	default:
		hr.auth = []byte(r.nulString())
	}
	if hr.caps&mysql.CLIENT_CONNECT_WITH_DB != 0 && r.left() > 0 {
		hr.db = r.nulString()
	}
	if hr.caps&mysql.CLIENT_PLUGIN_AUTH != 0 && r.left() > 0 {
		hr.plugin = r.nulString()
	}
	if hr.caps&mysql.CLIENT_CONNECT_ATTRS != 0 && r.left() > 0 {
		hr.attrs = parseAttrs(&r)
	}
	if r.err != nil {
		return nil, r.err
	}
	return hr, nil
}

// parseAttrs reads the lenenc-prefixed block of key/value lenenc strings.
func parseAttrs(r *reader) map[string]string {
	n, _ := r.lenenc()
	if r.err != nil || n > uint64(r.left()) {
		r.fail()
		return nil
	}
	ar := reader{b: r.bytes(int(n))}
	attrs := map[string]string{}
	for ar.left() > 0 && ar.err == nil {
		k := ar.lenencBytes()
		v := ar.lenencBytes()
		if ar.err == nil {
			attrs[string(k)] = string(v)
		}
	}
	if ar.err != nil {
		r.err = ar.err
	}
	return attrs
}

// newSalt makes a 20-byte scramble as MySQL does: 7-bit, no NUL or '$'
// (some clients treat the scramble as a C string).
func newSalt() []byte {
	b := make([]byte, 20)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] &= 0x7f
		if b[i] == 0 || b[i] == '$' {
			b[i]++
		}
	}
	return b
}

// greeting builds Handshake v10; status includes AUTOCOMMIT (item 11).
func (c *conn) greeting() []byte {
	b := c.begin()
	b = append(b, 10)
	b = append(b, c.srv.cfg.ServerVersion...)
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint32(b, c.id)
	b = append(b, c.salt[:8]...)
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint16(b, uint16(serverCaps&0xffff))
	b = append(b, collationUTF8MB4)
	b = binary.LittleEndian.AppendUint16(b, c.status)
	b = binary.LittleEndian.AppendUint16(b, uint16(serverCaps>>16))
	b = append(b, 21)
	b = append(b, make([]byte, 10)...)
	b = append(b, c.salt[8:]...)
	b = append(b, 0)
	b = append(b, mysql.AUTH_NATIVE_PASSWORD...)
	return append(b, 0)
}

// handshake runs the connection phase; it returns true once the client is
// authenticated, has a session and got its OK.
func (c *conn) handshake() bool {
	c.salt = newSalt()
	if c.send(c.greeting()) != nil {
		return false
	}
	data, err := readPacket(c.pc, preAuthMaxPacket)
	if err != nil {
		return false
	}
	hr, err := parseHandshakeResponse(data)
	if err != nil {
		_ = c.sendErr(errBadHandshake())
		return false
	}
	if hr.sslRequest {
		if !c.upgradeTLS() {
			return false
		}
		if data, err = readPacket(c.pc, preAuthMaxPacket); err != nil {
			return false
		}
		if hr, err = parseHandshakeResponse(data); err != nil || hr.sslRequest {
			_ = c.sendErr(errBadHandshake())
			return false
		}
	}
	c.caps = hr.caps & serverCaps
	c.multiStmt = c.caps&mysql.CLIENT_MULTI_STATEMENTS != 0
	c.user = hr.user
	plugin := hr.plugin
	if c.caps&mysql.CLIENT_PLUGIN_AUTH == 0 {
		plugin = mysql.AUTH_NATIVE_PASSWORD
	}
	if !c.authenticate(hr.user, plugin, hr.auth) {
		return false
	}
	// The database is validated only now, after authentication (item 10).
	return c.startSession(hr.db, hr.attrs)
}

// upgradeTLS switches the connection to TLS after an SSLRequest.
func (c *conn) upgradeTLS() bool {
	seq := c.pc.Sequence
	tc := tls.Server(preTLSConn{Conn: c.raw, r: c.bc.r}, c.srv.cfg.TLS)
	if err := tc.Handshake(); err != nil {
		c.log.Debug("wire: TLS handshake failed", "err", err)
		return false
	}
	c.bc = newBufConn(tc, nil)
	c.pc = packet.NewTLSConn(c.bc)
	c.pc.Sequence = seq
	c.tls = true
	return true
}

// startSession creates the session, applies the handshake database and
// sends the final OK.
func (c *conn) startSession(db string, attrs map[string]string) bool {
	sess, err := c.srv.h.NewSession(ConnInfo{
		ID: c.id, User: c.user, Host: c.host, DB: db, TLS: c.tls, Attrs: attrs, Cancel: c.cancel,
	})
	if err != nil {
		_ = c.sendErr(err)
		return false
	}
	c.sess = sess
	if db != "" {
		ctx, cancel := c.cmdContext()
		err := sess.InitDB(ctx, db)
		cancel()
		if err != nil {
			_ = c.sendErr(err)
			return false
		}
	}
	return c.sendOK(OK{}) == nil
}

// changeUser handles COM_CHANGE_USER: a new authentication with the
// greeting's scramble, then a fresh session. Failure closes the connection
// as MySQL does.
func (c *conn) changeUser(body []byte) bool {
	r := reader{b: body}
	user := r.nulString()
	var auth []byte
	if c.caps&mysql.CLIENT_SECURE_CONNECTION != 0 {
		auth = r.bytes(int(r.u8()))
	} else {
		auth = []byte(r.nulString())
	}
	db := r.nulString()
	if r.left() >= 2 {
		r.u16() // character set
	}
	plugin := mysql.AUTH_NATIVE_PASSWORD
	if c.caps&mysql.CLIENT_PLUGIN_AUTH != 0 && r.left() > 0 {
		plugin = r.nulString()
	}
	var attrs map[string]string
	if c.caps&mysql.CLIENT_CONNECT_ATTRS != 0 && r.left() > 0 {
		attrs = parseAttrs(&r)
	}
	if r.err != nil {
		_ = c.sendErr(errBadHandshake())
		return false
	}
	if c.sess != nil {
		c.sess.Close()
		c.sess = nil
	}
	c.stmts = map[uint32]*stmt{}
	c.user = user
	if !c.authenticate(user, plugin, auth) {
		return false
	}
	return c.startSession(db, attrs)
}

func errBadHandshake() *sqlerr.Error {
	return &sqlerr.Error{Code: 1043, State: "08S01", Message: "Bad handshake"}
}
