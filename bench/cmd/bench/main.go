// Command bench generates SSB and TPC-H data, loads it into dorisgo, DuckDB
// and go-mysql-server, runs the queries on all three, checks dorisgo's
// answers against DuckDB and reports times, ratios, load throughput and
// dorisgo's peak memory. With -report joins it measures join strategies.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"sort"
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
	// duckDiskSF: from this scale factor DuckDB keeps its database in a
	// file in the scale's temp dir instead of in memory; duckFile is the
	// choice for the run's scales.
	duckDiskSF float64
	duckFile   bool
}

func main() {
	var c config
	var suites, rep, sfs string
	flag.StringVar(&sfs, "sf", "0.1", "scale factor (0.01 .. 10), or a comma list (e.g. 1,10) run one after another, smallest first, with a scaling table after")
	flag.StringVar(&suites, "suite", "ssb,tpch", "suites to run: ssb, tpch")
	flag.IntVar(&c.runs, "runs", 3, "timed runs per query (median reported)")
	flag.StringVar(&c.out, "out", "results.json", "JSON output")
	flag.StringVar(&c.svg, "svg", "", "SVG chart output")
	flag.StringVar(&c.md, "md", "", "also write the markdown table to this file")
	flag.StringVar(&c.dataDir, "data", "", "CSV directory (default bench-data/sfN); with several -sf, the parent of their sfN directories")
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
	flag.Float64Var(&c.duckDiskSF, "duckdb-disk-sf", 5, "from this scale factor DuckDB's database is a file in the run's temp dir, not in memory; a run of several scales uses a file for all of them if its largest reaches this (0: always a file)")
	flag.Parse()
	scales, err := parseScales(sfs)
	if err != nil {
		log.Fatal(err)
	}
	if len(scales) > 1 && c.connect != "" {
		log.Fatalf("-connect measures one running dorisgo holding one scale's data: give one -sf, not %q", sfs)
	}
	c.suites = strings.Split(suites, ",")
	c.reportJoins = rep == "joins"
	c.reportWrites = rep == "writes"
	if c.reportQError = rep == "qerror"; c.reportQError {
		c.skipDuck, c.skipGMS = true, true
	}
	if c.reportWrites && !strings.Contains(","+suites+",", ",ssb,") {
		log.Fatal("-report writes needs the ssb suite")
	}
	if err := run(c, scales); err != nil {
		log.Fatal(err)
	}
}

// parseScales reads -sf: one scale factor or a comma list, returned in
// ascending order.
func parseScales(list string) ([]float64, error) {
	var out []float64
	seen := map[float64]bool{}
	for _, f := range strings.Split(list, ",") {
		sf, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || sf <= 0 {
			return nil, fmt.Errorf("-sf wants positive scale factors separated by commas, got %q", list)
		}
		if seen[sf] {
			return nil, fmt.Errorf("-sf %q names scale factor %g twice", list, sf)
		}
		seen[sf] = true
		out = append(out, sf)
	}
	sort.Float64s(out)
	return out, nil
}

