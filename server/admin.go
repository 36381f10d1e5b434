package server

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/coord"
	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// The ADMIN statements of replica management (Doris's
// AdminSetConfigStmt, AdminShowReplicaStatusStmt,
// AdminShowReplicaDistributionStmt, AdminRepairTableStmt). The parser
// keeps ADMIN statements as text; each is recognized here.
var (
	adminSetConfig = regexp.MustCompile(`(?is)^\s*ADMIN\s+SET\s+(?:ALL\s+)?FRONTENDS?\s+CONFIG\s*\((.*)\)\s*;?\s*$`)
	adminConfigKV  = regexp.MustCompile(`(?s)\s*["']([^"']+)["']\s*=\s*["']([^"']*)["']\s*(?:,|$)`)
	adminStatus    = regexp.MustCompile("(?is)^\\s*ADMIN\\s+SHOW\\s+REPLICA\\s+STATUS\\s+FROM\\s+([\\w.`]+)\\s*(?:PARTITIONS?\\s*\\(([^)]*)\\))?\\s*(?:WHERE\\s+STATUS\\s*(=|!=)\\s*[\"']([^\"']*)[\"'])?\\s*;?\\s*$")
	adminDist      = regexp.MustCompile("(?is)^\\s*ADMIN\\s+SHOW\\s+REPLICA\\s+DISTRIBUTION\\s+FROM\\s+([\\w.`]+)\\s*(?:PARTITIONS?\\s*\\(([^)]*)\\))?\\s*;?\\s*$")
	adminCheck     = regexp.MustCompile(`(?is)^\s*ADMIN\s+CHECK\s+TABLET\s*\(([\d\s,]+)\)\s*PROPERTIES\s*\(\s*["']type["']\s*=\s*["']consistency["']\s*\)\s*;?\s*$`)
	adminRepair    = regexp.MustCompile("(?is)^\\s*ADMIN\\s+(CANCEL\\s+)?REPAIR\\s+TABLE\\s+([\\w.`]+)\\s*;?\\s*$")
)

func (s *Session) admin(ctx context.Context, st *parser.Admin, w wire.ResultWriter) error {
	text := st.Text
	if m := adminSetConfig.FindStringSubmatch(text); m != nil {
		return s.adminSetConfig(m[1], w)
	}
	if m := adminStatus.FindStringSubmatch(text); m != nil {
		return s.adminReplicaStatus(m[1], m[2], m[3], m[4], w)
	}
	if m := adminDist.FindStringSubmatch(text); m != nil {
		return s.adminReplicaDistribution(m[1], m[2], w)
	}
	if m := adminCheck.FindStringSubmatch(text); m != nil {
		var ids []storage.TabletID
		for _, f := range strings.Split(m[1], ",") {
			n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
			if err != nil {
				return sqlerr.Doris.New("Invalid tablet id: " + f)
			}
			ids = append(ids, storage.TabletID(n))
		}
		if _, err := s.srv.coord.CheckTablets(ctx, ids); err != nil {
			return err
		}
		return w.WriteOK(wire.OK{})
	}
	if m := adminRepair.FindStringSubmatch(text); m != nil {
		t, err := s.adminTable(m[2])
		if err != nil {
			return err
		}
		s.srv.coord.RepairTable(t.ID, m[1] != "")
		return w.WriteOK(wire.OK{})
	}
	return sqlerr.NotSupportedYet.New(strings.Join(strings.Fields(text), " "))
}

func (s *Session) adminSetConfig(body string, w wire.ResultWriter) error {
	kvs := adminConfigKV.FindAllStringSubmatch(body, -1)
	if len(kvs) == 0 {
		return sqlerr.Doris.New("ADMIN SET FRONTEND CONFIG needs (\"key\" = \"value\")")
	}
	for _, kv := range kvs {
		switch strings.ToLower(kv[1]) {
		case "tablet_repair_delay_factor_second":
			n, err := strconv.ParseFloat(kv[2], 64)
			if err != nil || n < 0 {
				return sqlerr.Doris.New(fmt.Sprintf("Invalid value for tablet_repair_delay_factor_second: %s", kv[2]))
			}
			s.srv.coord.SetRepairDelay(time.Duration(n * float64(time.Second)))
		case "disable_balance":
			off, err := strconv.ParseBool(kv[2])
			if err != nil {
				return sqlerr.Doris.New(fmt.Sprintf("Invalid value for disable_balance: %s", kv[2]))
			}
			s.srv.coord.SetBalanceDisabled(off)
		case "enable_concurrent_update":
			on, err := strconv.ParseBool(kv[2])
			if err != nil {
				return sqlerr.Doris.New(fmt.Sprintf("Invalid value for enable_concurrent_update: %s", kv[2]))
			}
			s.srv.updates.concurrent.Store(on)
		case "balance_load_score_threshold":
			f, err := strconv.ParseFloat(kv[2], 64)
			if err != nil || f <= 0 || f >= 1 {
				return sqlerr.Doris.New(fmt.Sprintf("Invalid value for balance_load_score_threshold: %s (a fraction between 0 and 1)", kv[2]))
			}
			s.srv.coord.SetBalanceThreshold(f)
		default:
			// Doris has hundreds of configs; the others are not kept here.
			return sqlerr.NotSupportedYet.New("ADMIN SET FRONTEND CONFIG " + kv[1])
		}
	}
	return w.WriteOK(wire.OK{})
}

