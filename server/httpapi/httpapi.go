// Package httpapi is the FE's HTTP surface: the mux of /api (stream load
// from server/streamload, the colocate admin endpoints, profiles, health),
// /metrics with the FE's Prometheus registry, /debug/pprof and the web UI
// of server/webui; and a separate backend's web port (ServeBackendHTTP).
//
// Data flows one way: the server builds one API with what only it knows
// (sessions, profiles, statement counts, the frontends' own endpoints) as
// Config's funcs and mounts it; this package never imports the server nor
// the wire protocol.
package httpapi

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"net/http/pprof"
	"strings"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/be"
	"github.com/dorisgo/dorisgo/server/streamload"
	"github.com/dorisgo/dorisgo/server/webui"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// Config is what the server hands the API once, when it starts serving
// HTTP. The funcs are called per request, so they see the server as it is
// then.
type Config struct {
	Catalog *catalog.Catalog
	// Embedded are a standalone FE's own backends: their series are in
	// /metrics (labelled by address), their running instances on the web
	// UI's backends page.
	Embedded []*be.Backend
	// MetricsRequireLogin makes /metrics take HTTP basic auth like /api.
	MetricsRequireLogin bool
	// StreamLoads serves the stream load endpoints.
	StreamLoads *streamload.Loader
	// Redirect sends a follower's write request to the master and reports
	// whether it did (then it is not served here).
	Redirect func(w http.ResponseWriter, r *http.Request) bool
	// The endpoints between the frontends of a replicated cluster; they
	// check the cluster token themselves, not an account.
	Forward, FEHeartbeat, Frontends, ProcessList http.HandlerFunc
	// ProfileList is the kept profiles a may see, newest first, as
	// /api/profile encodes them (JSON); ProfileText is one profile's text
	// (by query id or sequence number) if a may see it.
	ProfileList func(a *catalog.Access) any
	ProfileText func(a *catalog.Access, id string) (string, bool)
	// Connections is the open MySQL connections; StmtCounts the finished
	// statements so far (doris_fe_query_* and friends).
	Connections func() int
	StmtCounts  func() StmtCounts
	// Run runs one statement as a's account (connecting from host) on a
	// connection-less session and keeps its result as text.
	Run func(ctx context.Context, a *catalog.Access, host, stmt string) (*webui.Table, error)
	// Queries are the running statements of the connections a may see,
	// then the kept profiles it may see; Query is one of them by id.
	Queries func(a *catalog.Access) []webui.Query
	Query   func(ctx context.Context, a *catalog.Access, id string) (QueryRun, bool)
}

// API is the FE's HTTP handler and the metrics it counts.
type API struct {
	cfg     Config
	metrics *metrics
	mux     *http.ServeMux
}

// New builds the mux and the metrics registry.
func New(cfg Config) *API {
	a := &API{cfg: cfg, metrics: newMetrics(cfg)}
	a.mux = a.routes()
	return a
}

// ServeHTTP implements http.Handler.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) { a.mux.ServeHTTP(w, r) }

func (a *API) routes() *http.ServeMux {
	mux := http.NewServeMux()
	cfg := a.cfg
	// Every /api endpoint takes HTTP basic auth against the MySQL accounts
	// and checks the privileges its SQL counterpart would: stream load
	// LOAD_PRIV on its table (server/streamload), the colocate admin endpoints
	// ADMIN_PRIV, /api/profile one's own queries unless ADMIN_PRIV.
	mux.HandleFunc("PUT /api/{db}/{table}/_stream_load", cfg.StreamLoads.ServeLoad)
	// Between the frontends of a replicated cluster (the server's ha.go,
	// forward.go): they present the cluster token, not an account.
	mux.HandleFunc("POST /api/_fe/forward", cfg.Forward)
	mux.HandleFunc("POST /api/_fe/heartbeat", cfg.FEHeartbeat)
	mux.HandleFunc("GET /api/_fe/frontends", cfg.Frontends)
	mux.HandleFunc("GET /api/_fe/processlist", cfg.ProcessList)
	mux.HandleFunc("PUT /api/{db}/_stream_load_2pc", a.masterOnly(a.needLogin(cfg.StreamLoads.Serve2PC)))
	mux.HandleFunc("GET /api/_load_error_log", a.needLogin(cfg.StreamLoads.ServeErrorLog))
	mux.HandleFunc("POST /api/colocate/group_stable", a.needAdmin(a.groupStable(false)))
	mux.HandleFunc("DELETE /api/colocate/group_stable", a.needAdmin(a.groupStable(true)))
	mux.HandleFunc("GET /api/profile", a.needLogin(func(w http.ResponseWriter, r *http.Request, acc *catalog.Access) {
		WriteJSON(w, http.StatusOK, cfg.ProfileList(acc))
	}))
	mux.HandleFunc("GET /api/profile/{id}", a.needLogin(a.serveProfile))
	mux.HandleFunc("GET /api/health", a.needLogin(func(w http.ResponseWriter, r *http.Request, _ *catalog.Access) {
		WriteJSON(w, http.StatusOK, map[string]any{"status": "OK", "msg": "Success"})
	}))
	// /metrics is open, as Doris's is, unless --metrics-require-login.
	metrics := promhttp.HandlerFor(a.metrics.reg, promhttp.HandlerOpts{})
	if cfg.MetricsRequireLogin {
		mux.HandleFunc("GET /metrics", a.needLogin(func(w http.ResponseWriter, r *http.Request, _ *catalog.Access) {
			metrics.ServeHTTP(w, r)
		}))
	} else {
		mux.Handle("GET /metrics", metrics)
	}
	// Go profiles, for diagnosing a slow query or load in place; they show
	// every statement's stacks, so they are ADMIN_PRIV's.
	mux.HandleFunc("GET /debug/pprof/", a.needAdmin(withoutAccess(pprof.Index)))
	mux.HandleFunc("GET /debug/pprof/profile", a.needAdmin(withoutAccess(pprof.Profile)))
	mux.HandleFunc("GET /debug/pprof/trace", a.needAdmin(withoutAccess(pprof.Trace)))
	// The web UI takes every other path (server/webui).
	mux.Handle("/", webui.New(webSource{a}))
	return mux
}

