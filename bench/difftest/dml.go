package difftest

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// mutTable is a table the mutation phase changes (the query phase's tables
// stay as loaded): DUPLICATE tables take Doris's delete predicates (any
// deterministic condition), UNIQUE KEY tables UPDATE and DELETE on key
// columns, and INSERTs that replace rows of the same key (DuckDB: INSERT
// OR REPLACE on its primary key).
type mutTable struct {
	name        string
	unique      bool
	keys        []string // the key columns (UNIQUE: the primary key)
	doris, duck string   // CREATE TABLE
}

func mutTables() []mutTable {
	const one = `"replication_num" = "1"`
	mt := func(name string, unique bool, keys []string, layout string) mutTable {
		var dcols, qcols []string
		for _, k := range keys {
			dcols = append(dcols, k+" "+mutType(k, keys))
		}
		for _, c := range columns {
			qcols = append(qcols, c.name+" "+mutType(c.name, keys))
			if !containsStr(keys, c.name) {
				dcols = append(dcols, c.name+" "+c.sqlType)
			}
		}
		model, pk := "DUPLICATE", ""
		if unique {
			model, pk = "UNIQUE", ", PRIMARY KEY ("+strings.Join(keys, ", ")+")"
		}
		return mutTable{name: name, unique: unique, keys: keys,
			doris: fmt.Sprintf("CREATE TABLE %s (%s) %s KEY(%s) %s", name, strings.Join(dcols, ", "), model, strings.Join(keys, ", "), layout),
			duck:  fmt.Sprintf("CREATE TABLE %s (%s%s)", name, strings.Join(qcols, ", "), pk)}
	}
	return []mutTable{
		mt("tm", false, []string{"k"}, `DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES(`+one+`)`),
		mt("tn", false, []string{"d"}, `PARTITION BY RANGE(d) (PARTITION p1 VALUES LESS THAN ("2023-07-01"), `+
			`PARTITION p2 VALUES LESS THAN ("2024-01-01"), PARTITION p3 VALUES LESS THAN MAXVALUE) `+
			`DISTRIBUTED BY HASH(b) BUCKETS 3 PROPERTIES(`+one+`)`),
		mt("tu", true, []string{"id"}, `DISTRIBUTED BY HASH(id) BUCKETS 3 PROPERTIES(`+one+`)`),
		mt("tw", true, []string{"id", "k"}, `DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES(`+one+`)`),
	}
}

// mutType is column c's type; a UNIQUE key column is NOT NULL (DuckDB's
// primary key).
func mutType(c string, keys []string) string {
	for _, col := range columns {
		if col.name == c {
			if containsStr(keys, c) && len(keys) > 1 {
				return strings.Replace(col.sqlType, " NOT NULL", "", 1) + " NOT NULL"
			}
			return col.sqlType
		}
	}
	panic("difftest: no column " + c)
}

