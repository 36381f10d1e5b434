package difftest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// Query is one generated query. Doris and Duck are the same query in the
// two dialects; Ordered says the rows must match in order (its ORDER BY
// covers every output column, so the order is total). Variants are other
// ways to run it on dorisgo that must return the same rows (join hints,
// session variables); TLP, when set, is the query split by ternary logic
// partitioning, whose rows must be dorisgo's own rows for Doris. Classes
// name the shape classes the query belongs to (see allClasses).
type Query struct {
	Doris, Duck string
	Ordered     bool
	Variants    []Variant
	TLP         string
	Classes     []string
	joins       bool     // runs under every session of joinSessions
	sessions    []string // runs under these sessions (instead of the defaults)
}

// Variant is another dorisgo text of a query, run in a session.
type Variant struct {
	Label   string // for failure reports: "hint [bucket]", "session no_reorder"
	Text    string
	Session string // a key of sessionVars; "" is the default session
}

// sessionVars are the session variables the variants run under, each as the
// SET that turns it on and the SET that restores the default. Join queries
// run under all of them, other queries under the pipeline task counts.
var sessionVars = map[string][2]string{
	"no_bucket":   {"SET enable_bucket_shuffle_join = false", "SET enable_bucket_shuffle_join = true"},
	"no_reorder":  {"SET disable_join_reorder = true", "SET disable_join_reorder = false"},
	"no_colocate": {"SET disable_colocate_plan = true", "SET disable_colocate_plan = false"},
	"tasks1":      {"SET parallel_pipeline_task_num = 1", "SET parallel_pipeline_task_num = 0"},
	"tasks4":      {"SET parallel_pipeline_task_num = 4", "SET parallel_pipeline_task_num = 0"},
	"no_rf":       {"SET runtime_filter_mode = 'OFF'", "SET runtime_filter_mode = 'GLOBAL'"},
	"shuffle":     {"SET prefer_join_method = 'shuffle'", "SET prefer_join_method = 'broadcast'"},
	"no_local":    {"SET enable_local_shuffle = false", "SET enable_local_shuffle = true"},
	// Adaptive joins off, and a row limit that plans more joins as shuffles
	// and settles them both ways at run time (build sides over and under it);
	// under it a broadcast of a guessed build side (estimated under 40 rows,
	// bounded over) is planned adaptive and settles both ways too.
	"no_adaptive": {"SET enable_adaptive_join = false", "SET enable_adaptive_join = true"},
	"row_limit":   {"SET broadcast_row_count_limit = 40", "SET broadcast_row_count_limit = 30000000"},
	// A correlated aggregate subquery over the outer query's own tables is
	// a window over them (planner/bind/aggwindow.go) unless this is set.
	"no_agg_window": {"SET disable_nereids_rules = 'AGG_SCALAR_SUBQUERY_TO_WINDOW_FUNCTION'", "SET disable_nereids_rules = ''"},
}

var (
	joinSessions  = []string{"no_bucket", "no_reorder", "no_colocate", "tasks1", "tasks4", "no_rf", "shuffle", "no_local", "no_adaptive", "row_limit"}
	otherSessions = []string{"tasks1", "tasks4"}
	// joinHints go right after a JOIN keyword; sparkHints after SELECT.
	joinHints  = []string{"[shuffle]", "[broadcast]", "[bucket]", "[colocate]", "/*+ shuffle */"}
	sparkHints = []string{"/*+ BROADCAST(a) */", "/*+ BROADCAST(b) */", "/*+ SHUFFLE_REPLICATE_NL(a) */", "/*+ SHUFFLE_REPLICATE_NL(b) */",
		"/*+ SHUFFLE_HASH(b) */", "/*+ MERGE(b) */"}
)

// allClasses are the shape classes the default run must generate at least
// once each (TestCoverage); every class a query is tagged with is one.
var allClasses = func() []string {
	cs := []string{"select", "agg", "join", "joinagg", "chain", "chain/same-column", "outer/agg", "outer/window",
		"outer/distinct", "derived", "semi/subquery", "semi/correlated-agg", "semijoin", "set", "window",
		"tlp", "tlp/agg", "tlp/distinct", "tlp/outer-null-side",
		"on/equi", "on/mixed", "on/expr", "on/null-safe", "on/equi+nonequi", "on/equi+pred", "on/nonequi", "on/or",
		"on/const", "on/one-side", "side/topn", "side/agg", "big", "funcs", "funcs/agg"}
	for _, k := range []string{"INNER", "LEFT", "RIGHT", "FULL OUTER", "LEFT SEMI", "LEFT ANTI", "RIGHT SEMI", "RIGHT ANTI"} {
		cs = append(cs, "kind/"+k)
	}
	for _, p := range chainPairs {
		cs = append(cs, "chain/"+p[0]+"="+p[1])
	}
	return cs
}()

// Generate returns n queries, deterministic in seed.
func Generate(seed int64, n int) []Query {
	g := &gen{r: rand.New(rand.NewPCG(uint64(seed), 0x5eed))}
	shapes := []func() Query{g.selectQuery, g.selectQuery, g.aggQuery, g.aggQuery, g.joinQuery, g.joinQuery,
		g.joinQuery, g.joinAggQuery, g.joinAggQuery, g.chainQuery, g.chainQuery, g.outerQuery, g.outerQuery,
		g.semiQuery, g.semiJoinQuery, g.setQuery, g.windowQuery, g.derivedQuery, g.funcQuery, g.funcQuery,
		g.corrAggQuery}
	var out []Query
	for len(out) < n {
		q := pick(g, shapes)()
		sessions := otherSessions
		if q.joins {
			sessions = joinSessions
		}
		if q.sessions != nil {
			sessions = q.sessions
		}
		for _, se := range sessions {
			q.Variants = append(q.Variants, Variant{Label: "session " + se, Text: q.Doris, Session: se})
		}
		out = append(out, q)
	}
	return out
}

