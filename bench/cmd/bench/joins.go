package main

import (
	"context"
	"fmt"
	"log"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/dorisgo/dorisgo/bench/engine"
	"github.com/dorisgo/dorisgo/bench/report"
)

// joinReport joins a fact table to a dimension under each distribution
// strategy, forced by layout and by hint, and prints per strategy the
// planner's estimate, the measured exchange bytes, the seed's formula and
// the time.
//
// Layout: dim (HASH(dk), group jg), fact_dk (HASH(dk), group jg) are
// colocated; dim_other (HASH(dk), no group) is bucket-shuffle material
// against fact_dk; fact_id (HASH(id)) needs broadcast or shuffle.
func joinReport(c config, d *engine.Dorisgo) ([]report.JoinRow, error) {
	factRows := int64(c.sf * 6_000_000)
	dimRows := max(int64(c.sf*200_000), 1000)
	if err := d.Use("joinrep", true); err != nil {
		return nil, err
	}
	b := c.buckets
	ddl := []string{
		fmt.Sprintf(`CREATE TABLE dim (dk INT NOT NULL, w BIGINT NOT NULL) DUPLICATE KEY(dk) DISTRIBUTED BY HASH(dk) BUCKETS %d PROPERTIES ("replication_num"="1", "colocate_with"="jg")`, b),
		fmt.Sprintf(`CREATE TABLE dim_other (dk INT NOT NULL, w BIGINT NOT NULL) DUPLICATE KEY(dk) DISTRIBUTED BY HASH(dk) BUCKETS %d PROPERTIES ("replication_num"="1")`, b),
		fmt.Sprintf(`CREATE TABLE fact_dk (id BIGINT NOT NULL, dk INT NOT NULL, v BIGINT NOT NULL) DUPLICATE KEY(id) DISTRIBUTED BY HASH(dk) BUCKETS %d PROPERTIES ("replication_num"="1", "colocate_with"="jg")`, b),
		fmt.Sprintf(`CREATE TABLE fact_id (id BIGINT NOT NULL, dk INT NOT NULL, v BIGINT NOT NULL) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS %d PROPERTIES ("replication_num"="1")`, b),
	}
	for _, q := range ddl {
		if err := d.Exec(q); err != nil {
			return nil, fmt.Errorf("%s: %w", q, err)
		}
	}
	var dim, fact strings.Builder
	for i := int64(1); i <= dimRows; i++ {
		fmt.Fprintf(&dim, "%d|%d\n", i, i%97)
	}
	for i := int64(1); i <= factRows; i++ {
		fmt.Fprintf(&fact, "%d|%d|%d\n", i, (i*7919)%dimRows+1, i%1000)
	}
	nonce := time.Now().UnixNano()
	for _, t := range []struct{ table, data string }{{"dim", dim.String()}, {"dim_other", dim.String()},
		{"fact_dk", fact.String()}, {"fact_id", fact.String()}} {
		if _, err := d.StreamLoad(t.table, fmt.Sprintf("%s-%d", t.table, nonce), []byte(t.data)); err != nil {
			return nil, err
		}
	}
	// Arrow widths of the columns each side ships: fact (dk INT, v BIGINT),
	// dim (dk INT, w BIGINT): 12 bytes a row each.
	A, B := factRows*12, dimRows*12
	nodes := int64(c.backends)
	cases := []struct {
		strategy, fact, hint, dim, formula string
		bytes                              int64
	}{
		{"colocate", "fact_dk", "[colocate]", "dim", "0", 0},
		{"bucket shuffle", "fact_dk", "[bucket]", "dim_other", "B", B},
		{"broadcast", "fact_id", "[broadcast]", "dim", "B × nodes", B * nodes},
		{"shuffle", "fact_id", "[shuffle]", "dim", "A + B", A + B},
	}
	var out []report.JoinRow
	fmt.Printf("\nJoin strategies: fact %d rows (A = %d bytes), dimension %d rows (B = %d bytes), %d backends\n\n",
		factRows, A, dimRows, B, nodes)
	fmt.Println("| strategy | chosen | planner estimate (bytes) | measured (bytes) | formula | formula bytes | median ms |")
	fmt.Println("|---|---|---:|---:|---|---:|---:|")
	for _, cs := range cases {
		q := fmt.Sprintf("SELECT count(*), sum(f.v + d.w) FROM %s f JOIN %s %s d ON f.dk = d.dk", cs.fact, cs.hint, cs.dim)
		row := report.JoinRow{Strategy: cs.strategy, Query: q, Formula: cs.formula, FormulaB: cs.bytes}
		row.Chosen, row.Estimate = explainEstimate(d, q)
		row.Measured = analyzeBytes(d, q)
		row.MedianMS, row.Error = timeQuery(c, d, q)
		out = append(out, row)
		t := fmt.Sprintf("%.1f", row.MedianMS)
		if row.Error != "" {
			t = "ERROR " + row.Error
		}
		fmt.Printf("| %s | %s | %s | %s | %s | %d | %s |\n", cs.strategy, row.Chosen, row.Estimate, row.Measured, cs.formula, cs.bytes, t)
		log.Printf("%s: %s", cs.strategy, q)
	}
	wrong, err := estimatedWrong(c, d, dimRows, nodes)
	if err != nil {
		return nil, err
	}
	return append(out, wrong...), nil
}

