package journal

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dorisgo/dorisgo/storage"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

type member struct {
	dir  string
	addr string
	meta *storage.Meta
	node *Node
}

func start(t *testing.T, m *member) {
	t.Helper()
	meta, err := storage.OpenMeta(filepath.Join(m.dir, "meta"), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n, err := Open(Config{Dir: filepath.Join(m.dir, "journal"), Addr: m.addr, Meta: meta, SnapshotThreshold: 16,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	m.meta, m.node = meta, n
}

func (m *member) stop() {
	if m.node != nil {
		m.node.Close()
		m.meta.Close()
		m.node, m.meta = nil, nil
	}
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// value reads key from a member's metadata store.
func value(t *testing.T, m *member, key string) string {
	v, ok, err := m.meta.Get([]byte(key))
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return ""
	}
	return string(v)
}

// Three members over real TCP: entries written on the leader land on
// every store; with snapshots every 16 entries, a member added late and a
// member whose whole data dir was lost both catch up from a snapshot
// (their log starts after entries the leader has compacted away), and a
// follower refuses writes.
func TestJournalReplicatesAndCatchesUpFromSnapshots(t *testing.T) {
	root := t.TempDir()
	ms := make([]*member, 4)
	for i := range ms {
		ms[i] = &member{dir: filepath.Join(root, fmt.Sprint(i)), addr: freeAddr(t)}
	}
	for _, m := range ms[:3] {
		start(t, m)
		defer m.stop()
	}
	if err := ms[0].node.Bootstrap(); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the first member to lead", ms[0].node.IsMaster)
	for _, m := range ms[1:3] {
		if err := ms[0].node.AddNonvoter(m.addr); err != nil {
			t.Fatal(err)
		}
		if err := ms[0].node.Promote(m.addr); err != nil {
			t.Fatal(err)
		}
	}
	put := func(i int) {
		t.Helper()
		if _, err := ms[0].node.Apply([]storage.MetaOp{{Key: []byte(fmt.Sprintf("k/%03d", i)), Value: []byte(fmt.Sprint(i))}}); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	for i := 0; i < 100; i++ {
		put(i)
	}
	if _, err := ms[1].node.Apply([]storage.MetaOp{{Key: []byte("x"), Value: []byte("y")}}); err != ErrNotMaster {
		t.Fatalf("a follower's write: %v, want ErrNotMaster", err)
	}
	// A delete is replicated too.
	if _, err := ms[0].node.Apply([]storage.MetaOp{{Key: []byte("k/000"), Delete: true}}); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms[1:3] {
		waitUntil(t, "a follower to apply every entry", func() bool { return m.node.Applied() == ms[0].node.Applied() })
		if value(t, m, "k/099") != "99" || value(t, m, "k/000") != "" {
			t.Fatalf("follower %s holds k/099=%q k/000=%q", m.addr, value(t, m, "k/099"), value(t, m, "k/000"))
		}
	}
	// A snapshot compacts the log (raft takes them on its own every 2
	// minutes past the threshold): a late member cannot get entry 1.
	if err := ms[0].node.r.Snapshot().Error(); err != nil {
		t.Fatal(err)
	}
	if first, _ := ms[0].node.store.FirstIndex(); first <= 1 {
		t.Fatalf("the leader's log still starts at %d after 100 entries with a threshold of 16", first)
	}
	start(t, ms[3])
	defer ms[3].stop()
	if err := ms[0].node.AddNonvoter(ms[3].addr); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the late member to catch up", func() bool { return ms[3].node.Applied() == ms[0].node.Applied() })
	if value(t, ms[3], "k/001") != "1" || value(t, ms[3], "k/099") != "99" || value(t, ms[3], "k/000") != "" {
		t.Fatal("the late member's store differs from the leader's")
	}

	// Member 2 loses its whole data dir and comes back under its name.
	ms[2].stop()
	for i := 100; i < 140; i++ {
		put(i)
	}
	if err := ms[0].node.r.Snapshot().Error(); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(ms[2].dir); err != nil {
		t.Fatal(err)
	}
	start(t, ms[2])
	waitUntil(t, "the wiped member to be rebuilt", func() bool { return ms[2].node.Applied() == ms[0].node.Applied() })
	for _, k := range []string{"k/001", "k/050", "k/139"} {
		if value(t, ms[2], k) == "" {
			t.Fatalf("the rebuilt member lacks %s", k)
		}
	}

	// Restarted, a member applies nothing twice and loses nothing: its
	// store already holds the entries raft replays.
	before := ms[1].node.Applied()
	ms[1].stop()
	put(140)
	start(t, ms[1])
	waitUntil(t, "the restarted member to catch up", func() bool { return ms[1].node.Applied() == ms[0].node.Applied() })
	if ms[1].node.Applied() <= before || value(t, ms[1], "k/140") != "140" || value(t, ms[1], "k/000") != "" {
		t.Fatal("the restarted member did not resume where it stopped")
	}
}

func TestEncodingRoundTrips(t *testing.T) {
	ops := []storage.MetaOp{{Key: []byte("a"), Value: []byte("1")}, {Key: []byte("b"), Delete: true}, {Key: []byte("c"), Value: []byte{}}}
	got, err := decodeOps(encodeOps(ops))
	if err != nil || len(got) != 3 || string(got[0].Value) != "1" || !got[1].Delete || got[2].Delete || len(got[2].Value) != 0 {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	if _, err := decodeOps(encodeOps(ops)[:5]); err == nil {
		t.Fatal("a truncated entry decoded without an error")
	}
}
