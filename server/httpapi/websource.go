package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/server/show"
	"github.com/dorisgo/dorisgo/server/webui"
)

// The web UI (server/webui) reads the FE through webSource: each request
// is answered as the account its basic auth names, with the rules its SQL
// counterpart applies (SHOW PROCESSLIST's for queries, KILL's for Kill,
// each SHOW's own for the other pages). The sessions and profiles are the
// server's (Config.Run, Queries, Query); the catalog's pages are read here.

type webSource struct{ api *API }

var _ webui.Source = webSource{}

// Login implements webui.Source.
func (w webSource) Login(r *http.Request) (webui.Viewer, bool) {
	a, ok := Login(w.api.cfg.Catalog, r)
	if !ok {
		return nil, false
	}
	host := r.RemoteAddr
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		host = strings.Trim(host[:i], "[]")
	}
	return &webViewer{cfg: &w.api.cfg, a: a, host: host, ctx: r.Context()}, true
}

type webViewer struct {
	cfg  *Config
	a    *catalog.Access
	host string
	ctx  context.Context
}

func (v *webViewer) User() string { return v.a.User }

func (v *webViewer) admin() bool { return v.a.Global(catalog.WantAdmin) }

// Run implements webui.Viewer.
func (v *webViewer) Run(stmt string) (*webui.Table, error) {
	return v.cfg.Run(v.ctx, v.a, v.host, stmt)
}

// Queries implements webui.Viewer.
func (v *webViewer) Queries() []webui.Query { return v.cfg.Queries(v.a) }

// Query implements webui.Viewer: a running query's live counters, else
// its kept profile's.
func (v *webViewer) Query(id string) (*webui.QueryDetail, bool) {
	q, ok := v.cfg.Query(v.ctx, v.a, id)
	if !ok {
		return nil, false
	}
	d := &webui.QueryDetail{Query: q.Query, Profile: q.Text}
	if q.Graph != nil {
		d.Fragments = queryFragments(q.Graph, q.Profile)
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
	for _, b := range v.cfg.Embedded {
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
	for _, db := range v.cfg.Catalog.Databases() {
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
		ts, _ := v.cfg.Catalog.Tables(db)
		for _, t := range ts {
			if !v.a.SeesTable(db, t.Name) {
				continue
			}
			names[t.ID] = db + "." + t.Name
			tables = append(tables, tableInfo(db, t))
		}
	}
	var groups []webui.Group
	for _, g := range v.cfg.Catalog.Groups() {
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
			Stable: !show.GroupUnstable(v.cfg.Catalog, g), ErrMsg: g.ErrMsg, Tables: members}
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
