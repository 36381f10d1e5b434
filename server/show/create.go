package show

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// CreateTable is SHOW CREATE TABLE; for a view MySQL answers in the
// view's form.
func (sh *Shows) CreateTable(s Session, db, name string) (*Result, error) {
	db, t, err := sh.table(s, db, name)
	if err != nil {
		if v, verr := sh.cat.View(db, name); verr == nil {
			return viewResult(v)
		}
		return nil, err
	}
	return table([]types.Column{strCol("Table"), strCol("Create Table")},
		[][]types.Datum{{str(t.Name), str(createTableText(t))}})
}

// viewColumns is how SHOW CREATE TABLE and SHOW CREATE VIEW answer for a view.
var viewColumns = []types.Column{strCol("View"), strCol("Create View"), strCol("character_set_client"), strCol("collation_connection")}

// CreateView is SHOW CREATE VIEW: 1347 for a table, as MySQL.
func (sh *Shows) CreateView(s Session, st *parser.ShowCreateView) (*Result, error) {
	db, err := dbName(s, st.DB)
	if err != nil {
		return nil, err
	}
	v, err := sh.cat.View(db, st.View)
	if err != nil {
		if _, terr := sh.cat.Table(db, st.View); terr == nil {
			return nil, sqlerr.WrongObject.New(db, st.View, "VIEW", "")
		}
		return nil, err
	}
	return viewResult(v)
}

func viewResult(v *catalog.View) (*Result, error) {
	return table(viewColumns, [][]types.Datum{{str(v.Name), str(createViewText(v)), str("utf8mb4"), str("utf8mb4_0900_bin")}})
}

// createViewText is Doris's SHOW CREATE VIEW text: the column list (with
// comments), the view comment and the query as written. It parses back
// to the same view.
func createViewText(v *catalog.View) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE VIEW `%s` (", v.Name)
	for i, c := range v.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "`%s`", c.Name)
		if c.Comment != "" {
			fmt.Fprintf(&b, " COMMENT '%s'", quoteString(c.Comment))
		}
	}
	b.WriteString(")")
	if v.Comment != "" {
		fmt.Fprintf(&b, " COMMENT '%s'", quoteString(v.Comment))
	}
	b.WriteString(" AS ")
	b.WriteString(v.Query)
	return b.String()
}

func quoteString(s string) string {
	return quoteEscaper.Replace(s)
}

// quoteEscaper is built once: a Replacer builds its tables on first use.
var quoteEscaper = strings.NewReplacer(`\`, `\\`, `'`, `\'`)

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