// adminTable resolves [db.]table against the session's database.
func (s *Session) adminTable(name string) (*catalog.Table, error) {
	name = strings.ReplaceAll(name, "`", "")
	db := s.DB()
	if i := strings.IndexByte(name, '.'); i >= 0 {
		db, name = name[:i], name[i+1:]
	}
	if db == "" {
		return nil, sqlerr.NoDB.New()
	}
	return s.srv.cat.Table(db, name)
}

// adminPartitions are the partitions named in list ("" = all of t's).
func adminPartitions(t *catalog.Table, list string) ([]*catalog.Partition, error) {
	if strings.TrimSpace(list) == "" {
		return t.Partitions, nil
	}
	var out []*catalog.Partition
	for _, n := range strings.Split(list, ",") {
		n = strings.Trim(strings.TrimSpace(n), "`")
		found := false
		for _, p := range t.Partitions {
			if strings.EqualFold(p.Name, n) {
				out, found = append(out, p), true
			}
		}
		if !found {
			return nil, sqlerr.Doris.New(fmt.Sprintf("Partition %s does not exist in table %s", n, t.Name))
		}
	}
	return out, nil
}

// replicaStatus is Doris's ReplicaStatus of one replica.
func (s *Session) replicaStatus(p *catalog.Partition, r catalog.Replica) string {
	b, ok := s.srv.cat.Backend(r.BackendID)
	switch {
	case !ok:
		return "MISSING"
	case !b.Alive:
		return "DEAD"
	case !r.Healthy():
		return "VERSION_ERROR"
	}
	return "OK"
}

func (s *Session) adminReplicaStatus(name, parts, op, want string, w wire.ResultWriter) error {
	t, err := s.adminTable(name)
	if err != nil {
		return err
	}
	ps, err := adminPartitions(t, parts)
	if err != nil {
		return err
	}
	names := []string{"TabletId", "ReplicaId", "BackendId", "Version", "LastFailedVersion", "LastSuccessVersion",
		"CommittedVersion", "SchemaHash", "VersionNum", "IsBad", "IsUserDrop", "State", "Status"}
	cols := make([]wire.Column, len(names))
	for i, n := range names {
		cols[i] = strCol(n)
	}
	var rows [][]types.Datum
	for _, p := range ps {
		for _, tb := range p.Tablets {
			for _, r := range tb.Replicas {
				status := s.replicaStatus(p, r)
				if op == "=" && !strings.EqualFold(status, want) || op == "!=" && strings.EqualFold(status, want) {
					continue
				}
				version, failed, success := p.VisibleVersion, int64(-1), p.VisibleVersion
				if !r.Healthy() {
					version, failed, success = r.Version, int64(r.LastFailedVersion), r.Version
				}
				rows = append(rows, []types.Datum{str(fmt.Sprint(tb.ID)), str(fmt.Sprint(r.ID)), str(fmt.Sprint(r.BackendID)),
					str(fmt.Sprint(version)), str(fmt.Sprint(failed)), str(fmt.Sprint(success)), str(fmt.Sprint(p.VisibleVersion)),
					str("0"), str(fmt.Sprint(version)), str("false"), str("false"), str("NORMAL"), str(status)})
			}
		}
	}
	return writeTable(w, cols, rows)
}

