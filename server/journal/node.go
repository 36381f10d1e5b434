// Package journal replicates the frontend's metadata store with Raft
// (hashicorp/raft): every catalog write on the master is one journal entry
// (a batch of key/value writes), committed on a majority of the FOLLOWER
// frontends and applied, in order, to each frontend's store. OBSERVERs get
// the entries without voting. It is Doris's BDBJE edit log in its role.
//
// hashicorp/raft rather than etcd's raft: it brings the transport, the
// snapshot store, leader election, membership changes (voters and
// non-voters, which are Doris's followers and observers) and
// leadership-transfer in one tested library, where etcd's raft is the
// consensus core alone and leaves the network, the storage loop and the
// snapshot transfer to its user. Our part is only the state machine (fsm.go)
// and raft's log storage on Pebble (logstore.go).
package journal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/storage"
	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// Config configures one frontend's journal.
type Config struct {
	// Dir holds raft's log and snapshots (not the metadata store).
	Dir string
	// Addr is this frontend's edit-log address, host:port; it is also its
	// name in the cluster (Doris names frontends by host:edit_log_port).
	Addr string
	// Meta is the metadata store the journal applies to.
	Meta *storage.Meta
	Log  *slog.Logger
	// SnapshotThreshold is how many entries make a snapshot (0: 8192).
	SnapshotThreshold uint64
	// OnApply is called with every applied entry's writes (nil after a
	// restored snapshot), in the journal's apply goroutine, in order.
	OnApply func(index uint64, ops []storage.MetaOp)
}

// Role is a frontend's place in the cluster.
type Role string

const (
	Follower Role = "FOLLOWER"
	Observer Role = "OBSERVER"
)

// Member is one frontend of the cluster configuration.
type Member struct {
	Name  string // host:edit_log_port
	Voter bool   // votes (a FOLLOWER that has caught up)
}

// Node is this frontend's replica of the journal.
type Node struct {
	cfg   Config
	r     *raft.Raft
	fsm   *fsm
	store *store
	trans *raft.NetworkTransport
}

// ErrNotMaster refuses a write on a frontend that is not the master.
var ErrNotMaster = errors.New("this frontend is not the master")

// Open starts this frontend's journal. Existing raft state is resumed; a
// fresh one waits to be added by the master (Join) or is made the first
// member of a new cluster (Bootstrap).
func Open(cfg Config) (*Node, error) {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, err
	}
	f, err := newFSM(cfg.Meta)
	if err != nil {
		return nil, err
	}
	f.onApply = cfg.OnApply
	st, err := openStore(filepath.Join(cfg.Dir, "log"))
	if err != nil {
		return nil, err
	}
	n := &Node{cfg: cfg, fsm: f, store: st}
	ok := false
	defer func() {
		if !ok {
			n.Close()
		}
	}()
	logger := hclog.New(&hclog.LoggerOptions{Name: "raft", Level: hclog.Warn, Output: slogWriter{cfg.Log}})
	snaps, err := raft.NewFileSnapshotStoreWithLogger(filepath.Join(cfg.Dir, "snapshots"), 2, logger)
	if err != nil {
		return nil, fmt.Errorf("journal: snapshots: %w", err)
	}
	if err := n.restoreLocal(snaps); err != nil {
		return nil, err
	}
	adv, err := net.ResolveTCPAddr("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("journal: edit log address %s: %w", cfg.Addr, err)
	}
	if n.trans, err = raft.NewTCPTransportWithLogger(cfg.Addr, adv, 4, 10*time.Second, logger); err != nil {
		return nil, fmt.Errorf("journal: listen on edit log address %s: %w", cfg.Addr, err)
	}
	rc := raft.DefaultConfig()
	rc.LocalID = raft.ServerID(cfg.Addr)
	rc.Logger = logger
	rc.NoSnapshotRestoreOnStart = true // the store is the state (fsm.go)
	// Twice raft's defaults: a frontend on two loaded cores misses a
	// 1 s heartbeat now and then, and every lost election restarts a
	// master. A dead master is still replaced in 2–5 s.
	rc.HeartbeatTimeout, rc.ElectionTimeout, rc.LeaderLeaseTimeout = 2*time.Second, 2*time.Second, time.Second
	if cfg.SnapshotThreshold > 0 {
		rc.SnapshotThreshold = cfg.SnapshotThreshold
		rc.TrailingLogs = cfg.SnapshotThreshold
	}
	if n.r, err = raft.NewRaft(rc, f, st, st, snaps, n.trans); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	ok = true
	return n, nil
}

// restoreLocal brings a metadata store that is behind this frontend's own
// newest snapshot up to it: the log before a snapshot is compacted away,
// so a store lost or rolled back could not be rebuilt from the log alone.
func (n *Node) restoreLocal(snaps *raft.FileSnapshotStore) error {
	list, err := snaps.List()
	if err != nil || len(list) == 0 {
		return err
	}
	if list[0].Index <= n.fsm.applied.Load() {
		return nil
	}
	_, rc, err := snaps.Open(list[0].ID)
	if err != nil {
		return fmt.Errorf("journal: open snapshot %s: %w", list[0].ID, err)
	}
	return n.fsm.Restore(rc)
}

// HasState reports whether this frontend was a member before (it has a
// journal of its own).
func HasState(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "log"))
	return err == nil
}