var tableNames = []string{"ta", "tb", "tc", "td", "te", "tf"}

// table picks a table, bigTable in pct percent of the draws (tagging cls
// with "big").
func (g *gen) table(pct int, cls *[]string) string {
	if g.p(pct) {
		*cls = append(*cls, "big")
		return bigTable
	}
	return pick(g, tableNames)
}

// selectList renders the output columns as c0, c1, ...
func selectList(es []ex) ex {
	var d, q []string
	for i, e := range es {
		d = append(d, fmt.Sprintf("%s AS c%d", e.d, i))
		q = append(q, fmt.Sprintf("%s AS c%d", e.q, i))
	}
	return ex{d: strings.Join(d, ", "), q: strings.Join(q, ", ")}
}

// orderAll orders by every output column. MySQL puts NULLs first when
// ascending and last when descending; DuckDB is told so explicitly.
func (g *gen) orderAll(n int) ex {
	var d, q []string
	for i := 0; i < n; i++ {
		if g.p(30) {
			d = append(d, fmt.Sprintf("c%d DESC", i))
			q = append(q, fmt.Sprintf("c%d DESC NULLS LAST", i))
		} else {
			d = append(d, fmt.Sprintf("c%d", i))
			q = append(q, fmt.Sprintf("c%d NULLS FIRST", i))
		}
	}
	return ex{d: " ORDER BY " + strings.Join(d, ", "), q: " ORDER BY " + strings.Join(q, ", ")}
}

func allExact(es []ex) bool {
	for _, e := range es {
		if !e.exact {
			return false
		}
	}
	return true
}

func (g *gen) limit() string {
	s := fmt.Sprintf(" LIMIT %d", 1+g.n(30))
	if g.p(30) {
		s += fmt.Sprintf(" OFFSET %d", g.n(20))
	}
	return s
}

func (g *gen) where(al string) ex {
	if g.p(20) {
		return ex{}
	}
	return g.pred(al, 2)
}

// spec is one SELECT before it is rendered: enough structure to add an
// ORDER BY and to split it for TLP.
type spec struct {
	distinct bool
	outs     []ex
	from     ex // the FROM clause, without WHERE
	where    ex // a condition, or the zero ex
	group    []ex
	having   ex
	tlp      ex   // TLP's predicate, or the zero ex: no TLP
	tlpNull  bool // tlp is over the NULL-extended side of an outer join
	classes  []string
}

func (s spec) aggregated() bool {
	if len(s.group) > 0 {
		return true
	}
	for _, o := range s.outs {
		if o.agg != "" {
			return true
		}
	}
	return false
}

// render writes the SELECT in both dialects, with cond ANDed to its WHERE.
// A dialect's WHERE may be empty when the other's is not (semi joins).
func (s spec) render(cond ex) ex {
	sl := selectList(s.outs)
	head := "SELECT "
	if s.distinct {
		head += "DISTINCT "
	}
	out := ex{d: head + sl.d + " FROM " + s.from.d, q: head + sl.q + " FROM " + s.from.q}
	where := func(w, c string) string {
		switch {
		case w == "" && c == "":
			return ""
		case w == "":
			return " WHERE " + c
		case c == "":
			return " WHERE " + w
		}
		return " WHERE (" + w + ") AND " + c
	}
	out.d += where(s.where.d, cond.d)
	out.q += where(s.where.q, cond.q)
	if len(s.group) > 0 {
		var d, q []string
		for _, k := range s.group {
			d, q = append(d, k.d), append(q, k.q)
		}
		out.d += " GROUP BY " + strings.Join(d, ", ")
		out.q += " GROUP BY " + strings.Join(q, ", ")
	}
	if s.having.d != "" {
		out.d += " HAVING " + s.having.d
		out.q += " HAVING " + s.having.q
	}
	return out
}

// tlpText splits s by its predicate p into the rows where p is true, false
// and NULL (SQLancer's ternary logic partitioning): the three parts' UNION
// ALL (UNION under DISTINCT) is the query's multiset of rows. An aggregate
// query is split before aggregating and re-aggregated (COUNT and SUM by
// SUM, MIN by MIN, MAX by MAX); "" when s cannot be split.
func (s spec) tlpText() string {
	if s.tlp.d == "" || s.having.d != "" {
		return ""
	}
	p := s.tlp
	parts := []string{
		s.render(mk(tBool, "(%s)", p)).d,
		s.render(mk(tBool, "NOT (%s)", p)).d,
		s.render(mk(tBool, "((%s) IS NULL)", p)).d,
	}
	if !s.aggregated() {
		op := " UNION ALL "
		if s.distinct {
			op = " UNION "
		}
		return strings.Join(parts, op)
	}
	if s.distinct {
		return ""
	}
	var sel, keys []string
	for i, o := range s.outs {
		c := fmt.Sprintf("c%d", i)
		switch o.agg {
		case "":
			sel, keys = append(sel, c), append(keys, c)
		case "SUM", "MIN", "MAX":
			sel = append(sel, fmt.Sprintf("%s(%s) AS %s", o.agg, c, c))
		default:
			return ""
		}
	}
	q := "SELECT " + strings.Join(sel, ", ") + " FROM (" + strings.Join(parts, " UNION ALL ") + ") tlp"
	if len(keys) > 0 {
		q += " GROUP BY " + strings.Join(keys, ", ")
	}
	return q
}

