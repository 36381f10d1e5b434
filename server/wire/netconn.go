package wire

import (
	"bufio"
	"errors"
	"net"
	"time"

	"github.com/go-mysql-org/go-mysql/packet"
)

// netWriteTimeout bounds one socket write (MySQL's net_write_timeout): a
// client that stops reading a result cannot pin the connection forever.
const netWriteTimeout = 60 * time.Second

// bufConn buffers both directions of a socket (WIRE-PROTOCOL.md items 8, 20):
// packet.Conn writes one packet per Write, which would be one syscall each.
// Pending output is flushed before every read, so a request/response
// exchange never deadlocks on buffered bytes.
type bufConn struct {
	net.Conn // raw TCP or TLS: deadlines, addresses, Close
	r        *bufio.Reader
	w        *bufio.Writer
}

func newBufConn(c net.Conn, r *bufio.Reader) *bufConn {
	if r == nil {
		r = bufio.NewReaderSize(c, 16<<10)
	}
	return &bufConn{Conn: c, r: r, w: bufio.NewWriterSize(deadlineWriter{c}, 32<<10)}
}

func (b *bufConn) Read(p []byte) (int, error) {
	if b.w.Buffered() > 0 {
		if err := b.w.Flush(); err != nil {
			return 0, err
		}
	}
	return b.r.Read(p)
}

func (b *bufConn) Write(p []byte) (int, error) { return b.w.Write(p) }

func (b *bufConn) Flush() error { return b.w.Flush() }

// deadlineWriter arms the write deadline before each real socket write.
type deadlineWriter struct{ c net.Conn }

func (d deadlineWriter) Write(p []byte) (int, error) {
	_ = d.c.SetWriteDeadline(time.Now().Add(netWriteTimeout))
	return d.c.Write(p)
}

// preTLSConn lets the TLS handshake read from the plain-text reader: bytes
// of the ClientHello may already sit in its buffer behind the SSLRequest.
type preTLSConn struct {
	net.Conn
	r *bufio.Reader
}

func (p preTLSConn) Read(b []byte) (int, error) { return p.r.Read(b) }

// errPacketTooLarge is returned when an incoming packet exceeds the limit.
var errPacketTooLarge = errors.New("wire: packet larger than max_allowed_packet")

// limitBuf collects one logical packet and refuses to grow past max, so an
// announced 1 GB packet costs at most max bytes of memory before the error.
type limitBuf struct {
	buf      []byte
	max      int
	exceeded bool
}

func (l *limitBuf) Write(p []byte) (int, error) {
	if len(l.buf)+len(p) > l.max {
		l.exceeded = true
		return 0, errPacketTooLarge
	}
	l.buf = append(l.buf, p...)
	return len(p), nil
}

// readPacket reads one logical packet (joining 16 MB chunks) of at most max
// bytes. The sequence number is checked by packet.Conn.
func readPacket(pc *packet.Conn, max int) ([]byte, error) {
	lb := limitBuf{max: max}
	if err := pc.ReadPacketTo(&lb); err != nil {
		// packet.Conn flattens wrapped errors into text, hence the flag.
		if lb.exceeded {
			return nil, errPacketTooLarge
		}
		return nil, err
	}
	return lb.buf, nil
}
