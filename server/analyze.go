package server

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/op/aggregate"
	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// ANALYZE (Doris 2.x statistics): the backends compute each tablet's
// column statistics, the coordinator merges them (coord.AnalyzeColumns)
// and the catalog keeps them (catalog.SetStatistics). Without WITH SYNC
// the collection is a job run in the background, listed by SHOW ANALYZE.
// The automatic collection (autoanalyze.go) re-analyzes tables whose row
// count moved enough since their last analysis.

// analyzeJob is one collection, as SHOW ANALYZE lists it.
type analyzeJob struct {
	ID        int64
	DB, Table string
	Columns   []string
	JobType   string // MANUAL or SYSTEM
	Method    string // FULL or SAMPLE
	State     string // PENDING, RUNNING, FINISHED, FAILED
	Message   string
	Start     time.Time
	End       time.Time
}

// analyzer holds the jobs and the context they run under (cancelled when
// the server closes).
type analyzer struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	nextID int64
	jobs   []*analyzeJob
}

// maxJobs bounds the jobs SHOW ANALYZE remembers.
const maxJobs = 1000

func newAnalyzer() *analyzer {
	ctx, cancel := context.WithCancel(context.Background())
	return &analyzer{ctx: ctx, cancel: cancel, nextID: time.Now().UnixMilli()}
}

func (a *analyzer) stop() {
	a.cancel()
	a.wg.Wait()
}

func (a *analyzer) add(j *analyzeJob) {
	a.mu.Lock()
	defer a.mu.Unlock()
	j.ID = a.nextID
	a.nextID++
	a.jobs = append(a.jobs, j)
	if len(a.jobs) > maxJobs {
		a.jobs = a.jobs[len(a.jobs)-maxJobs:]
	}
}

func (a *analyzer) set(j *analyzeJob, f func(j *analyzeJob)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	f(j)
}

func (a *analyzer) list() []analyzeJob {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]analyzeJob, len(a.jobs))
	for i, j := range a.jobs {
		out[i] = *j
	}
	return out
}

// analyzable: statistics are collected of the column's type (Doris skips
// BITMAP, HLL, JSON and the complex types).
func analyzable(t types.T) bool { return !t.IsOpaque() }

// statsColumns resolves a statement's column list (none: every analyzable
// column, the hidden delete sign included, as every scan of a UNIQUE
// table filters on it) to indexes into t.Columns.
func statsColumns(t *catalog.Table, names []string) ([]int, error) {
	if len(names) == 0 {
		var out []int
		for i, c := range t.Columns {
			if analyzable(c.Type) {
				out = append(out, i)
			}
		}
		return out, nil
	}
	var out []int
	for _, n := range names {
		i := t.ColumnIndex(n)
		if i < 0 || t.Columns[i].Hidden {
			return nil, sqlerr.Doris.New(fmt.Sprintf("Column: %s not exists in table %s", n, t.Name))
		}
		if !analyzable(t.Columns[i].Type) {
			return nil, sqlerr.NotSupportedYet.New(fmt.Sprintf("statistics of column %s of type %s", n, t.Columns[i].Type))
		}
		out = append(out, i)
	}
	return out, nil
}

// tableRows is the table's row count from its tablets' load reports.
func tableRows(t *catalog.Table) int64 {
	var n int64
	for _, p := range t.Partitions {
		for _, tb := range p.Tablets {
			n += tb.RowCount
		}
	}
	return n
}

// sampleRate turns WITH SAMPLE into the probability a row is read.
func sampleRate(st *parser.Analyze, rows int64) float64 {
	switch {
	case st.SamplePercent > 0:
		return float64(st.SamplePercent) / 100
	case st.SampleRows > 0 && rows > 0:
		return min(1, float64(st.SampleRows)/float64(rows))
	}
	return 1
}

// analyzeStmt runs ANALYZE TABLE.
func (s *Session) analyzeStmt(ctx context.Context, st *parser.Analyze, w wire.ResultWriter) error {
	db, t, err := s.table(st.DB, st.Table)
	if err != nil {
		return err
	}
	cols, err := statsColumns(t, st.Columns)
	if err != nil {
		return err
	}
	rate := sampleRate(st, tableRows(t))
	j := &analyzeJob{DB: db, Table: t.Name, JobType: catalog.TriggerManual, Method: catalog.MethodFull, State: "PENDING", Start: time.Now()}
	if rate < 1 {
		j.Method = catalog.MethodSample
	}
	for _, i := range cols {
		if !t.Columns[i].Hidden {
			j.Columns = append(j.Columns, t.Columns[i].Name)
		}
	}
	a := s.srv.analyzer
	a.add(j)
	if st.Sync {
		if err := s.srv.runAnalyze(ctx, j, t.ID, cols, rate); err != nil {
			return err
		}
		return w.WriteOK(wire.OK{})
	}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		_ = s.srv.runAnalyze(a.ctx, j, t.ID, cols, rate)
	}()
	rows := [][]types.Datum{{str("internal"), str(db), str(t.Name), str("[" + strings.Join(j.Columns, ",") + "]"), num(j.ID)}}
	return writeTable(w, []wire.Column{strCol("Catalog_Name"), strCol("DB_Name"), strCol("Table_Name"), strCol("Columns"), intCol("Job_Id")}, rows)
}