// finish renders s as a Query, maybe with ORDER BY + LIMIT.
func (g *gen) finish(s spec) Query {
	r := s.render(ex{})
	q := Query{Doris: r.d, Duck: r.q, Classes: s.classes}
	if t := s.tlpText(); t != "" {
		q.TLP = t
		q.Classes = append(q.Classes, "tlp")
		if s.aggregated() {
			q.Classes = append(q.Classes, "tlp/agg")
		}
		if s.distinct {
			q.Classes = append(q.Classes, "tlp/distinct")
		}
		if s.tlpNull {
			q.Classes = append(q.Classes, "tlp/outer-null-side")
		}
	} else if allExact(s.outs) && g.p(35) {
		o := g.orderAll(len(s.outs))
		lim := ""
		if g.p(70) {
			lim = g.limit()
		}
		q.Doris += o.d + lim
		q.Duck += o.q + lim
		q.Ordered = true
	}
	return q
}

// maybeTLP sets s's TLP predicate (over alias al) in a share of queries
// whose outputs are exact: the parts may run in other plans, so rounding
// must not differ.
func (g *gen) maybeTLP(s *spec, al string, pct int) {
	if allExact(s.outs) && g.p(pct) {
		s.tlp = g.pred(al, 1)
	}
}

func (g *gen) selectQuery() Query {
	t := pick(g, tableNames)
	s := spec{from: lit(t, tInt), where: g.where(""), classes: []string{"select"}}
	for i := 0; i < 1+g.n(4); i++ {
		s.outs = append(s.outs, g.value(pick(g, []typ{tInt, tBig, tStr, tDate, tDec, tDbl, tBool}), "", 2))
	}
	g.maybeTLP(&s, "", 25)
	return g.finish(s)
}

// aggregate draws one aggregate over alias al; its agg field says how TLP
// re-aggregates it ("-": it cannot).
func (g *gen) aggregate(al string) ex {
	if g.p(25) {
		return g.aggCall(al)
	}
	var e ex
	switch g.n(8) {
	case 0:
		e = lit("COUNT(*)", tInt)
		e.agg = "SUM"
	case 1:
		e = mk(tInt, "COUNT(%s)", g.nullCol(al))
		e.agg = "SUM"
	case 2:
		e = mk(tInt, "COUNT(DISTINCT %s)", g.value(pick(g, []typ{tInt, tStr, tDate, tDec, tDbl}), al, 1))
		e.agg = "-"
	case 3:
		e = mk(tDec, "SUM(%s)", g.value(pick(g, []typ{tInt, tDec, tDbl}), al, 1))
		e.agg = "SUM"
	case 4:
		e = inexact(mk(tDbl, "AVG(%s)", g.value(pick(g, []typ{tInt, tDec, tDbl}), al, 1)))
		e.agg = "-"
	case 5:
		e = mk(tDec, "SUM(DISTINCT %s)", g.value(pick(g, []typ{tInt, tDec}), al, 1))
		e.agg = "-"
	default:
		fn := pick(g, []string{"MIN", "MAX"})
		e = mk(tInt, fn+"(%s)", g.value(pick(g, []typ{tInt, tBig, tStr, tDate, tDec, tDbl}), al, 1))
		e.agg = fn
	}
	return e
}

func countStar() ex {
	e := lit("COUNT(*)", tInt)
	e.agg = "SUM"
	return e
}

// groupKey draws a grouping key over alias al: a column, or an expression
// (which must still be aggregated across buckets: GROUP BY MONTH(d) over a
// table hashed on k once returned one group per bucket). -f groups -0.0
// with 0.0.
func (g *gen) groupKey(al string) ex {
	switch g.n(7) {
	case 0:
		return mk(tInt, "(%s %% 4)", g.col(al, "k"))
	case 1:
		return mk(tInt, "MONTH(%s)", g.col(al, "d"))
	case 2:
		return mk(tStr, "SUBSTRING(%s, 1, 1)", g.col(al, "s"))
	case 3:
		return mk(tDbl, "(-%s)", g.col(al, "f"))
	}
	return g.nullCol(al)
}

func (g *gen) aggQuery() Query {
	s := spec{where: g.where(""), classes: []string{"agg"}}
	s.from = lit(g.table(15, &s.classes), tInt)
	for i := 0; i < g.n(3); i++ {
		s.group = append(s.group, g.groupKey(""))
	}
	s.outs = append(s.outs, s.group...)
	for i := 0; i < 1+g.n(3); i++ {
		s.outs = append(s.outs, g.aggregate(""))
	}
	if len(s.group) > 0 && g.p(40) {
		h := pick(g, []ex{lit("COUNT(*)", tInt), mk(tDec, "SUM(%s)", g.col("", "m")), mk(tInt, "MAX(%s)", g.col("", "k"))})
		c := g.n(20)
		if h.t == tDec {
			c = g.n(2000) - 500
		}
		s.having = mk(tBool, "%s "+g.op()+" "+fmt.Sprint(c), h)
	}
	g.maybeTLP(&s, "", 25)
	return g.finish(s)
}

// joinKey picks the equality column of a join; DOUBLE is rare (equality on
// floats is not a sensible join key, but -0.0 must still meet 0.0).
func (g *gen) joinKey() string {
	return pick(g, []string{"k", "k", "k", "b", "s", "d", "m", "id", "v", "n", "k", "s", "f"})
}

// joinParts is one join of two tables before rendering.
type joinParts struct {
	kind        string // INNER, LEFT, RIGHT, FULL OUTER
	left, right string // a table or a derived table
	on          ex
	big         bool // the output may be large (a nested loop): aggregate it
	classes     []string
}

// small is a derived table of about 1/7 of t's rows, for joins whose
// output is the cross product.
func small(t string) string { return "(SELECT * FROM " + t + " WHERE id % 7 = 1)" }

func smallIfBig(t string) string {
	if t == bigTable {
		return small(t)
	}
	return t
}

