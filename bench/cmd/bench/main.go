// Command bench generates SSB and TPC-H data, loads it into dorisgo, DuckDB
// and go-mysql-server, runs the queries on all three, checks dorisgo's
// answers against DuckDB and reports times, ratios, load throughput and
// dorisgo's peak memory. With -report joins it measures join strategies.
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/dorisgo/dorisgo/bench/engine"
	"github.com/dorisgo/dorisgo/bench/gen"
	"github.com/dorisgo/dorisgo/bench/report"
	"github.com/dorisgo/dorisgo/bench/workload"
	"github.com/schollz/progressbar/v3"
)

type config struct {
	sf          float64
	suites      []string
	runs        int
	out, svg    string
	md          string
	dataDir     string
	seed        int64
	cluster     bool
	backends    int
	buckets     int
	timeout     time.Duration
	gmsTimeout  time.Duration
	skipGMS     bool
	reportJoins bool
	// reportWrites runs the write-path report after the ssb suite.
	reportWrites bool
	// reportQError measures estimate q-errors before and after ANALYZE
	// instead of timing the queries (qerror.go).
	reportQError bool
	only         string
	connect      string // "mysqlPort,httpPort[,pid]" of a running dorisgo
	skipLoad     bool
	skipDuck     bool
	analyze      bool
}

func main() {
	var c config
	var suites, rep string
	flag.Float64Var(&c.sf, "sf", 0.1, "scale factor (0.01 .. 10)")
	flag.StringVar(&suites, "suite", "ssb,tpch", "suites to run: ssb, tpch")
	flag.IntVar(&c.runs, "runs", 3, "timed runs per query (median reported)")
	flag.StringVar(&c.out, "out", "results.json", "JSON output")
	flag.StringVar(&c.svg, "svg", "", "SVG chart output")
	flag.StringVar(&c.md, "md", "", "also write the markdown table to this file")
	flag.StringVar(&c.dataDir, "data", "", "CSV directory (default bench-data/sfN)")
	flag.Int64Var(&c.seed, "seed", 1, "generator seed")
	flag.BoolVar(&c.cluster, "cluster", false, "run dorisgo as a FE and separate BE processes")
	flag.IntVar(&c.backends, "backends", 3, "dorisgo backends")
	flag.IntVar(&c.buckets, "buckets", 6, "buckets of the large tables")
	flag.DurationVar(&c.timeout, "timeout", 120*time.Second, "per-query timeout for dorisgo and DuckDB")
	flag.DurationVar(&c.gmsTimeout, "gms-timeout", 60*time.Second, "per-query timeout for go-mysql-server")
	flag.BoolVar(&c.skipGMS, "skip-gms", false, "do not run go-mysql-server")
	flag.StringVar(&rep, "report", "", "extra report: joins, writes (INSERT … SELECT, UPDATE, DELETE after the ssb suite), or qerror (estimates vs actual rows per operator, before and after ANALYZE; no timings)")
	flag.StringVar(&c.only, "query", "", "run only these queries (comma list, e.g. Q1.1,Q3)")
	flag.StringVar(&c.connect, "connect", "", "use a running dorisgo on 127.0.0.1: \"mysqlPort,httpPort[,pid]\" (pid: report its peak RSS)")
	flag.BoolVar(&c.skipLoad, "skip-load", false, "do not load dorisgo (with -connect: the suites' databases are already loaded)")
	flag.BoolVar(&c.analyze, "analyze", true, "after loading dorisgo, ANALYZE TABLE … WITH SYNC each table (as TPC-H procedures do after a load; DuckDB keeps its statistics as it loads); never with -report qerror, which measures estimates before and after ANALYZE")
	flag.BoolVar(&c.skipDuck, "skip-duckdb", false, "do not run DuckDB (answers are then not checked)")
	flag.Parse()
	c.suites = strings.Split(suites, ",")
	c.reportJoins = rep == "joins"
	c.reportWrites = rep == "writes"
	if c.reportQError = rep == "qerror"; c.reportQError {
		c.skipDuck, c.skipGMS = true, true
	}
	if c.reportWrites && !strings.Contains(","+suites+",", ",ssb,") {
		log.Fatal("-report writes needs the ssb suite")
	}
	if c.dataDir == "" {
		c.dataDir = filepath.Join("bench-data", fmt.Sprintf("sf%g", c.sf))
	}
	if err := run(c); err != nil {
		log.Fatal(err)
	}
}

