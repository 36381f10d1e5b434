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

// lazyKV is a KV that can persist a write without waiting for the disk:
// it is durable once a later synced write is, lost with all later writes
// in a crash before that (storage.Meta: one ordered log). A replicated
// journal has no such mode, and every write there is durable.
type lazyKV interface {
	ApplyNoSync(ops []storage.MetaOp) error
}

var _ lazyKV = (*storage.Meta)(nil)

// Lazy writes: a load's BEGIN and VISIBLE records, the two of its three
// catalog writes that a crash may lose without losing a committed row.
// Every load waits for one disk flush of the catalog (its COMMIT), not
// three; on a 2-core VM each flush is a few hundred microseconds, most of
// a small INSERT's or DELETE's time. What a crash loses:
//   - BEGIN: the transaction never existed. Recover aborts the backends'
//     pending data of transactions the catalog does not know, and its ID
//     is not handed out again: Open moves the transaction sequence past
//     every ID a lazy write could have used (txnGap > maxLazy) and makes
//     that durable before the first new transaction.
//   - VISIBLE: the transaction is COMMITTED again, and Recover publishes
//     it (publishing a published rowset does nothing) before new work.
const (
	maxLazy = 1 << 10 // lazy writes in a row before one is synced anyway
	txnGap  = 1 << 16 // how far Open moves the transaction sequence
)

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
func (c *Catalog) commit(b *batch) error { return c.write(b, false) }

// commitLazy is commit without waiting for the disk, when the store allows
// it and fewer than maxLazy such writes came in a row (see maxLazy).
func (c *Catalog) commitLazy(b *batch) error { return c.write(b, true) }

func (c *Catalog) write(b *batch, lazy bool) error {
	if b.err != nil {
		return b.err
	}
	ops := append(b.ops, b.seq.ops(c.seq)...)
	if len(ops) == 0 {
		return nil
	}
	lz, ok := c.kv.(lazyKV)
	lazy = lazy && ok && c.lazyRun < maxLazy
	var err error
	if lazy {
		err = lz.ApplyNoSync(ops)
	} else {
		err = c.kv.Apply(ops)
	}
	if err != nil {
		return persistErr(err)
	}
	c.seq = b.seq
	if lazy {
		c.lazyRun++
	} else {
		c.lazyRun = 0
	}
	return nil
}

// persistErr is a failed write to the catalog's store.
func persistErr(err error) error {
	var e *sqlerr.Error
	if errors.As(err, &e) {
		return e // the store's own account (a replicated one: not the master)
	}
	return fmt.Errorf("catalog: persist: %w", err)
}
