package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/server/journal"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/storage"
)

// A replicated frontend (--edit-log-port): the catalog's writes go through
// the journal (server/journal), one frontend is the master and runs
// every write and the cluster's background duties, the others serve
// queries from their replica and forward writes to it (forward.go).
//
// Metadata the journal carries besides the catalog (keys outside "c/"):
//
//	fe/token        the cluster token backends check (rpc.TokenGuard)
//	fe/info/<name>  a master's ports, written when it takes over, so that
//	                followers can reach its MySQL and HTTP listeners
//	fe/role/<name>  the role ALTER SYSTEM ADD FOLLOWER|OBSERVER gave it
const (
	keyFEToken = "fe/token"
	keyFEInfo  = "fe/info/"
	keyFERole  = "fe/role/" // FOLLOWER or OBSERVER, as ADD gave it
)

// feInfo is how to reach a frontend, and since when it runs.
type feInfo struct {
	Name      string    `json:"name"` // host:edit_log_port
	Host      string    `json:"host"`
	EditLog   int       `json:"edit_log_port"`
	HTTPPort  int       `json:"http_port"`
	QueryPort int       `json:"query_port"`
	Started   time.Time `json:"started"`
	// Applied is the journal id the frontend has replayed (heartbeats).
	Applied uint64 `json:"applied"`
}

// haState is a replicated frontend's part in the cluster.
type haState struct {
	node *journal.Node
	// master: this frontend leads the journal and may write the catalog;
	// serving: it has also finished the take-over (the old master's
	// unfinished transactions resolved) and takes clients' writes.
	master, serving atomic.Bool
	// reloadMu orders a follower's catalog updates (replicated) against
	// opening the catalog and taking over as master: a master's in-memory
	// catalog is ahead of its store between a write and its swap, so it
	// never applies the journal to it.
	reloadMu sync.Mutex
	// loaded is the journal id the in-memory catalog reflects; loadedCh
	// is closed (and replaced) whenever it moves.
	loaded   atomic.Uint64
	mu       sync.Mutex
	loadedCh chan struct{}
	// peers are the other frontends' last heartbeats (on the master).
	peers map[string]peerState
	stop  chan struct{}
	wg    sync.WaitGroup
}

type peerState struct {
	info feInfo
	seen time.Time
}

func (h *haState) setLoaded(idx uint64) {
	h.loaded.Store(idx)
	h.mu.Lock()
	close(h.loadedCh)
	h.loadedCh = make(chan struct{})
	h.mu.Unlock()
}

// waitLoaded waits until this frontend's catalog reflects journal id idx:
// a write forwarded to the master is seen by the client's next statement.
func (h *haState) waitLoaded(ctx context.Context, idx uint64) error {
	for {
		h.mu.Lock()
		ch := h.loadedCh
		h.mu.Unlock()
		if h.loaded.Load() >= idx || h.master.Load() {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return sqlerr.Doris.New(fmt.Sprintf("this frontend has not replayed the master's journal up to id %d yet (it is at %d); retry", idx, h.loaded.Load()))
		}
	}
}

// isMaster reports whether this frontend may write the catalog: always on
// a frontend of its own, on a replicated one only as the master.
func (s *Server) isMaster() bool { return s.ha == nil || s.ha.serving.Load() }

// feName is this frontend's name in the cluster.
func (s *Server) feName() string {
	return net.JoinHostPort(s.cfg.Host, strconv.Itoa(s.cfg.EditLogPort))
}

