package wire

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/packet"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// Server accepts MySQL protocol connections and serves each in its own goroutine.
type Server struct {
	cfg   Config
	h     Handler
	log   *slog.Logger
	start time.Time

	nextID    atomic.Uint32
	questions atomic.Uint64

	mu        sync.Mutex
	closed    bool
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}

	rsaOnce sync.Once // caching_sha2 RSA key, made on first use (~0.1-1 s)
	rsaKey  *rsa.PrivateKey
	rsaPEM  []byte
	rsaErr  error
}

// NewServer validates cfg, fills defaults and, without cfg.TLS, generates a
// self-signed certificate so that TLS and caching_sha2 full auth always work.
func NewServer(cfg Config, h Handler) (*Server, error) {
	if h == nil {
		return nil, errors.New("wire: nil Handler")
	}
	if cfg.ServerVersion == "" {
		cfg.ServerVersion = "5.7.99-dorisgo"
	}
	if cfg.MaxConnections <= 0 {
		cfg.MaxConnections = 1024
	}
	if cfg.MaxAllowedPacket <= 0 {
		cfg.MaxAllowedPacket = 64 << 20
	}
	if cfg.WaitTimeout <= 0 {
		cfg.WaitTimeout = 8 * time.Hour
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.TLS == nil {
		t, err := selfSignedTLS()
		if err != nil {
			return nil, err
		}
		cfg.TLS = t
	}
	return &Server{
		cfg: cfg, h: h, log: cfg.Logger, start: time.Now(),
		listeners: map[net.Listener]struct{}{},
		conns:     map[*conn]struct{}{},
	}, nil
}

// Serve accepts connections on ln until it is closed (then it returns nil)
// or fails permanently.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ln.Close()
	}
	s.listeners[ln] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, ln)
		s.mu.Unlock()
	}()
	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) || s.isClosed() {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				time.Sleep(backoff)
				continue
			}
			return err
		}
		backoff = 0
		c := s.admit(nc)
		if c == nil {
			go s.reject(nc)
			continue
		}
		go c.serve()
	}
}

func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// admit registers a new connection, or returns nil when the server is
// full or closed.
func (s *Server) admit(nc net.Conn) *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || len(s.conns) >= s.limits().MaxConnections {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	bc := newBufConn(nc, nil)
	c := &conn{
		srv: s, id: s.nextID.Add(1), raw: nc, bc: bc, pc: packet.NewTLSConn(bc),
		ctx: ctx, cancel: cancel, host: hostOnly(nc.RemoteAddr().String()),
		status: mysql.SERVER_STATUS_AUTOCOMMIT, stmts: map[uint32]*stmt{},
	}
	c.log = s.log.With("conn", c.id)
	s.conns[c] = struct{}{}
	return c
}

// reject answers a connection over the limit with ERR 1040 instead of the greeting.
func (s *Server) reject(nc net.Conn) {
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(handshakeTimeout))
	bc := newBufConn(nc, nil)
	pc := packet.NewTLSConn(bc)
	_ = pc.WritePacket(appendErr([]byte{0, 0, 0, 0}, sqlerr.ConCount.New()))
	_ = bc.Flush()
}

func (s *Server) forget(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// Close closes every listener and connection.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	var err error
	for ln := range s.listeners {
		if e := ln.Close(); e != nil && !errors.Is(e, net.ErrClosed) {
			err = e
		}
	}
	for c := range s.conns {
		c.cancel()
		_ = c.raw.Close()
	}
	s.mu.Unlock()
	return err
}

// ConnCount is the number of open client connections.
func (s *Server) ConnCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// statistics is the COM_STATISTICS text, in mysqladmin status form.
func (s *Server) statistics() string {
	up := time.Since(s.start)
	q := s.questions.Load()
	secs := max(up.Seconds(), 1)
	return fmt.Sprintf("Uptime: %d  Threads: %d  Questions: %d  Slow queries: 0  Opens: 0  Flush tables: 0  Open tables: 0  Queries per second avg: %.3f",
		int64(up.Seconds()), s.ConnCount(), q, float64(q)/secs)
}

// rsa returns the key pair for caching_sha2_password full authentication
// over plain TCP.
func (s *Server) rsa() (*rsa.PrivateKey, []byte, error) {
	s.rsaOnce.Do(func() {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			s.rsaErr = err
			return
		}
		der, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
		if err != nil {
			s.rsaErr = err
			return
		}
		s.rsaKey = k
		s.rsaPEM = pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	})
	return s.rsaKey, s.rsaPEM, s.rsaErr
}

// selfSignedTLS makes an ECDSA P-256 certificate (fast to generate) for "dorisgo".
func selfSignedTLS() (*tls.Config, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "dorisgo"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().AddDate(10, 0, 0),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost", "dorisgo"},
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert := tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// limits are the connection limits in force now.
func (s *Server) limits() Limits {
	l := Limits{MaxConnections: s.cfg.MaxConnections, MaxAllowedPacket: s.cfg.MaxAllowedPacket, WaitTimeout: s.cfg.WaitTimeout}
	if s.cfg.Limits != nil {
		d := s.cfg.Limits()
		if d.MaxConnections > 0 {
			l.MaxConnections = d.MaxConnections
		}
		if d.MaxAllowedPacket > 0 {
			l.MaxAllowedPacket = d.MaxAllowedPacket
		}
		if d.WaitTimeout > 0 {
			l.WaitTimeout = d.WaitTimeout
		}
	}
	return l
}
