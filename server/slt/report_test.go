package slt

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
)

var (
	reQuoted  = regexp.MustCompile("(^|[^\\w])('[^']*'|`[^`]*`|\"[^\"]*\")")
	reKeyword = regexp.MustCompile(`^.?'[A-Za-z][A-Za-z _()]{0,30}'$`)
	reCode    = regexp.MustCompile(`^\d+: `)
	reNumber  = regexp.MustCompile(`\b\d+(\.\d+)?\b`)
)

// groupReason folds the specifics (names, literals, numbers after the error
// code) out of a failure reason so that similar failures count together.
func groupReason(s string) string {
	code, msg := "", s
	if m := reCode.FindString(s); m != "" {
		code, msg = m, s[len(m):]
	}
	msg = reQuoted.ReplaceAllStringFunc(msg, func(q string) string {
		// Keep quoted keywords ('ORDER BY'), fold names and literals.
		if reKeyword.MatchString(q) {
			return q
		}
		if strings.ContainsRune("'`\"", rune(q[0])) {
			return "?"
		}
		return q[:1] + "?"
	})
	msg = reNumber.ReplaceAllString(msg, "N")
	if len(msg) > 90 {
		msg = msg[:90]
	}
	return code + msg
}

// report is the per-file table and the most common (grouped) failure reasons.
func report(files []string, results map[string]*Result, wall time.Duration) string {
	var b strings.Builder
	reasons := map[string]int{}
	var p, f, s, nr int
	var slow []string
	var slowD []time.Duration
	var sum time.Duration
	for _, file := range files {
		res := results[file]
		if res == nil {
			continue
		}
		p, f, s, sum = p+res.Passed, f+res.Failed, s+res.Skipped, sum+res.Duration
		fmt.Fprintf(&b, "%-42s passed %6d failed %6d skipped %6d not-run %6d %9v (statements %v, >1s records %d)\n",
			file, res.Passed, res.Failed, res.Skipped, len(res.NotRun), res.Duration.Round(time.Millisecond),
			res.StatementTime.Round(time.Millisecond), len(res.Slow))
		nr += len(res.NotRun)
		for _, x := range res.Failures {
			reasons[groupReason(x.Reason)]++
		}
		for _, x := range res.Slow {
			slow = append(slow, fmt.Sprintf("%9v %s:%d %s", x.Duration.Round(time.Millisecond), file, x.Line, truncate(oneLine(x.SQL), 100)))
			slowD = append(slowD, x.Duration)
		}
	}
	fmt.Fprintf(&b, "%-42s passed %6d failed %6d skipped %6d not-run %6d %9v (wall %v)\n",
		"TOTAL", p, f, s, nr, sum.Round(time.Millisecond), wall.Round(time.Millisecond))
	type rc struct {
		r string
		n int
	}
	var top []rc
	for k, v := range reasons {
		top = append(top, rc{k, v})
	}
	sort.Slice(top, func(i, j int) bool { return top[i].n > top[j].n || top[i].n == top[j].n && top[i].r < top[j].r })
	idx := make([]int, len(slow))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(i, j int) bool { return slowD[idx[i]] > slowD[idx[j]] })
	fmt.Fprintf(&b, "records over 1s: %d; slowest:\n", len(slow))
	for i, k := range idx {
		if i == 10 {
			break
		}
		b.WriteString(slow[k] + "\n")
	}
	b.WriteString("top failure reasons:\n")
	for i, x := range top {
		if i == 15 {
			break
		}
		fmt.Fprintf(&b, "%7d  %s\n", x.n, x.r)
	}
	return b.String()
}