// runAnalyze collects and stores the statistics of a job's columns.
func (srv *Server) runAnalyze(ctx context.Context, j *analyzeJob, id catalog.TableID, cols []int, rate float64) error {
	a := srv.analyzer
	a.set(j, func(j *analyzeJob) { j.State = "RUNNING" })
	err := srv.collect(ctx, j, id, cols, rate)
	a.set(j, func(j *analyzeJob) {
		j.End = time.Now()
		if err != nil {
			j.State, j.Message = "FAILED", err.Error()
			return
		}
		j.State = "FINISHED"
	})
	if err != nil {
		srv.log.Warn("analyze", "table", j.Table, "err", err)
	}
	return err
}

func (srv *Server) collect(ctx context.Context, j *analyzeJob, id catalog.TableID, cols []int, rate float64) error {
	t, ok := srv.cat.TableByID(id)
	if !ok {
		return sqlerr.NoSuchTable.New(j.DB, j.Table)
	}
	rows := tableRows(t)
	sums, err := srv.coord.AnalyzeColumns(ctx, t, cols, rate)
	if err != nil {
		return err
	}
	now := time.Now().UTC().Round(0)
	out := map[string]*catalog.ColumnStatistic{}
	for i, ci := range cols {
		if ci >= len(t.Columns) {
			continue
		}
		out[t.Columns[ci].Name] = columnStatistic(sums[i], j.Method, j.JobType, now)
	}
	return srv.cat.SetStatistics(id, rows, j.JobType, out)
}

func columnStatistic(s aggregate.ColumnSummary, method, trigger string, now time.Time) *catalog.ColumnStatistic {
	cs := &catalog.ColumnStatistic{Count: s.Rows, NDV: s.NDV, NumNull: s.Nulls, DataSize: s.Bytes,
		Min: s.Min, Max: s.Max, Method: method, Trigger: trigger, Updated: now}
	if s.Rows > 0 {
		cs.AvgSize = float64(s.Bytes) / float64(s.Rows)
	}
	for _, b := range s.Histogram {
		cs.Histogram = append(cs.Histogram, catalog.HistogramBucket{Lower: b.Lower, Upper: b.Upper, NDV: b.NDV, Count: b.Count, PreSum: b.PreSum})
	}
	return cs
}

// statNum prints a count as Doris does (a double: 100.0).
func statNum(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return fmt.Sprintf("%.1f", f)
	}
	return fmt.Sprintf("%g", f)
}

// statValue prints a min or max: numbers bare, other values quoted.
func statValue(d *types.Datum) string {
	if d == nil {
		return "N/A"
	}
	if d.T.IsNumeric() {
		return d.String()
	}
	return "'" + d.String() + "'"
}

const statTime = "2006-01-02 15:04:05"

// showColumnStats is SHOW COLUMN STATS t [(cols)].
func (s *Session) showColumnStats(st *parser.ShowColumnStats, w wire.ResultWriter) error {
	_, t, err := s.table(st.DB, st.Table)
	if err != nil {
		return err
	}
	var names []string
	if len(st.Columns) == 0 {
		for _, c := range t.Columns {
			if !c.Hidden {
				names = append(names, c.Name)
			}
		}
	} else {
		idx, err := statsColumns(t, st.Columns)
		if err != nil {
			return err
		}
		for _, i := range idx {
			names = append(names, t.Columns[i].Name)
		}
	}
	ts := s.srv.cat.Statistics(t.ID)
	var rows [][]types.Datum
	for _, n := range names {
		cs := ts.Column(n)
		if cs == nil {
			continue
		}
		rows = append(rows, []types.Datum{str(n), str(t.Name), str(statNum(float64(cs.Count))), str(statNum(float64(cs.NDV))),
			str(statNum(float64(cs.NumNull))), str(statNum(float64(cs.DataSize))), str(statNum(cs.AvgSize)),
			str(statValue(cs.Min)), str(statValue(cs.Max)), str(cs.Method), str("FUNDAMENTALS"), str(cs.Trigger), str("0"),
			str(cs.Updated.Local().Format(statTime))})
	}
	names2 := []string{"column_name", "index_name", "count", "ndv", "num_null", "data_size", "avg_size_byte", "min", "max",
		"method", "type", "trigger", "query_times", "updated_time"}
	cols := make([]wire.Column, len(names2))
	for i, n := range names2 {
		cols[i] = strCol(n)
	}
	return writeTable(w, cols, rows)
}