func (s *Session) adminReplicaDistribution(name, parts string, w wire.ResultWriter) error {
	t, err := s.adminTable(name)
	if err != nil {
		return err
	}
	ps, err := adminPartitions(t, parts)
	if err != nil {
		return err
	}
	num := map[catalog.BackendID]int{}
	size := map[catalog.BackendID]int64{}
	total, totalSize := 0, int64(0)
	for _, p := range ps {
		per := int64(0)
		if n := len(p.Tablets); n > 0 {
			per = p.DataSize / int64(n)
		}
		for _, tb := range p.Tablets {
			for _, r := range tb.Replicas {
				num[r.BackendID]++
				size[r.BackendID] += per
				total++
				totalSize += per
			}
		}
	}
	var ids []catalog.BackendID
	for _, b := range s.srv.cat.Backends() {
		ids = append(ids, b.ID)
	}
	for id := range num {
		if _, ok := s.srv.cat.Backend(id); !ok {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	cols := []wire.Column{strCol("BackendId"), strCol("ReplicaNum"), strCol("ReplicaSize"), strCol("NumGraph"),
		strCol("NumPercent"), strCol("SizeGraph"), strCol("SizePercent")}
	pct := func(a, b float64) float64 {
		if b == 0 {
			return 0
		}
		return 100 * a / b
	}
	var rows [][]types.Datum
	for _, id := range ids {
		np, sp := pct(float64(num[id]), float64(total)), pct(float64(size[id]), float64(totalSize))
		rows = append(rows, []types.Datum{str(fmt.Sprint(id)), str(fmt.Sprint(num[id])), str(fmt.Sprint(size[id])),
			str(">" + strings.Repeat("|", int(np/2))), str(fmt.Sprintf("%.2f %%", np)),
			str(">" + strings.Repeat("|", int(sp/2))), str(fmt.Sprintf("%.2f %%", sp))})
	}
	return writeTable(w, cols, rows)
}

// showTabletHealth is SHOW PROC '/cluster_health/tablet_health': per
// database, its tablets by health class, then a Total row.
func (s *Session) showTabletHealth(w wire.ResultWriter) error {
	names := []string{"DbId", "DbName", "TabletNum", "HealthyNum", "ReplicaMissingNum", "VersionIncompleteNum",
		"ReplicaRelocatingNum", "RedundantNum", "ReplicaMissingInClusterNum", "ReplicaMissingForTagNum", "ForceRedundantNum",
		"ColocateMismatchNum", "ColocateRedundantNum", "NeedFurtherRepairNum", "UnrecoverableNum",
		"ReplicaCompactionTooSlowNum", "InconsistentNum", "OversizeNum", "CloningNum"}
	cols := make([]wire.Column, len(names))
	for i, n := range names {
		cols[i] = strCol(n)
	}
	type counts struct{ tablets, healthy, missing, version, relocating, redundant, unrecoverable, inconsistent int }
	row := func(id, name string, c counts, cloning int) []types.Datum {
		v := []int{c.tablets, c.healthy, c.missing, c.version, c.relocating, c.redundant, 0, 0, 0, 0, 0, 0, c.unrecoverable, 0, c.inconsistent, 0, cloning}
		out := []types.Datum{str(id), str(name)}
		for _, x := range v {
			out = append(out, str(fmt.Sprint(x)))
		}
		return out
	}
	var rows [][]types.Datum
	var sum counts
	for _, d := range s.srv.cat.Databases() {
		ts, err := s.srv.cat.Tables(d.Name)
		if err != nil {
			continue
		}
		var c counts
		for _, t := range ts {
			for _, p := range t.Partitions {
				for _, tb := range p.Tablets {
					c.tablets++
					if s.srv.coord.Inconsistent(tb.ID) {
						c.inconsistent++
					}
					switch s.srv.coord.Classify(t, tb) {
					case coord.TabletHealthy:
						c.healthy++
					case coord.TabletReplicaMissing:
						c.missing++
					case coord.TabletVersionMissing:
						c.version++
					case coord.TabletReplicaRelocate:
						c.relocating++
					case coord.TabletRedundant:
						c.redundant++
					case coord.TabletUnrecoverable:
						c.unrecoverable++
					}
				}
			}
		}
		rows = append(rows, row(fmt.Sprint(d.ID), d.Name, c, 0))
		sum.tablets += c.tablets
		sum.healthy += c.healthy
		sum.missing += c.missing
		sum.version += c.version
		sum.relocating += c.relocating
		sum.redundant += c.redundant
		sum.unrecoverable += c.unrecoverable
		sum.inconsistent += c.inconsistent
	}
	rows = append(rows, row("Total", fmt.Sprint(len(rows)), sum, s.srv.coord.SchedulerStats().Running))
	return writeTable(w, cols, rows)
}
