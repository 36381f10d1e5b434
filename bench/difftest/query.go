package difftest

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Query is one generated query. Doris and Duck are the same query in the
// two dialects; Ordered says the rows must match in order (its ORDER BY
// covers every output column, so the order is total). Variants are other
// dorisgo texts of the same query (join hints) that must return the same
// rows; Joins marks queries worth re-running with bucket shuffle disabled.
type Query struct {
	Doris, Duck string
	Ordered     bool
	Variants    []string
	Joins       bool
}

// Generate returns n queries, deterministic in seed.
func Generate(seed int64, n int) []Query {
	g := &gen{r: rand.New(rand.NewPCG(uint64(seed), 0x5eed))}
	shapes := []func() Query{g.selectQuery, g.selectQuery, g.aggQuery, g.aggQuery, g.joinQuery, g.joinQuery,
		g.joinQuery, g.joinAggQuery, g.semiQuery, g.setQuery, g.windowQuery}
	var out []Query
	for len(out) < n {
		out = append(out, pick(g, shapes)())
	}
	return out
}

var tableNames = []string{"ta", "tb", "tc", "td", "te", "tf"}

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
// ascending and last when descending; DuckDB is told so explicitly (dorisgo
// does not parse NULLS FIRST/LAST).
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
	p := g.pred(al, 2)
	return ex{d: " WHERE " + p.d, q: " WHERE " + p.q}
}