// authedHandler is an HTTP handler that knows the caller's privileges.
type authedHandler func(w http.ResponseWriter, r *http.Request, a *catalog.Access)

func withoutAccess(h http.HandlerFunc) authedHandler {
	return func(w http.ResponseWriter, r *http.Request, _ *catalog.Access) { h(w, r) }
}

// masterOnly redirects a write endpoint to the master.
func (a *API) masterOnly(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !a.cfg.Redirect(w, r) {
			h(w, r)
		}
	}
}

// unauthorized is the 401 of a request without valid credentials; the
// challenge lets curl and browsers ask for them.
func unauthorized(w http.ResponseWriter) {
	w.Header().Set("WWW-Authenticate", `Basic realm="dorisgo"`)
	WriteJSON(w, http.StatusUnauthorized, map[string]any{"code": 401, "msg": "Unauthorized",
		"data": "Access denied: wrong user or password (HTTP basic auth)", "count": 0})
}

// needLogin runs h for a request with valid credentials, else 401.
func (a *API) needLogin(h authedHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		acc, ok := Login(a.cfg.Catalog, r)
		if !ok {
			unauthorized(w)
			return
		}
		h(w, r, acc)
	}
}

// needAdmin runs h for an account holding ADMIN_PRIV; 401 without valid
// credentials, 403 without the privilege.
func (a *API) needAdmin(h authedHandler) http.HandlerFunc {
	return a.needLogin(func(w http.ResponseWriter, r *http.Request, acc *catalog.Access) {
		if !acc.Global(catalog.WantAdmin) {
			WriteJSON(w, http.StatusForbidden, map[string]any{"code": 403, "msg": "Forbidden",
				"data": sqlerr.SpecificAccessDenied.New("ADMIN").Message, "count": 0})
			return
		}
		h(w, r, acc)
	})
}

// WriteJSON writes v as the reply, indented as all the FE's JSON replies.
func WriteJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "    ")
	_ = enc.Encode(v)
}

// Login checks HTTP basic auth against cat's stored password hashes and
// returns the privileges of the account it matched (as of now).
func Login(cat *catalog.Catalog, r *http.Request) (*catalog.Access, bool) {
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
	u, ok := cat.LookupUser(user, host)
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
	return cat.Access(u.Name, u.Host), true
}

// groupStable serves Doris's admin endpoint marking a colocate group
// (un)stable: POST marks it unstable, DELETE stable again.
func (a *API) groupStable(stable bool) authedHandler {
	return func(w http.ResponseWriter, r *http.Request, _ *catalog.Access) {
		q := r.URL.Query()
		db, group := q.Get("db"), q.Get("group")
		if db == "" {
			db = q.Get("db_id")
		}
		if group == "" {
			group = q.Get("group_id")
		}
		if err := a.cfg.Catalog.SetGroupStable(db, group, stable); err != nil {
			WriteJSON(w, http.StatusBadRequest, map[string]any{"code": 1, "msg": sqlerr.As(err).Message})
			return
		}
		WriteJSON(w, http.StatusOK, map[string]any{"code": 0, "msg": "success"})
	}
}

// serveProfile returns one profile (by query id or sequence number) as
// text; another user's is 404, as if it were not there.
func (a *API) serveProfile(w http.ResponseWriter, r *http.Request, acc *catalog.Access) {
	text, ok := a.cfg.ProfileText(acc, r.PathValue("id"))
	if !ok {
		http.Error(w, "no such profile", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte(text))
}
