package catalog

import (
	"strconv"
	"strings"

	"github.com/dorisgo/dorisgo/storage"
)

// Reload rebuilds the in-memory catalog from its KV. A follower frontend
// calls it after the journal applied the master's writes to the KV: the
// follower never mutates the catalog itself, so the KV is the whole truth.
// Backends keep the heartbeat state this frontend measured (it is never
// persisted), and snapshots already handed out stay valid, as with every
// mutation.
func (c *Catalog) Reload() error {
	fresh := newCatalog(c.kv)
	fresh.now = c.now
	if _, err := fresh.load(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, be := range fresh.backends {
		if old, ok := c.backends[id]; ok {
			keepHeartbeat(be, old)
		}
	}
	c.seq = fresh.seq
	c.dbs, c.dbNames = fresh.dbs, fresh.dbNames
	c.tables, c.tableNames = fresh.tables, fresh.tableNames
	c.views, c.viewNames = fresh.views, fresh.viewNames
	c.backends = fresh.backends
	c.groups, c.groupKeys = fresh.groups, fresh.groupKeys
	c.users, c.roles = fresh.users, fresh.roles
	c.txns, c.labels = fresh.txns, fresh.labels
	c.stats, c.alterJobs = fresh.stats, fresh.alterJobs
	c.refreshGroups()
	return nil
}

// ApplyReplicated brings the in-memory catalog up to date with one batch
// of writes the master made (a journal entry a follower applied to its
// KV): only the changed keys are decoded, where Reload decodes them all.
// Backends keep this frontend's heartbeat state.
func (c *Catalog) ApplyReplicated(ops []storage.MetaOp) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, op := range ops {
		k := string(op.Key)
		if !strings.HasPrefix(k, keyRoot) {
			continue // the journal's own keys
		}
		if op.Delete {
			c.unloadKey(k)
			continue
		}
		var old *Backend
		if strings.HasPrefix(k, keyBackend) {
			old = c.backends[BackendID(keyID(k, keyBackend))]
		}
		if err := c.loadKey(k, op.Value); err != nil {
			return err
		}
		if old != nil {
			if be := c.backends[old.ID]; be != nil {
				keepHeartbeat(be, old)
			}
		}
	}
	c.reindex()
	c.refreshGroups()
	return nil
}

func keepHeartbeat(be, old *Backend) {
	be.Alive, be.LastHeartbeat, be.LastStartTime, be.ErrMsg = old.Alive, old.LastHeartbeat, old.LastStartTime, old.ErrMsg
	be.DataUsed, be.DiskTotal, be.DiskAvail, be.HeartbeatFailures = old.DataUsed, old.DiskTotal, old.DiskAvail, old.HeartbeatFailures
}

// keyID is the id of an idKey.
func keyID(k, prefix string) int64 {
	id, _ := strconv.ParseInt(k[len(prefix):], 16, 64)
	return id
}

// unloadKey removes a deleted key's object from the maps.
func (c *Catalog) unloadKey(k string) {
	switch {
	case strings.HasPrefix(k, keyDB):
		delete(c.dbs, DBID(keyID(k, keyDB)))
	case strings.HasPrefix(k, keyTable):
		delete(c.tables, TableID(keyID(k, keyTable)))
	case strings.HasPrefix(k, keyView):
		delete(c.views, TableID(keyID(k, keyView)))
	case strings.HasPrefix(k, keyBackend):
		delete(c.backends, BackendID(keyID(k, keyBackend)))
	case strings.HasPrefix(k, keyGroup):
		delete(c.groups, GroupID(keyID(k, keyGroup)))
	case strings.HasPrefix(k, keyUser):
		delete(c.users, k)
	case strings.HasPrefix(k, keyRole):
		delete(c.roles, k[len(keyRole):])
	case strings.HasPrefix(k, keyStats):
		delete(c.stats, TableID(keyID(k, keyStats)))
	case strings.HasPrefix(k, keyAlter):
		delete(c.alterJobs, keyID(k, keyAlter))
	case strings.HasPrefix(k, keyTxn):
		delete(c.txns, storage.TxnID(keyID(k, keyTxn)))
	}
}
