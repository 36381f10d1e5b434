package parser

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/sql/hint"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// rightName names a join by its right input: the table name or alias.
func rightName(j *sqlparser.JoinTableExpr) string {
	switch r := j.RightExpr.(type) {
	case *sqlparser.AliasedTableExpr:
		if !r.As.IsEmpty() {
			return r.As.String()
		}
		if tn, ok := r.Expr.(sqlparser.TableName); ok {
			return tn.Name.String()
		}
	case *sqlparser.JoinTableExpr:
		return "(" + rightName(r) + ")"
	case *sqlparser.ParenTableExpr:
		if len(r.Exprs) == 1 {
			if jj, ok := r.Exprs[0].(*sqlparser.JoinTableExpr); ok {
				return "(" + rightName(jj) + ")"
			}
		}
	}
	return "?"
}

// joinHints renders the attached hints as sorted "right:[hint]" pairs.
func joinHints(h *Hints) []string {
	var out []string
	for j, jh := range h.Join {
		out = append(out, rightName(j)+":"+jh.Text)
	}
	sort.Strings(out)
	return out
}

func TestJoinHints(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want []string
	}{
		{"SELECT * FROM a JOIN [shuffle] b ON a.x = b.x", []string{"b:[shuffle]"}},
		{"SELECT * FROM a JOIN /*+ broadcast */ b ON a.x = b.x", []string{"b:[broadcast]"}},
		{"SELECT * FROM a JOIN /*+SHUFFLE*/ b ON a.x = b.x", []string{"b:[shuffle]"}},
		{"SELECT * FROM a LEFT JOIN [BUCKET] b ON a.x = b.x", []string{"b:[bucket]"}},
		{"SELECT * FROM a left outer join [colocate] b ON a.x = b.x", []string{"b:[colocate]"}},
		{"SELECT * FROM a RIGHT OUTER JOIN [shuffle] b ON a.x = b.x", []string{"b:[shuffle]"}},
		{"SELECT * FROM a INNER JOIN [broadcast] b USING (x)", []string{"b:[broadcast]"}},
		{"SELECT * FROM a CROSS JOIN [broadcast] b", []string{"b:[broadcast]"}},
		{"SELECT * FROM a STRAIGHT_JOIN [shuffle] b ON a.x = b.x", []string{"b:[shuffle]"}},
		{"SELECT STRAIGHT_JOIN * FROM a JOIN [shuffle] b ON a.x = b.x", []string{"b:[shuffle]"}},
		{"SELECT * FROM a JOIN /* plain comment */ [shuffle] b ON a.x = b.x", []string{"b:[shuffle]"}},
		// Three tables: hints go to the join whose JOIN keyword they follow.
		{"SELECT * FROM a JOIN [shuffle] b ON a.x = b.x JOIN [broadcast] c ON b.y = c.y", []string{"b:[shuffle]", "c:[broadcast]"}},
		{"SELECT * FROM a JOIN b ON a.x = b.x JOIN [broadcast] c ON b.y = c.y", []string{"c:[broadcast]"}},
		{"SELECT * FROM a JOIN [bucket] b ON a.x = b.x JOIN c ON b.y = c.y", []string{"b:[bucket]"}},
		// Four tables with a parenthesised right side.
		{"SELECT * FROM a JOIN [shuffle] (b JOIN [broadcast] c ON b.y = c.y) ON a.x = b.x JOIN [colocate] d ON d.z = a.z",
			[]string{"(c):[shuffle]", "c:[broadcast]", "d:[colocate]"}},
		// Subqueries in FROM, in ON, in WHERE and in the select list.
		{"SELECT * FROM (SELECT * FROM a JOIN [broadcast] b ON a.x = b.x) s JOIN [shuffle] c ON s.x = c.x",
			[]string{"b:[broadcast]", "c:[shuffle]"}},
		{"SELECT * FROM a JOIN b ON a.x IN (SELECT p.x FROM p JOIN [broadcast] q ON p.x = q.x) JOIN [shuffle] c ON c.x = a.x",
			[]string{"c:[shuffle]", "q:[broadcast]"}},
		{"SELECT (SELECT max(p.x) FROM p JOIN [broadcast] q ON p.x = q.x), a.x FROM a JOIN [shuffle] b ON a.x = b.x JOIN c ON c.x = a.x WHERE EXISTS (SELECT 1 FROM r JOIN [colocate] s2 ON r.x = s2.x)",
			[]string{"b:[shuffle]", "q:[broadcast]", "s2:[colocate]"}},
		{"WITH w AS (SELECT * FROM p JOIN [broadcast] q ON p.x = q.x) SELECT * FROM w JOIN [shuffle] a ON w.x = a.x JOIN b ON b.x = a.x JOIN [bucket] c ON c.x = a.x",
			[]string{"a:[shuffle]", "c:[bucket]", "q:[broadcast]"}},
		{"SELECT * FROM a JOIN [shuffle] b ON a.x = b.x UNION ALL SELECT * FROM c JOIN [broadcast] d ON c.x = d.x",
			[]string{"b:[shuffle]", "d:[broadcast]"}},
		{"INSERT INTO t SELECT a.x FROM a JOIN [shuffle] b ON a.x = b.x", []string{"b:[shuffle]"}},
		// Hint-like text inside strings, identifiers and plain comments is not a hint.
		{"SELECT '[shuffle]', `JOIN` FROM a JOIN b ON a.x = '/*+ broadcast */' -- JOIN [shuffle]", nil},
	} {
		v, ok := mustOne(t, tc.sql).(*Vitess)
		if !ok {
			t.Fatalf("%q: not *Vitess", tc.sql)
		}
		if got := joinHints(v.Hints); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q:\n got %q\nwant %q", tc.sql, got, tc.want)
		}
		if v.Text != tc.sql {
			t.Errorf("%q: Text = %q", tc.sql, v.Text)
		}
	}
}

