package physical_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/dorisgo/dorisgo/planner/explain"
	"github.com/dorisgo/dorisgo/planner/physical"
)

// joinCorpus: {h} marks where a join hint goes; queries without it run
// unhinted only.
var joinCorpus = []string{
	"SELECT a.v, b.s FROM a JOIN {h} b ON a.k = b.k",
	"SELECT a.v, c.s FROM a JOIN {h} c ON a.k = c.k",
	"SELECT a.v, d.k FROM a JOIN {h} d ON a.v = d.i",
	"SELECT a.v, b.s FROM a LEFT JOIN {h} b ON a.k = b.k",
	"SELECT a.v, c.s FROM a RIGHT JOIN {h} c ON a.k = c.k",
	"SELECT a.v, c.s FROM a FULL OUTER JOIN {h} c ON a.k = c.k AND a.v > c.i",
	"SELECT a.v, c.s FROM a JOIN {h} c ON a.k <=> c.k",
	"SELECT a.v FROM a JOIN b ON a.k = b.k JOIN c ON b.k = c.k JOIN {h} d ON c.i = d.i",
	"SELECT a.v FROM d JOIN c ON d.k = c.k JOIN {h} a ON a.k = c.k",
	"SELECT a.v, r.k FROM a JOIN {h} r ON a.v = r.v",
	"SELECT a.v, p.v FROM a JOIN {h} p ON a.k = p.k",
	"SELECT x.k, c.s FROM (SELECT k, COUNT(*) n FROM a GROUP BY k) x JOIN {h} c ON x.k = c.k",
	"SELECT c.s, SUM(a.v) FROM a JOIN {h} c ON a.k = c.k GROUP BY c.s ORDER BY c.s LIMIT 3",
	"SELECT a.v, c.i FROM a JOIN {h} c ON a.v < c.i",
	"SELECT a.v, c.i FROM a LEFT JOIN {h} c ON a.v < c.i",
	"SELECT a.v, c.i FROM a RIGHT JOIN {h} c ON a.v < c.i",
	"SELECT a.v, c.i FROM a, c WHERE a.k = c.k AND a.v > 1",
	"SELECT a.v FROM c JOIN {h} a ON a.k = c.k AND a.v < c.i",
	"SELECT a.v FROM c, d, a WHERE a.v + d.i > c.i AND a.k = c.k",
	"SELECT a.v FROM a WHERE a.k IN (SELECT k FROM c)",
	"SELECT a.v FROM a WHERE a.v NOT IN (SELECT i FROM c)",
	"SELECT a.v FROM a WHERE NOT EXISTS (SELECT 1 FROM c WHERE c.k = a.k)",
	"SELECT /*+ BROADCAST(a) */ a.v, c.s FROM a JOIN c ON a.k = c.k",
	"SELECT /*+ SHUFFLE_HASH(c) */ a.v, c.s FROM a JOIN c ON a.k = c.k",
	"SELECT /*+ MERGE(c) */ a.v, c.s FROM a JOIN c ON a.k = c.k",
	"SELECT /*+ MERGEJOIN(c) */ a.v, c.i FROM a FULL OUTER JOIN c ON a.k <=> c.k AND a.v > c.i",
	"SELECT /*+ SHUFFLE_MERGE(c) */ a.v FROM a WHERE a.v NOT IN (SELECT i FROM c)",
	"SELECT /*+ MERGE(c) */ a.v, c.i FROM a JOIN c ON a.v < c.i",
}

var joinHints = []string{"", "[shuffle]", "[broadcast]", "[bucket]", "[colocate]"}

