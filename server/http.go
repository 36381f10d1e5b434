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
		columnCacheGauge(),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "doris", Subsystem: "fe", Name: "connection_total", Help: "Open MySQL connections."},
			func() float64 { return float64(s.wire.ConnCount()) }),
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

func (s *Server) httpHandler() http.Handler {
	s.metrics = newMetrics(s)
	mux := http.NewServeMux()
	mux.HandleFunc("PUT /api/{db}/{table}/_stream_load", s.streamLoad)
	mux.HandleFunc("POST /api/colocate/group_stable", s.groupStable(false))
	mux.HandleFunc("DELETE /api/colocate/group_stable", s.groupStable(true))
	mux.HandleFunc("GET /api/profile", s.profiles.serveList)
	mux.HandleFunc("GET /api/profile/{id}", s.profiles.serveOne)
	mux.HandleFunc("GET /api/health", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"status": "OK", "msg": "Success"})
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{}))
	// Go profiles, for diagnosing a slow query or load in place.
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	return mux
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "    ")
	_ = enc.Encode(v)
}

// authorize checks HTTP basic auth against the stored password hashes.
func (s *Server) authorize(r *http.Request) (string, bool) {
	user, pass, ok := r.BasicAuth()
	if !ok {
		return "", false
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
		return "", false
	}
	if len(u.NativeHash) == 0 {
		return user, pass == ""
	}
	return user, subtle.ConstantTimeCompare(catalog.NativeHash(pass), u.NativeHash) == 1
}

// groupStable serves Doris's admin endpoint marking a colocate group
// (un)stable: POST marks it unstable, DELETE stable again.
func (s *Server) groupStable(stable bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if _, ok := s.authorize(r); !ok {
			writeJSON(w, http.StatusUnauthorized, map[string]any{"code": 401, "msg": "Unauthorized"})
			return
		}
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