// run runs every scale in turn, each with its own dorisgo, data dir and
// DuckDB, all closed before the next scale so that each scale's peak RSS
// is its own. One scale writes -out, -md and -svg as it always has;
// several write one JSON of every scale's report plus the scaling
// between them (report.Multi), every scale's table and the scaling table
// to -md, and one SVG per scale (NAME-sfN.svg).
func run(c config, scales []float64) error {
	tmp, err := os.MkdirTemp("", "dorisgo-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "dorisgo")
	if c.connect == "" {
		log.Printf("building dorisgo")
		if err := engine.BuildDorisgo("..", bin); err != nil {
			return fmt.Errorf("build dorisgo (run from bench/): %w", err)
		}
	}
	multi := len(scales) > 1
	var reports []*report.Report
	var md bytes.Buffer
	var runErr error
	for _, sf := range scales {
		sc := c
		sc.sf = sf
		// One storage for every scale of a run, so that DuckDB's time
		// ratios between scales compare like with like.
		sc.duckFile = scales[len(scales)-1] >= c.duckDiskSF
		switch {
		case c.dataDir == "":
			sc.dataDir = filepath.Join("bench-data", fmt.Sprintf("sf%g", sf))
		case multi:
			sc.dataDir = filepath.Join(c.dataDir, fmt.Sprintf("sf%g", sf))
		}
		if multi {
			log.Printf("scale factor %g: data in %s", sf, sc.dataDir)
		}
		dir := filepath.Join(tmp, fmt.Sprintf("sf%g", sf))
		if err := os.Mkdir(dir, 0o755); err != nil {
			return err
		}
		r, err := runScale(sc, bin, dir)
		// The scale's dorisgo data, DuckDB file and logs go now: SF 10's
		// would otherwise sit beside the next scale's.
		os.RemoveAll(dir)
		// What DuckDB and go-mysql-server held in this process goes back
		// to the OS before the next scale.
		debug.FreeOSMemory()
		if err != nil {
			if !multi {
				return err
			}
			runErr = fmt.Errorf("scale factor %g: %w", sf, err)
			log.Print(runErr)
			break
		}
		reports = append(reports, r)
		if !c.reportJoins {
			var m bytes.Buffer
			r.Markdown(&m)
			fmt.Print("\n" + m.String())
			if md.Len() > 0 {
				md.WriteString("\n")
			}
			md.Write(m.Bytes())
		}
		if c.reportWrites {
			printWrites(r.Writes, r.BeforeDelete, r.AfterDelete)
		}
		if c.svg != "" && !c.reportJoins {
			path := c.svg
			if multi {
				ext := filepath.Ext(path)
				path = strings.TrimSuffix(path, ext) + fmt.Sprintf("-sf%g", sf) + ext
			}
			if err := r.WriteSVG(path); err != nil {
				return err
			}
		}
	}
	if !multi {
		if c.md != "" && !c.reportJoins {
			if err := os.WriteFile(c.md, md.Bytes(), 0o644); err != nil {
				return err
			}
		}
		return reports[0].WriteJSON(c.out)
	}
	out := report.Multi{Scales: reports}
	if len(reports) > 1 {
		out.Scaling = report.NewScaling(reports)
		var m bytes.Buffer
		out.Scaling.Markdown(&m)
		if m.Len() > 0 {
			fmt.Print("\n" + m.String())
			md.WriteString("\n")
			md.Write(m.Bytes())
		}
	}
	if c.md != "" {
		if err := os.WriteFile(c.md, md.Bytes(), 0o644); err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(c.out, b, 0o644); err != nil {
		return err
	}
	return runErr
}

// runScale runs one scale factor: dorisgo (bin, started with its data
// dir in dir, or -connect's), DuckDB (in memory, or with c.duckFile a file
// in dir), go-mysql-server, each suite's generation, loads and
// queries; all stopped and closed when it returns.
func runScale(c config, bin, dir string) (*report.Report, error) {
	r := &report.Report{Started: time.Now(), SF: c.sf, Runs: c.runs, Mode: "standalone"}
	if c.cluster {
		r.Mode = "cluster (FE + BE processes)"
	}
	d, err := startOrConnect(c, bin, dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()

	if c.reportJoins {
		rows, err := joinReport(c, d)
		r.Joins = rows
		r.PeakRSS = d.PeakRSS()
		return r, err
	}

	var duck *engine.DuckDB
	if !c.skipDuck {
		path := ""
		if c.duckFile {
			// At SF 10 the two suites take several GiB in DuckDB (an
			// in-memory database is not compressed); in memory all of it
			// would stay in this process beside dorisgo, in a file DuckDB
			// evicts from its buffer pool.
			path = filepath.Join(dir, "duckdb.db")
			r.DuckDBFile = true
			log.Printf("DuckDB database file %s", path)
		}
		if duck, err = engine.OpenDuckDBFile(path); err != nil {
			return nil, err
		}
		defer duck.Close()
	}
	var gms *engine.GMS
	if !c.skipGMS {
		if gms, err = engine.StartGMS(c.suites...); err != nil {
			return nil, fmt.Errorf("start go-mysql-server: %w", err)
		}
		defer gms.Close()
	}

	for _, name := range c.suites {
		suite, err := workload.Get(name, c.sf)
		if err != nil {
			return nil, err
		}
		var files []gen.File
		var size int64
		if !c.skipLoad || duck != nil || gms != nil {
			tables, _ := gen.Suite(name, c.sf)
			dir := filepath.Join(c.dataDir, name)
			t0 := time.Now()
			if files, err = gen.Generate(gen.Options{SF: c.sf, Seed: c.seed, Dir: dir}, tables); err != nil {
				return nil, err
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
			return nil, err
		}
		// DuckDB keeps each suite in its own schema.
		if duck != nil {
			if err := duck.Exec("SET schema = '" + name + "'"); err != nil {
				return nil, err
			}
		}
		if c.reportQError {
			rows, err := qerrorReport(d, suite, c.only)
			r.QErrors = append(r.QErrors, rows...)
			if err != nil {
				return nil, err
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
				return nil, err
			}
			for i, q := range qs {
				g := runQuery(c, name, q, []engine.Engine{gms}, c.gmsTimeout)
				r.Queries[first+i].Engines["gms"] = g.Engines["gms"]
			}
			if err := gms.Drop(name); err != nil {
				return nil, err
			}
		}
		r.PeakRSS = d.PeakRSS()
	}
	if c.reportWrites {
		rows, before, after, err := writesReport(c, d, duck)
		if err != nil {
			return nil, err
		}
		r.Writes, r.BeforeDelete, r.AfterDelete = rows, before, after
		r.PeakRSS = d.PeakRSS()
	}
	r.ComputeGeoMeans()
	return r, nil
}

// startOrConnect starts dorisgo (bin) with a fresh data dir in dir, or
// with -connect uses the running one.
func startOrConnect(c config, bin, dir string) (*engine.Dorisgo, error) {
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
	d, err := engine.StartDorisgo(bin, dir, c.backends, c.cluster)
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