// openJournal starts the journal on meta: a first frontend bootstraps a
// cluster of its own; one started with a helper waits until the master has
// added it and sent it the catalog.
func (s *Server) openJournal(meta *storage.Meta) error {
	if s.cfg.Backends > 0 {
		return errors.New("--edit-log-port starts a frontend of a replicated cluster: run it as `dorisgo fe` and the backends as `dorisgo be`")
	}
	dir := filepath.Join(s.cfg.DataDir, "fe-journal")
	fresh := !journal.HasState(dir)
	existing, err := meta.Scan(nil)
	if err != nil {
		return err
	}
	if fresh && s.cfg.Helper != "" && len(existing) > 0 {
		return fmt.Errorf("data dir %s already holds a catalog: a frontend joining a cluster (--helper) starts from an empty data dir", s.cfg.DataDir)
	}
	if fresh && s.cfg.Helper != "" {
		c, err := net.DialTimeout("tcp", s.cfg.Helper, 5*time.Second)
		if err != nil {
			return fmt.Errorf("helper %s (an existing frontend's edit log port) is not reachable: %v", s.cfg.Helper, err)
		}
		c.Close()
	}
	h := &haState{loadedCh: make(chan struct{}), peers: map[string]peerState{}, stop: make(chan struct{})}
	s.ha = h
	node, err := journal.Open(journal.Config{Dir: dir, Addr: s.feName(), Meta: meta, Log: s.log, SnapshotThreshold: s.cfg.JournalSnapshotThreshold,
		OnApply: s.replicated})
	if err != nil {
		return err
	}
	h.node = node
	if fresh && s.cfg.Helper == "" {
		if err := node.Bootstrap(); err != nil {
			return err
		}
	}
	wait := 15 * time.Second
	if fresh && s.cfg.Helper != "" {
		wait = 2 * time.Minute
	}
	deadline := time.Now().Add(wait)
	for {
		// The first master journals the token, then the catalog's
		// bootstrap (c/init): a follower needs both.
		_, hasToken, err := meta.Get([]byte(keyFEToken))
		if err != nil {
			return err
		}
		_, hasInit, err := meta.Get([]byte("c/init"))
		if err != nil {
			return err
		}
		hasCatalog := hasToken && hasInit
		if node.IsMaster() || (node.Master() != "" && hasCatalog) {
			break
		}
		if time.Now().After(deadline) {
			if fresh && s.cfg.Helper != "" {
				return fmt.Errorf("frontend %s was not added to the cluster of %s: run ALTER SYSTEM ADD FOLLOWER \"%s\" (or ADD OBSERVER) on the master first", s.feName(), s.cfg.Helper, s.feName())
			}
			if hasCatalog {
				s.log.Warn("no master elected yet; serving reads from this frontend's replica", "frontend", s.feName())
				break
			}
			return fmt.Errorf("frontend %s: no master elected and no catalog replicated", s.feName())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if node.IsMaster() {
		// Master from the start: replay what earlier masters committed,
		// then write (the catalog's own bootstrap included).
		if err := node.Barrier(30 * time.Second); err != nil {
			return fmt.Errorf("take over as master: %w", err)
		}
		h.master.Store(true)
	}
	if fresh && s.cfg.Helper == "" && len(existing) > 0 {
		// A frontend that ran alone before: its store becomes the first
		// entry, so that followers added later get all of it.
		ops := make([]storage.MetaOp, 0, len(existing))
		for _, e := range existing {
			ops = append(ops, storage.MetaOp{Key: e.Key, Value: e.Value})
		}
		if _, err := node.Apply(ops); err != nil {
			return err
		}
	}
	h.setLoaded(node.Applied())
	return nil
}

// journalToken is the cluster token of a replicated frontend: the first
// master's, carried by the journal so that every frontend presents the
// same one to the backends.
func (s *Server) journalToken(meta *storage.Meta) (string, error) {
	v, ok, err := meta.Get([]byte(keyFEToken))
	if err != nil {
		return "", err
	}
	if ok {
		tok := string(v)
		// Kept in the data dir too, where `dorisgo be --cluster-token-file` finds it.
		if local, err := rpc.ReadTokenFile(filepath.Join(s.cfg.DataDir, rpc.TokenFile)); err != nil || local != tok {
			if err := os.WriteFile(filepath.Join(s.cfg.DataDir, rpc.TokenFile), []byte(tok+"\n"), 0o600); err != nil {
				return "", err
			}
		}
		return tok, nil
	}
	if !s.ha.master.Load() {
		return "", errors.New("the cluster token has not been replicated to this frontend yet")
	}
	tok, err := rpc.LoadOrCreateToken(s.cfg.DataDir)
	if err != nil {
		return "", err
	}
	if _, err := s.ha.node.Apply([]storage.MetaOp{{Key: []byte(keyFEToken), Value: []byte(tok)}}); err != nil {
		return "", err
	}
	return tok, nil
}

// startReplicated starts the frontend's role: as master (it won the
// election) or as a follower replaying the master's journal.
func (s *Server) startReplicated(ctx context.Context) error {
	h := s.ha
	if h.master.Load() {
		if err := s.takeOver(ctx, false); err != nil {
			return err
		}
	} else {
		s.coord.StartFollower(ctx)
	}
	h.wg.Add(2)
	go func() { defer h.wg.Done(); s.leaderLoop() }()
	go func() { defer h.wg.Done(); s.feHeartbeatLoop() }()
	return nil
}

// takeOver makes this frontend the master: it replays every entry the
// previous master committed (Barrier), reloads the catalog from them,
// publishes its addresses and takes on the master's duties.
func (s *Server) takeOver(ctx context.Context, reload bool) error {
	h := s.ha
	// Not under reloadMu: the entries the barrier waits for take it.
	if err := h.node.Barrier(30 * time.Second); err != nil {
		return fmt.Errorf("take over as master: %w", err)
	}
	if reload {
		h.reloadMu.Lock()
		err := s.cat.Reload()
		if err == nil {
			h.master.Store(true)
		}
		h.reloadMu.Unlock()
		if err != nil {
			return err
		}
	}
	h.setLoaded(h.node.Applied())
	info, _ := json.Marshal(s.selfInfo())
	if _, err := h.node.Apply([]storage.MetaOp{{Key: []byte(keyFEInfo + s.feName()), Value: info}}); err != nil {
		return err
	}
	if reload {
		if err := s.coord.Promote(ctx); err != nil {
			return err
		}
	} else if err := s.coord.Start(ctx); err != nil {
		return err
	}
	h.serving.Store(true)
	s.resumeAltersLater()
	s.log.Info("this frontend is the master", "frontend", s.feName(), "journal_id", h.node.Applied())
	return nil
}

func (s *Server) selfInfo() feInfo {
	i := feInfo{Name: s.feName(), Host: s.cfg.Host, EditLog: s.cfg.EditLogPort, Started: s.start.UTC().Round(time.Millisecond)}
	if s.mysqlLn != nil {
		i.QueryPort = s.mysqlLn.Addr().(*net.TCPAddr).Port
	}
	if s.httpLn != nil {
		i.HTTPPort = s.httpLn.Addr().(*net.TCPAddr).Port
	}
	if s.ha != nil {
		i.Applied = s.ha.node.Applied()
	}
	return i
}

// replicated brings a follower's in-memory catalog up with the journal:
// each applied entry's writes (the whole catalog again after a snapshot
// was restored). It runs in the journal's apply goroutine.
func (s *Server) replicated(index uint64, ops []storage.MetaOp) {
	h := s.ha
	if h.master.Load() {
		return // before the lock: a master may wait for this entry holding it
	}
	h.reloadMu.Lock()
	defer h.reloadMu.Unlock()
	if h.master.Load() || s.cat == nil {
		return // the master's catalog is written by its own callers; Open reads the store
	}
	var err error
	if ops == nil {
		if err = s.loadGlobals(); err == nil {
			err = s.cat.Reload()
		}
	} else {
		s.replicatedGlobals(ops)
		if err = s.cat.ApplyReplicated(ops); err != nil {
			err = s.cat.Reload()
		}
	}
	if err != nil {
		s.log.Error("apply the journal to the catalog", "journal_id", index, "err", err)
		return
	}
	h.setLoaded(index)
}

// leaderLoop follows this frontend's leadership. A follower that wins an
// election takes over; a master that loses it exits, as Doris's FE does:
// its in-flight writes are unknown and its duties cannot be stopped
// cleanly, and restarted it rejoins as a follower.
func (s *Server) leaderLoop() {
	h := s.ha
	for {
		select {
		case <-h.stop:
			return
		case leader := <-h.node.LeaderCh():
			switch {
			case leader && !h.master.Load():
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				err := s.takeOver(ctx, true)
				cancel()
				if err != nil {
					s.log.Error("taking over as master failed", "err", err)
					s.demote()
					return
				}
			case !leader && h.master.Load():
				s.demote()
				return
			}
		}
	}
}

func (s *Server) demote() {
	s.log.Error("this frontend is no longer the master; it stops its master duties by starting over", "frontend", s.feName())
	if s.cfg.OnDemote != nil {
		s.cfg.OnDemote()
		return
	}
	os.Exit(3)
}

// masterInfo is how to reach the current master (false: none known).
func (s *Server) masterInfo() (feInfo, bool) {
	name := s.ha.node.Master()
	if name == "" {
		return feInfo{}, false
	}
	if name == s.feName() {
		return s.selfInfo(), true
	}
	v, ok, err := s.meta.Get([]byte(keyFEInfo + name))
	if err != nil || !ok {
		return feInfo{}, false
	}
	var i feInfo
	if json.Unmarshal(v, &i) != nil {
		return feInfo{}, false
	}
	return i, true
}

func (s *Server) closeReplicated() {
	if s.ha == nil {
		return
	}
	select {
	case <-s.ha.stop:
	default:
		close(s.ha.stop)
	}
	s.ha.wg.Wait()
	if s.ha.node != nil {
		s.ha.node.Close()
	}
}
