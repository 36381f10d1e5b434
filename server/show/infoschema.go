package show

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// Virtual serves information_schema as constant relations built from the
// catalog at bind time, so any SELECT over them (filters, projections) runs
// through the ordinary engine. GUI tools browse with these.
type Virtual struct {
	sh   *Shows
	sess Session
}

// InfoSchema is information_schema for one session: a bind.Virtual.
func (sh *Shows) InfoSchema(s Session) *Virtual { return &Virtual{sh: sh, sess: s} }

type isTable struct {
	cols []types.Column
	rows func(is *Virtual) [][]types.Datum
}

func vc(name string) types.Column {
	return types.Column{Name: name, Type: types.VarcharT(512), Nullable: true}
}
func bc(name string) types.Column {
	return types.Column{Name: name, Type: types.BigIntT, Nullable: true}
}

var isTables = map[string]isTable{
	"schemata": {
		cols: []types.Column{vc("CATALOG_NAME"), vc("SCHEMA_NAME"), vc("DEFAULT_CHARACTER_SET_NAME"), vc("DEFAULT_COLLATION_NAME"), vc("SQL_PATH")},
		rows: func(is *Virtual) [][]types.Datum {
			var out [][]types.Datum
			for _, db := range is.sh.databaseNames(is.sess) {
				out = append(out, []types.Datum{str("def"), str(db), str("utf8mb4"), str("utf8mb4_0900_bin"), types.NullDatum(types.StringT)})
			}
			return out
		},
	},
	"tables": {
		cols: []types.Column{vc("TABLE_CATALOG"), vc("TABLE_SCHEMA"), vc("TABLE_NAME"), vc("TABLE_TYPE"), vc("ENGINE"), bc("VERSION"),
			vc("ROW_FORMAT"), bc("TABLE_ROWS"), bc("AVG_ROW_LENGTH"), bc("DATA_LENGTH"), bc("MAX_DATA_LENGTH"), bc("INDEX_LENGTH"),
			bc("DATA_FREE"), bc("AUTO_INCREMENT"), vc("CREATE_TIME"), vc("UPDATE_TIME"), vc("CHECK_TIME"), vc("TABLE_COLLATION"),
			bc("CHECKSUM"), vc("CREATE_OPTIONS"), vc("TABLE_COMMENT")},
		rows: func(is *Virtual) [][]types.Datum {
			null := types.NullDatum(types.StringT)
			var out [][]types.Datum
			for _, name := range infoSchemaTables() {
				out = append(out, []types.Datum{str("def"), str("information_schema"), str(strings.ToUpper(name)), str("SYSTEM VIEW"),
					null, num(10), null, num(0), num(0), num(0), num(0), num(0), num(0), null, null, null, null, str("utf8mb4_0900_bin"), null, str(""), str("")})
			}
			is.eachTable(func(db string, t *catalog.Table) {
				var rows, size int64
				for _, p := range t.Partitions {
					rows += p.RowCount
					size += p.DataSize
				}
				avg := int64(0)
				if rows > 0 {
					avg = size / rows
				}
				out = append(out, []types.Datum{str("def"), str(db), str(t.Name), str("BASE TABLE"), str("Doris"), num(10),
					str("dynamic"), num(rows), num(avg), num(size), num(0), num(0), num(0), null,
					str(t.CreateTime.UTC().Format("2006-01-02 15:04:05")), null, null, str("utf8mb4_0900_bin"), null, str(""), str(t.Comment)})
			})
			nullI := types.NullDatum(types.BigIntT)
			is.eachView(func(db string, v *catalog.View) {
				out = append(out, []types.Datum{str("def"), str(db), str(v.Name), str("VIEW"), null, nullI, null, nullI, nullI, nullI, nullI,
					nullI, nullI, nullI, str(v.CreateTime.UTC().Format("2006-01-02 15:04:05")), null, null, null, nullI, null, str("VIEW")})
			})
			return out
		},
	},
	"columns": {
		cols: []types.Column{vc("TABLE_CATALOG"), vc("TABLE_SCHEMA"), vc("TABLE_NAME"), vc("COLUMN_NAME"), bc("ORDINAL_POSITION"),
			vc("COLUMN_DEFAULT"), vc("IS_NULLABLE"), vc("DATA_TYPE"), bc("CHARACTER_MAXIMUM_LENGTH"), bc("CHARACTER_OCTET_LENGTH"),
			bc("NUMERIC_PRECISION"), bc("NUMERIC_SCALE"), bc("DATETIME_PRECISION"), vc("CHARACTER_SET_NAME"), vc("COLLATION_NAME"),
			vc("COLUMN_TYPE"), vc("COLUMN_KEY"), vc("EXTRA"), vc("PRIVILEGES"), vc("COLUMN_COMMENT")},
		rows: func(is *Virtual) [][]types.Datum {
			var out [][]types.Datum
			is.eachTable(func(db string, t *catalog.Table) {
				for i, c := range t.VisibleColumns() {
					key := ""
					if c.IsKey {
						if t.Keys == storage.UniqueKeys {
							key = "UNI"
						} else {
							key = "DUP"
						}
					}
					out = append(out, columnRow(db, t.Name, i, c, key))
				}
			})
			is.eachView(func(db string, v *catalog.View) {
				for i, c := range v.Columns {
					out = append(out, columnRow(db, v.Name, i, c, ""))
				}
			})
			return out
		},
	},
	"views": {
		cols: []types.Column{vc("TABLE_CATALOG"), vc("TABLE_SCHEMA"), vc("TABLE_NAME"), vc("VIEW_DEFINITION"), vc("CHECK_OPTION"),
			vc("IS_UPDATABLE"), vc("DEFINER"), vc("SECURITY_TYPE"), vc("CHARACTER_SET_CLIENT"), vc("COLLATION_CONNECTION")},
		rows: func(is *Virtual) [][]types.Datum {
			var out [][]types.Datum
			is.eachView(func(db string, v *catalog.View) {
				out = append(out, []types.Datum{str("def"), str(db), str(v.Name), str(v.Query), str("NONE"), str("NO"),
					str(v.Definer), str("DEFINER"), str("utf8mb4"), str("utf8mb4_0900_bin")})
			})
			return out
		},
	},
	"routines":          {cols: []types.Column{vc("SPECIFIC_NAME"), vc("ROUTINE_CATALOG"), vc("ROUTINE_SCHEMA"), vc("ROUTINE_NAME"), vc("ROUTINE_TYPE")}},
	"statistics":        {cols: []types.Column{vc("TABLE_CATALOG"), vc("TABLE_SCHEMA"), vc("TABLE_NAME"), bc("NON_UNIQUE"), vc("INDEX_SCHEMA"), vc("INDEX_NAME"), bc("SEQ_IN_INDEX"), vc("COLUMN_NAME")}},
	"key_column_usage":  {cols: []types.Column{vc("CONSTRAINT_CATALOG"), vc("CONSTRAINT_SCHEMA"), vc("CONSTRAINT_NAME"), vc("TABLE_CATALOG"), vc("TABLE_SCHEMA"), vc("TABLE_NAME"), vc("COLUMN_NAME")}},
	"table_constraints": {cols: []types.Column{vc("CONSTRAINT_CATALOG"), vc("CONSTRAINT_SCHEMA"), vc("CONSTRAINT_NAME"), vc("TABLE_SCHEMA"), vc("TABLE_NAME"), vc("CONSTRAINT_TYPE")}},
	"triggers":          {cols: []types.Column{vc("TRIGGER_CATALOG"), vc("TRIGGER_SCHEMA"), vc("TRIGGER_NAME"), vc("EVENT_OBJECT_TABLE")}},
	"engines": {cols: []types.Column{vc("ENGINE"), vc("SUPPORT"), vc("COMMENT"), vc("TRANSACTIONS"), vc("XA"), vc("SAVEPOINTS")}, rows: func(*Virtual) [][]types.Datum {
		return [][]types.Datum{{str("Doris"), str("DEFAULT"), str("dorisgo OLAP engine"), str("YES"), str("NO"), str("NO")}}
	}},
	"character_sets": {cols: []types.Column{vc("CHARACTER_SET_NAME"), vc("DEFAULT_COLLATE_NAME"), vc("DESCRIPTION"), bc("MAXLEN")}, rows: func(*Virtual) [][]types.Datum {
		return [][]types.Datum{{str("utf8mb4"), str("utf8mb4_0900_bin"), str("UTF-8 Unicode"), num(4)}}
	}},
	"collations": {cols: []types.Column{vc("COLLATION_NAME"), vc("CHARACTER_SET_NAME"), bc("ID"), vc("IS_DEFAULT"), vc("IS_COMPILED"), bc("SORTLEN")}, rows: func(*Virtual) [][]types.Datum {
		return [][]types.Datum{{str("utf8mb4_0900_bin"), str("utf8mb4"), num(309), str("Yes"), str("Yes"), num(1)}}
	}},
	"processlist": {cols: []types.Column{bc("ID"), vc("USER"), vc("HOST"), vc("DB"), vc("COMMAND"), bc("TIME"), vc("STATE"), vc("INFO")}},
	"user_privileges": {cols: []types.Column{vc("GRANTEE"), vc("TABLE_CATALOG"), vc("PRIVILEGE_TYPE"), vc("IS_GRANTABLE")},
		rows: func(is *Virtual) [][]types.Datum { return is.privRows(catalog.LevelGlobal) }},
	"schema_privileges": {cols: []types.Column{vc("GRANTEE"), vc("TABLE_CATALOG"), vc("TABLE_SCHEMA"), vc("PRIVILEGE_TYPE"), vc("IS_GRANTABLE")},
		rows: func(is *Virtual) [][]types.Datum { return is.privRows(catalog.LevelDB) }},
	"table_privileges": {cols: []types.Column{vc("GRANTEE"), vc("TABLE_CATALOG"), vc("TABLE_SCHEMA"), vc("TABLE_NAME"), vc("PRIVILEGE_TYPE"), vc("IS_GRANTABLE")},
		rows: func(is *Virtual) [][]types.Datum { return is.privRows(catalog.LevelTable) }},
	"column_privileges":       {cols: []types.Column{vc("GRANTEE"), vc("TABLE_CATALOG"), vc("TABLE_SCHEMA"), vc("TABLE_NAME"), vc("COLUMN_NAME"), vc("PRIVILEGE_TYPE"), vc("IS_GRANTABLE")}},
	"partitions":              {cols: []types.Column{vc("TABLE_CATALOG"), vc("TABLE_SCHEMA"), vc("TABLE_NAME"), vc("PARTITION_NAME"), bc("TABLE_ROWS")}},
	"events":                  {cols: []types.Column{vc("EVENT_CATALOG"), vc("EVENT_SCHEMA"), vc("EVENT_NAME")}},
	"referential_constraints": {cols: []types.Column{vc("CONSTRAINT_CATALOG"), vc("CONSTRAINT_SCHEMA"), vc("CONSTRAINT_NAME"), vc("TABLE_NAME"), vc("REFERENCED_TABLE_NAME")}},
}

