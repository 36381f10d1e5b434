// Command dorisgo runs a dorisgo frontend with embedded backends
// (standalone, the default), a frontend alone (fe) or a backend alone (be).
//
//	dorisgo [standalone] [--data-dir DIR] [--mysql-port 9030] [--http-port 8030] [--backends 3] [--host 127.0.0.1] [--metrics-require-login] [--audit-log FILE] [--log-file FILE]
//	dorisgo fe [--data-dir DIR] [--mysql-port 9030] [--http-port 8030] [--host H] [--metrics-require-login] [--audit-log FILE]
//	dorisgo fe [...] --edit-log-port 9010 [--helper host:9010]   (a replicated frontend)
//	dorisgo be [--data-dir DIR] [--be-port 9060] [--http-port 8040] [--host H] [--pprof] [--cluster-token T | --cluster-token-file F]
//
// Backends (standalone, be) also take --column-cache-mb (decoded columns,
// default 512) and --block-cache-mb (Pebble blocks, default 64).
package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/dorisgo/dorisgo/execution/be"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/server"
	"github.com/dorisgo/dorisgo/server/gctune"
	"github.com/dorisgo/dorisgo/server/httpapi"
	"github.com/dorisgo/dorisgo/storage"
)

func main() {
	gctune.Tune()
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "dorisgo:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	mode := "standalone"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		mode, args = args[0], args[1:]
	}
	fs := flag.NewFlagSet("dorisgo "+mode, flag.ContinueOnError)
	dataDir := fs.String("data-dir", "./dorisgo-data", "all persistent state")
	host := fs.String("host", "127.0.0.1", "listen address")
	mysqlPort := fs.Int("mysql-port", 9030, "MySQL protocol port (fe, standalone)")
	httpPort := fs.Int("http-port", 8030, "HTTP port: stream load, /metrics (fe, standalone); be: /metrics only when given (e.g. 8040)")
	backends := fs.Int("backends", 3, "embedded backends (standalone)")
	bePort := fs.Int("be-port", 9060, "gRPC port (be); first embedded backend's port in standalone (0 = any)")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	logFile := fs.String("log-file", "", "the process's log (fe.log / be.INFO in Doris), rotated at 100 MB, 10 files kept (default: stderr)")
	colCache := fs.Int64("column-cache-mb", storage.DefaultColumnCacheBytes>>20, "decoded column cache of the process's backends, MiB (0: off)")
	blockCache := fs.Int64("block-cache-mb", storage.DefaultBlockCacheBytes>>20, "Pebble block cache of the process's backends, MiB")
	autoAnalyze := fs.Int("auto-check-statistics-in-minutes", 5, "fe, standalone: how often the automatic statistics collection looks for tables to re-analyze (Doris's auto_check_statistics_in_minutes)")
	metricsLogin := fs.Bool("metrics-require-login", false, "fe, standalone: /metrics takes HTTP basic auth like /api (open by default, as in Doris)")
	auditLog := fs.String("audit-log", "", "fe, standalone: audit log, one line per statement, rotated at 100 MB (default <data-dir>/log/fe.audit.log; - for none)")
	clusterToken := fs.String("cluster-token", "", "be: serve only callers presenting this cluster token (the FE's <data-dir>/cluster_token); default: the token kept in --data-dir, else the first caller's (the FE adding this backend)")
	clusterTokenFile := fs.String("cluster-token-file", "", "be: read --cluster-token from this file")
	editLogPort := fs.Int("edit-log-port", 0, "fe: replicate the catalog with the other frontends through a Raft journal on this port (Doris's edit_log_port; 0 = a frontend of its own)")
	helper := fs.String("helper", "", "fe: join the cluster of this existing frontend (host:edit_log_port), once its master ran ALTER SYSTEM ADD FOLLOWER|OBSERVER for this one")
	bePprof := fs.Bool("pprof", false, "be: serve /debug/pprof on --http-port (a backend has no users to check; the FE's needs ADMIN_PRIV)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	storage.SetColumnCacheBytes(*colCache << 20)
	storage.SetBlockCacheBytes(*blockCache << 20)
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(*logLevel)); err != nil {
		return err
	}
	out := io.Writer(os.Stderr)
	if *logFile != "" {
		lf := server.LogFile(*logFile)
		defer lf.Close()
		out = lf
	}
	log := slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: lvl}))
	// What logs through slog's default (a backend fragment's recovered
	// panic, op.RecoverTo) goes to the same place.
	slog.SetDefault(log)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)

	switch mode {
	case "standalone", "fe":
		n := *backends
		if mode == "fe" {
			n = 0
		}
		if mode == "standalone" && (flagSet(fs, "edit-log-port") || flagSet(fs, "helper")) {
			return fmt.Errorf("--edit-log-port and --helper are for `dorisgo fe`: a replicated cluster's backends run as `dorisgo be`")
		}
		if *helper != "" && *editLogPort <= 0 {
			return fmt.Errorf("--helper needs --edit-log-port (this frontend's own journal port)")
		}
		beBase := *bePort
		if mode == "standalone" && !flagSet(fs, "be-port") {
			beBase = 0 // embedded backends take any free port unless asked
		}
		srv, err := server.Start(server.Config{DataDir: *dataDir, Host: *host, MySQLPort: *mysqlPort, HTTPPort: *httpPort,
			Backends: n, BEPort: beBase, MetricsRequireLogin: *metricsLogin, Log: log, AuditLog: *auditLog,
			AutoAnalyzeInterval: time.Duration(*autoAnalyze) * time.Minute, EditLogPort: *editLogPort, Helper: *helper,
			// A master that lost its role cannot hand its duties back
			// cleanly (Doris's FE exits): this one starts over in place,
			// and rejoins as a follower.
			OnDemote: func() { restartSelf(log) }})
		if err != nil {
			return err
		}
		log.Info("dorisgo started", "mode", mode, "mysql", srv.MySQLAddr(), "http", srv.HTTPAddr(), "backends", n, "data-dir", *dataDir)
		<-stop
		srv.Close()
	case "be":
		tok := *clusterToken
		if *clusterTokenFile != "" {
			var err error
			if tok, err = rpc.ReadTokenFile(*clusterTokenFile); err != nil {
				return err
			}
		}
		b, err := be.StartToken(*dataDir, net.JoinHostPort(*host, fmt.Sprint(*bePort)), log, tok)
		if err != nil {
			return err
		}
		log.Info("dorisgo backend started", "addr", b.Addr(), "data-dir", *dataDir)
		if flagSet(fs, "http-port") {
			h, err := httpapi.ServeBackendHTTP(b, net.JoinHostPort(*host, fmt.Sprint(*httpPort)), *bePprof, log)
			if err != nil {
				b.Stop()
				return err
			}
			defer h.Close()
			log.Info("dorisgo backend http", "addr", h.Addr())
		}
		<-stop
		b.Stop()
	default:
		return fmt.Errorf("unknown command %q (want standalone, fe or be)", mode)
	}
	return nil
}

func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

// restartSelf replaces this process with a fresh run of the same command
// (same pid, ports and data dir): what a crash and a supervisor's restart
// would do, without the supervisor. It exits if it cannot.
func restartSelf(log *slog.Logger) {
	exe, err := os.Executable()
	if err == nil {
		log.Warn("restarting this frontend as a follower", "exe", exe)
		err = syscall.Exec(exe, os.Args, os.Environ())
	}
	log.Error("cannot restart this frontend; exiting", "err", err)
	os.Exit(3)
}
