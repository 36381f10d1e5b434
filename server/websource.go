package server

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/server/show"
	"github.com/dorisgo/dorisgo/server/webui"
	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/types"
)

// The web UI (server/webui) reads the FE through webSource: each request
// is answered as the account its basic auth names, with the rules its SQL
// counterpart applies (SHOW PROCESSLIST's for queries, KILL's for Kill,
// each SHOW's own for the other pages).

type webSource struct{ s *Server }

var _ webui.Source = webSource{}

// Login implements webui.Source.
func (w webSource) Login(r *http.Request) (webui.Viewer, bool) {
	a, ok := w.s.httpAccess(r)
	if !ok {
		return nil, false
	}
	host := r.RemoteAddr
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		host = strings.Trim(host[:i], "[]")
	}
	return &webViewer{s: w.s, a: a, host: host, ctx: r.Context()}, true
}

type webViewer struct {
	s    *Server
	a    *catalog.Access
	host string
	ctx  context.Context
}

func (v *webViewer) User() string { return v.a.User }

func (v *webViewer) admin() bool { return v.a.Global(catalog.WantAdmin) }

// sees is SHOW PROCESSLIST's rule (server/show: Processes) and KILL's
// (Session.mayKill): one's own user's, or all with ADMIN_PRIV.
func (v *webViewer) sees(user string) bool { return user == v.a.User || v.admin() }

// session is a connection-less session of the viewer's account, for
// running one statement: not in the processlist, with the global
// variables' values.
func (v *webViewer) session() *Session {
	g := v.s.globals.snapshot()
	return &Session{srv: v.s, info: wire.ConnInfo{User: v.a.User, Host: v.host},
		vars:      &sessionVars{vals: g, user: map[string]types.Datum{}, g: v.s.globals},
		connected: time.Now(), command: "Sleep", acct: account{user: v.a.User, host: v.a.Host}}
}

