package journal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/hashicorp/raft"
)

// store keeps raft's log and its stable state (term, vote) in a Pebble
// database of its own, every write synced: the storage raft needs, not a
// consensus of ours. Log keys are "l" + big-endian index, so they sort by
// index; stable keys are "s" + name.
type store struct {
	db *pebble.DB
}

var errNotFound = errors.New("not found") // the text raft's StableStore contract tests for

func openStore(dir string) (*store, error) {
	db, err := pebble.Open(dir, &pebble.Options{})
	if err != nil {
		return nil, fmt.Errorf("journal: open log %s: %w", dir, err)
	}
	return &store{db: db}, nil
}

func (s *store) close() error { return s.db.Close() }

func logKey(i uint64) []byte {
	k := make([]byte, 9)
	k[0] = 'l'
	binary.BigEndian.PutUint64(k[1:], i)
	return k
}

func (s *store) edge(last bool) (uint64, error) {
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte("l"), UpperBound: []byte("m")})
	if err != nil {
		return 0, err
	}
	defer it.Close()
	ok := it.First()
	if last {
		ok = it.Last()
	}
	if !ok {
		return 0, it.Error()
	}
	return binary.BigEndian.Uint64(it.Key()[1:]), nil
}

func (s *store) FirstIndex() (uint64, error) { return s.edge(false) }
func (s *store) LastIndex() (uint64, error)  { return s.edge(true) }

func (s *store) GetLog(index uint64, l *raft.Log) error {
	v, closer, err := s.db.Get(logKey(index))
	if errors.Is(err, pebble.ErrNotFound) {
		return raft.ErrLogNotFound
	}
	if err != nil {
		return err
	}
	defer closer.Close()
	return decodeLog(v, l)
}

func (s *store) StoreLog(l *raft.Log) error { return s.StoreLogs([]*raft.Log{l}) }

func (s *store) StoreLogs(logs []*raft.Log) error {
	b := s.db.NewBatch()
	defer b.Close()
	for _, l := range logs {
		if err := b.Set(logKey(l.Index), encodeLog(l), nil); err != nil {
			return err
		}
	}
	return b.Commit(pebble.Sync)
}

func (s *store) DeleteRange(min, max uint64) error {
	b := s.db.NewBatch()
	defer b.Close()
	if err := b.DeleteRange(logKey(min), logKey(max+1), nil); err != nil {
		return err
	}
	return b.Commit(pebble.Sync)
}

func (s *store) Set(key, val []byte) error {
	return s.db.Set(append([]byte("s"), key...), val, pebble.Sync)
}

func (s *store) Get(key []byte) ([]byte, error) {
	v, closer, err := s.db.Get(append([]byte("s"), key...))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, errNotFound
	}
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	return append([]byte(nil), v...), nil
}

func (s *store) SetUint64(key []byte, val uint64) error {
	return s.Set(key, binary.BigEndian.AppendUint64(nil, val))
}

func (s *store) GetUint64(key []byte) (uint64, error) {
	v, err := s.Get(key)
	if err != nil {
		return 0, err
	}
	if len(v) != 8 {
		return 0, fmt.Errorf("journal: stable key %q holds %d bytes", key, len(v))
	}
	return binary.BigEndian.Uint64(v), nil
}

// A log entry on disk: index, term, type, appended-at (unix ns), then the
// data and the extensions, each length-prefixed.
func encodeLog(l *raft.Log) []byte {
	b := make([]byte, 0, 40+len(l.Data)+len(l.Extensions))
	b = binary.AppendUvarint(b, l.Index)
	b = binary.AppendUvarint(b, l.Term)
	b = append(b, byte(l.Type))
	b = binary.AppendVarint(b, l.AppendedAt.UnixNano())
	b = binary.AppendUvarint(b, uint64(len(l.Data)))
	b = append(b, l.Data...)
	b = binary.AppendUvarint(b, uint64(len(l.Extensions)))
	return append(b, l.Extensions...)
}

func decodeLog(b []byte, l *raft.Log) error {
	r := reader{b: b}
	l.Index = r.uvarint()
	l.Term = r.uvarint()
	l.Type = raft.LogType(r.byte())
	l.AppendedAt = time.Unix(0, r.varint())
	l.Data = r.bytes()
	l.Extensions = r.bytes()
	if r.err != nil {
		return fmt.Errorf("journal: corrupt log entry: %w", r.err)
	}
	return nil
}

// reader decodes the length-prefixed encodings of this package.
type reader struct {
	b   []byte
	err error
}

var errShort = errors.New("truncated")

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errShort
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errShort
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) byte() byte {
	if r.err != nil || len(r.b) == 0 {
		r.err = errShort
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *reader) bytes() []byte {
	n := r.uvarint()
	if r.err != nil {
		return nil
	}
	if uint64(len(r.b)) < n {
		r.err = errShort
		return nil
	}
	v := append([]byte(nil), r.b[:n]...)
	r.b = r.b[n:]
	return v
}
