package server

import (
	"strconv"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
)

// The automatic collection (Doris's auto analyze): every
// Config.AutoAnalyzeInterval the FE looks at each table that has
// statistics and re-analyzes its analyzed columns once its health, 100 ·
// (1 − changed rows / rows at the last analysis), is below the global
// table_stats_health_threshold (90: over a tenth of the rows changed).
// enable_auto_analyze = false (global) turns it off. Changed rows are the
// row count's movement since the analysis, from the tablets' load reports.
// Tables never analyzed are left alone, so plans of tables nobody analyzed
// keep the default estimates.

// defaultAutoAnalyzeInterval is Doris's auto_check_statistics_in_minutes.
const defaultAutoAnalyzeInterval = 5 * time.Minute

func (srv *Server) autoAnalyzeEnabled() bool {
	v, _ := srv.globals.get("enable_auto_analyze")
	return v == "1" || v == "true" || v == "ON" || v == "on"
}

func (srv *Server) startAutoAnalyze() {
	every := srv.cfg.AutoAnalyzeInterval
	if every <= 0 {
		every = defaultAutoAnalyzeInterval
	}
	a := srv.analyzer
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-a.ctx.Done():
				return
			case <-tick.C:
				if srv.autoAnalyzeEnabled() && srv.isMaster() {
					srv.autoAnalyzeOnce()
				}
			}
		}
	}()
}

// autoAnalyzeOnce analyzes, one after another, the tables that need it.
func (srv *Server) autoAnalyzeOnce() {
	threshold := 90.0
	if v, ok := srv.globals.get("table_stats_health_threshold"); ok {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			threshold = f
		}
	}
	for _, db := range srv.cat.Databases() {
		tables, err := srv.cat.Tables(db.Name)
		if err != nil {
			continue
		}
		for _, t := range tables {
			if srv.analyzer.ctx.Err() != nil {
				return
			}
			ts := srv.cat.Statistics(t.ID)
			if ts == nil || len(ts.Columns) == 0 || !needsAnalyze(ts.RowCount, tableRows(t), threshold) {
				continue
			}
			var cols []int
			var names []string
			for _, n := range ts.ColumnNames() {
				if i := t.ColumnIndex(n); i >= 0 && analyzable(t.Columns[i].Type) {
					cols = append(cols, i)
					names = append(names, t.Columns[i].Name)
				}
			}
			if len(cols) == 0 {
				continue
			}
			j := &analyzeJob{DB: db.Name, Table: t.Name, Columns: names, JobType: catalog.TriggerSystem,
				Method: catalog.MethodFull, State: "PENDING", Start: time.Now()}
			srv.analyzer.add(j)
			_ = srv.runAnalyze(srv.analyzer.ctx, j, t.ID, cols, 1)
		}
	}
}

// needsAnalyze: the table's health fell below threshold.
func needsAnalyze(analyzed, now int64, threshold float64) bool {
	changed := absDiff(now, analyzed)
	if changed == 0 {
		return false
	}
	if analyzed == 0 {
		return true
	}
	health := 100 * (1 - float64(changed)/float64(analyzed))
	return health < threshold
}
