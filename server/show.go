package server

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// likeMatcher compiles a SQL LIKE pattern (case-insensitive, as MySQL's
// default collations compare names).
func likeMatcher(pattern string) func(string) bool {
	if pattern == "" {
		return func(string) bool { return true }
	}
	var sb strings.Builder
	sb.WriteString("(?is)^")
	esc := false
	for _, r := range pattern {
		switch {
		case esc:
			sb.WriteString(regexp.QuoteMeta(string(r)))
			esc = false
		case r == '\\':
			esc = true
		case r == '%':
			sb.WriteString(".*")
		case r == '_':
			sb.WriteString(".")
		default:
			sb.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	sb.WriteString("$")
	re := regexp.MustCompile(sb.String())
	return re.MatchString
}

func (s *Session) show(ctx context.Context, n *parser.Show, w wire.ResultWriter) error {
	match := likeMatcher(n.Like)
	switch strings.ToLower(n.Type) {
	case "databases", "schemas":
		var rows [][]types.Datum
		for _, name := range s.databaseNames() {
			if match(name) {
				rows = append(rows, []types.Datum{str(name)})
			}
		}
		return writeTable(w, []wire.Column{strCol("Database")}, rows)
	case "tables":
		db, err := s.dbName(n.FromDB)
		if err != nil {
			return err
		}
		names, views, err := s.tableNames(db)
		if err != nil {
			return err
		}
		cols := []wire.Column{strCol("Tables_in_" + db)}
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
		return writeTable(w, cols, rows)
	case "variables":
		global := strings.EqualFold(n.Scope, "global")
		var rows [][]types.Datum
		for _, name := range sortedVarNames() {
			if !match(name) {
				continue
			}
			val := s.vars.get(name)
			if global {
				val, _ = s.srv.globals.get(name)
			}
			rows = append(rows, []types.Datum{str(name), str(val)})
		}
		if n.Where != nil {
			rows = filterVarRows(n.Where, rows)
		}
		return writeTable(w, []wire.Column{strCol("Variable_name"), strCol("Value")}, rows)
	case "create table":
		return s.showCreateTable(n.Table.DB, n.Table.Name, w)
	case "create database":
		if _, err := s.srv.cat.Database(n.Database); err != nil {
			return err
		}
		return writeTable(w, []wire.Column{strCol("Database"), strCol("Create Database")},
			[][]types.Datum{{str(n.Database), str(fmt.Sprintf("CREATE DATABASE `%s`", n.Database))}})
	case "columns", "fields":
		db := n.Table.DB
		if n.FromDB != "" {
			db = n.FromDB
		}
		return s.describe(db, n.Table.Name, n.Full, w)
	case "processlist":
		return s.showProcessList(ctx, w)
	case "table status":
		db, err := s.dbName(n.Database)
		if err != nil {
			return err
		}
		return s.showTableStatus(ctx, db, match, w)
	case "warnings", "errors":
		return s.showDiagnostics(n.Type == "errors", w)
	case "status":
		return writeTable(w, []wire.Column{strCol("Variable_name"), strCol("Value")}, [][]types.Datum{
			{str("Threads_connected"), str(fmt.Sprint(s.srv.wire.ConnCount()))},
			{str("Uptime"), str(fmt.Sprint(int64(time.Since(s.srv.start).Seconds())))},
		})
	case "engines":
		return writeTable(w, []wire.Column{strCol("Engine"), strCol("Support"), strCol("Comment"), strCol("Transactions"), strCol("XA"), strCol("Savepoints")},
			[][]types.Datum{{str("Olap engine"), str("DEFAULT"), str("Default storage engine of dorisgo"), str("YES"), str("NO"), str("NO")}})
	case "collation":
		return writeTable(w, []wire.Column{strCol("Collation"), strCol("Charset"), intCol("Id"), strCol("Default"), strCol("Compiled"), intCol("Sortlen")},
			[][]types.Datum{{str("utf8mb4_0900_bin"), str("utf8mb4"), num(309), str("Yes"), str("Yes"), num(1)}})
	case "charset", "character set":
		return writeTable(w, []wire.Column{strCol("Charset"), strCol("Description"), strCol("Default collation"), intCol("Maxlen")},
			[][]types.Datum{{str("utf8mb4"), str("UTF-8 Unicode"), str("utf8mb4_0900_bin"), num(4)}})
	case "index", "indexes", "keys":
		return writeTable(w, []wire.Column{strCol("Table"), intCol("Non_unique"), strCol("Key_name"), intCol("Seq_in_index"), strCol("Column_name")}, nil)
	}
	return sqlerr.NotSupportedYet.New("SHOW " + strings.ToUpper(n.Type))
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
			keep = likeMatcher(want)(v)
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
func (s *Session) databaseNames() []string {
	a := s.access()
	names := []string{"information_schema"}
	for _, d := range s.srv.cat.Databases() {
		if a.SeesDB(d.Name) {
			names = append(names, d.Name)
		}
	}
	sort.Strings(names)
	return names
}

// tableNames lists the tables and views of db the session may see, sorted;
// views says which names are views.
func (s *Session) tableNames(db string) (names []string, views map[string]bool, err error) {
	if strings.EqualFold(db, "information_schema") {
		return infoSchemaTables(), nil, nil
	}
	ts, err := s.srv.cat.Tables(db)
	if err != nil {
		return nil, nil, err
	}
	vs, err := s.srv.cat.Views(db)
	if err != nil {
		return nil, nil, err
	}
	a := s.access()
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

func (s *Session) table(db, name string) (string, *catalog.Table, error) {
	db, err := s.dbName(db)
	if err != nil {
		return "", nil, err
	}
	t, err := s.srv.cat.Table(db, name)
	return db, t, err
}

func (s *Session) describe(db, name string, full bool, w wire.ResultWriter) error {
	db, t, err := s.table(db, name)
	if err != nil {
		if v, verr := s.srv.cat.View(db, name); verr == nil {
			return s.describeView(db, v, w)
		}
		return err
	}
	cols := []wire.Column{strCol("Field"), strCol("Type"), strCol("Null"), strCol("Key"), strCol("Default"), strCol("Extra")}
	var rows [][]types.Datum
	shown := t.VisibleColumns()
	if s.showHidden() {
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
	return writeTable(w, cols, rows)
}

// visibleSessions are the connections the session may see in SHOW
// PROCESSLIST: its user's own (by user name, as Doris), or all with
// ADMIN_PRIV.
func (s *Session) visibleSessions() []*Session {
	return s.srv.sessionsVisibleTo(s.info.User, s.access().Global(catalog.WantAdmin))
}

func (s *Session) showProcessList(ctx context.Context, w wire.ResultWriter) error {
	cols := []wire.Column{intCol("Id"), strCol("User"), strCol("Host"), strCol("db"), strCol("Command"), intCol("Time"), strCol("State"), strCol("Info")}
	// show_all_fe_connection: every frontend's, each named (a frontend of
	// its own is the only one, named as in SHOW FRONTENDS).
	all := s.vars.get("show_all_fe_connection") == "true"
	admin := s.access().Global(catalog.WantAdmin)
	procs := s.srv.processRows(s.info.User, admin)
	if all {
		cols = append(cols, strCol("FE"))
		for i := range procs {
			procs[i].FE = s.srv.feName()
		}
	}
	if all && s.srv.ha != nil {
		more, err := s.srv.peerProcessRows(ctx, s.info.User, admin)
		if err != nil {
			return err
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
	return writeTable(w, cols, rows)
}

func (s *Session) showTableStatus(ctx context.Context, db string, match func(string) bool, w wire.ResultWriter) error {
	ts, err := s.srv.cat.Tables(db)
	if err != nil {
		return err
	}
	a := s.access()
	cols := []wire.Column{strCol("Name"), strCol("Engine"), intCol("Version"), strCol("Row_format"), intCol("Rows"),
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
	stats := s.srv.coord.TableStats(ctx, shown...)
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
	vs, err := s.srv.cat.Views(db)
	if err != nil {
		return err
	}
	nullI := types.NullDatum(types.BigIntT)
	for _, v := range vs {
		if match(v.Name) && a.SeesTable(db, v.Name) {
			rows = append(rows, []types.Datum{str(v.Name), null, nullI, null, nullI, nullI, nullI, nullI, nullI, nullI,
				nullI, null, null, null, null, null, null, str("VIEW")})
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i][0].S < rows[j][0].S })
	return writeTable(w, cols, rows)
}

func (s *Session) showBackends(w wire.ResultWriter) error {
	names := []string{"BackendId", "Host", "HeartbeatPort", "BePort", "HttpPort", "BrpcPort", "ArrowFlightSqlPort",
		"LastStartTime", "LastHeartbeat", "Alive", "SystemDecommissioned", "TabletNum", "DataUsedCapacity",
		"TrashUsedCapacity", "AvailCapacity", "TotalCapacity", "UsedPct", "MaxDiskUsedPct", "RemoteUsedCapacity",
		"Tag", "ErrMsg", "Version", "Status", "HeartbeatFailureCounter", "NodeRole"}
	cols := make([]wire.Column, len(names))
	for i, n := range names {
		cols[i] = strCol(n)
	}
	tablets := map[catalog.BackendID]int{}
	for _, db := range s.srv.cat.Databases() {
		ts, _ := s.srv.cat.Tables(db.Name)
		for _, t := range ts {
			for _, p := range t.Partitions {
				for _, tb := range p.Tablets {
					for _, r := range tb.Replicas {
						tablets[r.BackendID]++
					}
				}
			}
		}
	}
	fmtTime := func(t time.Time) string {
		if t.IsZero() {
			return "NULL"
		}
		return t.Format("2006-01-02 15:04:05")
	}
	var rows [][]types.Datum
	pct := func(used, total int64) string {
		if total <= 0 {
			return "0.00 %"
		}
		return fmt.Sprintf("%.2f %%", 100*float64(used)/float64(total))
	}
	for _, b := range s.srv.cat.Backends() {
		port := fmt.Sprint(b.Port)
		used := pct(b.DiskTotal-b.DiskAvail, b.DiskTotal)
		rows = append(rows, []types.Datum{str(fmt.Sprint(b.ID)), str(b.Host), str(port), str(port), str("-1"), str(port), str(port),
			str(fmtTime(b.LastStartTime)), str(fmtTime(b.LastHeartbeat)), str(fmt.Sprint(b.Alive)), str(fmt.Sprint(b.Decommissioned)),
			str(fmt.Sprint(tablets[b.ID])), str(showBytes(b.DataUsed)), str(showBytes(0)), str(showBytes(b.DiskAvail)),
			str(showBytes(b.DiskTotal)), str(used), str(used), str(showBytes(0)), str(`{"location" : "default"}`), str(b.ErrMsg),
			str("dorisgo"), str(`{"lastSuccessReportTabletsTime":"N/A"}`), str(fmt.Sprint(b.HeartbeatFailures)), str("mix")})
	}
	return writeTable(w, cols, rows)
}

func (s *Session) showTablets(ctx context.Context, st *parser.ShowTablets, w wire.ResultWriter) error {
	_, t, err := s.table(st.DB, st.Table)
	if err != nil {
		return err
	}
	stats := s.srv.coord.TableStats(ctx, t)
	names := []string{"TabletId", "ReplicaId", "BackendId", "SchemaHash", "Version", "LstSuccessVersion", "LstFailedVersion",
		"LstFailedTime", "LocalDataSize", "RemoteDataSize", "RowCount", "State", "LstConsistencyCheckTime", "CheckVersion",
		"VersionCount", "QueryHits", "PathHash", "MetaUrl", "CompactionStatus", "CooldownReplicaId", "CooldownMetaId"}
	cols := make([]wire.Column, len(names))
	for i, n := range names {
		cols[i] = strCol(n)
	}
	var rows [][]types.Datum
	for _, p := range t.Partitions {
		for _, tb := range p.Tablets {
			for _, r := range tb.Replicas {
				v, failed := fmt.Sprint(p.VisibleVersion), "-1"
				if !r.Healthy() { // lagging: the versions it has and the first it lacks
					v, failed = fmt.Sprint(r.Version), fmt.Sprint(r.LastFailedVersion)
				}
				// What the replica's backend reports; -1 when it did not answer.
				size, rowsN, versions := "-1", "-1", "-1"
				if st, ok := stats[tb.ID][r.BackendID]; ok {
					size, rowsN, versions = fmt.Sprint(st.Bytes), fmt.Sprint(st.Rows), fmt.Sprint(st.Rowsets)
				}
				rows = append(rows, []types.Datum{str(fmt.Sprint(tb.ID)), str(fmt.Sprint(r.ID)), str(fmt.Sprint(r.BackendID)),
					str("0"), str(v), str(v), str(failed), str("NULL"), str(size), str("0"), str(rowsN), str("NORMAL"),
					str("NULL"), str("-1"), str(versions), str("0"), str("0"), str("url"), str("url"), str("-1"), str("")})
			}
		}
	}
	return writeTable(w, cols, rows)
}

func (s *Session) showPartitions(ctx context.Context, st *parser.ShowPartitions, w wire.ResultWriter) error {
	_, t, err := s.table(st.DB, st.Table)
	if err != nil {
		return err
	}
	stats := s.srv.coord.TableStats(ctx, t)
	names := []string{"PartitionId", "PartitionName", "VisibleVersion", "VisibleVersionTime", "State", "PartitionKey",
		"Range", "DistributionKey", "Buckets", "ReplicationNum", "StorageMedium", "CooldownTime", "RemoteStoragePolicy",
		"LastConsistencyCheckTime", "DataSize", "IsInMemory", "ReplicaAllocation", "IsMutable", "SyncWithBaseTables", "UnsyncTables"}
	cols := make([]wire.Column, len(names))
	for i, n := range names {
		cols[i] = strCol(n)
	}
	distKey := "RANDOM"
	if t.Dist.Kind == catalog.DistHash {
		var ks []string
		for _, c := range t.Dist.Columns {
			ks = append(ks, t.Columns[c].Name)
		}
		distKey = strings.Join(ks, ", ")
	}
	partKey := ""
	if t.PartKind != catalog.PartNone {
		partKey = t.Columns[t.PartColumn].Name
	}
	var rows [][]types.Datum
	for _, p := range t.Partitions {
		var size int64 // one copy of the data: each tablet's fullest replica
		for _, tb := range p.Tablets {
			size += stats.TabletBytes(tb.ID)
		}
		rows = append(rows, []types.Datum{str(fmt.Sprint(p.ID)), str(p.Name), str(fmt.Sprint(p.VisibleVersion)), str("NULL"),
			str("NORMAL"), str(partKey), str(partitionRange(t, p)), str(distKey), str(fmt.Sprint(t.Dist.Buckets)),
			str(fmt.Sprint(t.ReplicationNum)), str("HDD"), str("9999-12-31 23:59:59"), str(""), str("NULL"),
			str(showBytes(size)), str("false"), str(fmt.Sprintf("tag.location.default: %d", t.ReplicationNum)),
			str("true"), str("true"), str("")})
	}
	return writeTable(w, cols, rows)
}

func partitionRange(t *catalog.Table, p *catalog.Partition) string {
	switch t.PartKind {
	case catalog.PartRange:
		lo, hi := "MIN_VALUE", "MAX_VALUE"
		if p.Lower != nil {
			lo = p.Lower.String()
		}
		if p.Upper != nil {
			hi = p.Upper.String()
		}
		return fmt.Sprintf("[%s, %s)", lo, hi)
	case catalog.PartList:
		var vs []string
		for _, v := range p.Values {
			vs = append(vs, v.String())
		}
		return "(" + strings.Join(vs, ", ") + ")"
	}
	return ""
}

func (s *Session) showProc(ctx context.Context, st *parser.ShowProc, w wire.ResultWriter) error {
	path := strings.TrimRight(st.Path, "/")
	const cg = "/colocation_group"
	switch {
	case path == "/frontends":
		return s.showFrontends(ctx, w)
	case path == cg:
		cols := []wire.Column{strCol("GroupId"), strCol("GroupName"), strCol("TableIds"), strCol("BucketsNum"),
			strCol("ReplicaAllocation"), strCol("DistCols"), strCol("IsStable"), strCol("ErrorMsg")}
		var rows [][]types.Datum
		for _, g := range s.srv.cat.Groups() {
			var ids, dist []string
			for _, t := range g.Tables {
				ids = append(ids, fmt.Sprint(t))
			}
			for _, t := range g.DistTypes {
				dist = append(dist, t.String())
			}
			name := g.Name
			if g.DBID != 0 {
				name = fmt.Sprintf("%d_%s", g.DBID, g.Name)
			}
			rows = append(rows, []types.Datum{str(fmt.Sprintf("%d.%d", g.DBID, g.ID)), str(name), str(strings.Join(ids, ", ")),
				str(fmt.Sprint(g.BucketNum)), str(fmt.Sprintf("tag.location.default: %d", g.ReplicaNum)),
				str("[" + strings.Join(dist, ", ") + "]"), str(fmt.Sprint(!s.groupUnstable(g))), str(g.ErrMsg)})
		}
		return writeTable(w, cols, rows)
	case strings.HasPrefix(path, cg+"/"):
		id := strings.TrimPrefix(path, cg+"/")
		for _, g := range s.srv.cat.Groups() {
			if fmt.Sprintf("%d.%d", g.DBID, g.ID) != id {
				continue
			}
			var rows [][]types.Datum
			for i, seq := range g.BucketSeq {
				var bs []string
				for _, b := range seq {
					bs = append(bs, fmt.Sprint(b))
				}
				rows = append(rows, []types.Datum{str(fmt.Sprint(i)), str(strings.Join(bs, ", "))})
			}
			return writeTable(w, []wire.Column{strCol("BucketIndex"), strCol("BackendIds")}, rows)
		}
		return sqlerr.Doris.New("Invalid group id: " + id)
	case path == "/backends":
		return s.showBackends(w)
	case path == "/cluster_health/tablet_health":
		return s.showTabletHealth(w)
	case path == "/cluster_balance":
		return s.showClusterBalance(w)
	case strings.HasPrefix(path, "/cluster_balance/cluster_load_stat"):
		return s.showClusterLoadStat(w)
	}
	return sqlerr.Doris.New("Proc path '" + st.Path + "' doesn't exist")
}

// groupUnstable reports whether a colocate group is being repaired: marked
// so by an admin, or one of its bucket backends is dead or gone.
func (s *Session) groupUnstable(g *catalog.ColocateGroup) bool {
	if g.Unstable {
		return true
	}
	for _, seq := range g.BucketSeq {
		for _, id := range seq {
			b, ok := s.srv.cat.Backend(id)
			if !ok || !b.Alive {
				return true
			}
		}
	}
	return false
}