// derivedSide replaces a join side by a derived table with all of t's
// column names: the first rows by id (a top-n below the join), or an
// aggregate grouped by a key that is exposed as k (the aggregate's output
// is distributed by that key, which is not t's k unless it is k).
func (g *gen) derivedSide(t string) (string, string) {
	if g.p(30) {
		return "(SELECT * FROM " + t + " ORDER BY id LIMIT 40)", "side/topn"
	}
	key := pick(g, []string{"k", "k", "b", "(k % 4)", "id", "LENGTH(s)"})
	return "(SELECT MIN(id) AS id, " + key + " AS k, MIN(b) AS b, MIN(s) AS s, MAX(d) AS d, SUM(m) AS m, MAX(f) AS f, " +
		"MIN(v) AS v, SUM(n) AS n FROM " + t + " GROUP BY " + key + ")", "side/agg"
}

// exprKeys are equi conditions on expressions: the planner must hash (and
// place, for colocate and bucket shuffle) the expression's value, not the
// column's, and casts to another type change the hash.
var exprKeys = []string{"CAST(a.k AS BIGINT) = b.k", "CAST(a.k AS BIGINT) = CAST(b.k AS BIGINT)", "a.k + 1 = b.k + 1",
	"a.k = b.k + 1", "CAST(a.k AS DOUBLE) = b.f", "ABS(a.k) = b.k", "CAST(a.m AS DOUBLE) = b.f", "a.s = LOWER(b.v)",
	"COALESCE(a.k, 0) = COALESCE(b.k, 0)", "a.d = b.d + INTERVAL 1 DAY", "a.b = b.k * 1", "-a.f = b.f"}

// equiCond draws a.x = b.y: the same column, columns of two types, an
// expression, or a null-safe a.x <=> b.x (NULL meets NULL).
func (g *gen) equiCond() (ex, []string) {
	switch g.n(20) {
	case 0, 1, 2:
		return lit(pick(g, exprKeys), tBool), []string{"on/expr"}
	case 3, 4:
		key := g.joinKey()
		e := mk2(tBool, "a.%s <=> b.%s", "a.%s IS NOT DISTINCT FROM b.%s", lit(key, tInt), lit(key, tInt))
		if g.p(30) {
			k2 := g.joinKey()
			e = mk2(tBool, "%s AND a.%s <=> b.%s", "%s AND a.%s IS NOT DISTINCT FROM b.%s", e, lit(k2, tInt), lit(k2, tInt))
		}
		return e, []string{"on/null-safe"}
	}
	if g.p(25) {
		p := pick(g, mixedPairs)
		if g.p(50) {
			p[0], p[1] = p[1], p[0]
		}
		return lit(fmt.Sprintf("a.%s = b.%s", p[0], p[1]), tBool), []string{"on/mixed"}
	}
	key := g.joinKey()
	return lit(fmt.Sprintf("a.%s = b.%s", key, key), tBool), []string{"on/equi"}
}

func (g *gen) joinParts(kinds ...string) joinParts {
	j := joinParts{left: pick(g, tableNames), right: pick(g, tableNames), kind: pick(g, kinds)}
	j.on, j.classes = g.equiCond()
	switch g.n(9) {
	case 0:
		// equi plus non-equi.
		c := pick(g, []string{"k", "m", "f", "d", "id", "n"})
		j.on = mk(tBool, "%s AND a.%s "+g.op()+" b.%s", j.on, lit(c, tInt), lit(c, tInt))
		j.classes = append(j.classes, "on/equi+nonequi")
	case 1:
		// a condition on one side inside ON: for the preserved side of an
		// outer join it must not drop rows, only matches.
		j.on = mk(tBool, "%s AND %s", j.on, g.pred(pick(g, []string{"a.", "b."}), 0))
		j.classes = append(j.classes, "on/equi+pred")
	case 2, 3:
		// non-equi only: a nested loop, which compares every pair of rows:
		// keep the sides small (the small dimension te against a window of
		// ids, or derived tables of a seventh of the rows).
		c := pick(g, []string{"a.k %s b.k", "a.m %s b.m", "a.d %s b.d", "a.s %s b.v", "a.f %s b.k"})
		c = fmt.Sprintf(c, pick(g, []string{"<", ">", "<>", "<="}))
		if g.p(30) {
			j.on = lit(c+" AND a.id < b.id + 20 AND a.id > b.id - 20", tBool)
			*pick(g, []*string{&j.left, &j.right}) = "te"
		} else {
			j.on = lit(c, tBool)
			j.left, j.right = small(j.left), small(j.right)
		}
		j.big, j.classes = true, []string{"on/nonequi"}
	case 4:
		// a disjunction of equalities: no hash key, a nested loop too.
		k2 := g.joinKey()
		j.on = mk(tBool, "(%s) OR (a."+k2+" = b."+k2+")", j.on)
		if g.p(50) {
			j.left = small(j.left)
		} else {
			j.right = small(j.right)
		}
		j.big, j.classes = true, []string{"on/or"}
	case 5:
		// constants and one-side conditions: a cross product of small sides.
		j.left, j.right = small(j.left), small(j.right)
		j.on = pick(g, []ex{lit("1 = 1", tBool), lit("1 = 0", tBool), lit("a.k > 3", tBool), lit("b.k > 3", tBool),
			mk(tBool, "%s", g.pred(pick(g, []string{"a.", "b."}), 0)), lit("a.k > 3 OR b.k < 0", tBool)})
		j.classes = []string{"on/const"}
		if strings.Contains(j.on.d, "a.") != strings.Contains(j.on.d, "b.") {
			j.classes = append(j.classes, "on/one-side")
		}
	}
	if !j.big && !strings.HasPrefix(j.left, "(") && !strings.HasPrefix(j.right, "(") && g.p(6) {
		// the big table against the small dimension: a build or probe side
		// of several batches, an output of about 20,000 rows.
		j.left, j.right = bigTable, "te"
		if g.p(50) {
			j.left, j.right = j.right, j.left
		}
		j.classes = append(j.classes, "big")
	} else if !strings.HasPrefix(j.left, "(") && !strings.HasPrefix(j.right, "(") && g.p(15) {
		side := pick(g, []*string{&j.left, &j.right})
		var c string
		*side, c = g.derivedSide(*side)
		j.classes = append(j.classes, c)
	}
	j.classes = append(j.classes, "kind/"+j.kind)
	return j
}