// estimatedWrong runs joins whose estimate is wrong with adaptive joins on
// and off: a filter on the dimension the estimator takes for 1,000× more
// rows than it keeps (with broadcast_row_count_limit between the two, so
// the plan is a shuffle), and a fact side where one key holds 90% of the
// rows under a shuffle (the dimension over the row limit), and a fact side
// the estimator takes for 1,000× fewer rows than it keeps, so the plan is a
// broadcast of it.
func estimatedWrong(c config, d *engine.Dorisgo, dimRows, nodes int64) ([]report.JoinRow, error) {
	if err := d.Exec(`CREATE TABLE fact_skew (id BIGINT NOT NULL, dk INT NOT NULL, v BIGINT NOT NULL) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS ` +
		fmt.Sprint(c.buckets) + ` PROPERTIES ("replication_num"="1")`); err != nil {
		return nil, err
	}
	if err := d.Exec("INSERT INTO fact_skew SELECT id, CASE WHEN id % 10 < 9 THEN 42 ELSE dk END, v FROM fact_id"); err != nil {
		return nil, err
	}
	kept := dimRows / 1000 // dk % 1000 = 7 (dimRows is a multiple of 1,000)
	limit := max(kept*10, 10)
	cases := []struct{ strategy, vars, q, formula string }{
		{"estimated 100× too big", "broadcast_row_count_limit = %d, enable_adaptive_join = %v",
			"SELECT count(*), sum(f.v + d.w) FROM fact_id f JOIN dim d ON f.dk = d.dk WHERE d.dk % 1000 = 7", "B' × nodes (B' = kept rows × 12); probe rows stay local"},
		{"90% one key", "broadcast_row_count_limit = %d, enable_adaptive_join = %v",
			"SELECT count(*), sum(f.v + d.w) FROM fact_skew f JOIN dim d ON f.dk = d.dk", "A + B"},
		// Three predicates the estimator has no statistics for keep every
		// row of g; it expects a thousandth and plans a broadcast.
		{"estimated 1000× too small", "enable_adaptive_join = %[2]v",
			"SELECT count(*), sum(f.v + g.v) FROM fact_dk f JOIN fact_id g ON f.id = g.id WHERE g.v >= 0 AND g.dk > 0 AND g.id > 0",
			"A + B (the planned broadcast: B × nodes)"},
	}
	var out []report.JoinRow
	fmt.Printf("\nEstimated wrong: adaptive joins on and off (broadcast_row_count_limit = %d; the filter keeps %d rows of %d)\n\n", limit, kept, dimRows)
	fmt.Println("| case | adaptive | planned | ran | measured (bytes sent) | wire bytes | formula | median ms |")
	fmt.Println("|---|---|---|---|---:|---:|---|---:|")
	for _, cs := range cases {
		for _, on := range []bool{false, true} {
			q := fmt.Sprintf("SELECT /*+ SET_VAR("+cs.vars+") */ ", limit, on) + strings.TrimPrefix(cs.q, "SELECT ")
			strategy := cs.strategy
			row := report.JoinRow{Strategy: fmt.Sprintf("%s, adaptive %v", strategy, on), Query: q, Formula: cs.formula}
			row.Chosen, row.Estimate = explainEstimate(d, q)
			row.Measured = analyzeBytes(d, q)
			ran := "as planned"
			if lines, err := d.Lines(context.Background(), "EXPLAIN ANALYZE "+q); err == nil {
				for _, l := range lines {
					if m := adaptRan.FindStringSubmatch(l); m != nil {
						ran = m[1]
						if sk := skewLine.FindStringSubmatch(l); sk != nil && sk[1] != "0" {
							ran += fmt.Sprintf(", %s key spread, rows per instance %s", sk[1], sk[2])
						} else if sk != nil {
							ran += ", rows per instance " + sk[2]
						}
					}
				}
			}
			row.Ran = ran
			row.MedianMS, row.Error = timeQuery(c, d, q)
			out = append(out, row)
			fmt.Printf("| %s | %v | %s | %s | %s | %s | %s | %.1f |\n", strategy, on, row.Chosen, ran, row.Measured, analyzeWire(d, q), cs.formula, row.MedianMS)
		}
	}
	return out, nil
}

