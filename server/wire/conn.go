package wire

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime/debug"
	"strings"
	"time"

	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/packet"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// handshakeTimeout bounds the whole connection phase (greeting to OK).
const handshakeTimeout = 10 * time.Second

// preAuthMaxPacket caps packets before authentication, so an anonymous
// client cannot make the server buffer max_allowed_packet bytes.
const preAuthMaxPacket = 1 << 20

// conn is one client connection, served by one goroutine.
type conn struct {
	srv    *Server
	id     uint32
	raw    net.Conn
	bc     *bufConn
	pc     *packet.Conn
	log    *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc

	caps      uint32 // capabilities agreed with the client
	salt      []byte // 20-byte scramble of the greeting
	user      string
	host      string
	tls       bool
	multiStmt bool
	status    uint16

	sess     Session
	stmts    map[uint32]*stmt
	nextStmt uint32

	out      []byte // reused packet buffer
	writeErr error  // first socket write error; the connection is then dead
}

func (c *conn) deprecateEOF() bool { return c.caps&mysql.CLIENT_DEPRECATE_EOF != 0 }

// begin returns the reusable buffer with room for the packet header.
func (c *conn) begin() []byte {
	if cap(c.out) > 1<<20 {
		c.out = nil // do not pin a huge row's buffer
	}
	return append(c.out[:0], 0, 0, 0, 0)
}

// send writes one packet (payload after 4 reserved header bytes).
func (c *conn) send(b []byte) error {
	if c.writeErr != nil {
		return c.writeErr
	}
	if err := c.pc.WritePacket(b); err != nil {
		c.writeErr = fmt.Errorf("wire: write: %w", err)
		return c.writeErr
	}
	c.out = b[:0]
	return nil
}

// serverStatus is the status flags to send: the session's when it
// reports them, else the connection's.
func (c *conn) serverStatus() uint16 {
	if r, ok := c.sess.(StatusReporter); ok {
		return r.ServerStatus()
	}
	return c.status
}

// sendOK writes OK with the connection status.
func (c *conn) sendOK(ok OK) error {
	return c.send(appendOK(c.begin(), mysql.OK_HEADER, ok, c.serverStatus()))
}

// sendEnd closes a result set (or a metadata block that needs a
// terminator): EOF, or OK with the EOF header under CLIENT_DEPRECATE_EOF.
func (c *conn) sendEnd(status, warnings uint16) error {
	if c.deprecateEOF() {
		return c.send(appendOK(c.begin(), mysql.EOF_HEADER, OK{Warnings: warnings}, status))
	}
	return c.send(appendEOF(c.begin(), warnings, status))
}

// statementWarnings is the running statement's warning count (0 when the
// session does not report one).
func (c *conn) statementWarnings() uint16 {
	if r, ok := c.sess.(WarningReporter); ok {
		return r.StatementWarnings()
	}
	return 0
}

// sendErr writes err as ERR, keeping its code through wrapping (item 5).
func (c *conn) sendErr(err error) error {
	return c.send(appendErr(c.begin(), sqlerr.As(err)))
}

func (c *conn) flush() {
	if c.writeErr == nil {
		if err := c.bc.Flush(); err != nil {
			c.writeErr = err
		}
	}
}

// serve runs the connection to its end. A panic anywhere in the handshake
// or a command is logged with its stack and closes only this connection
// (item 1).
func (c *conn) serve() {
	defer c.srv.forget(c)
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("wire: panic serving connection", "panic", r, "stack", string(debug.Stack()))
			c.writeErr = nil // best effort: tell the client why it is dropped
			_ = c.send(appendErr(c.begin(), sqlerr.Internal.New(fmt.Sprint(r))))
		}
		c.close()
	}()
	_ = c.raw.SetDeadline(time.Now().Add(handshakeTimeout))
	if !c.handshake() {
		return
	}
	_ = c.raw.SetDeadline(time.Time{})
	// KILL CONNECTION while idle: unblock the pending read.
	stop := context.AfterFunc(c.ctx, func() { _ = c.raw.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	for c.serveCommand() {
	}
}

// close flushes pending output (so a final ERR reaches the client, item 8)
// and releases everything.
func (c *conn) close() {
	c.flush()
	c.cancel()
	_ = c.raw.Close()
	if c.sess != nil {
		func() {
			defer func() {
				if r := recover(); r != nil {
					c.log.Error("wire: panic in Session.Close", "panic", r, "stack", string(debug.Stack()))
				}
			}()
			c.sess.Close()
		}()
		c.sess = nil
	}
	c.stmts = nil
}

// serveCommand reads and runs one command; false ends the connection.
func (c *conn) serveCommand() bool {
	c.flush()
	if c.writeErr != nil || c.ctx.Err() != nil {
		return false
	}
	_ = c.raw.SetReadDeadline(time.Now().Add(c.srv.limits().WaitTimeout))
	if c.ctx.Err() != nil { // killed between the check and the deadline
		return false
	}
	c.pc.Sequence = 0
	data, err := readPacket(c.pc, c.srv.limits().MaxAllowedPacket)
	if err != nil {
		if errors.Is(err, errPacketTooLarge) {
			_ = c.sendErr(sqlerr.NetPacketTooLarge.New())
		} else {
			c.log.Debug("wire: connection closed", "err", err)
		}
		return false
	}
	_ = c.raw.SetReadDeadline(time.Time{})
	keep := c.dispatch(data)
	c.flush()
	return keep && c.writeErr == nil && c.ctx.Err() == nil
}

// cmdContext derives the context of one command.
func (c *conn) cmdContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(c.ctx)
	return context.WithValue(ctx, multiStmtKey, c.multiStmt), cancel
}