// nullSide is the alias an outer join NULL-extends ("" for INNER).
func (g *gen) nullSide(kind string) string {
	switch kind {
	case "LEFT":
		return "b."
	case "RIGHT":
		return "a."
	case "FULL OUTER":
		return pick(g, []string{"a.", "b."})
	}
	return ""
}

// head renders "l a KIND JOIN<hint> r b ON cond".
func (j joinParts) head(hint string) ex {
	h := fmt.Sprintf("%s a %s JOIN%s %s b ON ", j.left, j.kind, hint, j.right)
	return ex{d: h + j.on.d, q: h + j.on.q}
}

// hinted adds to q the variants of a join query: every join hint (at each
// JOIN of from), every Spark hint; Generate adds every session.
func hinted(q Query, from func(hint string) string) Query {
	plain := from("")
	for _, h := range joinHints {
		q.Variants = append(q.Variants, Variant{Label: "hint " + h, Text: strings.Replace(q.Doris, plain, from(" "+h), 1)})
	}
	for _, h := range sparkHints {
		q.Variants = append(q.Variants, Variant{Label: "hint " + h, Text: strings.Replace(q.Doris, "SELECT ", "SELECT "+h+" ", 1)})
	}
	q.joins = true
	return q
}

func (j joinParts) hinted(q Query) Query {
	return hinted(q, func(h string) string { return j.head(h).d })
}

// joinWhere draws the WHERE of a join of the given kind: often none, now
// and then the anti-join pattern (the NULL-extended side's id IS NULL).
func (g *gen) joinWhere(kind string) ex {
	if ns := g.nullSide(kind); ns != "" && g.p(12) {
		return lit(ns+"id IS NULL", tBool)
	}
	if g.p(50) {
		return ex{}
	}
	return g.pred(pick(g, []string{"a.", "b."}), 1)
}

// tlpSide is the alias TLP's predicate goes over: mostly the NULL-extended
// side of an outer join, where pushing the predicate down is wrong.
func (g *gen) tlpSide(s *spec, kind string) string {
	if ns := g.nullSide(kind); ns != "" && g.p(75) {
		s.tlpNull = true
		return ns
	}
	return pick(g, []string{"a.", "b."})
}

func (g *gen) joinQuery() Query {
	j := g.joinParts("INNER", "INNER", "LEFT", "LEFT", "RIGHT", "RIGHT", "FULL OUTER", "FULL OUTER")
	if j.big {
		// a nested-loop join's output can be large: aggregate it.
		return g.joinAgg(j)
	}
	s := spec{from: j.head(""), where: g.joinWhere(j.kind), classes: append([]string{"join"}, j.classes...)}
	for i := 0; i < 1+g.n(4); i++ {
		al := pick(g, []string{"a.", "b."})
		if g.p(60) {
			s.outs = append(s.outs, g.anyCol(al))
		} else {
			s.outs = append(s.outs, g.value(pick(g, []typ{tInt, tStr, tDate, tDec, tDbl}), al, 1))
		}
	}
	g.maybeTLP(&s, g.tlpSide(&s, j.kind), 40)
	return j.hinted(g.finish(s))
}

func (g *gen) joinAggQuery() Query {
	return g.joinAgg(g.joinParts("INNER", "LEFT", "LEFT", "RIGHT", "RIGHT", "FULL OUTER", "FULL OUTER"))
}

func (g *gen) joinAgg(j joinParts) Query {
	s := spec{from: j.head(""), where: g.joinWhere(j.kind), classes: append([]string{"joinagg"}, j.classes...)}
	if g.p(70) {
		s.group = append(s.group, g.groupKey(pick(g, []string{"a.", "b."})))
	}
	s.outs = append(s.outs, s.group...)
	s.outs = append(s.outs, countStar())
	for i := 0; i < 1+g.n(2); i++ {
		s.outs = append(s.outs, g.aggregate(pick(g, []string{"a.", "b."})))
	}
	g.maybeTLP(&s, g.tlpSide(&s, j.kind), 40)
	return j.hinted(g.finish(s))
}

// chainPairs are the equi-join column pairs of chains: mixedPairs plus
// DATE = DATE and INT = INT.
var chainPairs = append([][2]string{{"d", "d"}, {"k", "k"}}, mixedPairs...)

// chainQuery joins three tables on keys of mixed types, e.g. ta a JOIN td b
// ON a.k = b.b LEFT JOIN tf c ON b.m = c.f; a fifth of them join the same
// column of a to a BIGINT and then a DOUBLE.
func (g *gen) chainQuery() Query {
	t1, t2, t3 := pick(g, tableNames), pick(g, tableNames), pick(g, tableNames)
	kinds := []string{"INNER", "INNER", "LEFT", "RIGHT", "FULL OUTER"}
	k1, k2 := pick(g, kinds), pick(g, kinds)
	classes := []string{"chain", "kind/" + k1, "kind/" + k2}
	var on1, on2 string
	if g.p(20) {
		on1, on2 = "a.k = b.b", "a.k = c.f"
		classes = append(classes, "chain/same-column", "chain/k=b", "chain/k=f")
	} else {
		p1, p2 := pick(g, chainPairs), pick(g, chainPairs)
		classes = append(classes, "chain/"+p1[0]+"="+p1[1], "chain/"+p2[0]+"="+p2[1])
		if g.p(50) {
			p1[0], p1[1] = p1[1], p1[0]
		}
		on1 = fmt.Sprintf("a.%s = b.%s", p1[0], p1[1])
		on2 = fmt.Sprintf("%s%s = c.%s", pick(g, []string{"a.", "b."}), p2[0], p2[1])
	}
	from := func(h string) string {
		return fmt.Sprintf("%s a %s JOIN%s %s b ON %s %s JOIN%s %s c ON %s", t1, k1, h, t2, on1, k2, h, t3, on2)
	}
	s := spec{from: lit(from(""), tBool), classes: classes}
	als := []string{"a.", "b.", "c."}
	if g.p(50) {
		s.where = g.pred(pick(g, als), 1)
	}
	if g.p(65) {
		if g.p(70) {
			s.group = append(s.group, g.groupKey(pick(g, als)))
		}
		s.outs = append(s.outs, s.group...)
		s.outs = append(s.outs, countStar())
		for i := 0; i < 1+g.n(2); i++ {
			s.outs = append(s.outs, g.aggregate(pick(g, als)))
		}
	} else {
		// the rows themselves: ids say which rows met.
		for _, al := range als {
			s.outs = append(s.outs, g.col(al, "id"))
		}
		s.outs = append(s.outs, g.anyCol(pick(g, als)))
	}
	g.maybeTLP(&s, pick(g, als), 30)
	return hinted(g.finish(s), from)
}

