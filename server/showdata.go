package server

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/server/wire"
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

// showTransaction is SHOW TRANSACTION [FROM db] WHERE id|label|status = x.
func (s *Session) showTransaction(st *parser.ShowTransaction, w wire.ResultWriter) error {
	db, err := s.dbName(st.DB)
	if err != nil {
		return err
	}
	var keep func(*catalog.Txn) bool
	switch st.Field {
	case "id":
		id, err := strconv.ParseInt(st.Value, 10, 64)
		if err != nil {
			return sqlerr.Doris.New("Invalid transaction id: " + st.Value)
		}
		keep = func(t *catalog.Txn) bool { return int64(t.ID) == id }
	case "label":
		keep = func(t *catalog.Txn) bool { return t.Label == st.Value }
	case "status":
		want := strings.ToUpper(st.Value)
		switch want {
		case "PREPARE", "PRECOMMITTED", "COMMITTED", "VISIBLE", "ABORTED":
		default:
			return sqlerr.Doris.New("Invalid transaction status: " + st.Value)
		}
		keep = func(t *catalog.Txn) bool { return t.State.String() == want }
	}
	txns, err := s.srv.cat.TxnsOf(db, keep)
	if err != nil {
		return err
	}
	if len(txns) == 0 && st.Field != "status" {
		return sqlerr.Doris.New(fmt.Sprintf("transaction with %s %s does not exist", st.Field, st.Value))
	}
	names := []string{"TransactionId", "Label", "Coordinator", "TransactionStatus", "LoadJobSourceType", "PrepareTime",
		"PreCommitTime", "CommitTime", "PublishTime", "FinishTime", "Reason", "ErrorReplicasCount", "ListenerId",
		"TimeoutMs", "ErrMsg"}
	cols := make([]wire.Column, len(names))
	for i, n := range names {
		cols[i] = strCol(n)
	}
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
		rows = append(rows, []types.Datum{str(fmt.Sprint(t.ID)), str(t.Label), str("FE: " + s.srv.cfg.Host),
			str(t.State.String()), str(src), str(showTime(t.CreateTime)), str(showTime(t.PrecommitTime)), str(showTime(t.CommitTime)),
			str(showTime(publish)), str(showTime(finish)), str(t.Reason), str("0"), str("-1"),
			str(fmt.Sprint(t.TimeoutMs)), str("")})
	}
	return writeTable(w, cols, rows)
}

func showTime(t time.Time) string {
	if t.IsZero() {
		return "NULL"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

// showData is SHOW DATA [FROM [db.]t]: stored bytes as the backends report
// them (every replica counted), per table of the database or per index of
// one table.
func (s *Session) showData(ctx context.Context, st *parser.ShowData, w wire.ResultWriter) error {
	if st.Table != "" {
		return s.showTableData(ctx, st, w)
	}
	db, err := s.dbName(st.DB)
	if err != nil {
		return err
	}
	ts, err := s.srv.cat.Tables(db)
	if err != nil {
		return err
	}
	a := s.access()
	var seen []*catalog.Table
	for _, t := range ts {
		if a.SeesTable(db, t.Name) {
			seen = append(seen, t)
		}
	}
	stats := s.srv.coord.TableStats(ctx, seen...)
	cols := []wire.Column{strCol("TableName"), strCol("Size"), strCol("ReplicaCount"), strCol("RemoteSize")}
	var rows [][]types.Datum
	var total int64
	var replicas int
	for _, t := range seen {
		b, n := stats.ReplicaBytes(t)
		total += b
		replicas += n
		rows = append(rows, []types.Datum{str(t.Name), str(showBytes(b)), str(fmt.Sprint(n)), str(showBytes(0))})
	}
	rows = append(rows,
		[]types.Datum{str("Total"), str(showBytes(total)), str(fmt.Sprint(replicas)), str(showBytes(0))},
		[]types.Datum{str("Quota"), str(showBytes(dbDataQuota)), str(fmt.Sprint(dbReplicaQuota)), str("")},
		[]types.Datum{str("Left"), str(showBytes(max(dbDataQuota-total, 0))), str(fmt.Sprint(dbReplicaQuota - int64(replicas))), str("")})
	return writeTable(w, cols, rows)
}

func (s *Session) showTableData(ctx context.Context, st *parser.ShowData, w wire.ResultWriter) error {
	db, t, err := s.table(st.DB, st.Table)
	if err != nil {
		return err
	}
	if !s.access().SeesTable(db, t.Name) {
		return s.tableDenied("SHOW", db, t.Name)
	}
	stats := s.srv.coord.TableStats(ctx, t)
	b, n := stats.ReplicaBytes(t)
	var rowsN int64
	for _, p := range t.Partitions {
		for _, tb := range p.Tablets {
			rowsN += tabletRows(stats, tb)
		}
	}
	cols := []wire.Column{strCol("TableName"), strCol("IndexName"), strCol("Size"), strCol("ReplicaCount"),
		strCol("RowCount"), strCol("RemoteSize")}
	return writeTable(w, cols, [][]types.Datum{
		{str(t.Name), str(t.Name), str(showBytes(b)), str(fmt.Sprint(n)), str(fmt.Sprint(rowsN)), str(showBytes(0))},
		{str(""), str("Total"), str(showBytes(b)), str(fmt.Sprint(n)), str(""), str(showBytes(0))},
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

// showBytes formats a size as Doris's SHOW DATA does: 1.500 KB.
func showBytes(n int64) string {
	units := []string{"B", "KB", "MB", "GB", "TB", "PB"}
	v, u := float64(n), 0
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	return fmt.Sprintf("%.3f %s", v, units[u])
}
