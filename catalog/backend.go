package catalog

import (
	"fmt"
	"net"
	"sort"
	"strconv"
	"time"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// AddBackend registers a backend (persisted). A duplicate host:port is an
// error. The backend starts not alive until its first heartbeat.
func (c *Catalog) AddBackend(host string, port int) (*Backend, error) {
	if host == "" || port <= 0 || port > 65535 {
		return nil, sqlerr.Doris.New(fmt.Sprintf("Invalid backend address: %s", net.JoinHostPort(host, strconv.Itoa(port))))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.backendAt(host, port) != nil {
		return nil, sqlerr.Doris.New(fmt.Sprintf("Same backend already exists[%s]", net.JoinHostPort(host, strconv.Itoa(port))))
	}
	b := c.newBatch()
	be := &Backend{ID: BackendID(b.nextID()), Host: host, Port: port}
	b.put(idKey(keyBackend, int64(be.ID)), be)
	if err := c.commit(b); err != nil {
		return nil, err
	}
	c.backends[be.ID] = be
	return be, nil
}

func (c *Catalog) backendAt(host string, port int) *Backend {
	for _, be := range c.backends {
		if be.Host == host && be.Port == port {
			return be
		}
	}
	return nil
}

// DropBackend removes a backend. Its replicas stay in the catalog (they name
// a missing backend) and every colocate group using it becomes unstable.
func (c *Catalog) DropBackend(host string, port int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	be := c.backendAt(host, port)
	if be == nil {
		return sqlerr.Doris.New(fmt.Sprintf("backend does not exists[%s]", net.JoinHostPort(host, strconv.Itoa(port))))
	}
	b := c.newBatch()
	b.del(idKey(keyBackend, int64(be.ID)))
	if err := c.commit(b); err != nil {
		return err
	}
	delete(c.backends, be.ID)
	c.refreshGroups()
	return nil
}

// Backends lists the backends sorted by id.
func (c *Catalog) Backends() []*Backend {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]*Backend, 0, len(c.backends))
	for _, be := range c.backends {
		out = append(out, be)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Backend returns a backend by id.
func (c *Catalog) Backend(id BackendID) (*Backend, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	be, ok := c.backends[id]
	return be, ok
}

// SetBackendState records a heartbeat result (in memory only). A backend
// turning alive gets LastStartTime = heartbeat.
func (c *Catalog) SetBackendState(id BackendID, alive bool, errMsg string, heartbeat time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.backends[id]
	if !ok {
		return
	}
	be := *old
	if alive && !old.Alive {
		be.LastStartTime = heartbeat
	}
	be.Alive, be.ErrMsg = alive, errMsg
	if alive {
		be.LastHeartbeat = heartbeat
		be.HeartbeatFailures = 0
	} else {
		be.HeartbeatFailures++
	}
	c.backends[id] = &be
	if alive != old.Alive {
		c.refreshGroups()
	}
}

// SetBackendStartTime records the backend process's own start time (from
// its heartbeat; in memory only).
func (c *Catalog) SetBackendStartTime(id BackendID, t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.backends[id]; ok && !old.LastStartTime.Equal(t) {
		be := *old
		be.LastStartTime = t
		c.backends[id] = &be
	}
}

// SetBackendDisk records a heartbeat's disk figures (in memory only).
func (c *Catalog) SetBackendDisk(id BackendID, used, total, avail int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.backends[id]
	if !ok {
		return
	}
	be := *old
	be.DataUsed, be.DiskTotal, be.DiskAvail = used, total, avail
	c.backends[id] = &be
}

// SetBackendHTTPPort records the backend's HTTP port (persisted).
func (c *Catalog) SetBackendHTTPPort(id BackendID, port int) error {
	return c.updateBackend(id, func(be *Backend) { be.HTTPPort = port })
}

// SetBackendDecommissioned marks a backend (persisted). Decommissioned
// backends get no new replicas and make their colocate groups unstable.
func (c *Catalog) SetBackendDecommissioned(id BackendID, decommissioned bool) error {
	return c.updateBackend(id, func(be *Backend) { be.Decommissioned = decommissioned })
}

func (c *Catalog) updateBackend(id BackendID, f func(*Backend)) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.backends[id]
	if !ok {
		return sqlerr.Doris.New(fmt.Sprintf("backend does not exists[%d]", id))
	}
	be := *old
	f(&be)
	b := c.newBatch()
	b.put(idKey(keyBackend, int64(id)), &be)
	if err := c.commit(b); err != nil {
		return err
	}
	c.backends[id] = &be
	c.refreshGroups()
	return nil
}

// placementBackends are the backends that may receive new replicas: alive,
// not decommissioned, sorted by id.
func (c *Catalog) placementBackends() []BackendID {
	var ids []BackendID
	for _, be := range c.backends {
		if be.Alive && !be.Decommissioned {
			ids = append(ids, be.ID)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}
