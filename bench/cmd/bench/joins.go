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
		var times []float64
		for i := 0; i < c.runs; i++ {
			t0 := time.Now()
			if _, err := d.Query(context.Background(), q); err != nil {
				row.Error = err.Error()
				break
			}
			times = append(times, float64(time.Since(t0).Microseconds())/1000)
		}
		row.MedianMS = report.Median(times)
		out = append(out, row)
		t := fmt.Sprintf("%.1f", row.MedianMS)
		if row.Error != "" {
			t = "ERROR " + row.Error
		}
		fmt.Printf("| %s | %s | %s | %s | %s | %d | %s |\n", cs.strategy, row.Chosen, row.Estimate, row.Measured, cs.formula, cs.bytes, t)
		log.Printf("%s: %s", cs.strategy, q)
	}
	return out, nil
}

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
