package report

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// Multi is the JSON of a run over several scale factors: each scale's
// report as a single-scale run writes it, and the scaling between them.
type Multi struct {
	Scales  []*Report `json:"scales"`
	Scaling *Scaling  `json:"scaling,omitempty"`
}

// Scaling compares each scale of a run with the next larger one.
type Scaling struct {
	Scales []ScaleSummary `json:"scales"`
	Steps  []ScalingStep  `json:"steps"`
}

// ScaleSummary is one scale's peak memory and answer check.
type ScaleSummary struct {
	SF float64 `json:"sf"`
	// PeakRSS is the sum of dorisgo's processes' peak RSS.
	PeakRSS int64 `json:"dorisgo_peak_rss_bytes"`
	Queries int   `json:"queries"`
	// Matched counts the dorisgo answers checked equal to DuckDB's.
	Matched int `json:"matched"`
	// Wrong, Errors and Unchecked count the others: a differing answer, a
	// dorisgo error or timeout, no DuckDB answer to check against.
	Wrong      int  `json:"wrong"`
	Errors     int  `json:"dorisgo_errors"`
	Unchecked  int  `json:"unchecked"`
	AllMatched bool `json:"all_matched"`
}

// ScalingStep is the time ratios of every query from scale From to To.
type ScalingStep struct {
	From float64      `json:"from_sf"`
	To   float64      `json:"to_sf"`
	Rows []ScalingRow `json:"queries"`
	// GeoMeans by suite, and "all" over every suite's queries.
	GeoMeans map[string]ScalingMean `json:"geomeans"`
}

// ScalingRow is one query's median time at To over its time at From, per
// engine (0: an engine lacks a time at one of the scales), and Relative =
// Dorisgo / DuckDB: above 1, dorisgo's time grows faster than DuckDB's.
type ScalingRow struct {
	Suite    string  `json:"suite"`
	Query    string  `json:"query"`
	Dorisgo  float64 `json:"dorisgo_ratio,omitempty"`
	DuckDB   float64 `json:"duckdb_ratio,omitempty"`
	Relative float64 `json:"relative,omitempty"`
}

// ScalingMean is the geometric means of a step's ratios over the N queries
// that have both engines' ratios (so Relative = Dorisgo / DuckDB).
type ScalingMean struct {
	N        int     `json:"n"`
	Dorisgo  float64 `json:"dorisgo_ratio"`
	DuckDB   float64 `json:"duckdb_ratio"`
	Relative float64 `json:"relative"`
}

// Summarize is r's peak RSS and answer check.
func (r *Report) Summarize() ScaleSummary {
	s := ScaleSummary{SF: r.SF, Queries: len(r.Queries)}
	for _, b := range r.PeakRSS {
		s.PeakRSS += b
	}
	for _, q := range r.Queries {
		d, okd := q.Engines["dorisgo"]
		k, okk := q.Engines["duckdb"]
		switch {
		case !okd || d.Error != "":
			s.Errors++
		case q.Mismatch != "":
			s.Wrong++
		case !okk || k.Error != "":
			s.Unchecked++
		default:
			s.Matched++
		}
	}
	s.AllMatched = s.Queries > 0 && s.Matched == s.Queries
	return s
}

// NewScaling compares each report with the next; reports are in ascending
// scale order.
func NewScaling(reports []*Report) *Scaling {
	sc := &Scaling{}
	for _, r := range reports {
		sc.Scales = append(sc.Scales, r.Summarize())
	}
	for i := 1; i < len(reports); i++ {
		sc.Steps = append(sc.Steps, newStep(reports[i-1], reports[i]))
	}
	return sc
}

func medianOK(q QueryResult, engine string) (float64, bool) {
	r, ok := q.Engines[engine]
	return r.Median, ok && r.Error == "" && r.Median > 0
}

