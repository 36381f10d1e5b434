package server

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Forwarding, as Doris's forward-to-master: a follower runs reads from its
// own replica of the catalog and sends every other statement to the
// master, which runs it as the client's account and answers with its
// results and the journal id that reflects the change. The follower then
// waits until its replica has replayed that id, so the client's next
// statement sees its own write.

// tokenHeader carries the cluster token between frontends.
const tokenHeader = "X-Dorisgo-Cluster-Token"

type fwdRequest struct {
	// Session names the client connection on the follower: a transaction
	// (BEGIN … COMMIT) runs in one session on the master.
	Session  string            `json:"session"`
	User     string            `json:"user"`
	AcctHost string            `json:"acct_host"`
	Client   string            `json:"client"`
	DB       string            `json:"db"`
	Vars     map[string]string `json:"vars"`
	SQL      string            `json:"sql"`
	// Params are a prepared statement's arguments: the master prepares
	// SQL and executes it with them.
	Params []types.Datum `json:"params,omitempty"`
	Close  bool          `json:"close,omitempty"` // the follower's connection closed
	// InTxn: the follower believes the session is in a transaction on the
	// master. A master that does not know the session (it took over from
	// the one that ran the transaction) refuses, rather than run a COMMIT
	// outside any transaction and acknowledge writes that are gone.
	InTxn bool `json:"in_txn,omitempty"`
}

type fwdResult struct {
	OK      *wire.OK      `json:"ok,omitempty"`
	Columns []wire.Column `json:"columns,omitempty"`
	Rows    []byte        `json:"rows,omitempty"` // Arrow IPC stream
}

type fwdResponse struct {
	Results []fwdResult   `json:"results"`
	Err     *sqlerr.Error `json:"err,omitempty"`
	Journal uint64        `json:"journal"`
	DB      string        `json:"db"`
	InTxn   bool          `json:"in_txn"`
}

// needsMaster says whether a statement must run on the master.
func (s *Session) needsMaster(stmt parser.Statement) bool {
	// A transaction forwarded before this frontend became the master ends
	// there too: the master (now this frontend) refuses it as lost.
	if s.fwdTxn {
		return true
	}
	if s.srv.isMaster() {
		return false
	}
	switch st := stmt.(type) {
	case *parser.Set:
		return setsGlobal(st) // the master persists it for every frontend
	case *parser.Show, *parser.Use, *parser.Kill, *parser.Prepare, *parser.Execute, *parser.Deallocate:
		return false
	case *parser.Vitess:
		return st.Kind != parser.KindSelect && st.Kind != parser.KindExplain
	case *parser.TxnStmt:
		return st.Op == parser.TxnBegin // COMMIT or ROLLBACK outside a transaction does nothing anywhere
	case *parser.ShowBackends, *parser.ShowFrontends, *parser.ShowDelete, *parser.ShowTablets, *parser.ShowPartitions,
		*parser.ShowTransaction, *parser.ShowData, *parser.ShowLoad, *parser.ShowProc, *parser.ShowQueryProfile,
		*parser.ShowCreateTable, *parser.ShowCreateView, *parser.ShowColumnStats, *parser.ShowTableStats,
		*parser.ShowAnalyze, *parser.ShowGrants, *parser.ShowRoles, *parser.ShowAlterColumn:
		return false
	case *parser.Explain:
		if st.Mode != parser.ExplainAnalyze {
			return false
		}
		v, ok := st.Stmt.(*parser.Vitess)
		return !ok || v.Kind != parser.KindSelect
	}
	return true
}

// forward runs text on the master and replays its results to w.
func (s *Session) forward(ctx context.Context, text string, params []types.Datum, w wire.ResultWriter) error {
	req := fwdRequest{Session: s.fwdKey(), User: s.acct.user, AcctHost: s.acct.host, Client: s.info.Host,
		DB: s.DB(), Vars: s.vars.vals, SQL: text, InTxn: s.fwdTxn}
	if params != nil {
		req.Params = make([]types.Datum, len(params))
		for i, p := range params {
			p.Prepare()
			req.Params[i] = p
		}
	}
	resp, err := s.srv.callMaster(ctx, req)
	if err != nil {
		return err
	}
	s.fwdTxn = resp.InTxn
	if resp.DB != s.DB() {
		s.mu.Lock()
		s.db = resp.DB
		s.mu.Unlock()
	}
	// Whatever happened, the client's next statement must see it here.
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	werr := s.srv.ha.waitLoaded(wctx, resp.Journal)
	cancel()
	for i, r := range resp.Results {
		w.SetMoreResults(i < len(resp.Results)-1)
		if err := replay(r, w); err != nil {
			return err
		}
	}
	if resp.Err != nil {
		return resp.Err
	}
	return werr
}

