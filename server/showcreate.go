package server

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

func (s *Session) showCreateTable(db, name string, w wire.ResultWriter) error {
	db, t, err := s.table(db, name)
	if err != nil {
		if v, verr := s.srv.cat.View(db, name); verr == nil {
			return writeView(w, v) // MySQL answers for a view in the view's form
		}
		return err
	}
	return writeTable(w, []wire.Column{strCol("Table"), strCol("Create Table")},
		[][]types.Datum{{str(t.Name), str(createTableText(t))}})
}

// createTableText renders a table as Doris's SHOW CREATE TABLE does; the
// text parses back to the same table.
func createTableText(t *catalog.Table) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE `%s` (\n", t.Name)
	cols := t.VisibleColumns()
	for i, c := range cols {
		fmt.Fprintf(&b, "  `%s` %s", c.Name, c.Type.Lower())
		if c.Agg != storage.AggNone {
			fmt.Fprintf(&b, " %s", c.Agg)
		}
		if c.Nullable {
			b.WriteString(" NULL")
		} else {
			b.WriteString(" NOT NULL")
		}
		if c.Default != nil {
			fmt.Fprintf(&b, " DEFAULT \"%s\"", *c.Default)
		}
		fmt.Fprintf(&b, " COMMENT \"%s\"", c.Comment)
		if i < len(cols)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString(") ENGINE=OLAP\n")
	var keys []string
	for _, c := range t.Columns[:t.NumKeys] {
		keys = append(keys, "`"+c.Name+"`")
	}
	fmt.Fprintf(&b, "%s KEY(%s)\n", t.Keys, strings.Join(keys, ", "))
	comment := t.Comment
	if comment == "" {
		comment = "OLAP"
	}
	fmt.Fprintf(&b, "COMMENT '%s'\n", comment)
	switch t.PartKind {
	case catalog.PartRange, catalog.PartList:
		kind := "RANGE"
		if t.PartKind == catalog.PartList {
			kind = "LIST"
		}
		fmt.Fprintf(&b, "PARTITION BY %s(`%s`)\n(", kind, t.Columns[t.PartColumn].Name)
		for i, p := range t.Partitions {
			if i > 0 {
				b.WriteString(",\n")
			}
			if t.PartKind == catalog.PartRange {
				lo, hi := "MINVALUE", "MAXVALUE"
				if p.Lower != nil {
					lo = `"` + p.Lower.String() + `"`
				}
				if p.Upper != nil {
					hi = `"` + p.Upper.String() + `"`
				}
				if p.Lower == nil {
					fmt.Fprintf(&b, "PARTITION %s VALUES LESS THAN (%s)", p.Name, hi)
				} else {
					fmt.Fprintf(&b, "PARTITION %s VALUES [(%s), (%s))", p.Name, lo, hi)
				}
			} else {
				var vs []string
				for _, v := range p.Values {
					vs = append(vs, `("`+v.String()+`")`)
				}
				fmt.Fprintf(&b, "PARTITION %s VALUES IN (%s)", p.Name, strings.Join(vs, ","))
			}
		}
		b.WriteString(")\n")
	}
	if t.Dist.Kind == catalog.DistRandom {
		fmt.Fprintf(&b, "DISTRIBUTED BY RANDOM BUCKETS %d\n", t.Dist.Buckets)
	} else {
		var cols []string
		for _, ci := range t.Dist.Columns {
			cols = append(cols, "`"+t.Columns[ci].Name+"`")
		}
		fmt.Fprintf(&b, "DISTRIBUTED BY HASH(%s) BUCKETS %d\n", strings.Join(cols, ", "), t.Dist.Buckets)
	}
	props := map[string]string{"replication_allocation": fmt.Sprintf("tag.location.default: %d", t.ReplicationNum)}
	if t.ColocateGroup != "" {
		props["colocate_with"] = t.ColocateGroup
	}
	for k, v := range t.Properties {
		if k != "replication_num" && k != "replication_allocation" && k != "colocate_with" {
			props[k] = v
		}
	}
	keysSorted := make([]string, 0, len(props))
	for k := range props {
		keysSorted = append(keysSorted, k)
	}
	sort.Strings(keysSorted)
	b.WriteString("PROPERTIES (\n")
	for i, k := range keysSorted {
		fmt.Fprintf(&b, "\"%s\" = \"%s\"", k, props[k])
		if i < len(keysSorted)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString(");")
	return b.String()
}