func run(c config) error {
	r := &report.Report{Started: time.Now(), SF: c.sf, Runs: c.runs, Mode: "standalone"}
	if c.cluster {
		r.Mode = "cluster (FE + BE processes)"
	}
	tmp, err := os.MkdirTemp("", "dorisgo-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	d, err := startOrConnect(c, tmp)
	if err != nil {
		return err
	}
	defer d.Close()

	if c.reportJoins {
		rows, err := joinReport(c, d)
		r.Joins = rows
		r.PeakRSS = d.PeakRSS()
		if err != nil {
			return err
		}
		return r.WriteJSON(c.out)
	}

	var duck *engine.DuckDB
	if !c.skipDuck {
		if duck, err = engine.OpenDuckDB(); err != nil {
			return err
		}
		defer duck.Close()
	}
	var gms *engine.GMS
	if !c.skipGMS {
		if gms, err = engine.StartGMS(c.suites...); err != nil {
			return fmt.Errorf("start go-mysql-server: %w", err)
		}
		defer gms.Close()
	}

	for _, name := range c.suites {
		suite, err := workload.Get(name, c.sf)
		if err != nil {
			return err
		}
		var files []gen.File
		var size int64
		if !c.skipLoad || duck != nil || gms != nil {
			tables, _ := gen.Suite(name, c.sf)
			dir := filepath.Join(c.dataDir, name)
			t0 := time.Now()
			if files, err = gen.Generate(gen.Options{SF: c.sf, Seed: c.seed, Dir: dir}, tables); err != nil {
				return err
			}
			var rows int64
			for _, f := range files {
				rows += f.Rows
				size += f.Bytes
			}
			r.GenSecs += time.Since(t0).Seconds()
			r.GenRows += rows
			log.Printf("%s: generated %d rows (%.0f MiB) in %.1fs", name, rows, float64(size)/(1<<20), time.Since(t0).Seconds())
		}

		if !c.skipLoad {
			r.Loads = append(r.Loads, loadDorisgo(c, d, suite, files, size))
		}
		if duck != nil {
			r.Loads = append(r.Loads, loadDuck(duck, suite, files))
		}
		r.PeakRSS = d.PeakRSS()
		if err := d.Use(name, false); err != nil {
			return err
		}
		// DuckDB keeps each suite in its own schema.
		if duck != nil {
			if err := duck.Exec("SET schema = '" + name + "'"); err != nil {
				return err
			}
		}
		if c.reportQError {
			rows, err := qerrorReport(d, suite, c.only)
			r.QErrors = append(r.QErrors, rows...)
			if err != nil {
				return err
			}
			continue
		}
		// go-mysql-server loads and runs after every dorisgo and DuckDB run
		// of the suite, and drops the suite after: its tables live in this
		// process's Go heap, whose collections slowed the other engines'
		// timed fetches, and a query it times out on keeps computing here
		// for a while (it made dorisgo's SF 0.1 TPC-H Q22 4x slower).
		first := len(r.Queries)
		var qs []workload.Query
		for _, q := range suite.Queries {
			if c.only != "" && !strings.Contains(","+c.only+",", ","+q.Name+",") {
				continue
			}
			qs = append(qs, q)
			r.Queries = append(r.Queries, runQuery(c, name, q, []engine.Engine{d, duck}, c.timeout))
		}
		if gms != nil {
			r.Loads = append(r.Loads, loadGMS(gms, suite, files))
			if err := gms.Use(name); err != nil {
				return err
			}
			for i, q := range qs {
				g := runQuery(c, name, q, []engine.Engine{gms}, c.gmsTimeout)
				r.Queries[first+i].Engines["gms"] = g.Engines["gms"]
			}
			if err := gms.Drop(name); err != nil {
				return err
			}
		}
		r.PeakRSS = d.PeakRSS()
	}
	if c.reportWrites {
		rows, before, after, err := writesReport(c, d, duck)
		if err != nil {
			return err
		}
		r.Writes, r.BeforeDelete, r.AfterDelete = rows, before, after
		r.PeakRSS = d.PeakRSS()
		defer printWrites(rows, before, after)
	}
	r.ComputeGeoMeans()
	var md bytes.Buffer
	r.Markdown(&md)
	fmt.Print("\n" + md.String())
	if c.md != "" {
		if err := os.WriteFile(c.md, md.Bytes(), 0o644); err != nil {
			return err
		}
	}
	if c.svg != "" {
		if err := r.WriteSVG(c.svg); err != nil {
			return err
		}
	}
	return r.WriteJSON(c.out)
}

// startOrConnect builds and starts dorisgo in tmp, or with -connect uses
// the running one.
func startOrConnect(c config, tmp string) (*engine.Dorisgo, error) {
	if c.connect != "" {
		var ports [3]int
		for i, f := range strings.Split(c.connect, ",") {
			if i < 3 {
				ports[i], _ = strconv.Atoi(f)
			}
		}
		if ports[0] == 0 || ports[1] == 0 {
			return nil, fmt.Errorf("-connect wants mysqlPort,httpPort[,pid], got %q", c.connect)
		}
		return engine.ConnectDorisgo(ports[0], ports[1], ports[2], c.backends)
	}
	bin := filepath.Join(tmp, "dorisgo")
	log.Printf("building dorisgo")
	if err := engine.BuildDorisgo("..", bin); err != nil {
		return nil, fmt.Errorf("build dorisgo (run from bench/): %w", err)
	}
	d, err := engine.StartDorisgo(bin, tmp, c.backends, c.cluster)
	if err != nil {
		return nil, fmt.Errorf("start dorisgo: %w", err)
	}
	return d, nil
}

func loadDorisgo(c config, d *engine.Dorisgo, s workload.Suite, files []gen.File, size int64) report.Load {
	l := report.Load{Suite: s.Name, Engine: "dorisgo"}
	fail := func(err error) report.Load { l.Error = err.Error(); log.Printf("dorisgo load: %v", err); return l }
	if err := d.Use(s.Name, true); err != nil {
		return fail(err)
	}
	for _, t := range s.Tables {
		if err := d.Exec(t.DorisDDL(c.buckets)); err != nil {
			return fail(fmt.Errorf("%s: %w", t.Name, err))
		}
	}
	bar := progressbar.DefaultBytes(size, "stream load "+s.Name)
	t0 := time.Now()
	nonce := time.Now().UnixNano()
	for _, f := range files {
		n, err := streamLoadFile(d, f, fmt.Sprintf("%s-%d", f.Table, nonce), bar)
		l.Rows += n
		if err != nil {
			return fail(err)
		}
	}
	_ = bar.Finish()
	l.Seconds = time.Since(t0).Seconds()
	l.RowsPerSec = float64(l.Rows) / l.Seconds
	if c.analyze && !c.reportQError {
		t1 := time.Now()
		for _, t := range s.Tables {
			if err := d.Exec("ANALYZE TABLE " + t.Name + " WITH SYNC"); err != nil {
				return fail(fmt.Errorf("ANALYZE TABLE %s: %w", t.Name, err))
			}
		}
		l.AnalyzeSeconds = time.Since(t1).Seconds()
		log.Printf("%s: ANALYZE of %d tables in %.1fs", s.Name, len(s.Tables), l.AnalyzeSeconds)
	}
	return l
}

// streamLoadFile sends a file in pieces of about 32 MiB, cut at line ends.
func streamLoadFile(d *engine.Dorisgo, f gen.File, label string, bar *progressbar.ProgressBar) (int64, error) {
	fh, err := os.Open(f.Path)
	if err != nil {
		return 0, err
	}
	defer fh.Close()
	rd := bufio.NewReaderSize(fh, 1<<20)
	const piece = 32 << 20
	var total int64
	for i := 0; ; i++ {
		buf := make([]byte, 0, piece+4096)
		for len(buf) < piece {
			line, err := rd.ReadSlice('\n')
			buf = append(buf, line...)
			if err != nil {
				break
			}
		}
		if len(buf) == 0 {
			return total, nil
		}
		n, err := d.StreamLoad(f.Table, fmt.Sprintf("%s-%d", label, i), buf)
		total += n
		if err != nil {
			return total, err
		}
		_ = bar.Add(len(buf))
	}
}

func loadDuck(duck *engine.DuckDB, s workload.Suite, files []gen.File) report.Load {
	l := report.Load{Suite: s.Name, Engine: "duckdb"}
	t0 := time.Now()
	err := func() error {
		if err := duck.Exec("CREATE SCHEMA IF NOT EXISTS " + s.Name + "; SET schema = '" + s.Name + "'"); err != nil {
			return err
		}
		for i, t := range s.Tables {
			if err := duck.Exec(t.PlainDDL()); err != nil {
				return err
			}
			abs, _ := filepath.Abs(files[i].Path)
			if err := duck.LoadCSV(t.Name, abs, t.DuckDBColumns()); err != nil {
				return fmt.Errorf("%s: %w", t.Name, err)
			}
			l.Rows += files[i].Rows
		}
		return nil
	}()
	if err != nil {
		l.Error = err.Error()
		log.Printf("duckdb load: %v", err)
	}
	l.Seconds = time.Since(t0).Seconds()
	l.RowsPerSec = float64(l.Rows) / l.Seconds
	return l
}

func loadGMS(g *engine.GMS, s workload.Suite, files []gen.File) report.Load {
	l := report.Load{Suite: s.Name, Engine: "gms"}
	var total int64
	for _, f := range files {
		total += f.Rows
	}
	bar := progressbar.Default(total, "gms insert "+s.Name)
	t0 := time.Now()
	err := func() error {
		for i, t := range s.Tables {
			if err := g.Exec(strings.Replace(t.PlainDDL(), "CREATE TABLE ", "CREATE TABLE "+s.Name+".", 1)); err != nil {
				return err
			}
			quote := make([]bool, len(t.Columns))
			for j, col := range t.Columns {
				ty := strings.ToUpper(col.Type)
				quote[j] = strings.HasPrefix(ty, "VARCHAR") || strings.HasPrefix(ty, "CHAR") || ty == "DATE"
			}
			n, err := g.LoadCSV(s.Name, t.Name, files[i].Path, quote, func(n int) { _ = bar.Add(n) })
			l.Rows += n
			if err != nil {
				return fmt.Errorf("%s: %w", t.Name, err)
			}
		}
		return nil
	}()
	_ = bar.Finish()
	if err != nil {
		l.Error = err.Error()
		log.Printf("gms load: %v", err)
	}
	l.Seconds = time.Since(t0).Seconds()
	l.RowsPerSec = float64(l.Rows) / l.Seconds
	return l
}

// warmupTimed is the warm-up length from which it counts as a timed run.
const warmupTimed = time.Second

// runQuery runs q c.runs times on each engine (nil ones skipped), after
// one untimed warm-up run (caches, connections); a warm-up slower than
// warmupTimed counts as the first timed run instead, since caching no
// longer matters at that length and slow engines would double their
// time. An engine that errs or times out is not run again. dorisgo's first
// answer is checked against DuckDB's.
func runQuery(c config, suite string, q workload.Query, engines []engine.Engine, timeout time.Duration) report.QueryResult {
	qr := report.QueryResult{Suite: suite, Query: q.Name, Engines: map[string]report.Run{}}
	answers := map[string]engine.Result{}
	for _, e := range engines {
		if e == nil || reflect.ValueOf(e).IsNil() {
			continue
		}
		var run report.Run
		for i := -1; i < c.runs && len(run.Times) < c.runs; i++ {
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			t0 := time.Now()
			res, err := e.Query(ctx, q.SQL)
			elapsed := time.Since(t0)
			if err == nil {
				elapsed = res.Elapsed // without normalizing the cells
			}
			timedOut := ctx.Err() != nil
			cancel()
			if err != nil {
				run.Error = err.Error()
				if timedOut {
					run.Error = fmt.Sprintf("timeout after %s", timeout)
				}
				break
			}
			if i < 0 {
				answers[e.Name()] = res
				if elapsed < warmupTimed {
					continue
				}
			}
			run.Times = append(run.Times, float64(elapsed.Microseconds())/1000)
		}
		if run.Error == "" {
			run.Median = report.Median(run.Times)
		}
		qr.Engines[e.Name()] = run
		log.Printf("%s %s %s: %.1f ms %s", suite, q.Name, e.Name(), run.Median, run.Error)
	}
	got, okd := answers["dorisgo"]
	want, okk := answers["duckdb"]
	if okd && okk {
		qr.Mismatch = engine.Compare(got, want, engine.HasOrderBy(q.SQL))
		if qr.Mismatch != "" {
			log.Printf("%s %s: dorisgo answer differs from DuckDB: %s", suite, q.Name, qr.Mismatch)
		}
	}
	return qr
}
