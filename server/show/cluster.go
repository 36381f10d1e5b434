package show

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Backends is SHOW BACKENDS (and SHOW PROC '/backends').
func (sh *Shows) Backends() (*Result, error) {
	cols := strCols([]string{"BackendId", "Host", "HeartbeatPort", "BePort", "HttpPort", "BrpcPort", "ArrowFlightSqlPort",
		"LastStartTime", "LastHeartbeat", "Alive", "SystemDecommissioned", "TabletNum", "DataUsedCapacity",
		"TrashUsedCapacity", "AvailCapacity", "TotalCapacity", "UsedPct", "MaxDiskUsedPct", "RemoteUsedCapacity",
		"Tag", "ErrMsg", "Version", "Status", "HeartbeatFailureCounter", "NodeRole"})
	tablets := map[catalog.BackendID]int{}
	for _, db := range sh.cat.Databases() {
		ts, _ := sh.cat.Tables(db.Name)
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
	for _, b := range sh.cat.Backends() {
		port := fmt.Sprint(b.Port)
		used := pct(b.DiskTotal-b.DiskAvail, b.DiskTotal)
		rows = append(rows, []types.Datum{str(fmt.Sprint(b.ID)), str(b.Host), str(port), str(port), str("-1"), str(port), str(port),
			str(fmtTime(b.LastStartTime)), str(fmtTime(b.LastHeartbeat)), str(fmt.Sprint(b.Alive)), str(fmt.Sprint(b.Decommissioned)),
			str(fmt.Sprint(tablets[b.ID])), str(Bytes(b.DataUsed)), str(Bytes(0)), str(Bytes(b.DiskAvail)),
			str(Bytes(b.DiskTotal)), str(used), str(used), str(Bytes(0)), str(`{"location" : "default"}`), str(b.ErrMsg),
			str("dorisgo"), str(`{"lastSuccessReportTabletsTime":"N/A"}`), str(fmt.Sprint(b.HeartbeatFailures)), str("mix")})
	}
	return table(cols, rows)
}

// Tablets is SHOW TABLETS FROM t: one row per replica.
func (sh *Shows) Tablets(ctx context.Context, s Session, st *parser.ShowTablets) (*Result, error) {
	_, t, err := sh.table(s, st.DB, st.Table)
	if err != nil {
		return nil, err
	}
	stats := sh.cfg.TableStats(ctx, t)
	cols := strCols([]string{"TabletId", "ReplicaId", "BackendId", "SchemaHash", "Version", "LstSuccessVersion", "LstFailedVersion",
		"LstFailedTime", "LocalDataSize", "RemoteDataSize", "RowCount", "State", "LstConsistencyCheckTime", "CheckVersion",
		"VersionCount", "QueryHits", "PathHash", "MetaUrl", "CompactionStatus", "CooldownReplicaId", "CooldownMetaId"})
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
	return table(cols, rows)
}

// Partitions is SHOW PARTITIONS FROM t.
func (sh *Shows) Partitions(ctx context.Context, s Session, st *parser.ShowPartitions) (*Result, error) {
	_, t, err := sh.table(s, st.DB, st.Table)
	if err != nil {
		return nil, err
	}
	stats := sh.cfg.TableStats(ctx, t)
	cols := strCols([]string{"PartitionId", "PartitionName", "VisibleVersion", "VisibleVersionTime", "State", "PartitionKey",
		"Range", "DistributionKey", "Buckets", "ReplicationNum", "StorageMedium", "CooldownTime", "RemoteStoragePolicy",
		"LastConsistencyCheckTime", "DataSize", "IsInMemory", "ReplicaAllocation", "IsMutable", "SyncWithBaseTables", "UnsyncTables"})
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
			str("NORMAL"), str(partKey), str(PartitionRange(t, p)), str(distKey), str(fmt.Sprint(t.Dist.Buckets)),
			str(fmt.Sprint(t.ReplicationNum)), str("HDD"), str("9999-12-31 23:59:59"), str(""), str("NULL"),
			str(Bytes(size)), str("false"), str(fmt.Sprintf("tag.location.default: %d", t.ReplicationNum)),
			str("true"), str("true"), str("")})
	}
	return table(cols, rows)
}

// PartitionRange is a partition's Range as SHOW PARTITIONS writes it.
func PartitionRange(t *catalog.Table, p *catalog.Partition) string {
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

// ColocationGroups is SHOW PROC '/colocation_group'.
func (sh *Shows) ColocationGroups() (*Result, error) {
	cols := []types.Column{strCol("GroupId"), strCol("GroupName"), strCol("TableIds"), strCol("BucketsNum"),
		strCol("ReplicaAllocation"), strCol("DistCols"), strCol("IsStable"), strCol("ErrorMsg")}
	var rows [][]types.Datum
	for _, g := range sh.cat.Groups() {
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
			str("[" + strings.Join(dist, ", ") + "]"), str(fmt.Sprint(!GroupUnstable(sh.cat, g))), str(g.ErrMsg)})
	}
	return table(cols, rows)
}

// ColocationGroup is SHOW PROC '/colocation_group/<DBID.ID>': the group's
// backends per bucket.
func (sh *Shows) ColocationGroup(id string) (*Result, error) {
	for _, g := range sh.cat.Groups() {
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
		return table([]types.Column{strCol("BucketIndex"), strCol("BackendIds")}, rows)
	}
	return nil, sqlerr.Doris.New("Invalid group id: " + id)
}

// GroupUnstable reports whether a colocate group is being repaired: marked
// so by an admin, or one of its bucket backends is dead or gone.
func GroupUnstable(cat *catalog.Catalog, g *catalog.ColocateGroup) bool {
	if g.Unstable {
		return true
	}
	for _, seq := range g.BucketSeq {
		for _, id := range seq {
			b, ok := cat.Backend(id)
			if !ok || !b.Alive {
				return true
			}
		}
	}
	return false
}
