package main

import (
	"context"
	"fmt"
	"log"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/dorisgo/dorisgo/bench/engine"
	"github.com/dorisgo/dorisgo/bench/report"
	"github.com/dorisgo/dorisgo/bench/workload"
)

// qerrorReport measures the planner's row estimates against what every
// operator of each query produced (EXPLAIN ANALYZE's rows and est), first
// with the default estimates, then after ANALYZE TABLE … WITH SYNC of
// every table of the suite. The q-error of an operator is
// max(est/act, act/est) with both at least 1. Exchanges are left out: a
// broadcast exchange's rows count once per receiving instance. Runtime
// filters are off while measuring: they cut scans below what their
// predicates keep, which no estimate models (Doris's neither).
func qerrorReport(d *engine.Dorisgo, s workload.Suite, only string) ([]report.QErrorRow, error) {
	sess, err := d.Session(context.Background(), "SET runtime_filter_mode = OFF")
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	var out []report.QErrorRow
	for _, phase := range []string{"default", "statistics"} {
		if phase == "default" {
			// A loaded database (-skip-load) may have statistics already.
			for _, t := range s.Tables {
				if err := d.Exec("DROP STATS " + t.Name); err != nil {
					return out, fmt.Errorf("DROP STATS %s: %w", t.Name, err)
				}
			}
		} else {
			for _, t := range s.Tables {
				if err := d.Exec("ANALYZE TABLE " + t.Name + " WITH SYNC"); err != nil {
					return out, fmt.Errorf("ANALYZE TABLE %s: %w", t.Name, err)
				}
			}
		}
		for _, q := range s.Queries {
			if only != "" && !strings.Contains(","+only+",", ","+q.Name+",") {
				continue
			}
			row := report.QErrorRow{Suite: s.Name, Query: q.Name, Estimates: phase}
			ops, err := analyzeOps(sess, q.SQL)
			if err != nil {
				row.Error = err.Error()
				log.Printf("q-error %s %s: %v", s.Name, q.Name, err)
			}
			row.Operators = ops
			out = append(out, row)
		}
	}
	printQError(out)
	return out, nil
}

var (
	analyzeOp = regexp.MustCompile(`^\s+(\d+):(.+?)\s+instances=\d+\s+rows=(\d+)\s+est=(\d+|\?)`)
	opInputs  = regexp.MustCompile(`inputs=([\d,]+)`)
)

// analyzeOps runs q under EXPLAIN ANALYZE and reads each operator's
// estimate and actual rows.
func analyzeOps(sess *engine.Session, q string) ([]report.QErrorOp, error) {
	res, err := sess.Query(context.Background(), "EXPLAIN ANALYZE "+q)
	if err != nil {
		return nil, err
	}
	var ops []report.QErrorOp
	inputs := map[int][]int{}
	exchange := map[int]bool{}
	for _, r := range res.Rows {
		l := r[0]
		m := analyzeOp.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		id, _ := strconv.Atoi(m[1])
		if im := opInputs.FindStringSubmatch(l); im != nil {
			for _, f := range strings.Split(im[1], ",") {
				c, _ := strconv.Atoi(f)
				inputs[id] = append(inputs[id], c)
			}
		}
		if strings.Contains(m[2], "EXCHANGE") {
			exchange[id] = true
			continue
		}
		if m[4] == "?" {
			continue
		}
		act, _ := strconv.ParseInt(m[3], 10, 64)
		est, _ := strconv.ParseInt(m[4], 10, 64)
		ops = append(ops, report.QErrorOp{Node: id, Kind: m[2], Actual: act, Estimate: est, QError: qerr(est, act)})
	}
	// A join's inputs, seen through the exchanges feeding it.
	for i := range ops {
		if !strings.Contains(ops[i].Kind, "JOIN") {
			continue
		}
		for _, c := range inputs[ops[i].Node] {
			for exchange[c] && len(inputs[c]) == 1 {
				c = inputs[c][0]
			}
			for j := range ops {
				if ops[j].Node == c {
					ops[j].JoinInput = true
				}
			}
		}
	}
	return ops, nil
}

func qerr(est, act int64) float64 {
	e, a := math.Max(1, float64(est)), math.Max(1, float64(act))
	return math.Max(e/a, a/e)
}

// printQError prints per phase the median, 90th percentile and maximum
// q-error over all operators, and per query its worst operator.
func printQError(rows []report.QErrorRow) {
	byPhase, joinIn := map[string][]float64{}, map[string][]float64{}
	fmt.Println("\nQ-error (max(est/act, act/est) per operator, exchanges excluded)")
	fmt.Println("\n| suite | query | estimates | operators | median | max | worst operator (est / actual) |")
	fmt.Println("|---|---|---|---:|---:|---:|---|")
	for _, r := range rows {
		var qs []float64
		worst := report.QErrorOp{}
		for _, o := range r.Operators {
			qs = append(qs, o.QError)
			if o.JoinInput {
				joinIn[r.Estimates] = append(joinIn[r.Estimates], o.QError)
			}
			if o.QError > worst.QError {
				worst = o
			}
		}
		byPhase[r.Estimates] = append(byPhase[r.Estimates], qs...)
		if r.Error != "" {
			fmt.Printf("| %s | %s | %s | - | - | - | ERROR %s |\n", r.Suite, r.Query, r.Estimates, r.Error)
			continue
		}
		fmt.Printf("| %s | %s | %s | %d | %.2f | %.2f | %d:%s (%d / %d) |\n", r.Suite, r.Query, r.Estimates, len(qs),
			quantile(qs, 0.5), quantile(qs, 1), worst.Node, worst.Kind, worst.Estimate, worst.Actual)
	}
	fmt.Println("\n| estimates | operators | median | p90 | max | join inputs | join inputs off > 10x | join input max |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, p := range []string{"default", "statistics"} {
		qs, js := byPhase[p], joinIn[p]
		over := 0
		for _, q := range js {
			if q > 10 {
				over++
			}
		}
		fmt.Printf("| %s | %d | %.2f | %.2f | %.2f | %d | %d | %.2f |\n", p, len(qs), quantile(qs, 0.5), quantile(qs, 0.9),
			quantile(qs, 1), len(js), over, quantile(js, 1))
	}
}

func quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[int(math.Round(q*float64(len(s)-1)))]
}
