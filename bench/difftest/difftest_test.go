package difftest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/dorisgo/dorisgo/bench/engine"
)

var (
	seedFlag    = flag.Int64("difftest.seed", 20240601, "seed of the data and the queries")
	queriesFlag = flag.Int("difftest.queries", 300, "number of generated queries")
	dumpFlag    = flag.String("difftest.dump", "", "write the dorisgo DDL and INSERTs and the queries to this file prefix and stop")
	binFlag     = flag.String("difftest.dorisgo", "", "a prebuilt dorisgo binary (default: build ../../cmd/dorisgo)")
)

// unsupported lists dorisgo errors accepted for a query DuckDB answers,
// each with the reason. Keep it short: anything else is a failure.
var unsupported = []struct {
	re     *regexp.Regexp
	reason string
}{}

func allowed(err error) string {
	for _, u := range unsupported {
		if u.re.MatchString(err.Error()) {
			return u.reason
		}
	}
	return ""
}

// TestGenerateDeterministic checks that the seed alone fixes data and queries.
func TestGenerateDeterministic(t *testing.T) {
	a, b := Generate(7, 50), Generate(7, 50)
	for i := range a {
		if a[i].Doris != b[i].Doris || a[i].Duck != b[i].Duck {
			t.Fatalf("query %d differs between two runs", i)
		}
	}
	for _, tb := range Tables() {
		x, y := Inserts(7, tb, 100), Inserts(7, tb, 100)
		if strings.Join(x, ";") != strings.Join(y, ";") {
			t.Fatalf("%s: inserts differ between two runs", tb.Name)
		}
	}
}

// dump writes the setup script and the queries, to reproduce a failure
// with the mariadb client.
func dump(t *testing.T, prefix string, seed int64, n int) {
	var setup, queries strings.Builder
	for _, tb := range Tables() {
		setup.WriteString(tb.Doris + ";\n")
		for _, ins := range Inserts(seed, tb, 100) {
			setup.WriteString(ins + ";\n")
		}
	}
	for i, q := range Generate(seed, n) {
		fmt.Fprintf(&queries, "-- %d\n%s;\n", i, q.Doris)
	}
	if err := os.WriteFile(prefix+".setup.sql", []byte(setup.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prefix+".queries.sql", []byte(queries.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("starts dorisgo and DuckDB")
	}
	seed, n := *seedFlag, *queriesFlag
	if *dumpFlag != "" {
		dump(t, *dumpFlag, seed, n)
		return
	}
	tmp := t.TempDir()
	bin := *binFlag
	if bin == "" {
		bin = filepath.Join(tmp, "dorisgo")
		if err := engine.BuildDorisgo(filepath.Join("..", ".."), bin); err != nil {
			t.Fatalf("build dorisgo: %v", err)
		}
	}
	dg, err := engine.StartDorisgo(bin, tmp, 3, false)
	if err != nil {
		t.Fatalf("start dorisgo: %v", err)
	}
	t.Cleanup(func() { dg.Close() })
	if err := dg.Use("difftest", true); err != nil {
		t.Fatal(err)
	}
	duck, err := engine.OpenDuckDB()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { duck.Close() })

	start := time.Now()
	for _, tb := range Tables() {
		if err := dg.Exec(tb.Doris); err != nil {
			t.Fatalf("dorisgo: %s: %v", tb.Doris, err)
		}
		if err := duck.Exec(tb.Duck); err != nil {
			t.Fatalf("duckdb: %s: %v", tb.Duck, err)
		}
		for _, ins := range Inserts(seed, tb, 100) {
			if err := dg.Exec(ins); err != nil {
				t.Fatalf("dorisgo: load %s: %v", tb.Name, err)
			}
			if err := duck.Exec(ins); err != nil {
				t.Fatalf("duckdb: load %s: %v", tb.Name, err)
			}
		}
	}
	t.Logf("seed %d: loaded %d tables in %s", seed, len(Tables()), time.Since(start).Round(time.Millisecond))

	ctx := context.Background()
	// The join queries run once more in a session where bucket shuffle is
	// off, so that the planner must pick another distribution.
	noBucket, err := dg.Session(ctx, "SET enable_bucket_shuffle_join = false")
	if err != nil {
		t.Fatal(err)
	}
	defer noBucket.Close()

	start = time.Now()
	failures, runs := 0, 0
	fail := func(i int, q Query, text, msg string) {
		failures++
		if failures <= 10 {
			t.Errorf("seed %d, query %d: %s\n  dorisgo: %s\n  duckdb:  %s", seed, i, msg, text, q.Duck)
		}
	}
	for i, q := range Generate(seed, n) {
		qctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		want, err := duck.Query(qctx, q.Duck)
		cancel()
		if err != nil {
			// The generator must only write SQL both engines accept.
			fail(i, q, q.Doris, "DuckDB rejects the generated query: "+err.Error())
			continue
		}
		type run struct {
			text string
			do   func(context.Context, string) (engine.Result, error)
		}
		runsOf := []run{{q.Doris, dg.Query}}
		for _, v := range q.Variants {
			runsOf = append(runsOf, run{v, dg.Query})
		}
		if q.Joins {
			runsOf = append(runsOf, run{q.Doris, noBucket.Query})
		}
		for j, r := range runsOf {
			runs++
			what := "query"
			if j > 0 {
				what = fmt.Sprintf("variant %d", j)
			}
			qctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			got, err := r.do(qctx, r.text)
			cancel()
			if err != nil {
				if reason := allowed(err); reason != "" {
					t.Logf("query %d: known unsupported (%s): %v", i, reason, err)
					continue
				}
				fail(i, q, r.text, fmt.Sprintf("%s: dorisgo error: %v", what, err))
				if _, perr := dg.Query(ctx, "SELECT 1"); perr != nil {
					t.Fatalf("dorisgo is down after query %d: %v", i, perr)
				}
				continue
			}
			if d := engine.Compare(got, want, q.Ordered); d != "" {
				fail(i, q, r.text, fmt.Sprintf("%s: rows differ (ordered=%v): %s\n%s", what, q.Ordered, d, sideBySide(got, want, q.Ordered)))
			}
		}
	}
	t.Logf("seed %d: %d queries, %d dorisgo runs in %s, %d failures", seed, n, runs, time.Since(start).Round(time.Millisecond), failures)
}

// sideBySide prints the first rows of both results from the first row
// where they differ (sorted first when the order does not matter).
func sideBySide(got, want engine.Result, ordered bool) string {
	g, w := got.Rows, want.Rows
	if !ordered {
		g, w = sortRows(g), sortRows(w)
	}
	first := 0
	for first < len(g) && first < len(w) && strings.Join(g[first], "|") == strings.Join(w[first], "|") {
		first++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  %d rows from dorisgo, %d from duckdb; from row %d:\n", len(g), len(w), first)
	for i := first; i < first+8 && (i < len(g) || i < len(w)); i++ {
		gs, ws := "-", "-"
		if i < len(g) {
			gs = strings.Join(g[i], " | ")
		}
		if i < len(w) {
			ws = strings.Join(w[i], " | ")
		}
		fmt.Fprintf(&b, "  %4d dorisgo [%s]  duckdb [%s]\n", i, gs, ws)
	}
	return b.String()
}

func sortRows(rows [][]string) [][]string {
	out := append([][]string(nil), rows...)
	sort.Slice(out, func(i, j int) bool { return strings.Join(out[i], "\x00") < strings.Join(out[j], "\x00") })
	return out
}
