package catalog

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/storage"
)

// Catalog is the FE metadata. Safe for concurrent use: readers take the read
// lock and get immutable snapshots; writers copy, persist, then swap.
type Catalog struct {
	kv  KV
	now func() time.Time // UTC without a monotonic reading, so times survive a JSON round trip unchanged

	mu         sync.RWMutex
	seq        seqs
	lazyRun    int // lazy writes since the last synced one (kv.go)
	dbs        map[DBID]*Database
	dbNames    map[string]DBID
	tables     map[TableID]*Table
	tableNames map[DBID]map[string]TableID
	views      map[TableID]*View
	viewNames  map[DBID]map[string]TableID // shares the table namespace: a name is in one of the two
	backends   map[BackendID]*Backend
	groups     map[GroupID]*ColocateGroup
	groupKeys  map[string]GroupID
	users      map[string]*User // by string(userKey(name, host))
	roles      map[string]*Role // by name; the built-in ones are never persisted
	txns       map[storage.TxnID]*Txn
	labels     map[labelKey]storage.TxnID
	txnCount   txnCounters                  // doris_fe_txn_* (txnmetrics.go)
	stats      map[TableID]*TableStatistics // ANALYZE (stats.go)
	alterJobs  map[int64]*AlterJob          // schema change jobs (schemachange.go)
}

type labelKey struct {
	db    DBID
	label string
}

func wallClock() time.Time { return time.Now().UTC().Round(0) }

