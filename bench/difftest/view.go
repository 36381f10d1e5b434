package difftest

import (
	"fmt"
	"math/rand/v2"
)

// viewDef is one view created on both engines: its columns c0, c1, ...
// have the types of cols (exact ones may be compared and joined on).
type viewDef struct {
	name string
	d, q string // CREATE VIEW per dialect
	cols []ex
}

// tableCol is a column of every table with type t, for joins of a view's
// column with a table.
var tableCol = map[typ]string{tInt: "k", tBig: "b", tStr: "s", tDate: "d", tDec: "m", tDbl: "f"}

// Views returns the views of a seed (over aggregates, joins and joined
// aggregates of the tables) and n queries reading them, alone, joined with
// tables and with each other, and in subqueries.
func Views(seed int64, n int) ([]viewDef, []Query) {
	g := &gen{r: rand.New(rand.NewPCG(uint64(seed), 0x71e3))}
	var vs []viewDef
	for i := 0; i < 5; i++ {
		vs = append(vs, g.view(fmt.Sprintf("vw%d", i), i))
	}
	var qs []Query
	for len(qs) < n {
		q := g.viewQuery(vs)
		sessions := otherSessions
		if q.joins {
			sessions = joinSessions
		}
		for _, se := range sessions {
			q.Variants = append(q.Variants, Variant{Label: "session " + se, Text: q.Doris, Session: se})
		}
		qs = append(qs, q)
	}
	return vs, qs
}

// view draws the body of view name: shape picks an aggregate, a join, a
// joined aggregate, a select of expressions or a UNION ALL.
func (g *gen) view(name string, shape int) viewDef {
	var s spec
	switch shape % 5 {
	case 0:
		s = spec{from: lit(pick(g, tableNames), tInt), where: g.where("")}
		k := g.groupKey("")
		s.group = []ex{k}
		s.outs = []ex{k, countStar(), mk(tDec, "SUM(%s)", g.col("", "m")), mk(tStr, "MIN(%s)", g.col("", "s")),
			mk(tDate, "MAX(%s)", g.col("", "d"))}
	case 1:
		j := g.joinParts("INNER", "LEFT", "RIGHT", "FULL OUTER")
		for j.big {
			j = g.joinParts("INNER", "LEFT")
		}
		s = spec{from: j.head("")}
		s.outs = []ex{g.col("a.", "id"), g.col("b.", "id"), g.col("a.", "k"), g.col("b.", "s"), g.col("a.", "d"),
			g.col("b.", "m"), g.value(pick(g, []typ{tInt, tStr, tDate}), pick(g, []string{"a.", "b."}), 1)}
	case 2:
		j := g.joinParts("INNER", "LEFT")
		s = spec{from: j.head("")}
		k := g.col(pick(g, []string{"a.", "b."}), pick(g, []string{"k", "s", "d"}))
		s.group = []ex{k}
		s.outs = []ex{k, countStar(), mk(tDec, "SUM(%s)", g.col("b.", "m")), mk(tInt, "COUNT(%s)", g.col("b.", "id"))}
	case 3:
		s = spec{from: lit(pick(g, tableNames), tInt), where: g.where("")}
		s.outs = []ex{g.col("", "id"), g.col("", "k")}
		for i := 0; i < 3; i++ {
			s.outs = append(s.outs, g.value(pick(g, []typ{tInt, tStr, tDate, tDec}), "", 2))
		}
	default:
		l := spec{from: lit(pick(g, tableNames), tInt), where: g.where(""), outs: []ex{g.col("", "k"), g.col("", "s"), g.col("", "d")}}
		r := spec{from: lit(pick(g, tableNames), tInt), where: g.where(""), outs: []ex{g.col("", "k"), g.col("", "v"), g.col("", "d")}}
		lr, rr := l.render(ex{}), r.render(ex{})
		return viewDef{name: name, d: "CREATE VIEW " + name + " AS " + lr.d + " UNION ALL " + rr.d,
			q: "CREATE VIEW " + name + " AS " + lr.q + " UNION ALL " + rr.q, cols: l.outs}
	}
	r := s.render(ex{})
	return viewDef{name: name, d: "CREATE VIEW " + name + " AS " + r.d, q: "CREATE VIEW " + name + " AS " + r.q, cols: s.outs}
}

// viewCol picks an exact column of v (its name under alias al and its type).
func (g *gen) viewCol(v viewDef, al string) (ex, bool) {
	var cs []int
	for i, c := range v.cols {
		if c.exact {
			cs = append(cs, i)
		}
	}
	if len(cs) == 0 {
		return ex{}, false
	}
	i := pick(g, cs)
	return lit(fmt.Sprintf("%sc%d", al, i), v.cols[i].t), true
}

