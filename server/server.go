package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/be"
	"github.com/dorisgo/dorisgo/execution/coord"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/server/httpapi"
	"github.com/dorisgo/dorisgo/server/journal"
	"github.com/dorisgo/dorisgo/server/show"
	"github.com/dorisgo/dorisgo/server/streamload"
	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/storage"
	"gopkg.in/natefinch/lumberjack.v2"
)

// Config configures a frontend (and, in standalone mode, its embedded backends).
type Config struct {
	DataDir   string
	Host      string
	MySQLPort int // 0 = any free port
	HTTPPort  int // 0 = any free port; -1 = no HTTP
	// Backends is the number of embedded backends (standalone); 0 = FE only.
	Backends int
	// BEPort is the first embedded backend's gRPC port (0 = any free port).
	BEPort int
	// MetricsRequireLogin makes /metrics take HTTP basic auth like /api
	// (open by default, as Doris's).
	MetricsRequireLogin bool
	Log                 *slog.Logger
	// AuditLog is the audit log's path (one line per statement, rotated
	// by size); "" = DataDir/log/fe.audit.log, "-" = none.
	AuditLog string
	// AutoAnalyzeInterval is how often the automatic statistics collection
	// looks for tables to analyze (autoanalyze.go); 0 = 5 minutes, as
	// Doris's auto_check_statistics_in_minutes.
	AutoAnalyzeInterval time.Duration
	// EditLogPort > 0 makes this frontend a member of a replicated cluster
	// (ha.go): its catalog goes through a Raft journal on this port.
	EditLogPort int
	// Helper is an existing frontend's host:edit_log_port; a frontend
	// started with it joins that cluster (once the master has added it).
	Helper string
	// OnDemote runs when this frontend stops being the master; nil exits
	// the process (ha.go).
	OnDemote func()
	// JournalSnapshotThreshold is how many journal entries make a snapshot
	// (0: 8192); tests lower it.
	JournalSnapshotThreshold uint64
}

// Server is a running frontend.
type Server struct {
	cfg   Config
	log   *slog.Logger
	meta  *storage.Meta
	ha    *haState       // nil: a frontend of its own
	fwd   fwdSessions    // forwarded transactions, on the master (forward.go)
	audit io.WriteCloser // nil: no audit log
	token string         // the cluster token (rpc.TokenGuard)
	cat   *catalog.Catalog
	coord *coord.Coordinator
	bes   []*be.Backend

	wire    *wire.Server
	mysqlLn net.Listener
	httpSrv *http.Server
	httpLn  net.Listener

	globals  *globalVars
	start    time.Time
	api      *httpapi.API // the HTTP handler and its metrics (httpdispatch.go)
	profiles profiles
	stmts    stmtStats // doris_fe_query_* (stmtstats.go)
	// streamLoads serves the HTTP stream loads and keeps the recent and
	// running ones for SHOW STREAM LOAD (server/streamload).
	streamLoads *streamload.Loader
	// shows builds SHOW results and information_schema (server/show).
	shows *show.Shows
	// analyzer runs ANALYZE jobs and the automatic collection (analyze.go).
	analyzer *analyzer
	// alters runs schema change jobs (schemachange_job.go).
	alters *alterRunner
	// updates serialises UPDATEs per table (tablelock.go).
	updates updateLocks

	mu       sync.Mutex
	sessions map[uint32]*Session

	// testHook is for tests only (set through export_test.go's
	// SetTestHook): statements call it at fixed points (Session.hook) so
	// that a test can make one of them panic there.
	testHook atomic.Pointer[func(stage, sql string)]
}

