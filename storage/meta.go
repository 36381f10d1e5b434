package storage

import (
	"fmt"
	"slices"

	"github.com/cockroachdb/pebble/v2"
)

// Meta is the FE's metadata key-value store (catalog, users, transactions):
// a Pebble database of its own where every mutation is one synced batch.
type Meta struct {
	db *pebble.DB
}

// OpenMeta opens (creating if needed) the metadata store in dir.
func OpenMeta(dir string, opts Options) (*Meta, error) {
	db, err := pebble.Open(dir, pebbleOptions(opts, 4<<20))
	if err != nil {
		return nil, fmt.Errorf("storage: open meta %s: %w", dir, err)
	}
	return &Meta{db: db}, nil
}

// Get returns a copy of key's value and whether it exists.
func (m *Meta) Get(key []byte) ([]byte, bool, error) {
	v, closer, err := m.db.Get(key)
	if err == pebble.ErrNotFound {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer closer.Close()
	return slices.Clone(v), true, nil
}

// Apply applies ops atomically and durably (one synced batch).
func (m *Meta) Apply(ops []MetaOp) error { return m.apply(ops, pebble.Sync) }

// ApplyNoSync applies ops atomically without waiting for the disk: they
// become durable with the next synced Apply (the log is written in order),
// or are lost together with every later write in a crash before it.
func (m *Meta) ApplyNoSync(ops []MetaOp) error { return m.apply(ops, pebble.NoSync) }

func (m *Meta) apply(ops []MetaOp, sync *pebble.WriteOptions) error {
	b := m.db.NewBatch()
	defer b.Close()
	for _, op := range ops {
		var err error
		if op.Delete {
			err = b.Delete(op.Key, nil)
		} else {
			err = b.Set(op.Key, op.Value, nil)
		}
		if err != nil {
			return err
		}
	}
	if b.Empty() {
		return nil
	}
	return b.Commit(sync)
}

// Scan returns every entry whose key starts with prefix, in key order.
func (m *Meta) Scan(prefix []byte) ([]MetaKV, error) {
	var out []MetaKV
	err := scanPrefix(m.db, prefix, func(k, v []byte) error {
		out = append(out, MetaKV{Key: slices.Clone(k), Value: slices.Clone(v)})
		return nil
	})
	return out, err
}

// Close closes the store.
func (m *Meta) Close() error { return m.db.Close() }