func replay(r fwdResult, w wire.ResultWriter) error {
	if r.OK != nil {
		return w.WriteOK(*r.OK)
	}
	if err := w.WriteColumns(r.Columns); err != nil {
		return err
	}
	if len(r.Rows) > 0 {
		rd, err := ipc.NewReader(bytes.NewReader(r.Rows))
		if err != nil {
			return sqlerr.Internal.New("read the master's result: " + err.Error())
		}
		defer rd.Release()
		for rd.Next() {
			if err := w.WriteRows(rd.Record()); err != nil {
				return err
			}
		}
		if err := rd.Err(); err != nil {
			return sqlerr.Internal.New("read the master's result: " + err.Error())
		}
	}
	return w.WriteEnd()
}

var fwdSeq atomic.Uint64

func (s *Session) fwdKey() string {
	return s.srv.feName() + "/" + strconv.FormatUint(uint64(s.info.ID), 10) + "/" + strconv.FormatInt(s.connected.UnixNano(), 10)
}

// endForwarded rolls back a forwarded transaction whose client left.
func (s *Session) endForwarded() {
	if !s.fwdTxn || s.srv.ha == nil {
		return
	}
	s.fwdTxn = false
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.srv.callMaster(ctx, fwdRequest{Session: s.fwdKey(), Close: true})
}

// fwdClient is the HTTP client between frontends.
var fwdClient = &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{Timeout: 3 * time.Second}).DialContext, MaxIdleConnsPerHost: 16}}

// callMaster sends a forwarded statement to the master.
func (srv *Server) callMaster(ctx context.Context, req fwdRequest) (*fwdResponse, error) {
	m, ok := srv.masterInfo()
	if !ok {
		return nil, sqlerr.Doris.New("no master frontend is elected now; the statement was not run, retry it")
	}
	body, _ := json.Marshal(req)
	url := fmt.Sprintf("http://%s/api/_fe/forward", net.JoinHostPort(m.Host, strconv.Itoa(m.HTTPPort)))
	ctx, stop := srv.whileMaster(ctx, m.Name)
	defer stop()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hr.Header.Set(tokenHeader, srv.token)
	res, err := fwdClient.Do(hr)
	if err != nil {
		if cause := context.Cause(ctx); cause != nil && ctx.Err() != nil {
			err = cause
		}
		return nil, sqlerr.Doris.New(fmt.Sprintf("forward to master %s failed: %v; the statement may not have run", m.Name, errText(err)))
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		return nil, sqlerr.Doris.New(fmt.Sprintf("forward to master %s failed (HTTP %d): %s", m.Name, res.StatusCode, bytes.TrimSpace(data)))
	}
	var out fwdResponse
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, sqlerr.Doris.New(fmt.Sprintf("forward to master %s: unreadable answer: %v", m.Name, err))
	}
	return &out, nil
}

// whileMaster is ctx, cancelled once this frontend's journal no longer
// names master as the master: a call to a master cut off from this
// frontend (its packets dropped, the connection never reset) fails within
// the journal's heartbeat timeout instead of hanging.
func (srv *Server) whileMaster(ctx context.Context, master string) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if cur := srv.ha.node.Master(); cur != master {
					if cur == "" {
						cur = "none"
					}
					cancel(fmt.Errorf("this frontend lost contact with master %s (its journal's master is now %s)", master, cur))
					return
				}
			}
		}
	}()
	return ctx, func() { close(done); cancel(nil) }
}

func errText(err error) string {
	if ue, ok := err.(interface{ Unwrap() error }); ok && ue.Unwrap() != nil {
		return ue.Unwrap().Error()
	}
	return err.Error()
}

// fromPeer checks the cluster token of a call from another frontend.
func (srv *Server) fromPeer(r *http.Request) bool {
	return subtle.ConstantTimeCompare([]byte(r.Header.Get(tokenHeader)), []byte(srv.token)) == 1
}

// fwdSessions are the master's sessions of forwarded transactions.
type fwdSessions struct {
	mu sync.Mutex
	m  map[string]*Session
}

