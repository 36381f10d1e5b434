package check

import (
	"strconv"

	"github.com/dorisgo/dorisgo/catalog"
)

// FromCatalog resolves layouts from the catalog as it is now.
func FromCatalog(cat *catalog.Catalog) Tables {
	return func(id int64) (Layout, bool) {
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
	}
}
