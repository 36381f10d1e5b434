package show

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// Show answers the SHOW forms the parser leaves as *parser.Show, but SHOW
// WARNINGS and SHOW ERRORS (the session's diagnostics, the server's).
func (sh *Shows) Show(ctx context.Context, s Session, n *parser.Show) (*Result, error) {
	match := Like(n.Like)
	switch strings.ToLower(n.Type) {
	case "databases", "schemas":
		var rows [][]types.Datum
		for _, name := range sh.databaseNames(s) {
			if match(name) {
				rows = append(rows, []types.Datum{str(name)})
			}
		}
		return table([]types.Column{strCol("Database")}, rows)
	case "tables":
		db, err := dbName(s, n.FromDB)
		if err != nil {
			return nil, err
		}
		names, views, err := sh.tableNames(s, db)
		if err != nil {
			return nil, err
		}
		cols := []types.Column{strCol("Tables_in_" + db)}
		if n.Full {
			cols = append(cols, strCol("Table_type"))
		}
		var rows [][]types.Datum
		for _, t := range names {
			if !match(t) {
				continue
			}
			r := []types.Datum{str(t)}
			if n.Full && views[t] {
				r = append(r, str("VIEW"))
			} else if n.Full {
				r = append(r, str("BASE TABLE"))
			}
			rows = append(rows, r)
		}
		return table(cols, rows)
	case "variables":
		global := strings.EqualFold(n.Scope, "global")
		var rows [][]types.Datum
		for _, name := range sh.cfg.VarNames() {
			if !match(name) {
				continue
			}
			val := s.Var(name)
			if global {
				val = sh.cfg.GlobalVar(name)
			}
			rows = append(rows, []types.Datum{str(name), str(val)})
		}
		if n.Where != nil {
			rows = filterVarRows(n.Where, rows)
		}
		return table([]types.Column{strCol("Variable_name"), strCol("Value")}, rows)
	case "create table":
		return sh.CreateTable(s, n.Table.DB, n.Table.Name)
	case "create database":
		if _, err := sh.cat.Database(n.Database); err != nil {
			return nil, err
		}
		return table([]types.Column{strCol("Database"), strCol("Create Database")},
			[][]types.Datum{{str(n.Database), str(fmt.Sprintf("CREATE DATABASE `%s`", n.Database))}})
	case "columns", "fields":
		db := n.Table.DB
		if n.FromDB != "" {
			db = n.FromDB
		}
		return sh.describe(s, db, n.Table.Name)
	case "processlist":
		return sh.processList(ctx, s)
	case "table status":
		db, err := dbName(s, n.Database)
		if err != nil {
			return nil, err
		}
		return sh.tableStatus(ctx, s, db, match)
	case "status":
		return table([]types.Column{strCol("Variable_name"), strCol("Value")}, [][]types.Datum{
			{str("Threads_connected"), str(fmt.Sprint(sh.cfg.Connections()))},
			{str("Uptime"), str(fmt.Sprint(int64(time.Since(sh.cfg.Started).Seconds())))},
		})
	case "engines":
		return table([]types.Column{strCol("Engine"), strCol("Support"), strCol("Comment"), strCol("Transactions"), strCol("XA"), strCol("Savepoints")},
			[][]types.Datum{{str("Olap engine"), str("DEFAULT"), str("Default storage engine of dorisgo"), str("YES"), str("NO"), str("NO")}})
	case "collation":
		return table([]types.Column{strCol("Collation"), strCol("Charset"), intCol("Id"), strCol("Default"), strCol("Compiled"), intCol("Sortlen")},
			[][]types.Datum{{str("utf8mb4_0900_bin"), str("utf8mb4"), num(309), str("Yes"), str("Yes"), num(1)}})
	case "charset", "character set":
		return table([]types.Column{strCol("Charset"), strCol("Description"), strCol("Default collation"), intCol("Maxlen")},
			[][]types.Datum{{str("utf8mb4"), str("UTF-8 Unicode"), str("utf8mb4_0900_bin"), num(4)}})
	case "index", "indexes", "keys":
		return table([]types.Column{strCol("Table"), intCol("Non_unique"), strCol("Key_name"), intCol("Seq_in_index"), strCol("Column_name")}, nil)
	}
	return nil, sqlerr.NotSupportedYet.New("SHOW " + strings.ToUpper(n.Type))
}

