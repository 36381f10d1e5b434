package server

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"time"

	"github.com/dorisgo/dorisgo/server/show"
)

// sessionsVisibleTo are this frontend's connections a user may see: its
// own (by user name, as Doris), or all with ADMIN_PRIV; by id.
func (srv *Server) sessionsVisibleTo(user string, admin bool) []*Session {
	srv.mu.Lock()
	sessions := make([]*Session, 0, len(srv.sessions))
	for _, x := range srv.sessions {
		if admin || x.info.User == user {
			sessions = append(sessions, x)
		}
	}
	srv.mu.Unlock()
	sort.Slice(sessions, func(i, j int) bool { return sessions[i].info.ID < sessions[j].info.ID })
	return sessions
}

// processRows are the SHOW PROCESSLIST rows of sessionsVisibleTo.
func (srv *Server) processRows(user string, admin bool) []show.Process {
	sessions := srv.sessionsVisibleTo(user, admin)
	rows := make([]show.Process, 0, len(sessions))
	for _, x := range sessions {
		x.mu.Lock()
		since := x.connected
		if x.command == "Query" {
			since = x.stmtStart
		}
		rows = append(rows, show.Process{ID: int64(x.info.ID), User: x.info.User, Host: x.info.Host, DB: x.db, Command: x.command,
			Time: int64(time.Since(since).Seconds()), Info: x.sql})
		x.mu.Unlock()
	}
	return rows
}

// peerProcessRows asks every other alive frontend for its connections
// (Doris's show_all_fe_connection); one that does not answer is left out.
func (srv *Server) peerProcessRows(ctx context.Context, user string, admin bool) ([]show.Process, error) {
	fes, err := srv.masterFrontendRows(ctx)
	if err != nil {
		return nil, err
	}
	var out []show.Process
	for _, fe := range fes {
		if fe.Name == srv.feName() || !fe.Alive || fe.HTTP == 0 {
			continue
		}
		rows, err := srv.askProcessRows(ctx, fe, user, admin)
		if err != nil {
			srv.log.Warn("processlist of another frontend", "frontend", fe.Name, "err", err)
			continue
		}
		for i := range rows {
			rows[i].FE = fe.Name
		}
		out = append(out, rows...)
	}
	return out, nil
}

func (srv *Server) askProcessRows(ctx context.Context, fe feRow, user string, admin bool) ([]show.Process, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	q := url.Values{"user": {user}, "admin": {strconv.FormatBool(admin)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+net.JoinHostPort(fe.Host, strconv.Itoa(fe.HTTP))+"/api/_fe/processlist?"+q.Encode(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set(tokenHeader, srv.token)
	res, err := fwdClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	var rows []show.Process
	if err := json.NewDecoder(res.Body).Decode(&rows); err != nil {
		return nil, err
	}
	return rows, nil
}

// serveProcessList answers another frontend's peerProcessRows.
func (srv *Server) serveProcessList(w http.ResponseWriter, r *http.Request) {
	if !srv.fromPeer(r) {
		http.Error(w, "this endpoint is for the cluster's frontends", http.StatusForbidden)
		return
	}
	admin, _ := strconv.ParseBool(r.URL.Query().Get("admin"))
	writeJSON(w, http.StatusOK, srv.processRows(r.URL.Query().Get("user"), admin))
}
