package catalog

import (
	"bytes"
	"errors"
	"sort"
	"sync"

	"github.com/dorisgo/dorisgo/storage"
)

// memKV is an in-memory KV (a plain key/value map) for tests. failNext
// makes the next Apply fail without writing anything.
type memKV struct {
	mu       sync.Mutex
	m        map[string][]byte
	applies  int
	failNext bool
}

func newMemKV() *memKV { return &memKV{m: map[string][]byte{}} }

var errInjected = errors.New("injected write failure")

func (k *memKV) Get(key []byte) ([]byte, bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	v, ok := k.m[string(key)]
	return bytes.Clone(v), ok, nil
}

func (k *memKV) Apply(ops []storage.MetaOp) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.failNext {
		k.failNext = false
		return errInjected
	}
	k.applies++
	for _, op := range ops {
		if op.Delete {
			delete(k.m, string(op.Key))
		} else {
			k.m[string(op.Key)] = bytes.Clone(op.Value)
		}
	}
	return nil
}

func (k *memKV) Scan(prefix []byte) ([]storage.MetaKV, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []storage.MetaKV
	for key, v := range k.m {
		if bytes.HasPrefix([]byte(key), prefix) {
			out = append(out, storage.MetaKV{Key: []byte(key), Value: bytes.Clone(v)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(out[i].Key, out[j].Key) < 0 })
	return out, nil
}

func (k *memKV) snapshot() map[string]string {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := map[string]string{}
	for key, v := range k.m {
		out[key] = string(v)
	}
	return out
}
