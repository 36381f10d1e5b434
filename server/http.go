package server

import (
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"net/http/pprof"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/server/webui"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// metrics are the FE's Prometheus metrics; the registry is per server (no
// globals), so several servers in one test process do not collide.
type metrics struct {
	reg         *prometheus.Registry
	loadRows    prometheus.Counter
	loadBytes   prometheus.Counter
	loads       *prometheus.CounterVec
	httpLatency *prometheus.HistogramVec
}

func newMetrics(s *Server) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.loadRows = prometheus.NewCounter(prometheus.CounterOpts{Namespace: "doris", Subsystem: "fe", Name: "load_rows", Help: "Rows loaded by committed loads."})
	m.loadBytes = prometheus.NewCounter(prometheus.CounterOpts{Namespace: "doris", Subsystem: "fe", Name: "load_bytes", Help: "Bytes of load input read."})
	m.loads = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "doris", Subsystem: "fe", Name: "stream_load_total", Help: "Stream loads by status."}, []string{"status"})
	m.httpLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: "doris", Subsystem: "fe", Name: "http_request_seconds", Help: "HTTP request latency."}, []string{"path"})
	m.reg.MustRegister(m.loadRows, m.loadBytes, m.loads, m.httpLatency,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		columnCacheGauge(), stmtCollector{&s.stmts},
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "doris", Subsystem: "fe", Name: "connection_total", Help: "Open MySQL connections."},
			func() float64 { return float64(s.wire.ConnCount()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: "doris", Subsystem: "fe", Name: "txn_begin", Help: "Load transactions begun."},
			func() float64 { return float64(s.cat.TxnCounts().Begun) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: "doris", Subsystem: "fe", Name: "txn_success", Help: "Load transactions made visible."},
			func() float64 { return float64(s.cat.TxnCounts().Succeeded) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: "doris", Subsystem: "fe", Name: "txn_failed", Help: "Load transactions aborted."},
			func() float64 { return float64(s.cat.TxnCounts().Failed) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "doris", Subsystem: "fe", Name: "backends_alive", Help: "Alive backends."},
			func() float64 {
				n := 0
				for _, b := range s.cat.Backends() {
					if b.Alive {
						n++
					}
				}
				return float64(n)
			}))
	// Embedded backends (standalone) report through the FE's endpoint,
	// each series labelled with its backend's address; a separate
	// `dorisgo be` serves its own (--http-port).
	for _, b := range s.bes {
		prometheus.WrapRegistererWith(prometheus.Labels{"backend": b.Addr()}, m.reg).MustRegister(b.Collectors()...)
	}
	return m
}

// countStreamLoad counts a stream load's reply in the FE's metrics
// (doris_fe_stream_load_total by status; rows and bytes of a success).
func (s *Server) countStreamLoad(status string, rows, bytes int64) {
	s.metrics.loads.WithLabelValues(status).Inc()
	if status == "success" {
		s.metrics.loadRows.Add(float64(rows))
		s.metrics.loadBytes.Add(float64(bytes))
	}
}

func (s *Server) httpHandler() http.Handler {
	s.metrics = newMetrics(s)
	mux := http.NewServeMux()
	// Every /api endpoint takes HTTP basic auth against the MySQL accounts
	// and checks the privileges its SQL counterpart would: stream load
	// LOAD_PRIV on its table (server/streamload), the colocate admin endpoints
	// ADMIN_PRIV, /api/profile one's own queries unless ADMIN_PRIV.
	mux.HandleFunc("PUT /api/{db}/{table}/_stream_load", s.streamLoads.ServeLoad)
	// Between the frontends of a replicated cluster (ha.go, forward.go):
	// they present the cluster token, not an account.
	mux.HandleFunc("POST /api/_fe/forward", s.serveForward)
	mux.HandleFunc("POST /api/_fe/heartbeat", s.serveFEHeartbeat)
	mux.HandleFunc("GET /api/_fe/frontends", s.serveFrontends)
	mux.HandleFunc("GET /api/_fe/processlist", s.serveProcessList)
	mux.HandleFunc("PUT /api/{db}/_stream_load_2pc", s.masterOnly(s.needLogin(s.streamLoads.Serve2PC)))
	mux.HandleFunc("GET /api/_load_error_log", s.needLogin(s.streamLoads.ServeErrorLog))
	mux.HandleFunc("POST /api/colocate/group_stable", s.needAdmin(s.groupStable(false)))
	mux.HandleFunc("DELETE /api/colocate/group_stable", s.needAdmin(s.groupStable(true)))
	mux.HandleFunc("GET /api/profile", s.needLogin(s.profiles.serveList))
	mux.HandleFunc("GET /api/profile/{id}", s.needLogin(s.serveProfile))
	mux.HandleFunc("GET /api/health", s.needLogin(func(w http.ResponseWriter, r *http.Request, _ *catalog.Access) {
		writeJSON(w, http.StatusOK, map[string]any{"status": "OK", "msg": "Success"})
	}))
	// /metrics is open, as Doris's is, unless --metrics-require-login.
	metrics := promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{})
	if s.cfg.MetricsRequireLogin {
		mux.HandleFunc("GET /metrics", s.needLogin(func(w http.ResponseWriter, r *http.Request, _ *catalog.Access) {
			metrics.ServeHTTP(w, r)
		}))
	} else {
		mux.Handle("GET /metrics", metrics)
	}
	// Go profiles, for diagnosing a slow query or load in place; they show
	// every statement's stacks, so they are ADMIN_PRIV's.
	mux.HandleFunc("GET /debug/pprof/", s.needAdmin(withoutAccess(pprof.Index)))
	mux.HandleFunc("GET /debug/pprof/profile", s.needAdmin(withoutAccess(pprof.Profile)))
	mux.HandleFunc("GET /debug/pprof/trace", s.needAdmin(withoutAccess(pprof.Trace)))
	// The web UI takes every other path (server/webui).
	mux.Handle("/", webui.New(webSource{s}))
	return mux
}

