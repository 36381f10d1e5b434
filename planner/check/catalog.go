package check

import (
	"strconv"

	"github.com/dorisgo/dorisgo/catalog"
)

// FromCatalog describes the cluster as the catalog has it now.
func FromCatalog(cat *catalog.Catalog) Cluster {
	alive := 0
	for _, be := range cat.Backends() {
		if be.Alive && !be.Decommissioned {
			alive++
		}
	}
	return Cluster{Backends: alive, Tables: func(id int64) (Layout, bool) {
		t, ok := cat.TableByID(catalog.TableID(id))
		if !ok {
			return Layout{}, false
		}
		l := Layout{Hash: t.Dist.Kind == catalog.DistHash, Columns: t.Dist.Columns, Buckets: t.Dist.Buckets}
		if g, ok := cat.GroupOfTable(t); ok {
			l.Group = strconv.FormatInt(int64(g.DBID), 10) + "." + g.Name
			l.Stable = !g.Unstable
		}
		return l, true
	}}
}
