package httpapi

import (
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/dorisgo/dorisgo/execution/be"
)

// BackendHTTP is a separate backend process's web port (Doris's BE
// webserver_port): /metrics with the backend's doris_be_* series and the
// process's, /api/health and, when asked for, /debug/pprof. A backend
// knows no users, so its Go profiles (which show every running
// statement's stacks) are served only when asked for (dorisgo be --pprof),
// for a port only operators can reach.
type BackendHTTP struct {
	srv *http.Server
	ln  net.Listener
}

// ServeBackendHTTP serves b's HTTP endpoints on addr ("host:0": any port),
// /debug/pprof too if pprofOn.
func ServeBackendHTTP(b *be.Backend, addr string, pprofOn bool, log *slog.Logger) (*BackendHTTP, error) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(b.Collectors()...)
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), columnCacheGauge())
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /api/health", func(w http.ResponseWriter, r *http.Request) {
		WriteJSON(w, http.StatusOK, map[string]any{"status": "OK", "msg": "Success"})
	})
	if pprofOn {
		mux.HandleFunc("GET /debug/pprof/", pprof.Index)
		mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	h := &BackendHTTP{srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, ln: ln}
	go func() {
		if err := h.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("backend http", "addr", ln.Addr().String(), "err", err)
		}
	}()
	return h, nil
}

// Addr is the address served on.
func (h *BackendHTTP) Addr() string { return h.ln.Addr().String() }

// Close stops serving.
func (h *BackendHTTP) Close() error { return h.srv.Close() }