func TestJoinHintKinds(t *testing.T) {
	v := mustOne(t, "SELECT * FROM a JOIN [Broadcast] b ON a.x = b.x").(*Vitess)
	for _, h := range v.Hints.Join {
		if h.Kind != hint.Broadcast || h.Kind.String() != "broadcast" || h.Text != "[broadcast]" {
			t.Errorf("got %+v", h)
		}
	}
}

func TestStatementHints(t *testing.T) {
	for _, tc := range []struct {
		sql   string
		vars  []SetVar
		spark []hint.Spark
	}{
		{"SELECT /*+ SET_VAR(disable_join_reorder = true, exec_mem_limit=1024) */ 1",
			[]SetVar{{"disable_join_reorder", "true"}, {"exec_mem_limit", "1024"}}, nil},
		{"SELECT /*+ SET_VAR(prefer_join_method = 'shuffle', x = -1.5) */ 1",
			[]SetVar{{"prefer_join_method", "shuffle"}, {"x", "-1.5"}}, nil},
		{"SELECT /*+ BROADCAST(t1), MERGE(t2, db.t3) */ * FROM t1 JOIN t2 ON t1.a = t2.a",
			nil, []hint.Spark{{Kind: hint.SparkBroadcast, Name: "BROADCAST", Tables: []string{"t1"}}, {Kind: hint.SparkMerge, Name: "MERGE", Tables: []string{"t2", "db.t3"}}}},
		{"select /*+ broadcastjoin(b) mapjoin(c) SHUFFLE_MERGE(d) mergejoin(e) shuffle_hash(f) SHUFFLE_REPLICATE_NL(g) */ 1",
			nil, []hint.Spark{
				{Kind: hint.SparkBroadcast, Name: "BROADCASTJOIN", Tables: []string{"b"}}, {Kind: hint.SparkBroadcast, Name: "MAPJOIN", Tables: []string{"c"}},
				{Kind: hint.SparkMerge, Name: "SHUFFLE_MERGE", Tables: []string{"d"}}, {Kind: hint.SparkMerge, Name: "MERGEJOIN", Tables: []string{"e"}},
				{Kind: hint.SparkShuffleHash, Name: "SHUFFLE_HASH", Tables: []string{"f"}}, {Kind: hint.SparkShuffleReplicateNL, Name: "SHUFFLE_REPLICATE_NL", Tables: []string{"g"}}}},
		{"SELECT /*+ SET_VAR(a=1) BROADCAST(t) */ * FROM t", []SetVar{{"a", "1"}}, []hint.Spark{{Kind: hint.SparkBroadcast, Name: "BROADCAST", Tables: []string{"t"}}}},
		{"SELECT * FROM (SELECT /*+ BROADCAST(u) */ * FROM t JOIN u ON t.a = u.a) s",
			nil, []hint.Spark{{Kind: hint.SparkBroadcast, Name: "BROADCAST", Tables: []string{"u"}}}},
		{"SELECT /* SET_VAR(a=1) plain comment */ 1", nil, nil},
	} {
		v := mustOne(t, tc.sql).(*Vitess)
		if !reflect.DeepEqual(v.Hints.SetVars, tc.vars) || !reflect.DeepEqual(v.Hints.Spark, tc.spark) {
			t.Errorf("%q:\n got %+v %+v\nwant %+v %+v", tc.sql, v.Hints.SetVars, v.Hints.Spark, tc.vars, tc.spark)
		}
		if sel, ok := v.AST.(*sqlparser.Select); ok && len(sel.Comments) > 0 && strings.Contains(string(sel.Comments[0]), "/*+") {
			t.Errorf("%q: hint comment left in the AST", tc.sql)
		}
	}
	if s := (hint.Spark{Kind: hint.SparkMerge, Name: "MERGEJOIN", Tables: []string{"a", "b"}}).String(); s != "MERGEJOIN(a, b)" {
		t.Errorf("SparkHint.String() = %q", s)
	}
}

