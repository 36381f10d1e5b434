package difftest

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/dorisgo/dorisgo/bench/engine"
)

// mutate runs every mutation table's sequence on both engines: after each
// DELETE, UPDATE or INSERT the table's contents and two queries over it
// must agree. A failure reports the whole script (DDL, rows, statements)
// and the query; the table's sequence stops there.
func (r *runner) mutate(duck *engine.DuckDB, steps int) {
	t0 := time.Now()
	stmts := 0
	for si, ms := range Mutations(r.seed, steps) {
		idx := 100000 + si*1000
		ok := true
		for _, s := range ms.setup {
			if err := r.s.dg.Exec(s.d); err != nil {
				r.fail(idx, Query{Duck: s.q, Classes: []string{"dml/setup"}}, "dml "+ms.t.name+" setup", "error", s.d, "dorisgo error: "+err.Error())
				ok = false
				break
			}
			if err := duck.Exec(s.q); err != nil {
				r.fail(idx, Query{Duck: s.q, Classes: []string{"dml/setup"}}, "dml "+ms.t.name+" setup", "duckdb-error", s.d, "DuckDB rejects: "+err.Error())
				ok = false
				break
			}
		}
	steps:
		for k, st := range ms.steps {
			if !ok {
				break
			}
			label := fmt.Sprintf("dml %s step %d (%s)", ms.t.name, k, st.kind)
			stmts++
			if err := r.s.dg.Exec(st.st.d); err != nil {
				msg := "dorisgo error: " + err.Error()
				if p, restarted := r.s.recover(err); restarted || p != "" {
					msg += "; panic: " + p
					ok = false
				}
				r.fail(idx+k, Query{Duck: st.st.q, Classes: []string{"dml/" + st.kind}}, label, "error", st.st.d,
					msg+"\n  script:\n"+ms.script(k))
				break
			}
			if err := duck.Exec(st.st.q); err != nil {
				r.fail(idx+k, Query{Duck: st.st.q, Classes: []string{"dml/" + st.kind}}, label, "duckdb-error", st.st.d, "DuckDB rejects the generated statement: "+err.Error())
				break
			}
			for ci, q := range st.checks {
				if !r.checkAfter(idx+k, q, fmt.Sprintf("%s check %d", label, ci), duck, ms, k) {
					break steps
				}
			}
		}
	}
	r.t.Logf("seed %d: %d mutations (%d tables) checked in %s", r.seed, stmts, len(mutTables()), time.Since(t0).Round(time.Millisecond))
}

// checkAfter compares query q after step k of ms; false on a mismatch.
func (r *runner) checkAfter(i int, q Query, label string, duck *engine.DuckDB, ms mutSeq, k int) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w, err := duck.Query(ctx, q.Duck)
	if err != nil {
		r.fail(i, q, label, "duckdb-error", q.Doris, "DuckDB rejects the generated query: "+err.Error())
		return false
	}
	n := r.failures
	r.check(i, q, label, "", q.Doris, &w, q.Ordered)
	if r.failures > n {
		r.t.Logf("%s: minimal reproduction (dorisgo's dialect; DuckDB answers it otherwise):\n%s", label, r.shrink(duck, ms, k, q))
		return false
	}
	if q.TLP != "" {
		r.check(i, q, label+" tlp", "", q.TLP, &w, false)
	}
	return true
}

// views creates the seed's views on both engines and runs the queries
// over them like the generated ones (hints, sessions, TLP).
func (r *runner) views(duck *engine.DuckDB, first, n int) {
	t0 := time.Now()
	vs, qs := Views(r.seed, n)
	for _, v := range vs {
		if err := r.s.dg.Exec(v.d); err != nil {
			r.fail(first, Query{Duck: v.q, Classes: []string{"view"}}, "create view", "error", v.d, "dorisgo error: "+err.Error())
			return
		}
		if err := duck.Exec(v.q); err != nil {
			r.fail(first, Query{Duck: v.q, Classes: []string{"view"}}, "create view", "duckdb-error", v.d, "DuckDB rejects: "+err.Error())
			return
		}
	}
	for i, q := range qs {
		n := r.failures
		r.one(first+i, q, duck)
		if r.failures > n {
			for _, v := range vs {
				r.t.Logf("query %d reads the views of: %s", first+i, v.d)
			}
		}
	}
	r.t.Logf("seed %d: %d views, %d queries over them in %s", r.seed, len(vs), len(qs), time.Since(t0).Round(time.Millisecond))
}

// shrinkBudget bounds the replays one failure may spend shrinking.
const shrinkBudget = 40

// shrink replays the failure of q after step k of ms on fresh copies of
// the table with fewer steps and fewer first rows, greedily, while the
// engines still disagree, and returns the smallest script and the query.
func (r *runner) shrink(duck *engine.DuckDB, ms mutSeq, k int, q Query) string {
	steps := make([]int, k+1)
	for i := range steps {
		steps[i] = i
	}
	rows := ms.rows
	tries := 0
	fails := func(rows []string, steps []int) bool {
		tries++
		return r.replay(duck, ms, rows, steps, q, tries)
	}
	if !fails(rows, steps) {
		return "(does not reproduce on a fresh table)\n" + ms.script(k) + q.Doris + ";"
	}
	// drop earlier steps, the last one (the mutation checked) kept.
	for i := len(steps) - 2; i >= 0 && tries < shrinkBudget; i-- {
		cand := append(append([]int{}, steps[:i]...), steps[i+1:]...)
		if fails(rows, cand) {
			steps = cand
		}
	}
	// drop chunks of the first rows, halving the chunk.
	for chunk := len(rows) / 2; chunk >= 1 && tries < shrinkBudget; chunk /= 2 {
		for lo := 0; lo < len(rows) && tries < shrinkBudget; {
			cand := append(append([]string{}, rows[:lo]...), rows[min(lo+chunk, len(rows)):]...)
			if fails(cand, steps) {
				rows = cand
			} else {
				lo += chunk
			}
		}
	}
	var b strings.Builder
	b.WriteString(ms.setup[0].d + ";\n")
	if len(rows) > 0 {
		b.WriteString(insertText(ms.t, rows).d + ";\n")
	}
	for _, i := range steps {
		b.WriteString(ms.steps[i].st.d + ";\n")
	}
	b.WriteString(q.Doris + ";")
	return b.String()
}

// replay runs the script of rows and steps on a fresh table (the name
// suffixed by try) on both engines and reports whether q still differs.
func (r *runner) replay(duck *engine.DuckDB, ms mutSeq, rows []string, steps []int, q Query, try int) bool {
	name := fmt.Sprintf("%s_r%d", ms.t.name, try)
	re := regexp.MustCompile(`\b` + ms.t.name + `\b`)
	ren := func(s string) string { return re.ReplaceAllString(s, name) }
	script := []stmt{ms.setup[0]}
	if len(rows) > 0 {
		script = append(script, insertText(ms.t, rows))
	}
	for _, i := range steps {
		script = append(script, ms.steps[i].st)
	}
	for _, s := range script {
		if err := duck.Exec(ren(s.q)); err != nil {
			return false
		}
		if err := r.s.dg.Exec(ren(s.d)); err != nil {
			return true // dorisgo fails where DuckDB does not: still a repro
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w, err := duck.Query(ctx, ren(q.Duck))
	if err != nil {
		return false
	}
	got, err := r.s.dg.Query(ctx, ren(q.Doris))
	if err != nil {
		return true
	}
	return engine.Compare(got, w, q.Ordered) != "" && (q.Ordered || !matchRows(got.Rows, w.Rows))
}