// Start opens the data dir, starts embedded backends, recovers, and serves.
func Start(cfg Config) (*Server, error) {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	s := &Server{cfg: cfg, log: cfg.Log, globals: newGlobalVars(), sessions: map[uint32]*Session{}, start: time.Now(), analyzer: newAnalyzer(), alters: newAlterRunner()}
	ok := false
	defer func() {
		if !ok {
			s.Close()
		}
	}()
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, err
	}
	meta, err := storage.OpenMeta(filepath.Join(cfg.DataDir, "fe"), storage.Options{})
	if err != nil {
		return nil, fmt.Errorf("open FE metadata: %w", err)
	}
	clearSpill(cfg.DataDir) // the data dir is ours now (its metadata opened)
	s.meta = meta
	var kv catalog.KV = meta
	if cfg.EditLogPort > 0 {
		if err := s.openJournal(meta); err != nil {
			return nil, err
		}
		kv = journal.KV{N: s.ha.node, Writable: s.ha.master.Load}
		if s.token, err = s.journalToken(meta); err != nil {
			return nil, fmt.Errorf("cluster token: %w", err)
		}
	} else if s.token, err = rpc.LoadOrCreateToken(cfg.DataDir); err != nil {
		// The cluster token, made on the first start: backends serve only
		// callers presenting it (rpc.TokenGuard).
		return nil, fmt.Errorf("cluster token: %w", err)
	}
	if cfg.AuditLog != "-" {
		path := cfg.AuditLog
		if path == "" {
			path = filepath.Join(cfg.DataDir, "log", "fe.audit.log")
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("audit log: %w", err)
		}
		// Rotated at 100 MB, keeping the last 10 files, as Doris's
		// audit_log_roll_num keeps a bounded history.
		s.audit = &lumberjack.Logger{Filename: path, MaxSize: 100, MaxBackups: 10}
	}
	if s.ha != nil {
		s.ha.reloadMu.Lock() // entries applied meanwhile reach the catalog once it is open (ha.go)
	}
	if err := s.loadGlobals(); err != nil {
		return nil, fmt.Errorf("load global variables: %w", err)
	}
	s.cat, err = catalog.Open(kv)
	if s.ha != nil {
		s.ha.reloadMu.Unlock()
	}
	if err != nil {
		return nil, fmt.Errorf("load catalog: %w", err)
	}
	if err := s.startEmbedded(); err != nil {
		return nil, err
	}
	s.coord = coord.New(s.cat, s.log)
	s.coord.ClusterToken = s.token
	s.streamLoads = streamload.New(streamload.Config{Catalog: s.cat, Coord: s.coord, Log: s.log, DataDir: cfg.DataDir,
		Access: s.httpAccess, Redirect: s.redirectToMaster, Count: s.countStreamLoad})
	s.shows = s.newShows()
	if s.mysqlLn, err = net.Listen("tcp", net.JoinHostPort(cfg.Host, fmt.Sprint(cfg.MySQLPort))); err != nil {
		return nil, err
	}
	if cfg.HTTPPort >= 0 {
		if s.httpLn, err = net.Listen("tcp", net.JoinHostPort(cfg.Host, fmt.Sprint(cfg.HTTPPort))); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if s.ha != nil {
		// The listeners are bound first: a master publishes their ports.
		if err := s.startReplicated(ctx); err != nil {
			return nil, err
		}
	} else if err := s.coord.Start(ctx); err != nil {
		return nil, fmt.Errorf("recover transactions: %w", err)
	} else {
		s.resumeAltersLater()
	}
	if s.wire, err = wire.NewServer(wire.Config{ServerVersion: serverVersion, Logger: s.log, Limits: s.connLimits}, s); err != nil {
		return nil, err
	}
	go func() {
		if err := s.wire.Serve(s.mysqlLn); err != nil && !errors.Is(err, net.ErrClosed) {
			s.log.Error("mysql listener", "err", err)
		}
	}()
	if s.httpLn != nil {
		s.httpSrv = &http.Server{Handler: s.httpHandler(), ReadHeaderTimeout: 10 * time.Second}
		go func() {
			if err := s.httpSrv.Serve(s.httpLn); err != nil && !errors.Is(err, http.ErrServerClosed) {
				s.log.Error("http listener", "err", err)
			}
		}()
	}
	s.startAutoAnalyze()
	ok = true
	return s, nil
}

// startEmbedded starts the standalone backends. Embedded backend i keeps its
// tablets in DataDir/be-i and is the i-th backend by id in the catalog; its
// address is refreshed on every start since its port may change.
func (s *Server) startEmbedded() error {
	existing := s.cat.Backends()
	sort.Slice(existing, func(i, j int) bool { return existing[i].ID < existing[j].ID })
	for i := 0; i < s.cfg.Backends; i++ {
		port := 0
		if s.cfg.BEPort > 0 {
			port = s.cfg.BEPort + i
		}
		b, err := be.StartToken(filepath.Join(s.cfg.DataDir, fmt.Sprintf("be-%d", i)), net.JoinHostPort(s.cfg.Host, fmt.Sprint(port)), s.log, s.token)
		if err != nil {
			return fmt.Errorf("start embedded backend %d: %w", i, err)
		}
		s.bes = append(s.bes, b)
		host, p, _ := net.SplitHostPort(b.Addr())
		var pn int
		fmt.Sscan(p, &pn)
		if i < len(existing) {
			if err := s.cat.SetBackendAddr(existing[i].ID, host, pn); err != nil {
				return err
			}
		} else if _, err := s.cat.AddBackend(host, pn); err != nil {
			return err
		}
	}
	return nil
}

// MySQLAddr is the MySQL listener's address.
func (s *Server) MySQLAddr() string { return s.mysqlLn.Addr().String() }

// HTTPAddr is the HTTP listener's address ("" if none).
func (s *Server) HTTPAddr() string {
	if s.httpLn == nil {
		return ""
	}
	return s.httpLn.Addr().String()
}

// Backends returns the embedded backends (tests use them to stop one).
func (s *Server) Backends() []*be.Backend { return s.bes }

// Close stops everything, in reverse order of start.
func (s *Server) Close() {
	s.analyzer.stop()
	s.alters.shutdown()
	if s.httpSrv != nil {
		s.httpSrv.Close()
	}
	if s.wire != nil {
		s.wire.Close()
	} else if s.mysqlLn != nil {
		s.mysqlLn.Close()
	}
	if s.httpSrv == nil && s.httpLn != nil {
		s.httpLn.Close()
	}
	if s.coord != nil {
		s.coord.Close()
	}
	for _, b := range s.bes {
		b.Stop()
	}
	s.closeReplicated()
	if s.meta != nil {
		s.meta.Close()
	}
	if s.audit != nil {
		s.audit.Close()
	}
}

// connLimits are the global max_connections, max_allowed_packet and
// wait_timeout, read by the wire layer on every use so SET GLOBAL applies
// to the running server.
func (s *Server) connLimits() wire.Limits {
	num := func(name string) int64 {
		v, _ := s.globals.get(name)
		n, _ := strconv.ParseInt(v, 10, 64)
		return n
	}
	return wire.Limits{MaxConnections: int(num("max_connections")), MaxAllowedPacket: int(num("max_allowed_packet")),
		WaitTimeout: time.Duration(num("wait_timeout")) * time.Second}
}
