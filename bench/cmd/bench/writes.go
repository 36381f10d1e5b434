package main

import (
	"context"
	"fmt"
	"log"
	"math"
	"strings"
	"time"

	"github.com/dorisgo/dorisgo/bench/engine"
	"github.com/dorisgo/dorisgo/bench/report"
	"github.com/dorisgo/dorisgo/bench/workload"
)

// writesReport measures the write path on the loaded SSB tables, dorisgo
// next to DuckDB in the same run: INSERT … SELECT of lineorder into a new
// table, DELETE of 1% of lineorder and how much slower the SSB queries get
// after it (their times before are base), and UPDATE of about 100k rows
// (at SF 1) of a UNIQUE KEY copy of a tenth of lineorder. The SSB queries
// run right before and right after the DELETE, so that both sets of times
// see the same machine.
func writesReport(c config, d *engine.Dorisgo, duck *engine.DuckDB) (rows []report.WriteRow, before, after []report.QueryResult, err error) {
	suite, err := workload.Get("ssb", c.sf)
	if err != nil {
		return nil, nil, nil, err
	}
	var lo workload.Table
	for _, t := range suite.Tables {
		if t.Name == "lineorder" {
			lo = t
		}
	}
	if err := d.Use("ssb", false); err != nil {
		return nil, nil, nil, err
	}
	if duck != nil {
		if err := duck.Exec("SET schema = 'ssb'"); err != nil {
			return nil, nil, nil, err
		}
	}
	step := func(name string, rowsQuery string, dorisSQL, duckSQL []string) error {
		for _, e := range []struct {
			name string
			exec func(string) error
			sql  []string
		}{{"dorisgo", d.Exec, dorisSQL}, {"duckdb", duckExec(duck), duckSQL}} {
			if e.exec == nil || e.sql == nil {
				continue
			}
			t0 := time.Now()
			var err error
			for _, q := range e.sql {
				if err = e.exec(q); err != nil {
					break
				}
			}
			row := report.WriteRow{Step: name, Engine: e.name, Seconds: time.Since(t0).Seconds()}
			if err != nil {
				row.Error = err.Error()
			}
			rows = append(rows, row)
			log.Printf("writes %s %s: %.2fs %s", name, e.name, row.Seconds, row.Error)
		}
		// Rows the step touched, counted the same way on dorisgo.
		if rowsQuery != "" {
			res, err := d.Query(context.Background(), rowsQuery)
			if err == nil && len(res.Rows) == 1 {
				var n int64
				fmt.Sscan(res.Rows[0][0], &n)
				for i := len(rows) - 1; i >= 0 && rows[i].Step == name; i-- {
					rows[i].Rows = n
					if rows[i].Seconds > 0 {
						rows[i].RowsPerSec = float64(n) / rows[i].Seconds
					}
				}
			}
		}
		return nil
	}
	copyDDL := strings.Replace(lo.DorisDDL(c.buckets), "CREATE TABLE lineorder ", "CREATE TABLE lineorder_copy ", 1)
	if err := step("INSERT … SELECT lineorder", "SELECT count(*) FROM lineorder_copy",
		[]string{"DROP TABLE IF EXISTS lineorder_copy", copyDDL, "INSERT INTO lineorder_copy SELECT * FROM lineorder"},
		[]string{"DROP TABLE IF EXISTS lineorder_copy", strings.Replace(lo.PlainDDL(), "lineorder ", "lineorder_copy ", 1),
			"INSERT INTO lineorder_copy SELECT * FROM lineorder"}); err != nil {
		return nil, nil, nil, err
	}

	uniqueDDL := strings.Replace(strings.Replace(copyDDL, "lineorder_copy", "lineorder_u", 1),
		"DUPLICATE KEY(lo_orderkey)", "UNIQUE KEY(lo_orderkey, lo_linenumber)", 1)
	duckUnique := strings.Replace(lo.PlainDDL(), "lineorder ", "lineorder_u ", 1)
	duckUnique = duckUnique[:strings.LastIndex(duckUnique, ")")] + ", PRIMARY KEY (lo_orderkey, lo_linenumber))"
	fill := "INSERT INTO lineorder_u SELECT * FROM lineorder WHERE lo_orderkey % 10 = 0"
	if err := step("fill UNIQUE KEY copy (10% of lineorder)", "SELECT count(*) FROM lineorder_u",
		[]string{"DROP TABLE IF EXISTS lineorder_u", uniqueDDL, fill},
		[]string{"DROP TABLE IF EXISTS lineorder_u", duckUnique, fill}); err != nil {
		return nil, nil, nil, err
	}
	upd := "UPDATE lineorder_u SET lo_quantity = lo_quantity + 1 WHERE lo_orderkey % 60 = 0"
	if err := step("UPDATE 1/6 of the UNIQUE KEY copy", "SELECT count(*) FROM lineorder_u WHERE lo_orderkey % 60 = 0",
		[]string{upd}, []string{upd}); err != nil {
		return nil, nil, nil, err
	}
	checkSame(d, duck, "SELECT sum(lo_quantity), count(*) FROM lineorder_u", &rows)

	// The same on a merge-on-read copy (UNIQUE KEY tables merge on write
	// by default): the UPDATE, then a scan of each, timed in this run.
	morDDL := strings.Replace(strings.Replace(uniqueDDL, "lineorder_u", "lineorder_umor", 1),
		"PROPERTIES (", `PROPERTIES ("enable_unique_key_merge_on_write" = "false", `, 1)
	if err := step("fill UNIQUE KEY merge-on-read copy", "SELECT count(*) FROM lineorder_umor",
		[]string{"DROP TABLE IF EXISTS lineorder_umor", morDDL, strings.Replace(fill, "lineorder_u", "lineorder_umor", 1)}, nil); err != nil {
		return nil, nil, nil, err
	}
	if err := step("UPDATE 1/6 of the merge-on-read copy", "SELECT count(*) FROM lineorder_umor WHERE lo_orderkey % 60 = 0",
		[]string{strings.Replace(upd, "lineorder_u", "lineorder_umor", 1)}, nil); err != nil {
		return nil, nil, nil, err
	}
	scan := "SELECT sum(lo_revenue), count(*) FROM %s WHERE lo_quantity > 25"
	for _, tb := range []string{"lineorder_u", "lineorder_umor"} {
		name := "scan merge-on-write copy after UPDATE"
		if tb == "lineorder_umor" {
			name = "scan merge-on-read copy after UPDATE"
		}
		if err := step(name, "SELECT count(*) FROM "+tb, []string{fmt.Sprintf(scan, tb)}, nil); err != nil {
			return nil, nil, nil, err
		}
	}
	logRatio(rows, "UPDATE 1/6 of the UNIQUE KEY copy", "UPDATE 1/6 of the merge-on-read copy")
	logRatio(rows, "scan merge-on-write copy after UPDATE", "scan merge-on-read copy after UPDATE")

	ssb := func() []report.QueryResult {
		var out []report.QueryResult
		for _, q := range suite.Queries {
			if c.only == "" || strings.Contains(","+c.only+",", ","+q.Name+",") {
				out = append(out, runQuery(c, "ssb", q, []engine.Engine{d, duck}, c.timeout))
			}
		}
		return out
	}
	before = ssb()
	del := "DELETE FROM lineorder WHERE lo_orderkey % 100 = 7"
	if err := step("DELETE 1% of lineorder", "SELECT count(*) FROM lineorder_copy WHERE lo_orderkey % 100 = 7",
		[]string{del}, []string{del}); err != nil {
		return nil, nil, nil, err
	}
	checkSame(d, duck, "SELECT count(*), sum(lo_revenue) FROM lineorder", &rows)
	return rows, before, ssb(), nil
}