// TestJoinCorpusSanity plans every corpus query under every hint, both
// layouts (a and b colocated or not), with and without join reorder and
// local exchanges: every edge must satisfy its parent's requirement, every
// EXPLAIN form must render, and the joins must keep their row semantics
// (same join types and conditions as the bound plan).
func TestJoinCorpusSanity(t *testing.T) {
	plans := 0
	defer func() { t.Logf("%d plans checked", plans) }()
	for _, colocated := range []bool{true, false} {
		e := newCorpusEnv(t, colocated)
		for _, q := range joinCorpus {
			hints := joinHints
			if !strings.Contains(q, "{h}") {
				hints = []string{""}
			}
			for _, h := range hints {
				sql := strings.ReplaceAll(q, "{h}", h)
				for _, reorder := range []bool{true, false} {
					vars := physical.DefaultVars()
					vars.DisableJoinReorder = !reorder
					vars.ParallelPipelineTaskNum = 4
					p, l, err := e.plan(sql, vars)
					if err != nil {
						t.Errorf("colocated=%v reorder=%v %s: %v", colocated, reorder, sql, err)
						continue
					}
					plans++
					if !p.CheckEdges() {
						t.Errorf("colocated=%v reorder=%v %s: an edge breaks its parent's requirement", colocated, reorder, sql)
					}
					gotS, gotC := p.JoinShapes()
					wantS, wantC := physical.LogicalJoinShapes(l)
					if !slices.Equal(gotS, wantS) || !slices.Equal(gotC, wantC) {
						t.Errorf("colocated=%v reorder=%v %s: joins changed\n got %q %q\nwant %q %q", colocated, reorder, sql, gotS, gotC, wantS, wantC)
					}
					// Reordering must not change the result's shape.
					root := p.Plan.Fragments[0].Root
					if len(root.Output) != len(p.Plan.Output) {
						t.Errorf("%s: root outputs %d columns, want %d", sql, len(root.Output), len(p.Plan.Output))
					}
					for i := range min(len(root.Output), len(p.Plan.Output)) {
						if root.Output[i].Type != p.Plan.Output[i].Type {
							t.Errorf("%s: output %d is %s, want %s", sql, i, root.Output[i].Type, p.Plan.Output[i].Type)
						}
					}
					for _, m := range []explain.Mode{explain.Plain, explain.Verbose, explain.Distributed} {
						if len(p.Explain(m)) == 0 {
							t.Errorf("%s: empty EXPLAIN mode %d", sql, m)
						}
					}
				}
			}
		}
	}
}

func newCorpusEnv(t *testing.T, colocated bool) *env {
	e := newEnv(t)
	g := `, "colocate_with" = "g"`
	if !colocated {
		g = ""
	}
	cmds := [][2]string{
		{"backends 3", ""},
		{"exec-ddl", `CREATE TABLE a (k BIGINT, v INT, s VARCHAR(10)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 4 PROPERTIES ("replication_num" = "1"` + g + `)`},
		{"exec-ddl", `CREATE TABLE b (k BIGINT, v INT, s VARCHAR(20)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 4 PROPERTIES ("replication_num" = "1"` + g + `)`},
		{"exec-ddl", `CREATE TABLE c (k BIGINT, i INT, s VARCHAR(20)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 4 PROPERTIES ("replication_num" = "1")`},
		{"exec-ddl", `CREATE TABLE d (i INT, k BIGINT) DUPLICATE KEY(i) DISTRIBUTED BY HASH(i) BUCKETS 4 PROPERTIES ("replication_num" = "1")`},
		{"exec-ddl", `CREATE TABLE r (k BIGINT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY RANDOM BUCKETS 4 PROPERTIES ("replication_num" = "1")`},
		{"exec-ddl", `CREATE TABLE p (k BIGINT, v INT) DUPLICATE KEY(k) PARTITION BY RANGE(v) (PARTITION p1 VALUES LESS THAN ("10"), PARTITION p2 VALUES LESS THAN ("20")) DISTRIBUTED BY HASH(k) BUCKETS 4 PROPERTIES ("replication_num" = "1")`},
		{"inject-stats", "a 100000\nb 50000\nc 1000\nd 1000\nr 1000\np 2000"},
	}
	for _, c := range cmds {
		var in []string
		if c[1] != "" {
			in = strings.Split(c[1], "\n")
		}
		if out := e.run(t, c[0], in); len(out) > 0 {
			t.Fatalf("%s: %v", c[0], out)
		}
	}
	return e
}