// isNames lists isTables' keys, sorted; filled by init because the
// "tables" relation lists them and so cannot refer to isTables itself.
var isNames []string

func init() {
	for k := range isTables {
		isNames = append(isNames, k)
	}
	sort.Strings(isNames)
}

func infoSchemaTables() []string { return isNames }

// VirtualTable implements bind.Virtual.
func (is *Virtual) VirtualTable(db, table string) ([]types.Column, [][]types.Datum, bool, error) {
	if !strings.EqualFold(db, "information_schema") {
		return nil, nil, false, nil
	}
	t, ok := isTables[strings.ToLower(table)]
	if !ok {
		return nil, nil, false, nil
	}
	var rows [][]types.Datum
	if t.rows != nil {
		rows = t.rows(is)
	}
	if strings.EqualFold(table, "processlist") {
		rows = is.processRows()
	}
	return t.cols, rows, true, nil
}

func (is *Virtual) processRows() [][]types.Datum {
	var out [][]types.Datum
	for _, x := range is.sh.cfg.Processes(is.sess.User(), is.sess.Access().Global(catalog.WantAdmin)) {
		out = append(out, []types.Datum{num(x.ID), str(x.User), str(x.Host), str(x.DB), str(x.Command), num(0), str(""), str(x.Info)})
	}
	return out
}