func duckExec(duck *engine.DuckDB) func(string) error {
	if duck == nil {
		return nil
	}
	return duck.Exec
}

// checkSame records whether dorisgo and DuckDB answer q alike.
func checkSame(d *engine.Dorisgo, duck *engine.DuckDB, q string, rows *[]report.WriteRow) {
	if duck == nil {
		return
	}
	got, err1 := d.Query(context.Background(), q)
	want, err2 := duck.Query(context.Background(), q)
	row := report.WriteRow{Step: "check: " + q, Engine: "dorisgo = duckdb"}
	switch {
	case err1 != nil || err2 != nil:
		row.Error = fmt.Sprint(err1, " / ", err2)
	default:
		row.Error = engine.Compare(got, want, false)
	}
	if row.Error != "" {
		log.Printf("writes: %s: %s", q, row.Error)
	}
	*rows = append(*rows, row)
}

// printWrites prints the write steps and the SSB slowdown after the DELETE.
func printWrites(rows []report.WriteRow, before, after []report.QueryResult) {
	fmt.Println("\nWrite path (dorisgo next to DuckDB, same run)")
	fmt.Println("| step | engine | rows | seconds | rows/s | error |")
	fmt.Println("|---|---|---:|---:|---:|---|")
	for _, r := range rows {
		fmt.Printf("| %s | %s | %d | %.3f | %.0f | %s |\n", r.Step, r.Engine, r.Rows, r.Seconds, r.RowsPerSec, r.Error)
	}
	fmt.Println("\nSSB after DELETE of 1% of lineorder: time after / time before")
	fmt.Println("| query | dorisgo before ms | dorisgo after ms | dorisgo ratio | duckdb ratio | answer |")
	fmt.Println("|---|---:|---:|---:|---:|---|")
	var logd, logk float64
	n := 0
	for i, a := range after {
		if i >= len(before) {
			break
		}
		b := before[i]
		rd := a.Engines["dorisgo"].Median / b.Engines["dorisgo"].Median
		rk := a.Engines["duckdb"].Median / b.Engines["duckdb"].Median
		ans := "= duckdb"
		if a.Mismatch != "" {
			ans = "MISMATCH " + a.Mismatch
		}
		fmt.Printf("| %s | %.1f | %.1f | %.2f | %.2f | %s |\n", a.Query, b.Engines["dorisgo"].Median, a.Engines["dorisgo"].Median, rd, rk, ans)
		if rd > 0 && rk > 0 && !math.IsInf(rd, 0) && !math.IsInf(rk, 0) {
			logd += math.Log(rd)
			logk += math.Log(rk)
			n++
		}
	}
	if n > 0 {
		fmt.Printf("| geomean | | | %.3f | %.3f | |\n", math.Exp(logd/float64(n)), math.Exp(logk/float64(n)))
	}
}

// logRatio logs dorisgo's time of step a over step b (measured in the
// same run).
func logRatio(rows []report.WriteRow, a, b string) {
	var ta, tb float64
	for _, r := range rows {
		if r.Engine != "dorisgo" || r.Error != "" {
			continue
		}
		switch r.Step {
		case a:
			ta = r.Seconds
		case b:
			tb = r.Seconds
		}
	}
	if ta > 0 && tb > 0 {
		log.Printf("writes: %s / %s = %.2f", a, b, ta/tb)
	}
}