// Bootstrap makes this frontend the single FOLLOWER of a new cluster (it
// then elects itself master).
func (n *Node) Bootstrap() error {
	cfg := raft.Configuration{Servers: []raft.Server{{Suffrage: raft.Voter, ID: raft.ServerID(n.cfg.Addr), Address: raft.ServerAddress(n.cfg.Addr)}}}
	if err := n.r.BootstrapCluster(cfg).Error(); err != nil && !errors.Is(err, raft.ErrCantBootstrap) {
		return fmt.Errorf("journal: bootstrap: %w", err)
	}
	return nil
}

// Name is this frontend's name (host:edit_log_port).
func (n *Node) Name() string { return n.cfg.Addr }

// IsMaster reports whether this frontend leads the journal now.
func (n *Node) IsMaster() bool { return n.r.State() == raft.Leader }

// Master names the current master ("" while there is none known).
func (n *Node) Master() string {
	_, id := n.r.LeaderWithID()
	return string(id)
}

// LeaderCh signals every change of this frontend's leadership.
func (n *Node) LeaderCh() <-chan bool { return n.r.LeaderCh() }

// Applied is the index of the last entry applied to the metadata store:
// the journal id SHOW FRONTENDS prints and forwarded writes wait for.
func (n *Node) Applied() uint64 { return n.fsm.applied.Load() }

// LastContact is when this follower last heard from the master.
func (n *Node) LastContact() time.Time { return n.r.LastContact() }

// WaitApplied waits until the entry at index is applied here.
func (n *Node) WaitApplied(ctx context.Context, index uint64) error {
	for {
		ch := n.fsm.wait()
		if n.Applied() >= index {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("this frontend's metadata did not reach journal id %d in time (it is at %d)", index, n.Applied())
		}
	}
}

// Barrier waits until every entry committed before it is applied here;
// a new master calls it before it serves.
func (n *Node) Barrier(timeout time.Duration) error {
	return n.r.Barrier(timeout).Error()
}

// Apply writes ops as one journal entry and returns once a majority has
// it and it is applied to this frontend's store.
func (n *Node) Apply(ops []storage.MetaOp) (uint64, error) {
	if n.r.State() != raft.Leader {
		return 0, ErrNotMaster
	}
	f := n.r.Apply(encodeOps(ops), 30*time.Second)
	if err := f.Error(); err != nil {
		if errors.Is(err, raft.ErrNotLeader) {
			return 0, ErrNotMaster
		}
		// Lost leadership or timed out: a majority may still commit it.
		return 0, fmt.Errorf("the master lost its role while writing the change to the journal (%v): it may or may not be applied; check, then retry", err)
	}
	if err, _ := f.Response().(error); err != nil {
		return 0, err
	}
	return f.Index(), nil
}

// Members lists the cluster configuration.
func (n *Node) Members() ([]Member, error) {
	f := n.r.GetConfiguration()
	if err := f.Error(); err != nil {
		return nil, err
	}
	var out []Member
	for _, s := range f.Configuration().Servers {
		out = append(out, Member{Name: string(s.ID), Voter: s.Suffrage == raft.Voter})
	}
	return out, nil
}

// AddNonvoter adds a frontend that receives the journal without voting
// (the master only): an OBSERVER, or a FOLLOWER until it has caught up —
// a voter added before it runs would make the master wait for a quorum
// that includes a frontend not there yet. The new frontend then starts
// with this cluster's address as its helper.
func (n *Node) AddNonvoter(name string) error {
	if n.r.State() != raft.Leader {
		return ErrNotMaster
	}
	return n.r.AddNonvoter(raft.ServerID(name), raft.ServerAddress(name), 0, 10*time.Second).Error()
}

// Promote makes a caught-up non-voter a voter (the master only).
func (n *Node) Promote(name string) error {
	if n.r.State() != raft.Leader {
		return ErrNotMaster
	}
	return n.r.AddVoter(raft.ServerID(name), raft.ServerAddress(name), 0, 10*time.Second).Error()
}

// Remove drops a frontend from the cluster (the master only).
func (n *Node) Remove(name string) error {
	if n.r.State() != raft.Leader {
		return ErrNotMaster
	}
	return n.r.RemoveServer(raft.ServerID(name), 0, 10*time.Second).Error()
}

// Close stops the journal.
func (n *Node) Close() {
	if n.r != nil {
		n.r.Shutdown().Error()
	}
	if n.trans != nil {
		n.trans.Close()
	}
	if n.store != nil {
		n.store.close()
	}
}

// KV is the catalog's store on a replicated frontend: reads are local,
// writes go through the journal, and only while Writable says so (the
// frontend has taken over as master: raft leadership alone is not enough,
// as the new leader first replays what the old one committed).
type KV struct {
	N        *Node
	Writable func() bool
}

func (k KV) Get(key []byte) ([]byte, bool, error)         { return k.N.cfg.Meta.Get(key) }
func (k KV) Scan(prefix []byte) ([]storage.MetaKV, error) { return k.N.cfg.Meta.Scan(prefix) }
func (k KV) Apply(ops []storage.MetaOp) error {
	if !k.Writable() {
		return sqlerr.Doris.New("this frontend is not the master; the change was not made")
	}
	_, err := k.N.Apply(ops)
	if errors.Is(err, ErrNotMaster) {
		return sqlerr.Doris.New("this frontend is no longer the master; the change was not made")
	}
	if err != nil {
		return sqlerr.Doris.New(err.Error())
	}
	return nil
}

// slogWriter hands raft's log lines to the FE's logger.
type slogWriter struct{ l *slog.Logger }

func (w slogWriter) Write(p []byte) (int, error) {
	w.l.Warn(strings.TrimSpace(string(p)), "component", "journal")
	return len(p), nil
}

var _ io.Writer = slogWriter{}