// eachTable calls fn for every table the session may see.
func (is *Virtual) eachTable(fn func(db string, t *catalog.Table)) {
	a := is.sess.Access()
	for _, d := range is.sh.cat.Databases() {
		ts, err := is.sh.cat.Tables(d.Name)
		if err != nil {
			continue
		}
		for _, t := range ts {
			if a.SeesTable(d.Name, t.Name) {
				fn(d.Name, t)
			}
		}
	}
}

// columnRow is table's column c (ordinal i) as a COLUMNS row.
func columnRow(db, table string, i int, c catalog.Column, key string) []types.Datum {
	null := types.NullDatum(types.StringT)
	nullI := types.NullDatum(types.BigIntT)
	def := null
	if c.Default != nil {
		def = str(*c.Default)
	}
	nullable := "YES"
	if !c.Nullable {
		nullable = "NO"
	}
	charLen, octLen, prec, scale, dtPrec := nullI, nullI, nullI, nullI, nullI
	cs, coll := null, null
	switch {
	case c.Type.IsString():
		l := int64(c.Type.Length)
		if c.Type.Kind == types.String {
			l = 2147483643
		}
		charLen, octLen = num(l), num(l*4)
		cs, coll = str("utf8mb4"), str("utf8mb4_0900_bin")
	case c.Type.Kind == types.Decimal:
		prec, scale = num(int64(c.Type.Precision)), num(int64(c.Type.Scale))
	case c.Type.IsInteger():
		prec, scale = num(int64(map[types.Kind]int{types.TinyInt: 3, types.SmallInt: 5, types.Int: 10, types.BigInt: 19, types.LargeInt: 39}[c.Type.Kind])), num(0)
	case c.Type.Kind == types.DateTime:
		dtPrec = num(int64(c.Type.Scale))
	}
	return []types.Datum{str("def"), str(db), str(table), str(c.Name), num(int64(i + 1)), def, str(nullable),
		str(dataType(c.Type)), charLen, octLen, prec, scale, dtPrec, cs, coll, str(c.Type.Lower()), str(key), str(""),
		str("select,insert,update,references"), str(c.Comment)}
}