// viewPred draws a condition over v's columns.
func (g *gen) viewPred(v viewDef, al string) ex {
	c, ok := g.viewCol(v, al)
	if !ok {
		return ex{}
	}
	switch g.n(4) {
	case 0:
		return mk(tBool, "%s IS NULL", c)
	case 1:
		return mk(tBool, "%s IS NOT NULL", c)
	}
	t := c.t
	if t == tBool {
		return mk(tBool, "%s IS TRUE", c)
	}
	return mk(tBool, "%s "+g.op()+" %s", c, g.constant(t))
}

func (g *gen) viewQuery(vs []viewDef) Query {
	v := pick(g, vs)
	cls := []string{"view"}
	var s spec
	switch g.n(5) {
	case 0:
		s = spec{from: lit(v.name+" x", tInt), where: g.viewPred(v, "x.")}
		for i := range v.cols {
			s.outs = append(s.outs, lit(fmt.Sprintf("x.c%d", i), v.cols[i].t))
			s.outs[i].exact = v.cols[i].exact
		}
	case 1:
		k, ok := g.viewCol(v, "x.")
		if !ok {
			return g.viewQuery(vs)
		}
		s = spec{from: lit(v.name+" x", tInt), where: g.viewPred(v, "x."), group: []ex{k}, classes: []string{"view/agg"}}
		c, _ := g.viewCol(v, "x.")
		cd := mk(tInt, "COUNT(DISTINCT %s)", c)
		cd.agg = "-"
		s.outs = []ex{k, countStar(), cd}
	case 2, 3:
		// the view joined with a table on a column of the same type.
		c, ok := g.viewCol(v, "x.")
		tc, has := tableCol[c.t]
		if !ok || !has {
			return g.viewQuery(vs)
		}
		t := pick(g, tableNames)
		kind := pick(g, []string{"INNER", "LEFT", "RIGHT"})
		from := func(h string) string {
			return fmt.Sprintf("%s x %s JOIN%s %s a ON %s = a.%s", v.name, kind, h, t, c.d, tc)
		}
		s = spec{from: lit(from(""), tInt), where: g.viewPred(v, "x."), classes: []string{"view/join"}}
		if g.p(50) {
			s.outs = []ex{countStar(), mk(tInt, "COUNT(%s)", c), lit("COUNT(a.id)", tInt), lit("SUM(a.m)", tDec)}
			s.outs[1].agg, s.outs[2].agg, s.outs[3].agg = "SUM", "SUM", "SUM"
		} else {
			s.outs = []ex{lit("a.id", tInt), c, g.anyCol("a.")}
		}
		g.maybeTLP(&s, "a.", 30)
		return hinted(g.finish(s), from)
	default:
		// two views joined, or a view in an IN subquery.
		w := pick(g, vs)
		c, ok1 := g.viewCol(v, "x.")
		if !ok1 {
			return g.viewQuery(vs)
		}
		var c2 ex
		found := false
		for i, wc := range w.cols {
			if wc.exact && wc.t == c.t {
				c2, found = lit(fmt.Sprintf("y.c%d", i), wc.t), true
				break
			}
		}
		if !found || g.p(30) {
			tc, has := tableCol[c.t]
			if !has {
				return g.viewQuery(vs)
			}
			t := pick(g, tableNames)
			not := pick(g, []string{"", "NOT "})
			s = spec{from: lit(t+" a", tInt), where: lit(fmt.Sprintf("a.%s %sIN (SELECT %s FROM %s x)", tc, not, c.d, v.name), tBool),
				outs: []ex{g.col("a.", "id"), g.anyCol("a.")}, classes: []string{"view/subquery"}}
			return g.finish(s)
		}
		s = spec{from: lit(fmt.Sprintf("%s x LEFT JOIN %s y ON %s = %s", v.name, w.name, c.d, c2.d), tInt),
			classes: []string{"view/view"}}
		s.outs = []ex{countStar(), mk(tInt, "COUNT(%s)", c2), mk(tInt, "COUNT(DISTINCT %s)", c)}
		s.outs[1].agg, s.outs[2].agg = "SUM", "-"
	}
	s.classes = append(cls, s.classes...)
	return g.finish(s)
}

// viewTexts are the texts of the default run's views and view queries.
func viewTexts(seed int64, n int) []string {
	vs, qs := Views(seed, n)
	var out []string
	for _, v := range vs {
		out = append(out, v.d)
	}
	for _, q := range qs {
		out = append(out, q.Doris)
	}
	return out
}