// outerQuery puts an aggregate, window functions or DISTINCT above an
// outer join, keyed by the NULL-extended side: its NULL group must count
// the unmatched rows of the other side.
func (g *gen) outerQuery() Query {
	j := g.joinParts("LEFT", "RIGHT", "FULL OUTER")
	ns := g.nullSide(j.kind)
	ps := "a."
	if ns == "a." {
		ps = "b."
	}
	key := g.col(ns, pick(g, []string{"k", "k", "s", "d", "m", "b", "f"}))
	if g.p(25) {
		key = g.groupKey(ns)
	}
	s := spec{from: j.head(""), classes: j.classes}
	if g.p(30) {
		s.where = g.pred(pick(g, []string{"a.", "b."}), 1)
	}
	switch {
	case j.big || g.p(45):
		s.classes = append([]string{"outer/agg"}, s.classes...)
		s.group = []ex{key}
		if g.p(30) {
			s.group = append(s.group, g.col(ps, pick(g, []string{"k", "s"})))
		}
		s.outs = append(s.outs, s.group...)
		s.outs = append(s.outs, countStar())
		cd := mk(tInt, "COUNT(DISTINCT %s)", g.col(ps, pick(g, []string{"k", "s", "d", "m", "f"})))
		cd.agg = "-"
		sum := mk(tDec, "SUM(%s)", g.col(ps, pick(g, []string{"k", "m", "f", "n"})))
		sum.agg = "SUM"
		cnt := mk(tInt, "COUNT(%s)", g.col(ns, pick(g, []string{"id", "k", "s"})))
		cnt.agg = "SUM"
		for _, a := range []ex{cd, sum, cnt, g.aggregate(pick(g, []string{"a.", "b."}))} {
			if g.p(60) {
				s.outs = append(s.outs, a)
			}
		}
	case g.p(55):
		s.classes = append([]string{"outer/window"}, s.classes...)
		s.outs = []ex{g.col("a.", "id"), g.col("b.", "id")}
		part := key
		for i := 0; i < 1+g.n(3); i++ {
			switch g.n(5) {
			case 0:
				s.outs = append(s.outs, mk(tInt, "COUNT(*) OVER (PARTITION BY %s)", part))
			case 1:
				s.outs = append(s.outs, mk(tDec, "SUM(%s) OVER (PARTITION BY %s)", g.col(ps, pick(g, []string{"k", "m", "f"})), part))
			case 2:
				// (a.id, b.id) is unique in a join's output: a total order.
				s.outs = append(s.outs, mk2(tInt, "ROW_NUMBER() OVER (PARTITION BY %s ORDER BY a.id, b.id)",
					"ROW_NUMBER() OVER (PARTITION BY %s ORDER BY a.id NULLS FIRST, b.id NULLS FIRST)", part))
			case 3:
				c := g.col(ps, pick(g, []string{"k", "d", "s"}))
				s.outs = append(s.outs, mk2(tInt, "RANK() OVER (PARTITION BY %s ORDER BY %s)",
					"RANK() OVER (PARTITION BY %s ORDER BY %s NULLS FIRST)", part, c))
			default:
				s.outs = append(s.outs, mk(tInt, pick(g, []string{"MIN", "MAX", "COUNT"})+"(%s) OVER (PARTITION BY %s)",
					g.col(pick(g, []string{"a.", "b."}), pick(g, []string{"k", "s", "d"})), part))
			}
		}
	default:
		s.classes = append([]string{"outer/distinct"}, s.classes...)
		s.distinct = true
		s.outs = []ex{key}
		if g.p(50) {
			s.outs = append(s.outs, g.col(ps, pick(g, []string{"k", "s", "d"})))
		}
	}
	if !slices.Contains(s.classes, "outer/window") {
		g.maybeTLP(&s, g.tlpSide(&s, j.kind), 50)
	}
	return j.hinted(g.finish(s))
}