// eachView calls fn for every view the session may see.
func (is *Virtual) eachView(fn func(db string, v *catalog.View)) {
	a := is.sess.Access()
	for _, d := range is.sh.cat.Databases() {
		vs, err := is.sh.cat.Views(d.Name)
		if err != nil {
			continue
		}
		for _, v := range vs {
			if a.SeesTable(d.Name, v.Name) {
				fn(d.Name, v)
			}
		}
	}
}

// dataType is information_schema's DATA_TYPE (lower-case, no length).
func dataType(t types.T) string {
	switch t.Kind {
	case types.Varchar:
		return "varchar"
	case types.Char:
		return "char"
	case types.String:
		return "text"
	case types.Decimal:
		return "decimal"
	}
	return strings.ToLower(t.Kind.String())
}

// mysqlPrivs are the Doris privileges information_schema lists, under
// MySQL's names, in Doris's order (fe-core Privilege.privInDorisToMysql:
// NODE_PRIV, ADMIN_PRIV and GRANT_PRIV have no MySQL name).
var mysqlPrivs = []struct {
	p    catalog.Priv
	name string
}{{catalog.SelectPriv, "SELECT"}, {catalog.LoadPriv, "INSERT"}, {catalog.AlterPriv, "ALTER"},
	{catalog.CreatePriv, "CREATE"}, {catalog.DropPriv, "DROP"}, {catalog.UsagePriv, "USAGE"}}

// privRows are USER_PRIVILEGES (LevelGlobal), SCHEMA_PRIVILEGES (LevelDB)
// or TABLE_PRIVILEGES (LevelTable), built as Doris's
// Auth.get{Global,Schema,Table}PrivStatus: one row per account and
// privilege at that level, the account's roles merged in; IS_GRANTABLE is
// whether the same grant holds GRANT_PRIV; a global ADMIN_PRIV is every
// privilege, grantable; grants on information_schema are left out. Doris
// shows every account's grants on the objects the caller may see; here, as
// in MySQL, a caller that may not list other accounts' grants (SHOW ALL
// GRANTS: ADMIN_PRIV or GRANT_PRIV on *.*) sees only its own rows — which
// are all on objects it sees, since a listed privilege shows its object.
func (is *Virtual) privRows(level catalog.Level) [][]types.Datum {
	cat := is.sh.cat
	all := is.sess.Access().Global(catalog.WantGrant)
	user, host := is.sess.Account()
	var out [][]types.Datum
	for _, u := range cat.Users() {
		if !all && (u.Name != user || u.Host != host) {
			continue
		}
		grantee := str(fmt.Sprintf("'%s'@'%s'", u.Name, u.Host))
		add := func(p catalog.Priv, names ...string) {
			grantable := "NO"
			if p&catalog.GrantPriv != 0 {
				grantable = "YES"
			}
			if level == catalog.LevelGlobal && p&catalog.AdminPriv != 0 {
				p, grantable = catalog.AllPriv|catalog.UsagePriv, "YES"
			}
			for _, m := range mysqlPrivs {
				if p&m.p == 0 {
					continue
				}
				row := []types.Datum{grantee, str("def")}
				for _, n := range names {
					row = append(row, str(n))
				}
				out = append(out, append(row, str(m.name), str(grantable)))
			}
		}
		privs := cat.Access(u.Name, u.Host).Privs
		switch level {
		case catalog.LevelGlobal:
			add(privs.Global)
		case catalog.LevelDB:
			for _, db := range sortedNames(privs.DBs) {
				if !strings.EqualFold(db, "information_schema") {
					add(privs.DBs[db], db)
				}
			}
		case catalog.LevelTable:
			for _, db := range sortedNames(privs.Tables) {
				for _, t := range sortedNames(privs.Tables[db]) {
					if !strings.EqualFold(db, "information_schema") {
						add(privs.Tables[db][t], db, t)
					}
				}
			}
		}
	}
	return out
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
