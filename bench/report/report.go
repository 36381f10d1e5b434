package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"time"
)

// Engines in the order they are reported.
var Engines = []string{"dorisgo", "duckdb", "gms"}

// Run is one engine's outcome for one query.
type Run struct {
	Times  []float64 `json:"times_ms,omitempty"`
	Median float64   `json:"median_ms,omitempty"`
	Error  string    `json:"error,omitempty"`
}

// QueryResult is one query on every engine.
type QueryResult struct {
	Suite    string         `json:"suite"`
	Query    string         `json:"query"`
	Engines  map[string]Run `json:"engines"`
	Mismatch string         `json:"mismatch,omitempty"` // dorisgo vs DuckDB
}

// Load is the load of one suite into one engine.
type Load struct {
	Suite      string  `json:"suite"`
	Engine     string  `json:"engine"`
	Rows       int64   `json:"rows"`
	Seconds    float64 `json:"seconds"`
	RowsPerSec float64 `json:"rows_per_sec"`
	// AnalyzeSeconds is ANALYZE … WITH SYNC of every table after the load
	// (dorisgo; 0: not run).
	AnalyzeSeconds float64 `json:"analyze_seconds,omitempty"`
	Error          string  `json:"error,omitempty"`
}

// Report is everything one benchmark run measured.
type Report struct {
	Started time.Time `json:"started"`
	SF      float64   `json:"sf"`
	Mode    string    `json:"mode"` // standalone | cluster
	Runs    int       `json:"runs"`
	// DuckDBFile: DuckDB's database was a file, not in memory.
	DuckDBFile bool          `json:"duckdb_file,omitempty"`
	GenSecs    float64       `json:"generate_seconds"`
	GenRows    int64         `json:"generate_rows"`
	Loads      []Load        `json:"loads"`
	Queries    []QueryResult `json:"queries"`
	PeakRSS    []int64       `json:"dorisgo_peak_rss_bytes"`
	Joins      []JoinRow     `json:"joins,omitempty"`
	Writes     []WriteRow    `json:"writes,omitempty"`
	QErrors    []QErrorRow   `json:"qerrors,omitempty"`
	// BeforeDelete and AfterDelete are the SSB queries run right before
	// and right after the writes report's DELETE of 1% of lineorder.
	BeforeDelete []QueryResult                 `json:"queries_before_delete,omitempty"`
	AfterDelete  []QueryResult                 `json:"queries_after_delete,omitempty"`
	GeoMeans     map[string]map[string]float64 `json:"geomean_ms"`
}

// QErrorRow is one query's operators' estimates against their actual rows
// (Estimates: "default" before ANALYZE, "statistics" after).
type QErrorRow struct {
	Suite     string     `json:"suite"`
	Query     string     `json:"query"`
	Estimates string     `json:"estimates"`
	Operators []QErrorOp `json:"operators"`
	Error     string     `json:"error,omitempty"`
}

// QErrorOp is one operator's estimate, actual rows and q-error.
type QErrorOp struct {
	Node     int     `json:"node"`
	Kind     string  `json:"kind"`
	Estimate int64   `json:"estimate"`
	Actual   int64   `json:"actual"`
	QError   float64 `json:"qerror"`
	// JoinInput: the operator feeds a join (through exchanges).
	JoinInput bool `json:"join_input,omitempty"`
}

// WriteRow is one step of the writes report on one engine.
type WriteRow struct {
	Step       string  `json:"step"`
	Engine     string  `json:"engine"`
	Rows       int64   `json:"rows"`
	Seconds    float64 `json:"seconds"`
	RowsPerSec float64 `json:"rows_per_sec"`
	Error      string  `json:"error,omitempty"`
}

// JoinRow is one strategy of the join report.
type JoinRow struct {
	Strategy string  `json:"strategy"`
	Query    string  `json:"query"`
	Chosen   string  `json:"chosen"`
	Estimate string  `json:"planner_estimate_bytes"`
	Measured string  `json:"measured_bytes"`
	Formula  string  `json:"formula"`
	FormulaB int64   `json:"formula_bytes"`
	MedianMS float64 `json:"median_ms"`
	Error    string  `json:"error,omitempty"`
	// Ran is how an adaptive join ran (the estimated-wrong cases).
	Ran string `json:"ran,omitempty"`
}

// Median of xs (0 for none).
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func geomean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += math.Log(math.Max(x, 0.01))
	}
	return math.Exp(s / float64(len(xs)))
}

// ComputeGeoMeans fills r.GeoMeans per suite and engine, over the queries
// that every engine finished (so the means compare like with like); key
// "all" is per engine over its own successes.
func (r *Report) ComputeGeoMeans() {
	r.GeoMeans = map[string]map[string]float64{}
	for _, suite := range r.suites() {
		m := map[string]float64{}
		for _, pair := range [][2]string{{"dorisgo", "duckdb"}, {"dorisgo", "gms"}} {
			var a, b []float64
			for _, q := range r.Queries {
				ra, rb := q.Engines[pair[0]], q.Engines[pair[1]]
				if q.Suite == suite && ra.Error == "" && rb.Error == "" && ra.Median > 0 && rb.Median > 0 {
					a, b = append(a, ra.Median), append(b, rb.Median)
				}
			}
			if len(a) > 0 {
				m[pair[0]+"_vs_"+pair[1]] = geomean(a)
				m[pair[1]+"_vs_"+pair[0]] = geomean(b)
				m["ratio_"+pair[0]+"/"+pair[1]] = geomean(a) / geomean(b)
				m["n_"+pair[0]+"/"+pair[1]] = float64(len(a))
			}
		}
		r.GeoMeans[suite] = m
	}
}

