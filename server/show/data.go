package show

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// Doris's default database quotas (default_db_data_quota_bytes,
// default_db_replica_quota_size), shown by SHOW DATA.
const (
	dbDataQuota    = int64(1) << 50
	dbReplicaQuota = int64(1) << 30
)

// Transaction is SHOW TRANSACTION [FROM db] WHERE id|label|status = x.
func (sh *Shows) Transaction(s Session, st *parser.ShowTransaction) (*Result, error) {
	db, err := dbName(s, st.DB)
	if err != nil {
		return nil, err
	}
	var keep func(*catalog.Txn) bool
	switch st.Field {
	case "id":
		id, err := strconv.ParseInt(st.Value, 10, 64)
		if err != nil {
			return nil, sqlerr.Doris.New("Invalid transaction id: " + st.Value)
		}
		keep = func(t *catalog.Txn) bool { return int64(t.ID) == id }
	case "label":
		keep = func(t *catalog.Txn) bool { return t.Label == st.Value }
	case "status":
		want := strings.ToUpper(st.Value)
		switch want {
		case "PREPARE", "PRECOMMITTED", "COMMITTED", "VISIBLE", "ABORTED":
		default:
			return nil, sqlerr.Doris.New("Invalid transaction status: " + st.Value)
		}
		keep = func(t *catalog.Txn) bool { return t.State.String() == want }
	}
	txns, err := sh.cat.TxnsOf(db, keep)
	if err != nil {
		return nil, err
	}
	if len(txns) == 0 && st.Field != "status" {
		return nil, sqlerr.Doris.New(fmt.Sprintf("transaction with %s %s does not exist", st.Field, st.Value))
	}
	names := []string{"TransactionId", "Label", "Coordinator", "TransactionStatus", "LoadJobSourceType", "PrepareTime",
		"PreCommitTime", "CommitTime", "PublishTime", "FinishTime", "Reason", "ErrorReplicasCount", "ListenerId",
		"TimeoutMs", "ErrMsg"}
	cols := strCols(names)
	var rows [][]types.Datum
	for _, t := range txns {
		src := t.Source
		if src == "" {
			src = "FRONTEND"
		}
		finish := t.FinishTime
		publish := time.Time{}
		if t.State == catalog.TxnVisible {
			publish = finish
		}
		rows = append(rows, []types.Datum{str(fmt.Sprint(t.ID)), str(t.Label), str("FE: " + sh.cfg.Host),
			str(t.State.String()), str(src), str(Time(t.CreateTime)), str(Time(t.PrecommitTime)), str(Time(t.CommitTime)),
			str(Time(publish)), str(Time(finish)), str(t.Reason), str("0"), str("-1"),
			str(fmt.Sprint(t.TimeoutMs)), str("")})
	}
	return table(cols, rows)
}

// Time is a SHOW time column: local, to the second; NULL for none.
func Time(t time.Time) string {
	if t.IsZero() {
		return "NULL"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

// Data is SHOW DATA [FROM [db.]t]: stored bytes as the backends report
// them (every replica counted), per table of the database or per index of
// one table.
func (sh *Shows) Data(ctx context.Context, s Session, st *parser.ShowData) (*Result, error) {
	if st.Table != "" {
		return sh.tableData(ctx, s, st)
	}
	db, err := dbName(s, st.DB)
	if err != nil {
		return nil, err
	}
	ts, err := sh.cat.Tables(db)
	if err != nil {
		return nil, err
	}
	a := s.Access()
	var seen []*catalog.Table
	for _, t := range ts {
		if a.SeesTable(db, t.Name) {
			seen = append(seen, t)
		}
	}
	stats := sh.cfg.TableStats(ctx, seen...)
	cols := []types.Column{strCol("TableName"), strCol("Size"), strCol("ReplicaCount"), strCol("RemoteSize")}
	var rows [][]types.Datum
	var total int64
	var replicas int
	for _, t := range seen {
		b, n := stats.ReplicaBytes(t)
		total += b
		replicas += n
		rows = append(rows, []types.Datum{str(t.Name), str(Bytes(b)), str(fmt.Sprint(n)), str(Bytes(0))})
	}
	rows = append(rows,
		[]types.Datum{str("Total"), str(Bytes(total)), str(fmt.Sprint(replicas)), str(Bytes(0))},
		[]types.Datum{str("Quota"), str(Bytes(dbDataQuota)), str(fmt.Sprint(dbReplicaQuota)), str("")},
		[]types.Datum{str("Left"), str(Bytes(max(dbDataQuota-total, 0))), str(fmt.Sprint(dbReplicaQuota - int64(replicas))), str("")})
	return table(cols, rows)
}

func (sh *Shows) tableData(ctx context.Context, s Session, st *parser.ShowData) (*Result, error) {
	db, t, err := sh.table(s, st.DB, st.Table)
	if err != nil {
		return nil, err
	}
	if !s.Access().SeesTable(db, t.Name) {
		return nil, tableDenied(s, "SHOW", db, t.Name)
	}
	stats := sh.cfg.TableStats(ctx, t)
	b, n := stats.ReplicaBytes(t)
	var rowsN int64
	for _, p := range t.Partitions {
		for _, tb := range p.Tablets {
			rowsN += tabletRows(stats, tb)
		}
	}
	cols := []types.Column{strCol("TableName"), strCol("IndexName"), strCol("Size"), strCol("ReplicaCount"),
		strCol("RowCount"), strCol("RemoteSize")}
	return table(cols, [][]types.Datum{
		{str(t.Name), str(t.Name), str(Bytes(b)), str(fmt.Sprint(n)), str(fmt.Sprint(rowsN)), str(Bytes(0))},
		{str(""), str("Total"), str(Bytes(b)), str(fmt.Sprint(n)), str(""), str(Bytes(0))},
	})
}

// tabletRows is a tablet's stored rows as its fullest replica reports them
// (the catalog's count when no replica answered).
func tabletRows(stats map[storage.TabletID]map[catalog.BackendID]storage.TabletStats, tb *catalog.Tablet) int64 {
	rs, ok := stats[tb.ID]
	if !ok {
		return tb.RowCount
	}
	var n int64
	for _, st := range rs {
		n = max(n, st.Rows)
	}
	return n
}

// Bytes formats a size as Doris's SHOW DATA does: 1.500 KB.
func Bytes(n int64) string {
	units := []string{"B", "KB", "MB", "GB", "TB", "PB"}
	v, u := float64(n), 0
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	return fmt.Sprintf("%.3f %s", v, units[u])
}