// Run implements webui.Viewer.
func (v *webViewer) Run(stmt string) (*webui.Table, error) {
	tw := &tableWriter{t: &webui.Table{}}
	if err := v.session().Query(v.ctx, stmt, tw); err != nil {
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

// Queries implements webui.Viewer: the running statements of the
// connections it may see, then the kept profiles it may see.
func (v *webViewer) Queries() []webui.Query {
	var out []webui.Query
	v.s.mu.Lock()
	sessions := make([]*Session, 0, len(v.s.sessions))
	for _, x := range v.s.sessions {
		sessions = append(sessions, x)
	}
	v.s.mu.Unlock()
	sort.Slice(sessions, func(i, j int) bool { return sessions[i].info.ID < sessions[j].info.ID })
	for _, x := range sessions {
		if q, ok := v.running(x); ok {
			out = append(out, q)
		}
	}
	for _, p := range v.s.profiles.list(v.a) {
		out = append(out, v.finished(p))
	}
	return out
}

// running is x's running statement, if the viewer may see it.
func (v *webViewer) running(x *Session) (webui.Query, bool) {
	if !v.sees(x.info.User) {
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

func (v *webViewer) finished(p *profile) webui.Query {
	return webui.Query{QueryID: p.QueryID, Conn: p.Conn, User: p.User, DB: p.DB, SQL: p.SQL, State: p.State, Start: p.Start,
		TimeMs: p.End.Sub(p.Start).Milliseconds(), Rows: p.Rows, Bytes: p.Bytes, HasPlan: p.run != nil}
}

// Query implements webui.Viewer: a running query's live counters, else
// its kept profile's.
func (v *webViewer) Query(id string) (*webui.QueryDetail, bool) {
	v.s.mu.Lock()
	sessions := make([]*Session, 0, len(v.s.sessions))
	for _, x := range v.s.sessions {
		sessions = append(sessions, x)
	}
	v.s.mu.Unlock()
	for _, x := range sessions {
		q, ok := v.running(x)
		if !ok || q.QueryID != id {
			continue
		}
		x.mu.Lock()
		var run *planRun
		if x.stmtRes != nil {
			run = x.stmtRes.run.Load()
		}
		x.mu.Unlock()
		d := &webui.QueryDetail{Query: q}
		if run != nil {
			d.Fragments = queryFragments(run.graph, run.live(v.ctx))
		}
		return d, true
	}
	p := v.s.profiles.find(v.a, id)
	if p == nil {
		return nil, false
	}
	d := &webui.QueryDetail{Query: v.finished(p), Profile: p.text()}
	if p.run != nil {
		d.Fragments = queryFragments(p.run.graph, p.measured)
	}
	return d, true
}

// Backends implements webui.Viewer: SHOW BACKENDS' columns that say
// whether a backend is well and how loaded it is, plus the fragment
// instances it runs now (embedded backends; "-" for a separate one).
func (v *webViewer) Backends() (*webui.Table, error) {
	t, err := v.Run("SHOW BACKENDS")
	if err != nil {
		return nil, err
	}
	keep := []string{"BackendId", "Host", "BePort", "Alive", "LastHeartbeat", "LastStartTime", "TabletNum",
		"DataUsedCapacity", "AvailCapacity", "TotalCapacity", "UsedPct", "HeartbeatFailureCounter", "ErrMsg"}
	idx := map[string]int{}
	for i, c := range t.Columns {
		idx[c] = i
	}
	running := map[string]int{}
	for _, b := range v.s.bes {
		running[b.Addr()] = b.RunningInstances()
	}
	out := &webui.Table{Columns: append(append([]string{}, keep...), "RunningInstances")}
	for _, r := range t.Rows {
		var row []string
		for _, c := range keep {
			row = append(row, r[idx[c]])
		}
		load := "-"
		if n, ok := running[r[idx["Host"]]+":"+r[idx["BePort"]]]; ok {
			load = fmt.Sprint(n)
		}
		out.Rows = append(out.Rows, append(row, load))
	}
	return out, nil
}

// Databases implements webui.Viewer.
func (v *webViewer) Databases() []string {
	var out []string
	for _, db := range v.s.cat.Databases() {
		if v.a.SeesDB(db.Name) {
			out = append(out, db.Name)
		}
	}
	sort.Strings(out)
	return out
}

// Tables implements webui.Viewer: the tables it sees (as SHOW TABLES),
// with partitions, buckets and replicas per backend, and the colocate
// groups holding any of them (SHOW PROC '/colocation_group', which lists
// all of them, is ADMIN_PRIV's).
func (v *webViewer) Tables() ([]webui.TableInfo, []webui.Group) {
	var tables []webui.TableInfo
	names := map[catalog.TableID]string{}
	for _, db := range v.Databases() {
		ts, _ := v.s.cat.Tables(db)
		for _, t := range ts {
			if !v.a.SeesTable(db, t.Name) {
				continue
			}
			names[t.ID] = db + "." + t.Name
			tables = append(tables, tableInfo(db, t))
		}
	}
	var groups []webui.Group
	for _, g := range v.s.cat.Groups() {
		var members []string
		for _, id := range g.Tables {
			if n, ok := names[id]; ok {
				members = append(members, n)
			}
		}
		if len(members) == 0 && !v.admin() {
			continue
		}
		wg := webui.Group{ID: fmt.Sprintf("%d.%d", g.DBID, g.ID), Name: g.Name, Buckets: g.BucketNum, Replicas: g.ReplicaNum,
			Stable: !show.GroupUnstable(v.s.cat, g), ErrMsg: g.ErrMsg, Tables: members}
		for _, seq := range g.BucketSeq {
			var bs []int64
			for _, b := range seq {
				bs = append(bs, int64(b))
			}
			wg.BucketSeq = append(wg.BucketSeq, bs)
		}
		groups = append(groups, wg)
	}
	return tables, groups
}

func tableInfo(db string, t *catalog.Table) webui.TableInfo {
	ti := webui.TableInfo{DB: db, Name: t.Name, Keys: t.Keys.String(), Dist: "RANDOM", Buckets: t.Dist.Buckets, Colocate: t.ColocateGroup}
	if t.Dist.Kind == catalog.DistHash {
		var ks []string
		for _, c := range t.Dist.Columns {
			ks = append(ks, t.Columns[c].Name)
		}
		ti.Dist = "HASH(" + strings.Join(ks, ", ") + ")"
	}
	replicas := map[catalog.BackendID]int{}
	for _, p := range t.Partitions {
		ti.Partitions = append(ti.Partitions, webui.PartitionInfo{Name: p.Name, Range: show.PartitionRange(t, p), Buckets: len(p.Tablets),
			Rows: p.RowCount, Version: int64(p.VisibleVersion)})
		for _, tb := range p.Tablets {
			for _, r := range tb.Replicas {
				replicas[r.BackendID]++
			}
		}
	}
	for be, n := range replicas {
		ti.Replicas = append(ti.Replicas, webui.BackendCount{Backend: int64(be), Count: n})
	}
	sort.Slice(ti.Replicas, func(i, j int) bool { return ti.Replicas[i].Backend < ti.Replicas[j].Backend })
	return ti
}
