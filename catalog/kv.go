package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/storage"
)

// KV is the durable key/value store the catalog persists to. *storage.Meta
// satisfies it. Apply must be atomic and durable when it returns.
type KV interface {
	Get(key []byte) ([]byte, bool, error)
	Apply(ops []storage.MetaOp) error
	Scan(prefix []byte) ([]storage.MetaKV, error)
}

var _ KV = (*storage.Meta)(nil)

// Key prefixes; doc.go documents the layout.
const (
	keyRoot    = "c/"
	keyInit    = "c/init"
	keySeq     = "c/seq/"
	keyDB      = "c/db/"
	keyTable   = "c/tbl/"
	keyView    = "c/view/"
	keyBackend = "c/be/"
	keyGroup   = "c/grp/"
	keyUser    = "c/user/"
	keyRole    = "c/role/"
	keyTxn     = "c/txn/"
	keyStats   = "c/stats/"
	keyAlter   = "c/alter/"
)

func idKey(prefix string, id int64) []byte {
	return fmt.Appendf(nil, "%s%016x", prefix, id)
}

func userKey(name, host string) []byte {
	return []byte(keyUser + name + "\x00" + host)
}

func roleKey(name string) []byte { return []byte(keyRole + name) }

// seqs are the id sequences; each holds the NEXT value to hand out.
type seqs struct {
	ID      int64 // databases, tables, partitions, backends, groups
	Tablet  int64
	Replica int64
	Txn     int64
}

var initialSeqs = seqs{ID: 10000, Tablet: 10100, Replica: 10000, Txn: 1}

func (s *seqs) ops(old seqs) []storage.MetaOp {
	var ops []storage.MetaOp
	add := func(name string, v, was int64) {
		if v != was {
			ops = append(ops, storage.MetaOp{Key: []byte(keySeq + name), Value: strconv.AppendInt(nil, v, 10)})
		}
	}
	add("id", s.ID, old.ID)
	add("tablet", s.Tablet, old.Tablet)
	add("replica", s.Replica, old.Replica)
	add("txn", s.Txn, old.Txn)
	return ops
}

func (s *seqs) set(name string, v int64) error {
	switch name {
	case "id":
		s.ID = v
	case "tablet":
		s.Tablet = v
	case "replica":
		s.Replica = v
	case "txn":
		s.Txn = v
	default:
		return fmt.Errorf("catalog: unknown sequence %q", name)
	}
	return nil
}

// batch collects one mutation's writes and the sequences it advanced; the
// catalog adopts the sequences only if the Apply succeeds.
type batch struct {
	seq seqs
	ops []storage.MetaOp
	err error
}

func (c *Catalog) newBatch() *batch { return &batch{seq: c.seq} }

func (b *batch) nextID() int64 { v := b.seq.ID; b.seq.ID++; return v }

func (b *batch) nextTablet() storage.TabletID {
	v := b.seq.Tablet
	b.seq.Tablet++
	return storage.TabletID(v)
}

func (b *batch) nextReplica() ReplicaID { v := b.seq.Replica; b.seq.Replica++; return ReplicaID(v) }

func (b *batch) nextTxn() storage.TxnID { v := b.seq.Txn; b.seq.Txn++; return storage.TxnID(v) }

func (b *batch) put(key []byte, v any) {
	data, err := json.Marshal(v)
	if err != nil && b.err == nil {
		b.err = sqlerr.Assertf("catalog: encode %s: %v", key, err)
	}
	b.ops = append(b.ops, storage.MetaOp{Key: key, Value: data})
}

func (b *batch) del(key []byte) {
	b.ops = append(b.ops, storage.MetaOp{Key: key, Delete: true})
}

// commit writes the batch in one Apply; on success the catalog's sequences
// advance. The caller holds c.mu and swaps in-memory pointers only after a
// nil return, so a failed write changes nothing.
func (c *Catalog) commit(b *batch) error {
	if b.err != nil {
		return b.err
	}
	ops := append(b.ops, b.seq.ops(c.seq)...)
	if len(ops) == 0 {
		return nil
	}
	if err := c.kv.Apply(ops); err != nil {
		var e *sqlerr.Error
		if errors.As(err, &e) {
			return e // the store's own account (a replicated one: not the master)
		}
		return fmt.Errorf("catalog: persist: %w", err)
	}
	c.seq = b.seq
	return nil
}