func containsStr(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// stmt is one statement in both dialects (an INSERT keeps its tuples).
type stmt struct {
	d, q string
	rows []string
}

// mutStep is one mutation and the queries that check the table after it
// (the first: its whole contents).
type mutStep struct {
	kind   string // insert, delete, update
	st     stmt
	checks []Query
}

// mutSeq is one table's sequence: its DDL and first rows (setup; rows
// are the first INSERT's tuples, for shrinking a failure), then the steps.
type mutSeq struct {
	t     mutTable
	setup []stmt
	rows  []string
	steps []mutStep
}

// Mutations returns each mutation table's sequence of steps mutations,
// deterministic in seed.
func Mutations(seed int64, steps int) []mutSeq {
	g := &gen{r: rand.New(rand.NewPCG(uint64(seed), 0xde1e7e))}
	var out []mutSeq
	for _, t := range mutTables() {
		ms := mutSeq{t: t, setup: []stmt{{d: t.doris, q: t.duck}}}
		next := 1 + g.n(50)
		first := g.insertRows(t, next, 120, false)
		ms.setup = append(ms.setup, first)
		ms.rows = first.rows
		next += 120
		for i := 0; i < steps; i++ {
			var st mutStep
			switch x := g.n(10); {
			case x < 3:
				// new rows, and for UNIQUE tables rows replacing old keys.
				lo := next
				if t.unique && g.p(60) {
					lo = 1 + g.n(next)
				}
				n := 5 + g.n(20)
				st = mutStep{kind: "insert", st: g.insertRows(t, lo, n, lo < next)}
				next = max(next, lo+n)
			case t.unique && x < 6:
				st = mutStep{kind: "update", st: g.update(t)}
			default:
				st = mutStep{kind: "delete", st: g.delete(t)}
			}
			st.checks = append(st.checks, contents(t.name))
			for j := 0; j < 2; j++ {
				st.checks = append(st.checks, g.mutQuery(t.name))
			}
			ms.steps = append(ms.steps, st)
		}
		out = append(out, ms)
	}
	return out
}

// contents reads the whole table.
func contents(t string) Query {
	q := "SELECT " + colList + " FROM " + t
	return Query{Doris: q, Duck: q, Classes: []string{"dml/contents"}}
}

// insertRows draws n rows with ids from lo, on UNIQUE tables replacing
// the rows of keys already there (DuckDB: INSERT OR REPLACE).
func (g *gen) insertRows(t mutTable, lo, n int, replace bool) stmt {
	var rows []string
	for i := 0; i < n; i++ {
		var row []string
		for _, c := range columns {
			v := value(g.r, c.name, lo+i)
			if v == "NULL" && containsStr(t.keys, c.name) && t.unique {
				v = "0"
			}
			row = append(row, v)
		}
		rows = append(rows, "("+strings.Join(row, ", ")+")")
	}
	body := " INTO " + t.name + " (" + colList + ") VALUES " + strings.Join(rows, ", ")
	q := "INSERT" + body
	if t.unique {
		q = "INSERT OR REPLACE" + body
	}
	return stmt{d: "INSERT" + body, q: q, rows: rows}
}

// insertText renders INSERT INTO t of rows in both dialects.
func insertText(t mutTable, rows []string) stmt {
	body := " INTO " + t.name + " (" + colList + ") VALUES " + strings.Join(rows, ", ")
	q := "INSERT" + body
	if t.unique {
		q = "INSERT OR REPLACE" + body
	}
	return stmt{d: "INSERT" + body, q: q, rows: rows}
}

// delete draws a DELETE: on DUPLICATE tables any generated condition
// (narrowed by an id residue half the time, so the table does not empty
// at once), on UNIQUE tables simple predicates on key columns.
func (g *gen) delete(t mutTable) stmt {
	var c ex
	if !t.unique {
		c = g.pred("", 2)
		for !c.exact {
			c = g.pred("", 2)
		}
		if g.p(75) {
			c = mk(tBool, "(%s) AND id %% 5 = "+strconv.Itoa(g.n(5)), c)
		}
	} else {
		// a few rows at a time: a point, a list, a short range (with
		// holes), or the key's other column in a range.
		var parts []string
		k := pick(g, t.keys)
		a := g.keyConst(k)
		switch g.n(5) {
		case 0:
			parts = append(parts, fmt.Sprintf("%s = %d", k, a))
		case 1:
			parts = append(parts, fmt.Sprintf("%s IN (%d, %d, %d)", k, a, g.keyConst(k), g.keyConst(k)))
		case 2:
			parts = append(parts, fmt.Sprintf("%s BETWEEN %d AND %d", k, a, a+g.n(12)))
		case 3:
			parts = append(parts, fmt.Sprintf("%s >= %d", k, a), fmt.Sprintf("%s %s %d", k, pick(g, []string{"<", "<="}), a+g.n(10)))
		default:
			parts = append(parts, fmt.Sprintf("%s BETWEEN %d AND %d", k, a, a+g.n(15)), fmt.Sprintf("%s NOT IN (%d, %d)", k, a+1, a+g.n(5)))
		}
		if len(t.keys) > 1 && g.p(50) {
			o := t.keys[0]
			if o == k {
				o = t.keys[1]
			}
			parts = append(parts, fmt.Sprintf("%s %s %d", o, pick(g, []string{"<", ">=", "<=", ">", "!="}), g.keyConst(o)))
		}
		w := strings.Join(parts, " AND ")
		c = ex{d: w, q: w}
	}
	return stmt{d: "DELETE FROM " + t.name + " WHERE " + c.d, q: "DELETE FROM " + t.name + " WHERE " + c.q}
}

// keyConst is a constant in key column k's domain.
func (g *gen) keyConst(k string) int {
	if k == "id" {
		return g.n(200)
	}
	return g.n(40) - 5
}

// setValue draws a value for column c that fits its type (SET sees the
// old row).
func (g *gen) setValue(c string) ex {
	switch c {
	case "k":
		return pick(g, []ex{mk(tInt, "(%s + 1)", g.col("", "k")), lit("(id % 7)", tInt), lit("NULL", tInt), g.constant(tInt),
			mk(tInt, "COALESCE(%s, -1)", g.col("", "k")), g.value(tInt, "", 1)})
	case "b":
		return pick(g, []ex{mk(tBig, "(%s - 3)", g.col("", "b")), g.constant(tBig), lit("NULL", tBig)})
	case "s":
		return pick(g, []ex{mk(tStr, "UPPER(%s)", g.col("", "s")), mk(tStr, "SUBSTRING(%s, 1, 5)", g.col("", "v")),
			g.constant(tStr), lit("NULL", tStr), mk2(tStr, "CONCAT(LEFT(%s, 3), '-', LEFT(%s, 3))", "(left(%s, 3) || '-' || left(%s, 3))", g.col("", "s"), g.col("", "v"))})
	case "d":
		return pick(g, []ex{mk2(tDate, "(%s + INTERVAL 10 DAY)", "CAST(%s + INTERVAL 10 DAY AS DATE)", g.col("", "d")), g.constant(tDate), lit("NULL", tDate),
			mk2(tDate, "LAST_DAY(%s)", "last_day(%s)", g.col("", "d"))})
	case "m":
		return pick(g, []ex{mk(tDec, "(%s + 1.25)", g.col("", "m")), mk(tDec, "(%s * 2)", g.col("", "m")), lit("NULL", tDec),
			mk(tDec, "ABS(%s)", g.col("", "m")), mk(tDec, "CAST(%s AS DECIMAL(12,2))", g.col("", "k"))})
	case "f":
		return pick(g, []ex{mk(tDbl, "(%s * 2)", g.col("", "f")), mk(tDbl, "(%s + 0.5)", g.col("", "f")), lit("NULL", tDbl), g.constant(tDbl)})
	case "v":
		return pick(g, []ex{mk2(tStr, "CONCAT(%s, '-', LEFT(%s, 10))", "(%s || '-' || left(%s, 10))", g.col("", "s"), g.col("", "v")),
			mk(tStr, "LOWER(%s)", g.col("", "s")), lit("NULL", tStr), g.constant(tStr)})
	case "n":
		return pick(g, []ex{mk(tDec, "(%s + %s)", g.col("", "n"), g.col("", "m")), mk(tDec, "(%s * 3)", g.col("", "n")), lit("NULL", tDec)})
	}
	panic("difftest: no value for " + c)
}

// update draws UPDATE t SET (value columns) WHERE (any condition).
func (g *gen) update(t mutTable) stmt {
	var vals []string
	for _, c := range allCols {
		if !containsStr(t.keys, c) {
			vals = append(vals, c)
		}
	}
	var sd, sq []string
	used := map[string]bool{}
	for i := 0; i < 1+g.n(2); i++ {
		c := pick(g, vals)
		if used[c] {
			continue
		}
		used[c] = true
		v := g.setValue(c)
		sd, sq = append(sd, c+" = "+v.d), append(sq, c+" = "+v.q)
	}
	w := g.pred("", 1)
	for !w.exact {
		w = g.pred("", 1)
	}
	return stmt{d: "UPDATE " + t.name + " SET " + strings.Join(sd, ", ") + " WHERE " + w.d,
		q: "UPDATE " + t.name + " SET " + strings.Join(sq, ", ") + " WHERE " + w.q}
}

// mutQuery draws a query over mutated table t: a select, an aggregate, or
// a join with ta (not mutated).
func (g *gen) mutQuery(t string) Query {
	var s spec
	switch g.n(3) {
	case 0:
		s = spec{from: lit(t, tInt), where: g.where(""), classes: []string{"dml/select"}}
		for i := 0; i < 1+g.n(3); i++ {
			s.outs = append(s.outs, g.value(pick(g, []typ{tInt, tBig, tStr, tDate, tDec, tDbl}), "", 1))
		}
		g.maybeTLP(&s, "", 25)
	case 1:
		s = spec{from: lit(t, tInt), where: g.where(""), classes: []string{"dml/agg"}}
		if g.p(70) {
			s.group = []ex{g.groupKey("")}
		}
		s.outs = append(append(s.outs, s.group...), countStar(), g.aggregate(""))
		g.maybeTLP(&s, "", 25)
	default:
		kind := pick(g, []string{"INNER", "LEFT", "RIGHT"})
		key := pick(g, []string{"k", "s", "d", "id"})
		s = spec{from: lit(fmt.Sprintf("%s a %s JOIN ta b ON a.%s = b.%s", t, kind, key, key), tInt), classes: []string{"dml/join"}}
		s.outs = []ex{countStar(), mk(tInt, "COUNT(%s)", g.col("a.", "id")), mk(tInt, "COUNT(%s)", g.col("b.", "id"))}
		s.outs[1].agg, s.outs[2].agg = "SUM", "SUM"
		if g.p(50) {
			s.group = []ex{g.col("a.", pick(g, []string{"k", "s"}))}
			s.outs = append(s.group, s.outs...)
		}
	}
	return g.finish(s)
}

// defaultMutations and defaultViewQueries size the default run's write
// path and view phases (about 20 s on 3 backends, see doc.go).
const (
	defaultMutations   = 30
	defaultViewQueries = 150
)

// mutationTexts are the default run's mutation and view texts (for
// TestFunctionTable).
func mutationTexts(seed int64) []string {
	var out []string
	for _, ms := range Mutations(seed, defaultMutations) {
		for _, st := range ms.steps {
			out = append(out, st.st.d)
			for _, c := range st.checks {
				out = append(out, c.Doris)
			}
		}
	}
	return append(out, viewTexts(seed, defaultViewQueries)...)
}

// script renders the dorisgo statements of ms up to step k, for a repro.
func (ms mutSeq) script(k int) string {
	var b strings.Builder
	for _, s := range ms.setup {
		b.WriteString(s.d + ";\n")
	}
	for _, st := range ms.steps[:k+1] {
		b.WriteString(st.st.d + ";\n")
	}
	return b.String()
}