func newStep(a, b *Report) ScalingStep {
	st := ScalingStep{From: a.SF, To: b.SF, GeoMeans: map[string]ScalingMean{}}
	later := map[[2]string]QueryResult{}
	for _, q := range b.Queries {
		later[[2]string{q.Suite, q.Query}] = q
	}
	logs := map[string][2][]float64{} // suite -> log ratios of dorisgo, DuckDB
	for _, qa := range a.Queries {
		qb, ok := later[[2]string{qa.Suite, qa.Query}]
		if !ok {
			continue
		}
		row := ScalingRow{Suite: qa.Suite, Query: qa.Query}
		da, ok1 := medianOK(qa, "dorisgo")
		db, ok2 := medianOK(qb, "dorisgo")
		if ok1 && ok2 {
			row.Dorisgo = db / da
		}
		ka, ok3 := medianOK(qa, "duckdb")
		kb, ok4 := medianOK(qb, "duckdb")
		if ok3 && ok4 {
			row.DuckDB = kb / ka
		}
		if row.Dorisgo > 0 && row.DuckDB > 0 {
			row.Relative = row.Dorisgo / row.DuckDB
			for _, s := range []string{qa.Suite, "all"} {
				l := logs[s]
				l[0], l[1] = append(l[0], math.Log(row.Dorisgo)), append(l[1], math.Log(row.DuckDB))
				logs[s] = l
			}
		}
		st.Rows = append(st.Rows, row)
	}
	for s, l := range logs {
		m := ScalingMean{N: len(l[0]), Dorisgo: math.Exp(mean(l[0])), DuckDB: math.Exp(mean(l[1]))}
		m.Relative = m.Dorisgo / m.DuckDB
		st.GeoMeans[s] = m
	}
	return st
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func ratioCell(x float64) string {
	if x <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", x)
}

// Markdown writes the scaling table: per query and step, dorisgo's and
// DuckDB's time ratios and their quotient; then the geometric means and
// each scale's peak RSS and answer check.
func (sc *Scaling) Markdown(w io.Writer) {
	// Rows follow the first step's queries; a later step's rows are looked
	// up by query, since a scale may lack one (-query, a failed suite).
	type key [2]string
	var order []key
	seen := map[key]bool{}
	byStep := make([]map[key]ScalingRow, len(sc.Steps))
	for i, st := range sc.Steps {
		byStep[i] = map[key]ScalingRow{}
		for _, r := range st.Rows {
			k := key{r.Suite, r.Query}
			byStep[i][k] = r
			if !seen[k] {
				seen[k] = true
				order = append(order, k)
			}
		}
	}
	if len(order) == 0 {
		return
	}
	fmt.Fprintln(w, "Scaling: median time at the larger scale over the time at the smaller, per engine; "+
		"dorisgo÷DuckDB above 1: dorisgo's time grows faster than DuckDB's")
	fmt.Fprintln(w)
	head, rule := "| suite | query |", "|---|---|"
	for _, st := range sc.Steps {
		step := fmt.Sprintf("SF %g/%g", st.To, st.From)
		head += fmt.Sprintf(" dorisgo %s | DuckDB %s | dorisgo÷DuckDB |", step, step)
		rule += "---:|---:|---:|"
	}
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, rule)
	for _, k := range order {
		line := fmt.Sprintf("| %s | %s |", k[0], k[1])
		for i := range sc.Steps {
			r := byStep[i][k]
			line += fmt.Sprintf(" %s | %s | %s |", ratioCell(r.Dorisgo), ratioCell(r.DuckDB), ratioCell(r.Relative))
		}
		fmt.Fprintln(w, line)
	}
	var suites []string
	for _, k := range order {
		if len(suites) == 0 || suites[len(suites)-1] != k[0] {
			suites = append(suites, k[0])
		}
	}
	if len(suites) > 1 {
		suites = append(suites, "all")
	}
	for _, s := range suites {
		line := fmt.Sprintf("| %s | geomean |", s)
		for _, st := range sc.Steps {
			m, ok := st.GeoMeans[s]
			if !ok {
				line += " - | - | - |"
				continue
			}
			line += fmt.Sprintf(" **%.2f** | **%.2f** | **%.2f** |", m.Dorisgo, m.DuckDB, m.Relative)
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w)
	for _, st := range sc.Steps {
		var parts []string
		for _, s := range suites {
			if m, ok := st.GeoMeans[s]; ok {
				parts = append(parts, fmt.Sprintf("%s %d", s, m.N))
			}
		}
		fmt.Fprintf(w, "- SF %g/%g = %.3g× the data; geometric means over the queries both engines timed at both scales (%s)\n",
			st.To, st.From, st.To/st.From, strings.Join(parts, ", "))
	}
	for _, s := range sc.Scales {
		check := fmt.Sprintf("all %d answers match DuckDB's", s.Queries)
		if !s.AllMatched {
			var bad []string
			for _, c := range []struct {
				n    int
				what string
			}{{s.Wrong, "wrong"}, {s.Errors, "dorisgo errors"}, {s.Unchecked, "unchecked"}} {
				if c.n > 0 {
					bad = append(bad, fmt.Sprintf("%d %s", c.n, c.what))
				}
			}
			check = fmt.Sprintf("%d of %d answers match DuckDB's (%s)", s.Matched, s.Queries, strings.Join(bad, ", "))
		}
		fmt.Fprintf(w, "- SF %g: dorisgo peak RSS %.0f MiB; %s\n", s.SF, float64(s.PeakRSS)/(1<<20), check)
	}
}