// showTableStats is SHOW TABLE STATS t.
func (s *Session) showTableStats(st *parser.ShowTableStats, w wire.ResultWriter) error {
	_, t, err := s.table(st.DB, st.Table)
	if err != nil {
		return err
	}
	rows := tableRows(t)
	ts := s.srv.cat.Statistics(t.ID)
	updated, cols, trigger, updatedTime, last := rows, "[]", "", "", ""
	if ts != nil {
		updated = absDiff(rows, ts.RowCount)
		var qs []string
		for _, n := range ts.ColumnNames() {
			if i := t.ColumnIndex(n); i >= 0 && !t.Columns[i].Hidden {
				qs = append(qs, t.Name+":"+n)
			}
		}
		cols = "[" + strings.Join(qs, ", ") + "]"
		trigger = ts.Trigger
		updatedTime = ts.LastAnalyze.Local().Format(statTime)
		last = updatedTime
	}
	auto := s.srv.autoAnalyzeEnabled()
	names := []string{"updated_rows", "query_times", "row_count", "updated_time", "columns", "trigger", "new_partition",
		"user_inject", "enable_auto_analyze", "last_analyze_time"}
	wc := make([]wire.Column, len(names))
	for i, n := range names {
		wc[i] = strCol(n)
	}
	row := []types.Datum{str(fmt.Sprint(updated)), str("0"), str(fmt.Sprint(rows)), str(updatedTime), str(cols), str(trigger),
		str("false"), str("false"), str(fmt.Sprint(auto)), str(last)}
	return writeTable(w, wc, [][]types.Datum{row})
}

func absDiff(a, b int64) int64 {
	if a > b {
		return a - b
	}
	return b - a
}

// showAnalyze is SHOW ANALYZE [t | job_id].
func (s *Session) showAnalyze(st *parser.ShowAnalyze, w wire.ResultWriter) error {
	db := ""
	if st.Table != "" {
		d, t, err := s.table(st.DB, st.Table)
		if err != nil {
			return err
		}
		db, st.Table = d, t.Name
	}
	var rows [][]types.Datum
	for _, j := range s.srv.analyzer.list() {
		if st.JobID != 0 && j.ID != st.JobID || st.Table != "" && (j.DB != db || j.Table != st.Table) {
			continue
		}
		var qs []string
		for _, c := range j.Columns {
			qs = append(qs, j.Table+":"+c)
		}
		done, failed, running := 0, 0, 0
		switch j.State {
		case "FINISHED":
			done = 1
		case "FAILED":
			failed = 1
		default:
			running = 1
		}
		end, ms := "", ""
		if !j.End.IsZero() {
			end = j.End.Local().Format(statTime)
			ms = fmt.Sprint(j.End.Sub(j.Start).Milliseconds())
		}
		rows = append(rows, []types.Datum{str(fmt.Sprint(j.ID)), str("internal"), str(j.DB), str(j.Table), str("[" + strings.Join(qs, ",") + "]"),
			str(j.JobType), str("FUNDAMENTALS"), str(j.Message), str(ms), str(j.State),
			str(fmt.Sprintf("%d Finished/%d Failed/%d In Progress/1 Total", done, failed, running)), str("ONCE"),
			str(j.Start.Local().Format(statTime)), str(end)})
	}
	names := []string{"job_id", "catalog_name", "db_name", "tbl_name", "col_name", "job_type", "analysis_type", "message",
		"last_exec_time_in_ms", "state", "progress", "schedule_type", "start_time", "end_time"}
	wc := make([]wire.Column, len(names))
	for i, n := range names {
		wc[i] = strCol(n)
	}
	return writeTable(w, wc, rows)
}

// dropStats is DROP STATS t [(cols)].
func (s *Session) dropStats(st *parser.DropStats, w wire.ResultWriter) error {
	_, t, err := s.table(st.DB, st.Table)
	if err != nil {
		return err
	}
	var names []string
	for _, n := range st.Columns {
		i := t.ColumnIndex(n)
		if i < 0 {
			return sqlerr.Doris.New(fmt.Sprintf("Column: %s not exists in table %s", n, t.Name))
		}
		names = append(names, t.Columns[i].Name)
	}
	if err := s.srv.cat.DropStatistics(t.ID, names); err != nil {
		return err
	}
	return w.WriteOK(wire.OK{})
}
