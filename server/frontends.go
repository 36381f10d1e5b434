package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/dorisgo/dorisgo/server/journal"
	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// feHeartbeat is how often a follower tells the master it is alive and how
// far it has replayed the journal; feDeadAfter without one makes it dead
// in SHOW FRONTENDS.
const (
	feHeartbeat = time.Second
	feDeadAfter = 5 * time.Second
)

// feRow is one line of SHOW FRONTENDS.
type feRow struct {
	Name, Host               string
	EditLogPort, HTTP, Query int
	Role                     journal.Role
	IsMaster, Alive, Joined  bool
	Journal                  uint64
	LastStart, LastHeartbeat time.Time
	ErrMsg                   string
}

// feRole is a member's role: the one ADD FOLLOWER|OBSERVER gave it (a
// follower that has not caught up does not vote yet); a member without
// one is the frontend that founded the cluster, a follower.
func (s *Server) feRole(m journal.Member) journal.Role {
	if v, ok, _ := s.meta.Get([]byte(keyFERole + m.Name)); ok {
		return journal.Role(v)
	}
	if m.Voter {
		return journal.Follower
	}
	return journal.Observer
}

// promoteCaughtUp makes the followers that have caught up with the
// journal voters (the master, every heartbeat round).
func (s *Server) promoteCaughtUp() {
	h := s.ha
	members, err := h.node.Members()
	if err != nil {
		return
	}
	for _, m := range members {
		if m.Voter || s.feRole(m) != journal.Follower {
			continue
		}
		h.mu.Lock()
		ps, ok := h.peers[m.Name]
		h.mu.Unlock()
		if ok && time.Since(ps.seen) < feDeadAfter && ps.info.Applied+feCatchUpSlack >= h.node.Applied() {
			if err := h.node.Promote(m.Name); err != nil {
				s.log.Warn("promote a caught-up follower", "frontend", m.Name, "err", err)
			} else {
				s.log.Info("follower caught up and now votes", "frontend", m.Name)
			}
		}
	}
}

// feCatchUpSlack is how far behind the master's journal a joining follower
// may be and still get its vote.
const feCatchUpSlack = 16

// feHeartbeatLoop reports this follower to the master every feHeartbeat;
// on the master it promotes the followers that caught up.
func (s *Server) feHeartbeatLoop() {
	h := s.ha
	t := time.NewTicker(feHeartbeat)
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
		}
		if h.master.Load() {
			s.promoteCaughtUp()
			continue
		}
		m, ok := s.masterInfo()
		if !ok {
			continue
		}
		body, _ := json.Marshal(s.selfInfo())
		ctx, cancel := context.WithTimeout(context.Background(), feHeartbeat)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+net.JoinHostPort(m.Host, strconv.Itoa(m.HTTPPort))+"/api/_fe/heartbeat", bytes.NewReader(body))
		if err == nil {
			req.Header.Set(tokenHeader, s.token)
			if res, err := fwdClient.Do(req); err == nil {
				res.Body.Close()
			}
		}
		cancel()
	}
}

