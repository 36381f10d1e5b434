package journal

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/dorisgo/dorisgo/storage"
	"github.com/hashicorp/raft"
)

// appliedKey records, in the same synced batch as every entry's writes, the
// index of the last entry applied to the metadata store. Replayed entries
// at or below it are skipped, so each entry lands exactly once even though
// raft re-applies its log after a restart (raft's own snapshot restore on
// start is off: the store itself is the state).
var appliedKey = []byte("j/applied")

// fsm applies journal entries (batches of metadata writes) to the FE's
// metadata store: the state machine every frontend replicates.
type fsm struct {
	meta    *storage.Meta
	applied atomic.Uint64
	mu      sync.Mutex
	waitCh  chan struct{} // closed and replaced on every applied entry
	// onApply runs after each entry with its writes, and after a restore
	// with nil (the catalog then reloads): in the apply goroutine, in order.
	onApply func(index uint64, ops []storage.MetaOp)
}

func newFSM(meta *storage.Meta) (*fsm, error) {
	f := &fsm{meta: meta, waitCh: make(chan struct{})}
	v, ok, err := meta.Get(appliedKey)
	if err != nil {
		return nil, err
	}
	if ok && len(v) == 8 {
		f.applied.Store(binary.BigEndian.Uint64(v))
	}
	return f, nil
}

func (f *fsm) Apply(l *raft.Log) any {
	if l.Index <= f.applied.Load() {
		return nil
	}
	ops, err := decodeOps(l.Data)
	if err != nil {
		return fmt.Errorf("journal entry %d: %w", l.Index, err)
	}
	if err := f.meta.Apply(append(ops, storage.MetaOp{Key: appliedKey, Value: binary.BigEndian.AppendUint64(nil, l.Index)})); err != nil {
		// The replicas of the journal now differ from this store; Doris's
		// FE exits on a failed journal write for the same reason.
		panic(fmt.Sprintf("journal: cannot apply entry %d to the metadata store: %v", l.Index, err))
	}
	f.advance(l.Index, ops)
	return nil
}

func (f *fsm) advance(index uint64, ops []storage.MetaOp) {
	if f.onApply != nil {
		f.onApply(index, ops)
	}
	f.applied.Store(index)
	f.mu.Lock()
	close(f.waitCh)
	f.waitCh = make(chan struct{})
	f.mu.Unlock()
}

// wait returns a channel closed at the next applied entry.
func (f *fsm) wait() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.waitCh
}

// Snapshot copies the whole store. raft calls it between Applies, so the
// copy is consistent; Persist may then run alongside new entries.
func (f *fsm) Snapshot() (raft.FSMSnapshot, error) {
	kvs, err := f.meta.Scan(nil)
	if err != nil {
		return nil, err
	}
	return snapshot(kvs), nil
}

// Restore replaces the store with a snapshot (a new or wiped frontend
// catching up from the master's).
func (f *fsm) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	r := bufio.NewReader(rc)
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return fmt.Errorf("journal: read snapshot: %w", err)
	}
	next := map[string][]byte{}
	for i := uint64(0); i < n; i++ {
		k, err := readChunk(r)
		if err != nil {
			return fmt.Errorf("journal: read snapshot: %w", err)
		}
		v, err := readChunk(r)
		if err != nil {
			return fmt.Errorf("journal: read snapshot: %w", err)
		}
		next[string(k)] = v
	}
	old, err := f.meta.Scan(nil)
	if err != nil {
		return err
	}
	var ops []storage.MetaOp
	for _, e := range old {
		if _, keep := next[string(e.Key)]; !keep {
			ops = append(ops, storage.MetaOp{Key: e.Key, Delete: true})
		}
	}
	for k, v := range next {
		ops = append(ops, storage.MetaOp{Key: []byte(k), Value: v})
	}
	if err := f.meta.Apply(ops); err != nil {
		return err
	}
	var idx uint64
	if v := next[string(appliedKey)]; len(v) == 8 {
		idx = binary.BigEndian.Uint64(v)
	}
	f.advance(idx, nil)
	return nil
}

type snapshot []storage.MetaKV

func (s snapshot) Persist(sink raft.SnapshotSink) error {
	w := bufio.NewWriter(sink)
	var buf []byte
	buf = binary.AppendUvarint(buf[:0], uint64(len(s)))
	w.Write(buf)
	for _, e := range s {
		buf = binary.AppendUvarint(buf[:0], uint64(len(e.Key)))
		buf = append(buf, e.Key...)
		buf = binary.AppendUvarint(buf, uint64(len(e.Value)))
		buf = append(buf, e.Value...)
		if _, err := w.Write(buf); err != nil {
			sink.Cancel()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		sink.Cancel()
		return err
	}
	return sink.Close()
}

func (snapshot) Release() {}

func readChunk(r *bufio.Reader) ([]byte, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, err
	}
	b := make([]byte, n)
	_, err = io.ReadFull(r, b)
	return b, err
}

// An entry is a batch of metadata writes: a count, then per write a flag
// (1 = delete), the key and (for a set) the value, length-prefixed.
func encodeOps(ops []storage.MetaOp) []byte {
	var b []byte
	b = binary.AppendUvarint(b, uint64(len(ops)))
	for _, op := range ops {
		if op.Delete {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
		b = binary.AppendUvarint(b, uint64(len(op.Key)))
		b = append(b, op.Key...)
		if !op.Delete {
			b = binary.AppendUvarint(b, uint64(len(op.Value)))
			b = append(b, op.Value...)
		}
	}
	return b
}

func decodeOps(b []byte) ([]storage.MetaOp, error) {
	r := reader{b: b}
	n := r.uvarint()
	if r.err == nil && n > uint64(len(b)) {
		r.err = errShort
	}
	ops := make([]storage.MetaOp, 0, n)
	for i := uint64(0); i < n && r.err == nil; i++ {
		op := storage.MetaOp{Delete: r.byte() == 1}
		op.Key = r.bytes()
		if !op.Delete {
			op.Value = r.bytes()
		}
		ops = append(ops, op)
	}
	return ops, r.err
}
