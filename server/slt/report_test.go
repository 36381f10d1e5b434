package slt

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
)

var (
	reQuoted = regexp.MustCompile("(^|[^\\w])('[^']*'|`[^`]*`|\"[^\"]*\")")
	reCode   = regexp.MustCompile(`^\d+: `)
	reNumber = regexp.MustCompile(`\b\d+(\.\d+)?\b`)
)

// groupReason folds the specifics (names, literals, numbers after the error
// code) out of a failure reason so that similar failures count together.
func groupReason(s string) string {
	code, msg := "", s
	if m := reCode.FindString(s); m != "" {
		code, msg = m, s[len(m):]
	}
	msg = reQuoted.ReplaceAllString(msg, "${1}?")
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
	var p, f, s int
	var sum time.Duration
	for _, file := range files {
		res := results[file]
		if res == nil {
			continue
		}
		p, f, s, sum = p+res.Passed, f+res.Failed, s+res.Skipped, sum+res.Duration
		fmt.Fprintf(&b, "%-42s passed %6d failed %6d skipped %6d %9v\n",
			file, res.Passed, res.Failed, res.Skipped, res.Duration.Round(time.Millisecond))
		for _, x := range res.Failures {
			reasons[groupReason(x.Reason)]++
		}
	}
	fmt.Fprintf(&b, "%-42s passed %6d failed %6d skipped %6d %9v (wall %v)\n",
		"TOTAL", p, f, s, sum.Round(time.Millisecond), wall.Round(time.Millisecond))
	type rc struct {
		r string
		n int
	}
	var top []rc
	for k, v := range reasons {
		top = append(top, rc{k, v})
	}
	sort.Slice(top, func(i, j int) bool { return top[i].n > top[j].n || top[i].n == top[j].n && top[i].r < top[j].r })
	b.WriteString("top failure reasons:\n")
	for i, x := range top {
		if i == 15 {
			break
		}
		fmt.Fprintf(&b, "%7d  %s\n", x.n, x.r)
	}
	return b.String()
}