// serveFEHeartbeat records a follower's heartbeat (on the master).
func (s *Server) serveFEHeartbeat(w http.ResponseWriter, r *http.Request) {
	if !s.fromPeer(r) || s.ha == nil {
		http.Error(w, "this endpoint is for the cluster's frontends", http.StatusForbidden)
		return
	}
	var info feInfo
	if err := json.NewDecoder(r.Body).Decode(&info); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.ha.mu.Lock()
	s.ha.peers[info.Name] = peerState{info: info, seen: time.Now()}
	s.ha.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// serveFrontends answers the master's SHOW FRONTENDS to a follower.
func (s *Server) serveFrontends(w http.ResponseWriter, r *http.Request) {
	if !s.fromPeer(r) || s.ha == nil {
		http.Error(w, "this endpoint is for the cluster's frontends", http.StatusForbidden)
		return
	}
	rows, err := s.frontendRows()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeJSON(w, http.StatusOK, rows)
}

// frontendRows is this frontend's view of the cluster: the journal's
// members, with what their heartbeats told the master.
func (s *Server) frontendRows() ([]feRow, error) {
	h := s.ha
	members, err := h.node.Members()
	if err != nil {
		return nil, err
	}
	master := h.node.Master()
	now := time.Now()
	var rows []feRow
	for _, m := range members {
		host, port, _ := net.SplitHostPort(m.Name)
		p, _ := strconv.Atoi(port)
		row := feRow{Name: m.Name, Host: host, EditLogPort: p, Role: s.feRole(m), Joined: m.Voter, IsMaster: m.Name == master}
		var info feInfo
		if m.Name == s.feName() {
			info = s.selfInfo()
			row.Alive, row.LastHeartbeat = true, now
		} else {
			h.mu.Lock()
			ps, ok := h.peers[m.Name]
			h.mu.Unlock()
			switch {
			case ok:
				info = ps.info
				row.LastHeartbeat = ps.seen
				row.Alive = now.Sub(ps.seen) < feDeadAfter
				if !row.Alive {
					row.ErrMsg = fmt.Sprintf("no heartbeat for %s", now.Sub(ps.seen).Round(time.Second))
				}
			case m.Name == master:
				info, _ = s.masterInfo()
				row.Alive = true
			default:
				// Its ports, if it was master once.
				if v, ok, _ := s.meta.Get([]byte(keyFEInfo + m.Name)); ok {
					json.Unmarshal(v, &info)
					info.Applied = 0
				}
				row.ErrMsg = "no heartbeat since " + s.feName() + " became master"
				if !h.master.Load() {
					row.ErrMsg = "unknown: the master could not be asked"
				}
			}
		}
		row.HTTP, row.Query, row.Journal, row.LastStart = info.HTTPPort, info.QueryPort, info.Applied, info.Started
		if row.Role == journal.Observer {
			row.Joined = row.Alive
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// showFrontends is SHOW FRONTENDS. A follower asks the master, which
// hears every frontend's heartbeat.
func (s *Session) showFrontends(ctx context.Context, w wire.ResultWriter) error {
	names := []string{"Name", "Host", "EditLogPort", "HttpPort", "QueryPort", "Role", "IsMaster", "Join", "Alive",
		"ReplayedJournalId", "LastStartTime", "LastHeartbeat", "ErrMsg", "Version", "CurrentConnected"}
	cols := make([]wire.Column, len(names))
	for i, n := range names {
		cols[i] = strCol(n)
	}
	var rows []feRow
	if s.srv.ha == nil {
		// A frontend of its own is its cluster's only master.
		self := s.srv.selfInfo()
		rows = []feRow{{Name: net.JoinHostPort(s.srv.cfg.Host, "0"), Host: s.srv.cfg.Host, HTTP: self.HTTPPort, Query: self.QueryPort,
			Role: journal.Follower, IsMaster: true, Alive: true, Joined: true, LastStart: self.Started, LastHeartbeat: time.Now()}}
	} else {
		var err error
		if rows, err = s.srv.masterFrontendRows(ctx); err != nil {
			return err
		}
	}
	fmtTime := func(t time.Time) string {
		if t.IsZero() {
			return "NULL"
		}
		return t.Local().Format("2006-01-02 15:04:05")
	}
	var out [][]types.Datum
	for _, r := range rows {
		cur := "No"
		if s.srv.ha == nil || r.Name == s.srv.feName() {
			cur = "Yes"
		}
		out = append(out, []types.Datum{str(r.Name), str(r.Host), str(strconv.Itoa(r.EditLogPort)), str(strconv.Itoa(r.HTTP)),
			str(strconv.Itoa(r.Query)), str(string(r.Role)), str(strconv.FormatBool(r.IsMaster)), str(strconv.FormatBool(r.Joined)), str(strconv.FormatBool(r.Alive)),
			str(strconv.FormatUint(r.Journal, 10)), str(fmtTime(r.LastStart)), str(fmtTime(r.LastHeartbeat)), str(r.ErrMsg), str("dorisgo"), str(cur)})
	}
	return writeTable(w, cols, out)
}

// masterFrontendRows is the master's SHOW FRONTENDS, or this frontend's
// own view when no master answers.
func (s *Server) masterFrontendRows(ctx context.Context) ([]feRow, error) {
	if s.ha.master.Load() {
		return s.frontendRows()
	}
	if m, ok := s.masterInfo(); ok {
		ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+net.JoinHostPort(m.Host, strconv.Itoa(m.HTTPPort))+"/api/_fe/frontends", nil)
		if err == nil {
			req.Header.Set(tokenHeader, s.token)
			if res, err := fwdClient.Do(req); err == nil {
				var rows []feRow
				derr := json.NewDecoder(res.Body).Decode(&rows)
				res.Body.Close()
				if derr == nil && res.StatusCode == http.StatusOK {
					return rows, nil
				}
			}
		}
	}
	return s.frontendRows()
}

// alterFrontends is ALTER SYSTEM ADD|DROP FOLLOWER|OBSERVER "host:edit_log_port".
func (s *Session) alterFrontends(st *parser.AlterSystem, w wire.ResultWriter) error {
	h := s.srv.ha
	if h == nil {
		return sqlerr.NotSupportedYet.New(st.Op.String() + " on a frontend started without --edit-log-port (it has no journal to share)")
	}
	members, err := h.node.Members()
	if err != nil {
		return err
	}
	for _, hp := range st.HostPorts {
		host, port, err := net.SplitHostPort(hp)
		if err != nil || host == "" {
			return sqlerr.Doris.New("Invalid host port: " + hp)
		}
		if p, err := strconv.Atoi(port); err != nil || p <= 0 || p > 65535 {
			return sqlerr.Doris.New("Invalid host port: " + hp)
		}
		var cur *journal.Member
		for i := range members {
			if members[i].Name == hp {
				cur = &members[i]
			}
		}
		role := journal.Follower
		if st.Op == parser.AddObserver || st.Op == parser.DropObserver {
			role = journal.Observer
		}
		key := []byte(keyFERole + hp)
		switch st.Op {
		case parser.AddFollower, parser.AddObserver:
			if cur != nil {
				return sqlerr.Doris.New(fmt.Sprintf("frontend %s already exists as a %s", hp, s.srv.feRole(*cur)))
			}
			// Its role first: a FOLLOWER joins as a non-voter and votes
			// once it has caught up (promoteCaughtUp).
			if _, err = h.node.Apply([]storage.MetaOp{{Key: key, Value: []byte(role)}}); err == nil {
				err = h.node.AddNonvoter(hp)
			}
		case parser.DropFollower, parser.DropObserver:
			switch {
			case cur == nil || s.srv.feRole(*cur) != role:
				return sqlerr.Doris.New(fmt.Sprintf("frontend %s is not a %s of this cluster", hp, role))
			case hp == s.srv.feName():
				return sqlerr.Doris.New(fmt.Sprintf("frontend %s is the master this statement runs on; it cannot drop itself", hp))
			}
			if err = h.node.Remove(hp); err == nil {
				_, err = h.node.Apply([]storage.MetaOp{{Key: key, Delete: true}})
			}
		}
		if err != nil {
			return sqlerr.Doris.New(fmt.Sprintf("%s %s failed: %v", st.Op, hp, err))
		}
	}
	return w.WriteOK(wire.OK{})
}