// serveForward runs a forwarded statement on the master.
func (srv *Server) serveForward(w http.ResponseWriter, r *http.Request) {
	if !srv.fromPeer(r) {
		http.Error(w, "this endpoint is for the cluster's frontends", http.StatusForbidden)
		return
	}
	var req fwdRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad forwarded statement: "+err.Error(), http.StatusBadRequest)
		return
	}
	// A statement reaching a master still taking over waits for it.
	for deadline := time.Now().Add(15 * time.Second); !srv.isMaster() && srv.ha != nil && srv.ha.master.Load() && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	if !srv.isMaster() {
		why := " is not the master"
		if srv.ha != nil && srv.ha.master.Load() {
			why = " is still taking over as master"
		}
		writeJSON(w, http.StatusOK, fwdResponse{Err: sqlerr.Doris.New("frontend " + srv.feName() + why + "; the statement was not run, retry it")})
		return
	}
	srv.fwd.mu.Lock()
	if srv.fwd.m == nil {
		srv.fwd.m = map[string]*Session{}
	}
	sess := srv.fwd.m[req.Session]
	if req.Close {
		delete(srv.fwd.m, req.Session)
		srv.fwd.mu.Unlock()
		if sess != nil {
			sess.endTxn(false, "the client's connection to its frontend closed")
		}
		writeJSON(w, http.StatusOK, fwdResponse{})
		return
	}
	if sess == nil && req.InTxn {
		srv.fwd.mu.Unlock()
		resp := fwdResponse{DB: req.DB, Journal: srv.ha.node.Applied()}
		if st, err := parser.ParseOne(req.SQL); err != nil || !isRollback(st) {
			resp.Err = sqlerr.Doris.New("the transaction was rolled back: the master frontend that ran it is gone (" + srv.feName() + " is the master now); run the transaction again")
		} else {
			resp.Results = []fwdResult{{OK: &wire.OK{}}}
		}
		writeJSON(w, http.StatusOK, resp)
		return
	}
	if sess == nil {
		sess = &Session{srv: srv, info: wire.ConnInfo{ID: uint32(1<<31 + fwdSeq.Add(1)%(1<<30)), User: req.User, Host: req.Client},
			vars: &sessionVars{vals: srv.globals.snapshot(), user: map[string]types.Datum{}, g: srv.globals}, connected: time.Now(), command: "Sleep",
			acct: account{user: req.User, host: req.AcctHost}}
	}
	srv.fwd.mu.Unlock()
	for k, v := range req.Vars {
		sess.vars.vals[k] = v
	}
	sess.mu.Lock()
	sess.db = req.DB
	sess.mu.Unlock()
	rec := &recordingWriter{}
	var err error
	if req.Params != nil {
		for i := range req.Params {
			req.Params[i].Restore()
		}
		var p wire.Prepared
		if p, err = sess.Prepare(r.Context(), req.SQL); err == nil {
			err = sess.Execute(r.Context(), p, req.Params, rec)
		}
	} else {
		err = sess.Query(r.Context(), req.SQL, rec)
	}
	resp := fwdResponse{Results: rec.results, DB: sess.DB(), InTxn: sess.txn != nil}
	if err != nil {
		if e := sqlerr.As(err); e != nil {
			resp.Err = e
		} else {
			resp.Err = sqlerr.Internal.New(err.Error())
		}
	}
	if rec.err != nil && resp.Err == nil {
		resp.Err = sqlerr.Internal.New(rec.err.Error())
	}
	resp.Journal = srv.ha.node.Applied()
	srv.fwd.mu.Lock()
	if resp.InTxn {
		srv.fwd.m[req.Session] = sess
	} else {
		delete(srv.fwd.m, req.Session)
	}
	srv.fwd.mu.Unlock()
	writeJSON(w, http.StatusOK, resp)
}

func isRollback(st parser.Statement) bool {
	t, ok := st.(*parser.TxnStmt)
	return ok && t.Op == parser.TxnRollback
}

// recordingWriter keeps a statement's results for the follower.
type recordingWriter struct {
	results []fwdResult
	cur     *fwdResult
	buf     bytes.Buffer
	ipcw    *ipc.Writer
	err     error
}

func (r *recordingWriter) SetMoreResults(bool) {}

func (r *recordingWriter) WriteOK(ok wire.OK) error {
	r.results = append(r.results, fwdResult{OK: &ok})
	return nil
}

func (r *recordingWriter) WriteColumns(cols []wire.Column) error {
	r.cur = &fwdResult{Columns: cols}
	r.buf.Reset()
	r.ipcw = nil
	return nil
}

func (r *recordingWriter) WriteRows(rec arrow.Record) error {
	if r.ipcw == nil {
		r.ipcw = ipc.NewWriter(&r.buf, ipc.WithSchema(rec.Schema()))
	}
	if err := r.ipcw.Write(rec); err != nil {
		r.err = err
		return err
	}
	return nil
}

func (r *recordingWriter) WriteEnd() error {
	if r.cur == nil {
		return nil
	}
	if r.ipcw != nil {
		if err := r.ipcw.Close(); err != nil {
			r.err = err
			return err
		}
		r.cur.Rows = bytes.Clone(r.buf.Bytes())
	}
	r.results = append(r.results, *r.cur)
	r.cur = nil
	return nil
}

// discardWriter drops a statement's results.
type discardWriter struct{}

func (discardWriter) SetMoreResults(bool)              {}
func (discardWriter) WriteOK(wire.OK) error            { return nil }
func (discardWriter) WriteColumns([]wire.Column) error { return nil }
func (discardWriter) WriteRows(arrow.Record) error     { return nil }
func (discardWriter) WriteEnd() error                  { return nil }

// redirectToMaster sends a follower's stream load to the master with a 307,
// as Doris's FE does (curl --location-trusted follows it with the
// credentials). It reports whether it answered.
func (srv *Server) redirectToMaster(w http.ResponseWriter, r *http.Request) bool {
	if srv.isMaster() {
		return false
	}
	m, ok := srv.masterInfo()
	if !ok {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"Status": "Fail", "Message": "no master frontend is elected now; retry the load"})
		return true
	}
	u := *r.URL
	u.Scheme, u.Host = "http", net.JoinHostPort(m.Host, strconv.Itoa(m.HTTPPort))
	http.Redirect(w, r, u.String(), http.StatusTemporaryRedirect)
	return true
}