// derivedQuery filters and aggregates an outer join from outside a derived
// table: t has the NULL-extended side's columns under their own names (and
// two of the other side's as pid, pk), so predicates over t are predicates
// over that side, which may not be pushed into the join as they are.
func (g *gen) derivedQuery() Query {
	j := g.joinParts("LEFT", "RIGHT", "FULL OUTER", "INNER")
	ns := g.nullSide(j.kind)
	ps := "a."
	if ns == "" {
		ns = "b."
	}
	if ns == "a." {
		ps = "b."
	}
	var cols []string
	for _, c := range allCols {
		cols = append(cols, ns+c+" AS "+c)
	}
	cols = append(cols, ps+"id AS pid", ps+"k AS pk")
	inner := "(SELECT " + strings.Join(cols, ", ") + " FROM "
	from := func(h string) string { return inner + j.head(h).d + ") t" }
	s := spec{from: ex{d: from(""), q: inner + j.head("").q + ") t"}, classes: append([]string{"derived"}, j.classes...)}
	if g.p(60) {
		s.where = g.pred("t.", 1)
	}
	if j.big || g.p(50) {
		if g.p(70) {
			s.group = []ex{g.groupKey("t.")}
		}
		s.outs = append(append(s.outs, s.group...), countStar())
		for i := 0; i < 1+g.n(2); i++ {
			s.outs = append(s.outs, g.aggregate("t."))
		}
		cnt := lit("COUNT(t.pid)", tInt)
		cnt.agg = "SUM"
		s.outs = append(s.outs, cnt)
	} else {
		s.outs = []ex{lit("t.pid", tInt), lit("t.id", tInt), g.anyCol("t."), lit("t.pk", tInt)}
	}
	g.maybeTLP(&s, "t.", 60)
	return hinted(g.finish(s), from)
}

// semiQuery draws IN / NOT IN / EXISTS / NOT EXISTS subqueries.
func (g *gen) semiQuery() Query {
	classes := []string{"semi/subquery"}
	outer, inner := g.table(10, &classes), g.table(10, &classes)
	key := g.joinKey()
	okey, ikey := key, key
	if g.p(30) {
		// a key of another type: IN compares after a common cast, and NOT
		// IN stays null-aware across it.
		p := pick(g, mixedPairs)
		okey, ikey = p[0], p[1]
		classes = append(classes, "on/mixed")
	}
	ip := g.pred("b.", 1)
	var cond ex
	switch g.n(5) {
	case 0:
		cond = mk(tBool, "a."+okey+" IN (SELECT b."+ikey+" FROM "+inner+" b WHERE %s)", ip)
	case 1:
		// NOT IN is null-aware: a NULL in the subquery empties the result.
		cond = mk(tBool, "a."+okey+" NOT IN (SELECT b."+ikey+" FROM "+inner+" b WHERE %s)", ip)
	case 2:
		cond = mk(tBool, "EXISTS (SELECT 1 FROM "+inner+" b WHERE b."+ikey+" = a."+okey+" AND %s)", ip)
	case 3:
		cond = mk(tBool, "NOT EXISTS (SELECT 1 FROM "+inner+" b WHERE b."+ikey+" = a."+okey+" AND %s)", ip)
	default:
		// an uncorrelated scalar subquery.
		agg := pick(g, []string{"MIN", "MAX"})
		cond = lit("a.m > (SELECT "+agg+"(b.m) FROM "+inner+" b WHERE b.k = 7)", tBool)
	}
	if g.p(40) {
		cond = mk(tBool, "%s AND %s", cond, g.pred("a.", 1))
	}
	s := spec{from: lit(outer+" a", tInt), where: cond, classes: classes}
	for i := 0; i < 1+g.n(3); i++ {
		s.outs = append(s.outs, g.anyCol("a."))
	}
	q := g.finish(s)
	q.joins = true
	return q
}

// corrAggQuery draws TPC-H Q17's shape: a correlated scalar aggregate
// subquery over a table the outer query also reads, correlated on the key
// of the outer join (FROM x a JOIN y c ON a.K = c.K WHERE a.k < (SELECT
// agg(b.k) FROM x b WHERE b.K = c.K)), which dorisgo may run as a window
// over the outer join (when the subquery's filters are the outer query's
// too: a filter on b is mostly repeated on a); "session no_agg_window"
// runs it decorrelated into a join instead. The aggregated column is an
// integer, so its comparison with an AVG is exact in both engines.
func (g *gen) corrAggQuery() Query {
	classes := []string{"semi/correlated-agg"}
	x, y := g.table(10, &classes), g.table(10, &classes)
	key := g.joinKey()
	agg := pick(g, []string{"AVG", "MIN", "MAX", "SUM", "COUNT"})
	val := pick(g, []string{"k", "b"})
	sub := lit("b."+key+" = c."+key, tBool)
	var outer []ex
	if g.p(60) {
		p := g.pred("@.", 0)
		as := func(al string) ex {
			return ex{d: strings.ReplaceAll(p.d, "@.", al), q: strings.ReplaceAll(p.q, "@.", al), t: tBool, exact: true}
		}
		sub = mk(tBool, "%s AND %s", sub, as("b."))
		if g.p(80) {
			outer = append(outer, as("a."))
		}
	}
	cmp := pick(g, []string{"<", ">", "<=", ">=", "="})
	where := mk(tBool, "a."+val+" "+cmp+" (SELECT "+agg+"(b."+val+") FROM "+x+" b WHERE %s)", sub)
	if g.p(40) {
		outer = append(outer, g.pred("c.", 0))
	}
	for _, o := range outer {
		where = mk(tBool, "%s AND %s", where, o)
	}
	s := spec{from: lit(x+" a JOIN "+y+" c ON a."+key+" = c."+key, tInt), where: where, classes: classes}
	s.outs = []ex{lit("a.id", tInt), lit("c.id", tInt), g.anyCol("a.")}
	q := g.finish(s)
	q.sessions = append(slices.Clone(otherSessions), "no_agg_window")
	return q
}