func TestInvalidHints(t *testing.T) {
	for _, tc := range []struct{ sql, name string }{
		{"SELECT * FROM a JOIN [foo] b ON a.x = b.x", "foo"},
		{"SELECT * FROM a JOIN /*+ nope */ b ON a.x = b.x", "nope"},
		{"SELECT * FROM a JOIN [shuffle] [broadcast] b ON a.x = b.x", "broadcast"},
		{"SELECT * FROM a JOIN [shuffle] /*+ shuffle */ b ON a.x = b.x", "shuffle"},
		{"SELECT * FROM a JOIN /*+ shuffle, bucket */ b ON a.x = b.x", "bucket"},
		{"SELECT * FROM a [shuffle] JOIN b ON a.x = b.x", "shuffle"},
		{"SELECT * FROM a JOIN b [shuffle] ON a.x = b.x", "shuffle"},
		{"SELECT * FROM a /*+ BROADCAST(a) */ JOIN b ON a.x = b.x", "BROADCAST"},
	} {
		_, err := ParseOne(tc.sql)
		e := sqlerr.As(err)
		if err == nil || e.Code != 1064 || e.Message != "Invalid join hint: "+tc.name {
			t.Errorf("%q: got %v, want 1064 Invalid join hint: %s", tc.sql, err, tc.name)
		}
	}
}

// TestIgnoredHints: MAX_EXECUTION_TIME is read; other optimizer hints,
// MySQL's or Doris's, are kept as written to be warned about.
func TestIgnoredHints(t *testing.T) {
	for _, tc := range []struct {
		sql     string
		ms      int64
		ignored []string
		spark   int
	}{
		{"SELECT /*+ MAX_EXECUTION_TIME(1500) */ 1", 1500, nil, 0},
		{"SELECT /*+ NO_INDEX_MERGE(t1 i_a, i_b) JOIN_ORDER(t2, t1) BKA QB_NAME(qb1) */ 1", 0,
			[]string{"NO_INDEX_MERGE(t1 i_a, i_b)", "JOIN_ORDER(t2, t1)", "BKA", "QB_NAME(qb1)"}, 0},
		{"SELECT /*+ LEADING(a b) BROADCAST(b) max_execution_time(20) */ * FROM a JOIN b ON a.x = b.x", 20, []string{"LEADING(a b)"}, 1},
		{"SELECT /*+ shuffle */ * FROM a", 0, []string{"shuffle"}, 0},
		{"SELECT /*+ MAX_EXECUTION_TIME(0) */ 1", 0, []string{"MAX_EXECUTION_TIME(0)"}, 0},
		{"INSERT /*+ SET_VAR(a=1) NO_BNL() */ INTO t VALUES (1)", 0, []string{"NO_BNL()"}, 0},
	} {
		v := mustOne(t, tc.sql).(*Vitess)
		if v.Hints.MaxExecutionMs != tc.ms || !reflect.DeepEqual(v.Hints.Ignored, tc.ignored) || len(v.Hints.Spark) != tc.spark {
			t.Errorf("%q: got ms=%d ignored=%q spark=%v, want %d %q %d", tc.sql, v.Hints.MaxExecutionMs, v.Hints.Ignored, v.Hints.Spark, tc.ms, tc.ignored, tc.spark)
		}
	}
	// A hint with unbalanced arguments is still a syntax error.
	if _, err := ParseOne("SELECT /*+ NO_BKA(t1 */ 1"); err == nil {
		t.Error("NO_BKA(t1 without ')' parsed")
	}
}