// finish assembles SELECT list FROM rest, maybe with ORDER BY + LIMIT.
func (g *gen) finish(outs []ex, from ex) Query {
	sl := selectList(outs)
	q := Query{
		Doris: "SELECT " + sl.d + " FROM " + from.d,
		Duck:  "SELECT " + sl.q + " FROM " + from.q,
	}
	if allExact(outs) && g.p(35) {
		o := g.orderAll(len(outs))
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

func (g *gen) selectQuery() Query {
	t := pick(g, tableNames)
	var outs []ex
	for i := 0; i < 1+g.n(4); i++ {
		outs = append(outs, g.value(pick(g, []typ{tInt, tBig, tStr, tDate, tDec, tDbl, tBool}), "", 2))
	}
	w := g.where("")
	return g.finish(outs, ex{d: t + w.d, q: t + w.q})
}

// aggregate draws one aggregate over alias al.
func (g *gen) aggregate(al string) ex {
	switch g.n(7) {
	case 0:
		return lit("COUNT(*)", tInt)
	case 1:
		return mk(tInt, "COUNT(%s)", g.nullCol(al))
	case 2:
		return mk(tInt, "COUNT(DISTINCT %s)", g.value(pick(g, []typ{tInt, tStr, tDate, tDec}), al, 1))
	case 3:
		return mk(tDec, "SUM(%s)", g.value(pick(g, []typ{tInt, tDec, tDbl}), al, 1))
	case 4:
		return inexact(mk(tDbl, "AVG(%s)", g.value(pick(g, []typ{tInt, tDec, tDbl}), al, 1)))
	default:
		fn := pick(g, []string{"MIN", "MAX"})
		return mk(tInt, fn+"(%s)", g.value(pick(g, []typ{tInt, tBig, tStr, tDate, tDec, tDbl}), al, 1))
	}
}

// groupKey draws a grouping key over alias al: a column, or an expression
// (which must still be aggregated across buckets: GROUP BY MONTH(d) over a
// table hashed on k once returned one group per bucket).
func (g *gen) groupKey(al string) ex {
	switch g.n(6) {
	case 0:
		return mk(tInt, "(%s %% 4)", g.col(al, "k"))
	case 1:
		return mk(tInt, "MONTH(%s)", g.col(al, "d"))
	case 2:
		return mk(tStr, "SUBSTRING(%s, 1, 1)", g.col(al, "s"))
	}
	return g.nullCol(al)
}

func (g *gen) aggQuery() Query {
	t := pick(g, tableNames)
	var keys, outs []ex
	for i := 0; i < g.n(3); i++ {
		keys = append(keys, g.groupKey(""))
	}
	outs = append(outs, keys...)
	for i := 0; i < 1+g.n(3); i++ {
		outs = append(outs, g.aggregate(""))
	}
	w := g.where("")
	from := ex{d: t + w.d, q: t + w.q}
	if len(keys) > 0 {
		var kd, kq []string
		for _, k := range keys {
			kd, kq = append(kd, k.d), append(kq, k.q)
		}
		from.d += " GROUP BY " + strings.Join(kd, ", ")
		from.q += " GROUP BY " + strings.Join(kq, ", ")
		if g.p(40) {
			h := pick(g, []ex{lit("COUNT(*)", tInt), mk(tDec, "SUM(%s)", g.col("", "m")), mk(tInt, "MAX(%s)", g.col("", "k"))})
			c := g.n(20)
			if h.t == tDec {
				c = g.n(2000) - 500
			}
			op := g.op()
			from.d += fmt.Sprintf(" HAVING %s %s %d", h.d, op, c)
			from.q += fmt.Sprintf(" HAVING %s %s %d", h.q, op, c)
		}
	}
	return g.finish(outs, from)
}

// joinKey picks the equality column of a join; DOUBLE is left out on
// purpose (equality on floats is not a sensible join key).
func (g *gen) joinKey() string { return pick(g, []string{"k", "k", "k", "b", "s", "d", "m", "id"}) }

type joinParts struct {
	kind       string // INNER, LEFT, RIGHT, FULL OUTER
	left, righ string
	on         ex
	equi       bool
}

func (g *gen) joinParts() joinParts {
	j := joinParts{left: pick(g, tableNames), righ: pick(g, tableNames)}
	j.kind = pick(g, []string{"INNER", "INNER", "LEFT", "LEFT", "RIGHT", "FULL OUTER"})
	key := g.joinKey()
	j.on = lit(fmt.Sprintf("a.%s = b.%s", key, key), tBool)
	j.equi = true
	switch g.n(5) {
	case 0:
		// a second condition: equi plus non-equi.
		c := pick(g, []string{"k", "m", "f", "d", "id"})
		j.on = mk(tBool, "%s AND a.%s "+g.op()+" b.%s", j.on, lit(c, tInt), lit(c, tInt))
	case 1:
		j.on = mk(tBool, "%s AND %s", j.on, g.pred("b.", 0))
	case 2:
		if j.kind == "INNER" || j.kind == "LEFT" {
			// non-equi only: a nested loop; keep both sides small.
			j.on = lit(fmt.Sprintf("a.k %s b.k AND a.id < b.id + 20 AND a.id > b.id - 20", pick(g, []string{"<", ">", "<>"})), tBool)
			j.equi = false
		}
	}
	return j
}

// head renders "l a KIND JOIN<hint> r b".
func (j joinParts) head(hint string) string {
	return fmt.Sprintf("%s a %s JOIN%s %s b", j.left, j.kind, hint, j.righ)
}

// from renders the FROM clause (without hints) and WHERE in both dialects.
func (j joinParts) from(w ex) ex {
	return ex{d: j.head("") + " ON " + j.on.d + w.d, q: j.head("") + " ON " + j.on.q + w.q}
}

// hinted sets q.Variants to q's dorisgo text with each join hint.
func (j joinParts) hinted(q Query) Query {
	for _, h := range []string{" [shuffle]", " [broadcast]", " /*+ shuffle */"} {
		q.Variants = append(q.Variants, strings.Replace(q.Doris, j.head(""), j.head(h), 1))
	}
	q.Variants = append(q.Variants, strings.Replace(q.Doris, "SELECT ", "SELECT /*+ BROADCAST(b) */ ", 1))
	q.Joins = true
	return q
}

func (g *gen) joinWhere() ex {
	if g.p(50) {
		return ex{}
	}
	p := g.pred(pick(g, []string{"a.", "b."}), 1)
	return ex{d: " WHERE " + p.d, q: " WHERE " + p.q}
}

func (g *gen) joinQuery() Query {
	j := g.joinParts()
	var outs []ex
	for i := 0; i < 1+g.n(4); i++ {
		al := pick(g, []string{"a.", "b."})
		if g.p(60) {
			outs = append(outs, g.col(al, pick(g, []string{"id", "k", "b", "s", "d", "m", "f"})))
		} else {
			outs = append(outs, g.value(pick(g, []typ{tInt, tStr, tDate, tDec, tDbl}), al, 1))
		}
	}
	if !j.equi {
		// a nested-loop join's output can be large: aggregate it.
		return g.joinAgg(j)
	}
	return j.hinted(g.finish(outs, j.from(g.joinWhere())))
}

func (g *gen) joinAggQuery() Query { return g.joinAgg(g.joinParts()) }

func (g *gen) joinAgg(j joinParts) Query {
	var keys, outs []ex
	if g.p(70) {
		keys = append(keys, g.groupKey(pick(g, []string{"a.", "b."})))
	}
	outs = append(outs, keys...)
	outs = append(outs, lit("COUNT(*)", tInt))
	for i := 0; i < 1+g.n(2); i++ {
		outs = append(outs, g.aggregate(pick(g, []string{"a.", "b."})))
	}
	from := j.from(g.joinWhere())
	if len(keys) > 0 {
		from.d += " GROUP BY " + keys[0].d
		from.q += " GROUP BY " + keys[0].q
	}
	return j.hinted(g.finish(outs, from))
}

// semiQuery draws IN / NOT IN / EXISTS / NOT EXISTS subqueries.
func (g *gen) semiQuery() Query {
	outer, inner := pick(g, tableNames), pick(g, tableNames)
	key := g.joinKey()
	ip := g.pred("b.", 1)
	var cond ex
	switch g.n(5) {
	case 0:
		cond = mk(tBool, "a."+key+" IN (SELECT b."+key+" FROM "+inner+" b WHERE %s)", ip)
	case 1:
		// NOT IN is null-aware: a NULL in the subquery empties the result.
		cond = mk(tBool, "a."+key+" NOT IN (SELECT b."+key+" FROM "+inner+" b WHERE %s)", ip)
	case 2:
		cond = mk(tBool, "EXISTS (SELECT 1 FROM "+inner+" b WHERE b."+key+" = a."+key+" AND %s)", ip)
	case 3:
		cond = mk(tBool, "NOT EXISTS (SELECT 1 FROM "+inner+" b WHERE b."+key+" = a."+key+" AND %s)", ip)
	default:
		// an uncorrelated scalar subquery.
		agg := pick(g, []string{"MIN", "MAX"})
		cond = lit("a.m > (SELECT "+agg+"(b.m) FROM "+inner+" b WHERE b.k = 7)", tBool)
	}
	if g.p(40) {
		cond = mk(tBool, "%s AND %s", cond, g.pred("a.", 1))
	}
	var outs []ex
	for i := 0; i < 1+g.n(3); i++ {
		outs = append(outs, g.anyCol("a."))
	}
	q := g.finish(outs, mk(tBool, outer+" a WHERE %s", cond))
	q.Joins = true
	return q
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
		sl := selectList(outs)
		w := g.where("")
		return ex{d: "SELECT " + sl.d + " FROM " + t + w.d, q: "SELECT " + sl.q + " FROM " + t + w.q}
	}
	op := pick(g, []string{"UNION", "UNION ALL", "INTERSECT", "EXCEPT"})
	l, r := side(), side()
	return Query{Doris: l.d + " " + op + " " + r.d, Duck: l.q + " " + op + " " + r.q}
}

const wholeFrame = "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING"

// windowQuery draws ranking and aggregate window functions. Ranking
// functions order by a total key so both engines number rows alike. A
// fifth of the queries have no PARTITION BY (one partition).
func (g *gen) windowQuery() Query {
	t := pick(g, tableNames)
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
	w := g.where("")
	return g.finish(outs, ex{d: t + w.d, q: t + w.q})
}