// semiJoinQuery draws Doris's LEFT/RIGHT SEMI/ANTI JOIN syntax; DuckDB gets
// the same query as [NOT] EXISTS. RIGHT SEMI outputs only b's columns.
func (g *gen) semiJoinQuery() Query {
	kind := pick(g, []string{"LEFT SEMI", "LEFT ANTI", "RIGHT SEMI", "RIGHT ANTI"})
	var big []string
	l, r := g.table(10, &big), g.table(10, &big)
	on, classes := g.equiCond()
	switch g.n(6) {
	case 0:
		c := pick(g, []string{"k", "m", "d", "id"})
		on = mk(tBool, "%s AND a."+c+" "+g.op()+" b."+c, on)
		classes = append(classes, "on/equi+nonequi")
	case 1:
		on = mk(tBool, "%s AND %s", on, g.pred(pick(g, []string{"a.", "b."}), 0))
		classes = append(classes, "on/equi+pred")
	case 2:
		// nested loops: one side small.
		on = lit(fmt.Sprintf("a.k %s b.k", pick(g, []string{"<", ">", "<>"})), tBool)
		classes = []string{"on/nonequi"}
		l, r = smallIfBig(l), small(r)
	case 3:
		k2 := g.joinKey()
		on = mk(tBool, "(%s) OR (a."+k2+" = b."+k2+")", on)
		classes = []string{"on/or"}
		l, r = small(l), smallIfBig(r)
	}
	keep, other, keepT, otherT := "a.", "b.", l, r
	if strings.HasPrefix(kind, "RIGHT") {
		keep, other, keepT, otherT = "b.", "a.", r, l
	}
	not := ""
	if strings.HasSuffix(kind, "ANTI") {
		not = "NOT "
	}
	from := func(h string) string { return fmt.Sprintf("%s a %s JOIN%s %s b ON %s", l, kind, h, r, on.d) }
	s := spec{from: ex{d: from(""), q: keepT + " " + strings.TrimSuffix(keep, ".")},
		classes: append(append([]string{"semijoin", "kind/" + kind}, classes...), big...)}
	for i := 0; i < 1+g.n(3); i++ {
		s.outs = append(s.outs, g.anyCol(keep))
	}
	// DuckDB's WHERE is Doris's WHERE and the [NOT] EXISTS.
	exists := fmt.Sprintf("%sEXISTS (SELECT 1 FROM %s %s WHERE %s)", not, otherT, strings.TrimSuffix(other, "."), on.q)
	s.where = ex{q: exists}
	if g.p(40) {
		w := g.pred(keep, 1)
		s.where = ex{d: w.d, q: "(" + w.q + ") AND " + exists}
	}
	g.maybeTLP(&s, keep, 30)
	return hinted(g.finish(s), from)
}

// setQuery draws UNION [ALL] / INTERSECT / EXCEPT of two selects with the
// same column types.
func (g *gen) setQuery() Query {
	var ts []typ
	for i := 0; i < 1+g.n(2); i++ {
		ts = append(ts, pick(g, []typ{tInt, tStr, tDate, tDec}))
	}
	side := func() ex {
		t := pick(g, tableNames)
		var outs []ex
		for _, ty := range ts {
			if g.p(70) {
				outs = append(outs, g.value(ty, "", 0))
			} else {
				outs = append(outs, g.value(ty, "", 1))
			}
		}
		return spec{outs: outs, from: lit(t, tInt), where: g.where("")}.render(ex{})
	}
	op := pick(g, []string{"UNION", "UNION ALL", "INTERSECT", "EXCEPT"})
	l, r := side(), side()
	return Query{Doris: l.d + " " + op + " " + r.d, Duck: l.q + " " + op + " " + r.q, Classes: []string{"set"}}
}

const wholeFrame = "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING"

// windowQuery draws ranking and aggregate window functions. Ranking
// functions order by a total key so both engines number rows alike. A
// fifth of the queries have no PARTITION BY (one partition).
func (g *gen) windowQuery() Query {
	var classes []string
	t := g.table(5, &classes)
	part := g.groupKey("")
	outs := []ex{lit("id", tInt), part}
	nopart := g.p(20)
	if nopart {
		part = lit("1", tInt) // removed below: no PARTITION BY, one partition
	}
	for i := 0; i < 1+g.n(3); i++ {
		switch g.n(6) {
		case 0:
			outs = append(outs, mk(tInt, "ROW_NUMBER() OVER (PARTITION BY %s ORDER BY id)", part))
		case 1:
			c := g.col("", pick(g, []string{"k", "s", "d", "m"}))
			desc := g.p(40)
			od, oq := c.d, c.q+" NULLS FIRST"
			if desc {
				od, oq = c.d+" DESC", c.q+" DESC NULLS LAST"
			}
			fn := pick(g, []string{"RANK", "DENSE_RANK"})
			outs = append(outs, ex{d: fn + "() OVER (PARTITION BY " + part.d + " ORDER BY " + od + ")",
				q: fn + "() OVER (PARTITION BY " + part.q + " ORDER BY " + oq + ")", t: tInt, exact: true})
		case 2:
			// no ORDER BY: the whole partition (once panicked a backend).
			outs = append(outs, mk(tDec, "SUM(%s) OVER (PARTITION BY %s)", g.col("", pick(g, []string{"m", "f", "k"})), part))
		case 3:
			// a running sum: the default RANGE frame, ordered by the unique id.
			outs = append(outs, mk(tDec, "SUM(%s) OVER (PARTITION BY %s ORDER BY id)", g.col("", pick(g, []string{"m", "f", "k"})), part))
		case 4:
			outs = append(outs, mk(tDec, "SUM(%s) OVER (PARTITION BY %s ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)", g.col("", pick(g, []string{"m", "f", "k"})), part))
		default:
			fn := pick(g, []string{"COUNT", "MIN", "MAX"})
			outs = append(outs, mk(tInt, fn+"(%s) OVER (PARTITION BY %s ORDER BY id "+wholeFrame+")", g.col("", pick(g, []string{"k", "s", "d", "m"})), part))
		}
	}
	if nopart {
		for i := 2; i < len(outs); i++ {
			for _, e := range []*string{&outs[i].d, &outs[i].q} {
				*e = strings.ReplaceAll(strings.ReplaceAll(*e, "PARTITION BY 1 ", ""), "(PARTITION BY 1)", "()")
			}
		}
	}
	return g.finish(spec{outs: outs, from: lit(t, tInt), where: g.where(""), classes: append([]string{"window"}, classes...)})
}