func (r *Report) suites() []string {
	var out []string
	seen := map[string]bool{}
	for _, q := range r.Queries {
		if !seen[q.Suite] {
			seen[q.Suite] = true
			out = append(out, q.Suite)
		}
	}
	return out
}

func cell(run Run, ok bool) string {
	if !ok {
		return "-"
	}
	if run.Error != "" {
		if strings.Contains(run.Error, "timeout") || strings.Contains(run.Error, "deadline") {
			return "timeout"
		}
		return "ERROR"
	}
	return fmt.Sprintf("%.1f", run.Median)
}

func ratio(a, b Run, okA, okB bool) string {
	if !okA || !okB || a.Error != "" || b.Error != "" || b.Median == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", a.Median/b.Median)
}

// Markdown writes the results table (times in ms, medians) and the notes.
func (r *Report) Markdown(w io.Writer) {
	duck := ""
	if r.DuckDBFile {
		duck = ", DuckDB on a database file"
	}
	fmt.Fprintf(w, "SF %g, %s, median of %d runs%s, times in ms\n\n", r.SF, r.Mode, r.Runs, duck)
	fmt.Fprintln(w, "| suite | query | dorisgo | DuckDB | gms | dorisgo/DuckDB | dorisgo/gms | answer |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---|")
	for _, q := range r.Queries {
		d, okd := q.Engines["dorisgo"]
		k, okk := q.Engines["duckdb"]
		g, okg := q.Engines["gms"]
		ans := "ok"
		switch {
		case okd && d.Error != "":
			ans = "dorisgo error"
		case q.Mismatch != "":
			ans = "WRONG: " + q.Mismatch
		case !okk || k.Error != "":
			ans = "unchecked"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", q.Suite, q.Query, cell(d, okd), cell(k, okk), cell(g, okg),
			ratio(d, k, okd, okk), ratio(d, g, okd, okg), ans)
	}
	fmt.Fprintln(w)
	for _, s := range r.suites() {
		m := r.GeoMeans[s]
		if n := m["n_dorisgo/duckdb"]; n > 0 {
			fmt.Fprintf(w, "- %s geometric mean over the %d queries both answered: dorisgo %.1f ms, DuckDB %.1f ms, ratio %.2f\n",
				s, int(n), m["dorisgo_vs_duckdb"], m["duckdb_vs_dorisgo"], m["ratio_dorisgo/duckdb"])
		}
		if n := m["n_dorisgo/gms"]; n > 0 {
			fmt.Fprintf(w, "- %s geometric mean over the %d queries both answered: dorisgo %.1f ms, gms %.1f ms, ratio %.2f\n",
				s, int(n), m["dorisgo_vs_gms"], m["gms_vs_dorisgo"], m["ratio_dorisgo/gms"])
		}
	}
	for _, l := range r.Loads {
		if l.Error != "" {
			fmt.Fprintf(w, "- load %s into %s: ERROR %s\n", l.Suite, l.Engine, l.Error)
			continue
		}
		fmt.Fprintf(w, "- load %s into %s: %d rows in %.1f s = %.0f rows/s\n", l.Suite, l.Engine, l.Rows, l.Seconds, l.RowsPerSec)
		if l.AnalyzeSeconds > 0 {
			fmt.Fprintf(w, "  then ANALYZE TABLE … WITH SYNC of every table: %.1f s\n", l.AnalyzeSeconds)
		}
	}
	var total int64
	for _, b := range r.PeakRSS {
		total += b
	}
	fmt.Fprintf(w, "- dorisgo peak RSS (VmHWM): %.0f MiB (per process: %v)\n", float64(total)/(1<<20), mib(r.PeakRSS))
	fails := false
	for _, q := range r.Queries {
		d := q.Engines["dorisgo"]
		if d.Error != "" || q.Mismatch != "" {
			if !fails {
				fmt.Fprintln(w, "\nQueries dorisgo fails or answers wrongly:")
				fails = true
			}
			msg := d.Error
			if msg == "" {
				msg = "wrong answer: " + q.Mismatch
			}
			fmt.Fprintf(w, "- %s %s: %s\n", q.Suite, q.Query, oneLine(msg))
		}
	}
	for _, q := range r.Queries {
		if g, ok := q.Engines["gms"]; ok && g.Error != "" {
			fmt.Fprintf(w, "- (gms) %s %s: %s\n", q.Suite, q.Query, oneLine(g.Error))
		}
	}
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

func mib(bs []int64) []string {
	var out []string
	for _, b := range bs {
		out = append(out, fmt.Sprintf("%.0fMiB", float64(b)/(1<<20)))
	}
	return out
}

// WriteJSON writes the report to path.
func (r *Report) WriteJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