// filterVarRows applies SHOW VARIABLES WHERE variable_name = 'x' (the only
// form clients send).
func filterVarRows(f *parser.ShowWhere, rows [][]types.Datum) [][]types.Datum {
	idx := 0
	if strings.Contains(f.Column, "value") {
		idx = 1
	}
	want := f.Value
	var out [][]types.Datum
	for _, r := range rows {
		v := r[idx].S
		var keep bool
		switch f.Op {
		case "=":
			keep = strings.EqualFold(v, want)
		case "like":
			keep = Like(want)(v)
		default:
			keep = true
		}
		if keep {
			out = append(out, r)
		}
	}
	return out
}

// databaseNames lists the databases the session may see (SHOW DATABASES,
// information_schema.schemata).
func (sh *Shows) databaseNames(s Session) []string {
	a := s.Access()
	names := []string{"information_schema"}
	for _, d := range sh.cat.Databases() {
		if a.SeesDB(d.Name) {
			names = append(names, d.Name)
		}
	}
	sort.Strings(names)
	return names
}

// tableNames lists the tables and views of db the session may see, sorted;
// views says which names are views.
func (sh *Shows) tableNames(s Session, db string) (names []string, views map[string]bool, err error) {
	if strings.EqualFold(db, "information_schema") {
		return infoSchemaTables(), nil, nil
	}
	ts, err := sh.cat.Tables(db)
	if err != nil {
		return nil, nil, err
	}
	vs, err := sh.cat.Views(db)
	if err != nil {
		return nil, nil, err
	}
	a := s.Access()
	out := make([]string, 0, len(ts)+len(vs))
	for _, t := range ts {
		if a.SeesTable(db, t.Name) {
			out = append(out, t.Name)
		}
	}
	views = map[string]bool{}
	for _, v := range vs {
		if a.SeesTable(db, v.Name) {
			out = append(out, v.Name)
			views[v.Name] = true
		}
	}
	sort.Strings(out)
	return out, views, nil
}

var describeCols = []types.Column{strCol("Field"), strCol("Type"), strCol("Null"), strCol("Key"), strCol("Default"), strCol("Extra")}

// describe is SHOW COLUMNS and DESC: a table's columns (the hidden ones
// with show_hidden_columns), or a view's as its query binds now.
func (sh *Shows) describe(s Session, db, name string) (*Result, error) {
	db, t, err := sh.table(s, db, name)
	if err != nil {
		if v, verr := sh.cat.View(db, name); verr == nil {
			return sh.describeView(s, db, v)
		}
		return nil, err
	}
	var rows [][]types.Datum
	shown := t.VisibleColumns()
	if s.Var("show_hidden_columns") == "true" {
		shown = t.Columns
	}
	for _, c := range shown {
		null := "YES"
		if !c.Nullable {
			null = "NO"
		}
		key := "false"
		if c.IsKey {
			key = "true"
		}
		def := types.NullDatum(types.StringT)
		if c.Default != nil {
			def = str(*c.Default)
		}
		extra := ""
		if c.Agg != storage.AggNone {
			extra = c.Agg.String()
		}
		rows = append(rows, []types.Datum{str(c.Name), str(c.Type.String()), str(null), str(key), def, str(extra)})
	}
	return table(describeCols, rows)
}

// describeView is DESC of a view: its columns as its query binds now (a
// view whose tables changed under it is 1356 or the binder's error, as
// MySQL answers).
func (sh *Shows) describeView(s Session, db string, v *catalog.View) (*Result, error) {
	cols, err := s.ViewColumns(db, v)
	if err != nil {
		return nil, err
	}
	var rows [][]types.Datum
	for _, c := range cols {
		null := "YES"
		if !c.Nullable {
			null = "NO"
		}
		rows = append(rows, []types.Datum{str(c.Name), str(c.Type.String()), str(null), str("false"), types.NullDatum(types.StringT), str("")})
	}
	return table(describeCols, rows)
}