// Open loads the catalog from kv. A fresh kv is bootstrapped (in one write)
// with the built-in users root@'%' (role operator) and admin@'%' (role
// admin), both with an empty password, as in Doris.
func Open(kv KV) (*Catalog, error) {
	c := newCatalog(kv)
	initialized, err := c.load()
	if err != nil {
		return nil, err
	}
	if !initialized {
		b := c.newBatch()
		root, admin := &User{Name: RootUser, Host: "%"}, &User{Name: AdminUser, Host: "%"}
		b.put(userKey(root.Name, root.Host), root)
		b.put(userKey(admin.Name, admin.Host), admin)
		b.ops = append(b.ops, storage.MetaOp{Key: []byte(keyInit), Value: []byte("1")})
		if err := c.commit(b); err != nil {
			return nil, err
		}
		c.users[string(userKey(root.Name, root.Host))] = root
		c.users[string(userKey(admin.Name, admin.Host))] = admin
	}
	if _, ok := kv.(lazyKV); ok {
		// Past every transaction ID a lost lazy BEGIN could have used,
		// durably before the first new one (kv.go).
		b := c.newBatch()
		b.seq.Txn += txnGap
		if err := c.commit(b); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// newCatalog is an empty catalog over kv, before load.
func newCatalog(kv KV) *Catalog {
	return &Catalog{
		kv:         kv,
		now:        wallClock,
		seq:        initialSeqs,
		dbs:        map[DBID]*Database{},
		dbNames:    map[string]DBID{},
		tables:     map[TableID]*Table{},
		tableNames: map[DBID]map[string]TableID{},
		views:      map[TableID]*View{},
		viewNames:  map[DBID]map[string]TableID{},
		backends:   map[BackendID]*Backend{},
		groups:     map[GroupID]*ColocateGroup{},
		groupKeys:  map[string]GroupID{},
		users:      map[string]*User{},
		roles:      builtinRoles(),
		txns:       map[storage.TxnID]*Txn{},
		labels:     map[labelKey]storage.TxnID{},
	}
}

// load reads every catalog key and rebuilds the indexes.
func (c *Catalog) load() (initialized bool, err error) {
	kvs, err := c.kv.Scan([]byte(keyRoot))
	if err != nil {
		return false, fmt.Errorf("catalog: load: %w", err)
	}
	for _, e := range kvs {
		if string(e.Key) == keyInit {
			initialized = true
		}
		if err := c.loadKey(string(e.Key), e.Value); err != nil {
			return false, err
		}
	}
	c.reindex()
	c.refreshGroups()
	return initialized, nil
}

// loadKey decodes one persisted key into the maps (not the name indexes:
// reindex rebuilds them).
func (c *Catalog) loadKey(k string, v []byte) error {
	var derr error
	switch {
	case k == keyInit:
	case strings.HasPrefix(k, keySeq):
		n, perr := strconv.ParseInt(string(v), 10, 64)
		if perr != nil {
			derr = perr
		} else {
			derr = c.seq.set(k[len(keySeq):], n)
		}
	case strings.HasPrefix(k, keyDB):
		var d Database
		if derr = json.Unmarshal(v, &d); derr == nil {
			c.dbs[d.ID] = &d
		}
	case strings.HasPrefix(k, keyTable):
		var t Table
		if derr = json.Unmarshal(v, &t); derr == nil {
			restoreTable(&t)
			restoreColumns(&t)
			c.tables[t.ID] = &t
		}
	case strings.HasPrefix(k, keyView):
		var vw View
		if derr = json.Unmarshal(v, &vw); derr == nil {
			c.views[vw.ID] = &vw
		}
	case strings.HasPrefix(k, keyBackend):
		var be Backend
		if derr = json.Unmarshal(v, &be); derr == nil {
			c.backends[be.ID] = &be
		}
	case strings.HasPrefix(k, keyGroup):
		var g ColocateGroup
		if derr = json.Unmarshal(v, &g); derr == nil {
			c.groups[g.ID] = &g
		}
	case strings.HasPrefix(k, keyUser):
		var u User
		if derr = json.Unmarshal(v, &u); derr == nil {
			c.users[string(userKey(u.Name, u.Host))] = &u
		}
	case strings.HasPrefix(k, keyRole):
		var r Role
		if derr = json.Unmarshal(v, &r); derr == nil {
			c.roles[r.Name] = &r
		}
	case strings.HasPrefix(k, keyStats):
		derr = c.loadStats(v)
	case strings.HasPrefix(k, keyAlter):
		derr = c.loadAlterJob(v)
	case strings.HasPrefix(k, keyTxn):
		var t Txn
		if derr = json.Unmarshal(v, &t); derr == nil {
			c.txns[t.ID] = &t
		}
	default:
		derr = fmt.Errorf("unknown key")
	}
	if derr != nil {
		return sqlerr.Assertf("catalog: load %q: %v", k, derr)
	}
	return nil
}

// reindex rebuilds the name indexes from the maps.
func (c *Catalog) reindex() {
	c.dbNames = make(map[string]DBID, len(c.dbs))
	for _, d := range c.dbs {
		c.dbNames[d.Name] = d.ID
	}
	c.tableNames = map[DBID]map[string]TableID{}
	for _, t := range c.tables {
		c.indexTable(t)
	}
	c.viewNames = map[DBID]map[string]TableID{}
	for _, v := range c.views {
		c.indexView(v)
	}
	c.groupKeys = make(map[string]GroupID, len(c.groups))
	for _, g := range c.groups {
		c.groupKeys[groupKey(g.DBID, g.Name)] = g.ID
	}
	// Ascending ids: a label's newest txn wins the index.
	c.labels = map[labelKey]storage.TxnID{}
	for _, t := range c.sortedTxns(func(*Txn) bool { return true }) {
		c.indexLabel(t)
	}
}

func (c *Catalog) indexTable(t *Table) {
	m := c.tableNames[t.DBID]
	if m == nil {
		m = map[string]TableID{}
		c.tableNames[t.DBID] = m
	}
	m[t.Name] = t.ID
}

// CreateDatabase creates a database (1007 if it exists, unless ifNotExists).
func (c *Catalog) CreateDatabase(name string, ifNotExists bool) (*Database, error) {
	if name == "" {
		return nil, sqlerr.WrongDBName.New(name)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if id, ok := c.dbNames[name]; ok {
		if ifNotExists {
			return c.dbs[id], nil
		}
		return nil, sqlerr.DBCreateExists.New(name)
	}
	b := c.newBatch()
	d := &Database{ID: DBID(b.nextID()), Name: name}
	b.put(idKey(keyDB, int64(d.ID)), d)
	if err := c.commit(b); err != nil {
		return nil, err
	}
	c.dbs[d.ID] = d
	c.dbNames[name] = d.ID
	return d, nil
}

// DropDatabase drops a database with its tables and views (1008 if missing, unless
// ifExists) and returns the dropped tables, sorted by name, so the caller can
// drop their tablets on the backends.
func (c *Catalog) DropDatabase(name string, ifExists bool) ([]*Table, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id, ok := c.dbNames[name]
	if !ok {
		if ifExists {
			return nil, nil
		}
		return nil, sqlerr.DBDropExists.New(name)
	}
	dropped := c.tablesOf(id)
	b := c.newBatch()
	b.del(idKey(keyDB, int64(id)))
	gs := newGroupEdits(c)
	for _, t := range dropped {
		b.del(idKey(keyTable, int64(t.ID)))
		gs.removeTable(t)
	}
	views := c.viewsOf(id)
	for _, v := range views {
		b.del(idKey(keyView, int64(v.ID)))
	}
	gs.stage(b)
	if err := c.commit(b); err != nil {
		return nil, err
	}
	for _, t := range dropped {
		delete(c.tables, t.ID)
	}
	for _, v := range views {
		delete(c.views, v.ID)
	}
	delete(c.viewNames, id)
	delete(c.tableNames, id)
	delete(c.dbs, id)
	delete(c.dbNames, name)
	gs.apply()
	return dropped, nil
}

// Databases lists the databases sorted by name.
func (c *Catalog) Databases() []*Database {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]*Database, 0, len(c.dbs))
	for _, d := range c.dbs {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Database returns a database by name (1049 if missing).
func (c *Catalog) Database(name string) (*Database, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.dbLocked(name)
}

// DatabaseByID returns a database by id.
func (c *Catalog) DatabaseByID(id DBID) (*Database, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	d, ok := c.dbs[id]
	return d, ok
}

func (c *Catalog) dbLocked(name string) (*Database, error) {
	id, ok := c.dbNames[name]
	if !ok {
		return nil, sqlerr.BadDB.New(name)
	}
	return c.dbs[id], nil
}

// tablesOf lists a database's tables sorted by name.
func (c *Catalog) tablesOf(db DBID) []*Table {
	out := make([]*Table, 0, len(c.tableNames[db]))
	for _, id := range c.tableNames[db] {
		out = append(out, c.tables[id])
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Table returns a table (1049 if the database is missing, 1146 if the table is).
func (c *Catalog) Table(db, name string) (*Table, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.tableLocked(db, name)
}

func (c *Catalog) tableLocked(db, name string) (*Table, error) {
	d, err := c.dbLocked(db)
	if err != nil {
		return nil, err
	}
	id, ok := c.tableNames[d.ID][name]
	if !ok {
		return nil, sqlerr.NoSuchTable.New(db, name)
	}
	return c.tables[id], nil
}

// TableByID returns the current version of a table.
func (c *Catalog) TableByID(id TableID) (*Table, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	t, ok := c.tables[id]
	return t, ok
}

// Tables lists a database's tables sorted by name (1049 if it is missing).
func (c *Catalog) Tables(db string) ([]*Table, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	d, err := c.dbLocked(db)
	if err != nil {
		return nil, err
	}
	return c.tablesOf(d.ID), nil
}