// authedHandler is an HTTP handler that knows the caller's privileges.
type authedHandler func(w http.ResponseWriter, r *http.Request, a *catalog.Access)

func withoutAccess(h http.HandlerFunc) authedHandler {
	return func(w http.ResponseWriter, r *http.Request, _ *catalog.Access) { h(w, r) }
}

// unauthorized is the 401 of a request without valid credentials; the
// challenge lets curl and browsers ask for them.
func unauthorized(w http.ResponseWriter) {
	w.Header().Set("WWW-Authenticate", `Basic realm="dorisgo"`)
	writeJSON(w, http.StatusUnauthorized, map[string]any{"code": 401, "msg": "Unauthorized",
		"data": "Access denied: wrong user or password (HTTP basic auth)", "count": 0})
}

// needLogin runs h for a request with valid credentials, else 401.
func (s *Server) needLogin(h authedHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		a, ok := s.httpAccess(r)
		if !ok {
			unauthorized(w)
			return
		}
		h(w, r, a)
	}
}

// needAdmin runs h for an account holding ADMIN_PRIV; 401 without valid
// credentials, 403 without the privilege.
func (s *Server) needAdmin(h authedHandler) http.HandlerFunc {
	return s.needLogin(func(w http.ResponseWriter, r *http.Request, a *catalog.Access) {
		if !a.Global(catalog.WantAdmin) {
			writeJSON(w, http.StatusForbidden, map[string]any{"code": 403, "msg": "Forbidden",
				"data": sqlerr.SpecificAccessDenied.New("ADMIN").Message, "count": 0})
			return
		}
		h(w, r, a)
	})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "    ")
	_ = enc.Encode(v)
}

// httpAccess checks HTTP basic auth against the stored password hashes
// and returns the privileges of the account it matched (as of now).
func (s *Server) httpAccess(r *http.Request) (*catalog.Access, bool) {
	user, pass, ok := r.BasicAuth()
	if !ok {
		return nil, false
	}
	if i := strings.IndexByte(user, '@'); i >= 0 {
		user = user[:i]
	}
	host := r.RemoteAddr
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		host = host[:i]
	}
	host = strings.Trim(host, "[]")
	u, ok := s.cat.LookupUser(user, host)
	if !ok {
		return nil, false
	}
	if len(u.NativeHash) == 0 {
		if pass != "" {
			return nil, false
		}
	} else if subtle.ConstantTimeCompare(catalog.NativeHash(pass), u.NativeHash) != 1 {
		return nil, false
	}
	return s.cat.Access(u.Name, u.Host), true
}

// groupStable serves Doris's admin endpoint marking a colocate group
// (un)stable: POST marks it unstable, DELETE stable again.
func (s *Server) groupStable(stable bool) authedHandler {
	return func(w http.ResponseWriter, r *http.Request, _ *catalog.Access) {
		q := r.URL.Query()
		db, group := q.Get("db"), q.Get("group")
		if db == "" {
			db = q.Get("db_id")
		}
		if group == "" {
			group = q.Get("group_id")
		}
		if err := s.cat.SetGroupStable(db, group, stable); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]any{"code": 1, "msg": sqlerr.As(err).Message})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"code": 0, "msg": "success"})
	}
}