var (
	adaptRan = regexp.MustCompile(`HASH JOIN  planned=\w+  ran=(\w+)`)
	skewLine = regexp.MustCompile(`skewed keys spread=(\d+) .*probe rows per join instance=(\[[\d ]*\])`)
)

var (
	joinOp    = regexp.MustCompile(`join op: .*\((\w+)\)`)
	chosenEst = regexp.MustCompile(`(\w+): network bytes=(-?\d+), chosen`)
)

// explainEstimate reads the chosen distribution and its estimated network
// bytes from EXPLAIN VERBOSE.
func explainEstimate(d *engine.Dorisgo, q string) (string, string) {
	lines, err := d.Lines(context.Background(), "EXPLAIN VERBOSE "+q)
	if err != nil {
		return "n/a", "n/a (EXPLAIN VERBOSE: " + err.Error() + ")"
	}
	chosen, est := "n/a", "n/a (no `network bytes=..., chosen` line in EXPLAIN VERBOSE)"
	for _, l := range lines {
		if m := joinOp.FindStringSubmatch(l); m != nil {
			chosen = m[1]
		}
		if m := chosenEst.FindStringSubmatch(l); m != nil {
			est = m[2]
		}
	}
	return chosen, est
}

var bytesSent = regexp.MustCompile(`(?i)bytes[ _]?sent[=: ]+(\d+)`)

// analyzeBytes sums the bytes sent by the exchanges feeding the join, as
// printed by EXPLAIN ANALYZE (the exchanges above the join carry only the
// aggregate's partial rows and are excluded by taking the sinks whose
// fragment feeds a HASH JOIN, approximated by all but the last one).
func analyzeBytes(d *engine.Dorisgo, q string) string {
	lines, err := d.Lines(context.Background(), "EXPLAIN ANALYZE "+q)
	if err != nil {
		return "n/a (EXPLAIN ANALYZE: " + strings.SplitN(err.Error(), "\n", 2)[0] + ")"
	}
	var vals []int64
	for _, l := range lines {
		if m := bytesSent.FindStringSubmatch(l); m != nil {
			v, _ := strconv.ParseInt(m[1], 10, 64)
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return "n/a (EXPLAIN ANALYZE prints no bytes-sent counter)"
	}
	var sum int64
	for _, v := range vals {
		sum += v
	}
	return fmt.Sprintf("%d (all exchanges: %v)", sum, vals)
}

var wireSent = regexp.MustCompile(`wire bytes=(\d+)`)

// analyzeWire sums the bytes the exchanges put on the wire (EXPLAIN
// ANALYZE): rows sent to an instance on the sender's own backend cost none.
func analyzeWire(d *engine.Dorisgo, q string) string {
	lines, err := d.Lines(context.Background(), "EXPLAIN ANALYZE "+q)
	if err != nil {
		return "n/a"
	}
	var sum int64
	for _, l := range lines {
		if m := wireSent.FindStringSubmatch(l); m != nil {
			v, _ := strconv.ParseInt(m[1], 10, 64)
			sum += v
		}
	}
	return fmt.Sprint(sum)
}

// timeQuery runs q c.runs times and returns the median time in ms, or the
// error of the run that failed.
func timeQuery(c config, d *engine.Dorisgo, q string) (float64, string) {
	var times []float64
	for i := 0; i < c.runs; i++ {
		t0 := time.Now()
		if _, err := d.Query(context.Background(), q); err != nil {
			return report.Median(times), err.Error()
		}
		times = append(times, float64(time.Since(t0).Microseconds())/1000)
	}
	return report.Median(times), ""
}
