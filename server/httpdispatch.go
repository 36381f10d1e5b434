package server

import (
	"context"
	"net/http"
	"sort"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/server/httpapi"
	"github.com/dorisgo/dorisgo/server/webui"
	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/types"
)

// httpHandler wires server/httpapi to this server: what the HTTP
// endpoints, /metrics and the web UI read that only the server knows.
func (s *Server) httpHandler() http.Handler {
	s.api = httpapi.New(httpapi.Config{Catalog: s.cat, Embedded: s.bes, MetricsRequireLogin: s.cfg.MetricsRequireLogin,
		StreamLoads: s.streamLoads, Redirect: s.redirectToMaster,
		Forward: s.serveForward, FEHeartbeat: s.serveFEHeartbeat, Frontends: s.serveFrontends, ProcessList: s.serveProcessList,
		ProfileList: func(a *catalog.Access) any { return s.profiles.list(a) },
		ProfileText: s.profileText,
		Connections: func() int { return s.wire.ConnCount() },
		StmtCounts:  s.stmts.counts,
		Run:         s.webRun, Queries: s.webQueries, Query: s.webQuery})
	return s.api
}

// countStreamLoad counts a stream load's reply in the FE's metrics.
func (s *Server) countStreamLoad(status string, rows, bytes int64) {
	s.api.CountStreamLoad(status, rows, bytes)
}

// httpAccess checks HTTP basic auth against the accounts (httpapi.Login).
func (s *Server) httpAccess(r *http.Request) (*catalog.Access, bool) { return httpapi.Login(s.cat, r) }

func writeJSON(w http.ResponseWriter, code int, v any) { httpapi.WriteJSON(w, code, v) }

// webRun runs stmt for the web UI on a connection-less session of a's
// account: not in the processlist, with the global variables' values.
func (s *Server) webRun(ctx context.Context, a *catalog.Access, host, stmt string) (*webui.Table, error) {
	g := s.globals.snapshot()
	x := &Session{srv: s, info: wire.ConnInfo{User: a.User, Host: host},
		vars:      &sessionVars{vals: g, user: map[string]types.Datum{}, g: s.globals},
		connected: time.Now(), command: "Sleep", acct: account{user: a.User, host: a.Host}}
	tw := &tableWriter{t: &webui.Table{}}
	if err := x.Query(ctx, stmt, tw); err != nil {
		return nil, err
	}
	return tw.t, nil
}

// tableWriter keeps a statement's result as text.
type tableWriter struct {
	t    *webui.Table
	cols []wire.Column
}

func (w *tableWriter) SetMoreResults(bool)   {}
func (w *tableWriter) WriteOK(wire.OK) error { return nil }
func (w *tableWriter) WriteEnd() error       { return nil }
func (w *tableWriter) WriteColumns(cols []wire.Column) error {
	w.cols = cols
	w.t.Columns = nil
	for _, c := range cols {
		w.t.Columns = append(w.t.Columns, c.Name)
	}
	return nil
}

func (w *tableWriter) WriteRows(rec arrow.Record) error {
	for i := 0; i < int(rec.NumRows()); i++ {
		row := make([]string, len(w.cols))
		for j, c := range w.cols {
			row[j] = types.DatumAt(rec.Column(j), i, c.Type).String()
		}
		w.t.Rows = append(w.t.Rows, row)
	}
	return nil
}

// webSessions are the open sessions, by connection id.
func (s *Server) webSessions() []*Session {
	s.mu.Lock()
	sessions := make([]*Session, 0, len(s.sessions))
	for _, x := range s.sessions {
		sessions = append(sessions, x)
	}
	s.mu.Unlock()
	sort.Slice(sessions, func(i, j int) bool { return sessions[i].info.ID < sessions[j].info.ID })
	return sessions
}

// webQueries are the running statements of the connections a may see,
// then the kept profiles it may see.
func (s *Server) webQueries(a *catalog.Access) []webui.Query {
	var out []webui.Query
	for _, x := range s.webSessions() {
		if q, ok := webRunning(a, x); ok {
			out = append(out, q)
		}
	}
	for _, p := range s.profiles.list(a) {
		out = append(out, webFinished(p))
	}
	return out
}

// webRunning is x's running statement, if a may see it: SHOW
// PROCESSLIST's rule (server/show: Processes) and KILL's
// (Session.mayKill), one's own user's, or all with ADMIN_PRIV.
func webRunning(a *catalog.Access, x *Session) (webui.Query, bool) {
	if x.info.User != a.User && !a.Global(catalog.WantAdmin) {
		return webui.Query{}, false
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.command != "Query" || x.queryID == "" {
		return webui.Query{}, false
	}
	sql := redactPasswords(x.sql) // bounded and redacted as the profiles' (Session.finish)
	if len(sql) > auditSQL {
		sql = sql[:auditSQL] + "..."
	}
	q := webui.Query{QueryID: x.queryID, Conn: x.info.ID, User: x.info.User, DB: x.db, SQL: sql, State: "RUNNING",
		Start: x.stmtStart, TimeMs: time.Since(x.stmtStart).Milliseconds(), Killable: true}
	if res := x.stmtRes; res != nil {
		q.Rows = res.rows.Load()
		if run := res.run.Load(); run != nil {
			q.HasPlan = true
			_, q.Bytes = run.profile().Scanned()
		}
	}
	return q, true
}

func webFinished(p *profile) webui.Query {
	return webui.Query{QueryID: p.QueryID, Conn: p.Conn, User: p.User, DB: p.DB, SQL: p.SQL, State: p.State, Start: p.Start,
		TimeMs: p.End.Sub(p.Start).Milliseconds(), Rows: p.Rows, Bytes: p.Bytes, HasPlan: p.run != nil}
}

// webQuery is the query id a may see: a running one with its live
// counters, else a kept profile.
func (s *Server) webQuery(ctx context.Context, a *catalog.Access, id string) (httpapi.QueryRun, bool) {
	for _, x := range s.webSessions() {
		q, ok := webRunning(a, x)
		if !ok || q.QueryID != id {
			continue
		}
		x.mu.Lock()
		var run *planRun
		if x.stmtRes != nil {
			run = x.stmtRes.run.Load()
		}
		x.mu.Unlock()
		r := httpapi.QueryRun{Query: q}
		if run != nil {
			r.Graph, r.Profile = run.graph, run.live(ctx)
		}
		return r, true
	}
	p := s.profiles.find(a, id)
	if p == nil {
		return httpapi.QueryRun{}, false
	}
	r := httpapi.QueryRun{Query: webFinished(p), Text: p.text()}
	if p.run != nil {
		r.Graph, r.Profile = p.run.graph, p.measured
	}
	return r, true
}
