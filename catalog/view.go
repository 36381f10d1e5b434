package catalog

import (
	"sort"
	"strings"
	"time"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// View is a stored query (CREATE VIEW). A view shares its database's table
// namespace (a table and a view never have the same name) and the id
// sequence of tables; it owns no tablets. The catalog keeps the query as
// text: the binder parses and binds it wherever the view is named, as if
// it were written there as a derived table, so the planner sees the base
// tables (and their buckets) through it.
type View struct {
	ID   TableID `json:"id"`
	DBID DBID    `json:"db_id"`
	Name string  `json:"name"`
	// Columns are the view's columns: the CREATE VIEW column list, or the
	// query's output names, with the types the query had when the view was
	// last defined (listings read them; a query binds the view anew).
	Columns []Column `json:"columns"`
	// Query is the SELECT as the user wrote it.
	Query string `json:"query"`
	// QueryDB is the database the query's unqualified names resolve in:
	// the session's current one at CREATE or ALTER, as MySQL fixes it.
	QueryDB string `json:"query_db,omitempty"`
	// Definer is the account that last defined it (MySQL's user@host).
	Definer    string    `json:"definer,omitempty"`
	Comment    string    `json:"comment,omitempty"`
	CreateTime time.Time `json:"create_time"`
}

// ViewSpec is a bound CREATE or ALTER VIEW: the server has bound Query
// (so it is valid now) and named every column.
type ViewSpec struct {
	Name    string
	Columns []Column
	Query   string
	QueryDB string
	Definer string
	Comment string
}

// ViewMode is how CREATE VIEW treats an existing view of the same name.
type ViewMode uint8

const (
	ViewCreate      ViewMode = iota // CREATE VIEW: 1050
	ViewIfNotExists                 // CREATE VIEW IF NOT EXISTS: keep the existing one
	ViewOrReplace                   // CREATE OR REPLACE VIEW: replace it
)

func (c *Catalog) indexView(v *View) {
	m := c.viewNames[v.DBID]
	if m == nil {
		m = map[string]TableID{}
		c.viewNames[v.DBID] = m
	}
	m[v.Name] = v.ID
}

// viewOf returns the view named name in db, if any.
func (c *Catalog) viewOf(db DBID, name string) (*View, bool) {
	id, ok := c.viewNames[db][name]
	if !ok {
		return nil, false
	}
	return c.views[id], true
}

// isTable reports a table (not a view) named name in db.
func (c *Catalog) isTable(db DBID, name string) bool {
	_, ok := c.tableNames[db][name]
	return ok
}

func buildView(db DBID, spec *ViewSpec) (*View, error) {
	if spec.Name == "" {
		return nil, sqlerr.WrongTableName.New(spec.Name)
	}
	if len(spec.Columns) == 0 {
		return nil, sqlerr.Assertf("catalog: view %s has no columns", spec.Name)
	}
	seen := map[string]bool{}
	for _, col := range spec.Columns {
		if col.Name == "" {
			return nil, sqlerr.WrongColumnName.New(col.Name)
		}
		if seen[strings.ToLower(col.Name)] {
			return nil, sqlerr.DupFieldName.New(col.Name)
		}
		seen[strings.ToLower(col.Name)] = true
	}
	return &View{DBID: db, Name: spec.Name, Columns: append([]Column(nil), spec.Columns...),
		Query: spec.Query, QueryDB: spec.QueryDB, Definer: spec.Definer, Comment: spec.Comment}, nil
}

// CreateView stores a view in one write. A table of the same name is 1050
// (1347 with OR REPLACE, as MySQL: it is not a view to replace); an
// existing view is 1050, kept with IF NOT EXISTS, or replaced in place
// (same id) with OR REPLACE.
func (c *Catalog) CreateView(db string, spec *ViewSpec, mode ViewMode) (*View, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, err := c.dbLocked(db)
	if err != nil {
		return nil, err
	}
	if c.isTable(d.ID, spec.Name) {
		if mode == ViewOrReplace {
			return nil, sqlerr.WrongObject.New(db, spec.Name, "VIEW", "")
		}
		return nil, sqlerr.TableExists.New(spec.Name)
	}
	old, exists := c.viewOf(d.ID, spec.Name)
	if exists && mode == ViewIfNotExists {
		return old, nil
	}
	if exists && mode == ViewCreate {
		return nil, sqlerr.TableExists.New(spec.Name)
	}
	v, err := buildView(d.ID, spec)
	if err != nil {
		return nil, err
	}
	b := c.newBatch()
	if exists {
		v.ID, v.CreateTime = old.ID, old.CreateTime
	} else {
		v.ID, v.CreateTime = TableID(b.nextID()), c.now()
	}
	return v, c.putView(b, v)
}

// AlterView redefines an existing view (1146 if there is none, 1347 if
// the name is a table's); its id and creation time stay.
func (c *Catalog) AlterView(db string, spec *ViewSpec) (*View, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, err := c.dbLocked(db)
	if err != nil {
		return nil, err
	}
	if c.isTable(d.ID, spec.Name) {
		return nil, sqlerr.WrongObject.New(db, spec.Name, "VIEW", "")
	}
	old, ok := c.viewOf(d.ID, spec.Name)
	if !ok {
		return nil, sqlerr.NoSuchTable.New(db, spec.Name)
	}
	v, err := buildView(d.ID, spec)
	if err != nil {
		return nil, err
	}
	v.ID, v.CreateTime = old.ID, old.CreateTime
	return v, c.putView(c.newBatch(), v)
}

// putView persists v and swaps it in; the caller holds c.mu.
func (c *Catalog) putView(b *batch, v *View) error {
	b.put(idKey(keyView, int64(v.ID)), v)
	if err := c.commit(b); err != nil {
		return err
	}
	c.views[v.ID] = v
	c.indexView(v)
	return nil
}

// ViewName is one [db.]v of DROP VIEW.
type ViewName struct{ DB, Name string }

// DropView drops one view (DropViews of one name).
func (c *Catalog) DropView(db, name string, ifExists bool) (*View, error) {
	vs, err := c.DropViews([]ViewName{{db, name}}, ifExists)
	if err != nil || len(vs) == 0 {
		return nil, err
	}
	return vs[0], nil
}

// DropViews drops views in one write, all or none, as MySQL 8's DROP VIEW:
// a table's name is 1347 with Doris's hint; names of nothing are one 1051
// listing them all (skipped with ifExists). It returns the views dropped.
func (c *Catalog) DropViews(names []ViewName, ifExists bool) ([]*View, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var drop []*View
	var missing []string
	seen := map[TableID]bool{}
	for _, n := range names {
		d, err := c.dbLocked(n.DB)
		if err != nil {
			return nil, err
		}
		if c.isTable(d.ID, n.Name) {
			return nil, sqlerr.WrongObject.New(n.DB, n.Name, "VIEW", ". Use 'DROP TABLE "+n.DB+"."+n.Name+"'.")
		}
		v, ok := c.viewOf(d.ID, n.Name)
		switch {
		case !ok:
			missing = append(missing, n.DB+"."+n.Name)
		case !seen[v.ID]:
			seen[v.ID] = true
			drop = append(drop, v)
		}
	}
	if len(missing) > 0 && !ifExists {
		return nil, sqlerr.BadTable.New(strings.Join(missing, ","))
	}
	if len(drop) == 0 {
		return nil, nil
	}
	b := c.newBatch()
	for _, v := range drop {
		b.del(idKey(keyView, int64(v.ID)))
	}
	if err := c.commit(b); err != nil {
		return nil, err
	}
	for _, v := range drop {
		delete(c.views, v.ID)
		delete(c.viewNames[v.DBID], v.Name)
	}
	return drop, nil
}

// View returns a view (1049 if the database is missing, 1146 if the view is).
func (c *Catalog) View(db, name string) (*View, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	d, err := c.dbLocked(db)
	if err != nil {
		return nil, err
	}
	v, ok := c.viewOf(d.ID, name)
	if !ok {
		return nil, sqlerr.NoSuchTable.New(db, name)
	}
	return v, nil
}

// Views lists a database's views sorted by name (1049 if it is missing).
func (c *Catalog) Views(db string) ([]*View, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	d, err := c.dbLocked(db)
	if err != nil {
		return nil, err
	}
	return c.viewsOf(d.ID), nil
}

func (c *Catalog) viewsOf(db DBID) []*View {
	out := make([]*View, 0, len(c.viewNames[db]))
	for _, id := range c.viewNames[db] {
		out = append(out, c.views[id])
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