func (sh *Shows) processList(ctx context.Context, s Session) (*Result, error) {
	cols := []types.Column{intCol("Id"), strCol("User"), strCol("Host"), strCol("db"), strCol("Command"), intCol("Time"), strCol("State"), strCol("Info")}
	// show_all_fe_connection: every frontend's, each named (a frontend of
	// its own is the only one, named as in SHOW FRONTENDS).
	all := s.Var("show_all_fe_connection") == "true"
	admin := s.Access().Global(catalog.WantAdmin)
	user := s.User()
	procs := sh.cfg.Processes(user, admin)
	if all {
		cols = append(cols, strCol("FE"))
		for i := range procs {
			procs[i].FE = sh.cfg.FEName()
		}
		more, err := sh.cfg.PeerProcesses(ctx, user, admin)
		if err != nil {
			return nil, err
		}
		procs = append(procs, more...)
	}
	var rows [][]types.Datum
	for _, p := range procs {
		opt := func(v string) types.Datum {
			if v == "" {
				return types.NullDatum(types.StringT)
			}
			return str(v)
		}
		row := []types.Datum{num(p.ID), str(p.User), str(p.Host), opt(p.DB), str(p.Command), num(p.Time), str(""), opt(p.Info)}
		if all {
			row = append(row, str(p.FE))
		}
		rows = append(rows, row)
	}
	return table(cols, rows)
}

func (sh *Shows) tableStatus(ctx context.Context, s Session, db string, match func(string) bool) (*Result, error) {
	ts, err := sh.cat.Tables(db)
	if err != nil {
		return nil, err
	}
	a := s.Access()
	cols := []types.Column{strCol("Name"), strCol("Engine"), intCol("Version"), strCol("Row_format"), intCol("Rows"),
		intCol("Avg_row_length"), intCol("Data_length"), intCol("Max_data_length"), intCol("Index_length"), intCol("Data_free"),
		intCol("Auto_increment"), strCol("Create_time"), strCol("Update_time"), strCol("Check_time"), strCol("Collation"),
		strCol("Checksum"), strCol("Create_options"), strCol("Comment")}
	null := types.NullDatum(types.StringT)
	var rows [][]types.Datum
	var shown []*catalog.Table
	for _, t := range ts {
		if match(t.Name) && a.SeesTable(db, t.Name) {
			shown = append(shown, t)
		}
	}
	stats := sh.cfg.TableStats(ctx, shown...)
	for _, t := range shown {
		var rowsN, size int64
		for _, p := range t.Partitions {
			rowsN += p.RowCount
			for _, tb := range p.Tablets {
				size += stats.TabletBytes(tb.ID)
			}
		}
		avg := int64(0)
		if rowsN > 0 {
			avg = size / rowsN
		}
		rows = append(rows, []types.Datum{str(t.Name), str("Doris"), num(10), str("dynamic"), num(rowsN), num(avg), num(size),
			null, num(0), num(0), null, str(t.CreateTime.UTC().Format("2006-01-02 15:04:05")), null, null,
			str("utf8mb4_0900_bin"), null, str(""), str(t.Comment)})
	}
	// A view's row is NULL but for its name and the comment VIEW, as MySQL's.
	vs, err := sh.cat.Views(db)
	if err != nil {
		return nil, err
	}
	nullI := types.NullDatum(types.BigIntT)
	for _, v := range vs {
		if match(v.Name) && a.SeesTable(db, v.Name) {
			rows = append(rows, []types.Datum{str(v.Name), null, nullI, null, nullI, nullI, nullI, nullI, nullI, nullI,
				nullI, null, null, null, null, null, null, str("VIEW")})
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i][0].S < rows[j][0].S })
	return table(cols, rows)
}