// dispatch runs one command packet; false closes the connection.
func (c *conn) dispatch(data []byte) bool {
	if len(data) == 0 {
		_ = c.sendErr(sqlerr.UnknownCommand.New())
		return true
	}
	ctx, cancel := c.cmdContext()
	defer cancel()
	cmd, body := data[0], data[1:]
	if cmd == mysql.COM_QUERY || cmd == mysql.COM_STMT_EXECUTE {
		c.srv.questions.Add(1)
	}
	switch cmd {
	case mysql.COM_QUIT:
		return false
	case mysql.COM_PING:
		_ = c.sendOK(OK{})
	case mysql.COM_INIT_DB:
		if err := c.sess.InitDB(ctx, string(body)); err != nil {
			_ = c.sendErr(err)
		} else {
			_ = c.sendOK(OK{})
		}
	case mysql.COM_QUERY:
		stop := c.watchPeer(cancel)
		c.query(ctx, string(body))
		stop()
	case mysql.COM_FIELD_LIST:
		c.fieldList(ctx, body)
	case mysql.COM_STMT_PREPARE:
		c.stmtPrepare(ctx, string(body))
	case mysql.COM_STMT_EXECUTE:
		stop := c.watchPeer(cancel)
		c.stmtExecute(ctx, body)
		stop()
	case mysql.COM_STMT_SEND_LONG_DATA:
		c.stmtSendLongData(body)
	case mysql.COM_STMT_CLOSE:
		if len(body) >= 4 {
			delete(c.stmts, binary.LittleEndian.Uint32(body))
		}
	case mysql.COM_STMT_RESET:
		c.stmtReset(body)
	case mysql.COM_SET_OPTION:
		c.setOption(body)
	case mysql.COM_STATISTICS:
		_ = c.send(append(c.begin(), c.srv.statistics()...))
	case mysql.COM_PROCESS_KILL:
		if len(body) < 4 {
			_ = c.sendErr(sqlerr.WrongArguments.New("COM_PROCESS_KILL"))
			break
		}
		c.query(ctx, fmt.Sprintf("KILL %d", binary.LittleEndian.Uint32(body)))
	case mysql.COM_RESET_CONNECTION:
		c.stmts = map[uint32]*stmt{}
		if r, ok := c.sess.(ConnectionResetter); ok {
			if err := r.ResetConnection(ctx); err != nil {
				_ = c.sendErr(err)
				break
			}
		}
		_ = c.sendOK(OK{})
	case mysql.COM_CHANGE_USER:
		return c.changeUser(body)
	default:
		_ = c.sendErr(sqlerr.UnknownCommand.New())
	}
	return true
}

// watchPeer cancels a running command when its client hangs up (a driver
// giving up on a timeout closes the socket): a client sends nothing while
// its command runs, so a read that ends other than by our deadline means
// the peer is gone, and the query must not keep the backends busy for
// nobody. The read only peeks, so a pipelined next command stays buffered.
// stop ends the watch before the connection reads again.
func (c *conn) watchPeer(cancel context.CancelFunc) (stop func()) {
	done := make(chan struct{})
	r := c.bc.r
	go func() {
		defer close(done)
		if _, err := r.Peek(1); err != nil {
			var ne net.Error
			if !errors.As(err, &ne) || !ne.Timeout() {
				c.log.Debug("wire: client went away during a command", "err", err)
				cancel()
			}
		}
	}()
	return func() {
		_ = c.raw.SetReadDeadline(time.Unix(1, 0))
		<-done
		_ = c.raw.SetReadDeadline(time.Time{})
	}
}

func (c *conn) query(ctx context.Context, sql string) {
	w := &resultWriter{c: c}
	w.finish(c.sess.Query(ctx, sql, w))
}

// fieldList answers COM_FIELD_LIST: column definitions each followed by a
// NULL default value, then EOF.
func (c *conn) fieldList(ctx context.Context, body []byte) {
	r := reader{b: body}
	table := r.nulString()
	wildcard := string(r.b)
	cols, err := c.sess.FieldList(ctx, table, wildcard)
	if err != nil {
		_ = c.sendErr(err)
		return
	}
	for _, col := range cols {
		b := append(c.begin(), field(col).Dump()...)
		if c.send(append(b, 0xfb)) != nil {
			return
		}
	}
	_ = c.sendEnd(c.serverStatus(), 0)
}

// setOption handles COM_SET_OPTION: 0 enables, 1 disables multi-statements.
func (c *conn) setOption(body []byte) {
	if len(body) < 2 {
		_ = c.sendErr(sqlerr.UnknownCommand.New())
		return
	}
	switch binary.LittleEndian.Uint16(body) {
	case 0:
		c.multiStmt = true
	case 1:
		c.multiStmt = false
	default:
		_ = c.sendErr(sqlerr.UnknownCommand.New())
		return
	}
	_ = c.sendEnd(c.serverStatus(), 0)
}

// hostOnly strips the port from an address.
func hostOnly(addr string) string {
	if h, _, err := net.SplitHostPort(addr); err == nil {
		return h
	}
	return strings.TrimSpace(addr)
}
