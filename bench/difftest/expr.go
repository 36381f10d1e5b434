package difftest

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// typ is the SQL type class of a generated expression.
type typ int

const (
	tInt typ = iota
	tBig
	tStr
	tDate
	tDec
	tDbl
	tBool
)

// colType gives the type of each table column.
var colType = map[string]typ{"id": tInt, "k": tInt, "b": tBig, "s": tStr, "d": tDate, "m": tDec, "f": tDbl, "v": tStr, "n": tDec}

// allCols are every table's columns; nullable those that hold NULLs.
var (
	allCols  = []string{"id", "k", "b", "s", "d", "m", "f", "v", "n"}
	nullable = []string{"k", "b", "s", "d", "m", "f", "v", "n"}
)

// ex is one expression rendered in both dialects. exact is false when the
// engines may compute it with different rounding (AVG, division, DuckDB's
// doubles against MySQL's decimals), so it must not decide an order or an
// equality.
// agg is set on aggregates: how TLP re-aggregates the parts' values (SUM,
// MIN, MAX; "-": it cannot, e.g. AVG, COUNT DISTINCT).
type ex struct {
	d, q  string // dorisgo (MySQL dialect), DuckDB
	t     typ
	exact bool
	agg   string
}

func lit(s string, t typ) ex { return ex{d: s, q: s, t: t, exact: true} }

// mk fills format's %s verbs with the arguments' texts, per dialect.
func mk(t typ, format string, args ...ex) ex {
	return mk2(t, format, format, args...)
}

// mk2 is mk with a different format per dialect.
func mk2(t typ, fd, fq string, args ...ex) ex {
	da, qa := make([]any, len(args)), make([]any, len(args))
	exact := true
	for i, a := range args {
		da[i], qa[i] = a.d, a.q
		exact = exact && a.exact
	}
	return ex{d: fmt.Sprintf(fd, da...), q: fmt.Sprintf(fq, qa...), t: t, exact: exact}
}

func inexact(e ex) ex {
	e.exact = false
	return e
}

// gen draws expressions and queries from one seeded source.
type gen struct {
	r      *rand.Rand
	fnNext int // funcQuery's next case of scalarFns, predFns and aggFns, in turn
}

func (g *gen) n(k int) int         { return g.r.IntN(k) }
func (g *gen) p(pct int) bool      { return g.r.IntN(100) < pct }
func pick[T any](g *gen, xs []T) T { return xs[g.r.IntN(len(xs))] }
func (g *gen) col(al, c string) ex { return lit(al+c, colType[c]) }
func (g *gen) anyCol(al string) ex {
	return g.col(al, pick(g, allCols))
}
func (g *gen) nullCol(al string) ex   { return g.col(al, pick(g, nullable)) }
func (g *gen) intConst(lo, hi int) ex { return lit(strconv.Itoa(lo+g.n(hi-lo+1)), tInt) }

// constant draws a literal of type t from the data's domains.
func (g *gen) constant(t typ) ex {
	switch t {
	case tInt:
		return g.intConst(-6, 40)
	case tBig:
		return lit(strconv.FormatInt(10000000000+int64(g.n(60))-10, 10), tBig)
	case tStr:
		return lit("'"+pick(g, words)+"'", tStr)
	case tDate:
		return lit("'"+day0.AddDate(0, 0, g.n(800)).Format("2006-01-02")+"'", tDate)
	case tDec:
		if g.p(20) {
			return lit(strconv.Itoa(g.n(40)-5), tInt)
		}
		return lit(cents(g.n(4000)-1500), tDec)
	case tDbl:
		if g.p(10) {
			return lit(pick(g, []string{"0", "-0.0", "12.5"}), tDbl)
		}
		return lit(strconv.FormatFloat(float64(g.n(1600)-800)/8, 'f', -1, 64), tDbl)
	}
	return lit("1", tInt)
}

// value draws an expression of type t over the columns of alias al
// ("a." or ""); depth bounds the nesting.
func (g *gen) value(t typ, al string, depth int) ex {
	if depth <= 0 || g.p(35) {
		switch t {
		case tInt:
			return g.col(al, pick(g, []string{"id", "k"}))
		case tBig:
			return g.col(al, "b")
		case tStr:
			return g.col(al, pick(g, []string{"s", "s", "v"}))
		case tDate:
			return g.col(al, "d")
		case tDec:
			return g.col(al, pick(g, []string{"m", "m", "n"}))
		case tDbl:
			return g.col(al, "f")
		case tBool:
			return g.pred(al, 0)
		}
	}
	d := depth - 1
	// a function call of funcs.go's table now and then.
	if t != tBool && g.p(14) {
		if e, ok := g.scalarCall(t, al, d); ok {
			return e
		}
	}
	sub := func(t typ) ex { return g.value(t, al, d) }
	switch t {
	case tInt:
		switch g.n(10) {
		case 0:
			return mk(tInt, "(%s + %s)", sub(tInt), g.intConst(-5, 9))
		case 1:
			return mk(tInt, "(%s * %s)", g.col(al, "k"), g.intConst(-3, 4))
		case 2:
			return mk(tInt, "(%s %% %s)", sub(tInt), g.intConst(2, 7))
		case 3:
			return mk(tInt, "ABS(%s - %s)", sub(tInt), g.intConst(0, 20))
		case 4:
			return mk(tInt, "COALESCE(%s, %s)", sub(tInt), g.intConst(-1, 3))
		case 5:
			return mk(tInt, "LENGTH(%s)", sub(tStr))
		case 6:
			return mk(tInt, pick(g, []string{"YEAR(%s)", "MONTH(%s)", "DAY(%s)", "QUARTER(%s)"}), g.col(al, "d"))
		case 7:
			return mk(tInt, "CASE WHEN %s THEN %s ELSE %s END", g.pred(al, 1), sub(tInt), sub(tInt))
		case 8:
			return mk2(tInt, "DATEDIFF(%s, '2023-06-30')", "datediff('day', DATE '2023-06-30', %s)", g.col(al, "d"))
		default:
			return mk(tInt, "NULLIF(%s, %s)", sub(tInt), g.intConst(0, 10))
		}
	case tBig:
		switch g.n(4) {
		case 0:
			return mk(tBig, "(%s + %s)", g.col(al, "b"), sub(tInt))
		case 1:
			return mk(tBig, "(%s - %s)", g.col(al, "b"), g.intConst(0, 100))
		case 2:
			return mk(tBig, "CAST(%s AS BIGINT)", sub(tInt)) // Doris spelling; MySQL's SIGNED works too
		default:
			return mk(tBig, "COALESCE(%s, %s)", g.col(al, "b"), g.constant(tBig))
		}
	case tStr:
		switch g.n(12) {
		case 0:
			return mk(tStr, "UPPER(%s)", sub(tStr))
		case 1:
			return mk(tStr, "LOWER(UPPER(%s))", sub(tStr))
		case 2:
			return mk(tStr, "SUBSTRING(%s, %s, %s)", sub(tStr), g.intConst(1, 3), g.intConst(1, 3))
		case 3:
			// MySQL's CONCAT is NULL if any argument is; DuckDB's concat
			// skips NULLs, its || does not.
			return mk2(tStr, "CONCAT(%s, '-', %s)", "(%s || '-' || %s)", sub(tStr), sub(tStr))
		case 4:
			return mk(tStr, "REPLACE(%s, 'a', 'xy')", sub(tStr))
		case 5:
			return mk(tStr, "CAST(%s AS VARCHAR)", sub(pick(g, []typ{tInt, tBig, tDate})))
		case 6:
			return mk(tStr, "COALESCE(%s, 'none')", sub(tStr))
		case 7:
			return mk(tStr, pick(g, []string{"LEFT(%s, 2)", "RIGHT(%s, 2)", "REVERSE(%s)", "TRIM(%s)", "LPAD(%s, 5, '*')"}), sub(tStr))
		case 8:
			return mk(tStr, "CASE WHEN %s THEN %s ELSE %s END", g.pred(al, 1), sub(tStr), g.constant(tStr))
		default:
			return g.col(al, "s")
		}
	case tDate:
		switch g.n(4) {
		case 0:
			// DuckDB does not parse INTERVAL -n DAY.
			return mk(tDate, "(%s "+pick(g, []string{"+", "-"})+" INTERVAL %s DAY)", g.col(al, "d"), g.intConst(0, 40))
		case 1:
			return mk(tDate, "(%s - INTERVAL %s MONTH)", g.col(al, "d"), g.intConst(0, 13))
		case 2:
			return mk(tDate, "LAST_DAY(%s)", g.col(al, "d"))
		default:
			return g.col(al, "d")
		}
	case tDec:
		switch g.n(6) {
		case 0:
			return mk(tDec, "(%s * %s)", sub(tDec), g.intConst(-2, 3))
		case 1:
			return mk(tDec, "(%s + %s)", sub(tDec), g.constant(tDec))
		case 2:
			return mk(tDec, "(%s - %s)", g.col(al, "m"), sub(tInt))
		case 3:
			return mk(tDec, "ABS(%s)", sub(tDec))
		case 4:
			return mk(tDec, "COALESCE(%s, 0)", sub(tDec))
		default:
			return mk(tDec, "CAST(%s AS DECIMAL(18,2))", sub(pick(g, []typ{tInt, tDec})))
		}
	case tDbl:
		switch g.n(6) {
		case 5:
			// -f is -0.0 where f is 0: equal to 0.0 in comparisons and groups.
			return mk(tDbl, pick(g, []string{"(-%s)", "(%s * -1)"}), g.col(al, "f"))
		case 0:
			return mk(tDbl, "(%s * 2)", sub(tDbl))
		case 1:
			return mk(tDbl, "(%s + %s)", sub(tDbl), g.constant(tDbl))
		case 2:
			return mk(tDbl, "CAST(%s AS DOUBLE)", g.col(al, "m"))
		case 3:
			// MySQL divides into a DECIMAL, DuckDB into a DOUBLE.
			return inexact(mk(tDbl, "(%s / %s)", sub(pick(g, []typ{tInt, tDec, tDbl})), g.intConst(3, 7)))
		default:
			return mk(tDbl, "ABS(%s)", g.col(al, "f"))
		}
	case tBool:
		return g.pred(al, depth)
	}
	return g.col(al, "id")
}

// cmpType is a type a predicate may compare exactly.
func (g *gen) cmpType() typ { return pick(g, []typ{tInt, tInt, tBig, tStr, tDate, tDec, tDbl}) }

// pred draws a boolean condition over alias al.
func (g *gen) pred(al string, depth int) ex {
	if depth > 0 && g.p(30) {
		switch g.n(3) {
		case 0:
			return mk(tBool, "(%s AND %s)", g.pred(al, depth-1), g.pred(al, depth-1))
		case 1:
			return mk(tBool, "(%s OR %s)", g.pred(al, depth-1), g.pred(al, depth-1))
		default:
			return mk(tBool, "NOT (%s)", g.pred(al, depth-1))
		}
	}
	if depth > 0 && g.p(8) {
		// a boolean function of funcs.go's table.
		var cs []fnCase
		for _, c := range scalarFns {
			if c.ret == tBool {
				cs = append(cs, c)
			}
		}
		return g.call(pick(g, append(cs, predFns...)), al, depth-1)
	}
	t := g.cmpType()
	x := g.value(t, al, min(depth, 1))
	for !x.exact {
		x = g.value(t, al, 0)
	}
	switch g.n(8) {
	case 0:
		return mk(tBool, "%s IS NULL", g.nullCol(al))
	case 1:
		return mk(tBool, "%s IS NOT NULL", g.nullCol(al))
	case 2, 3:
		var list []string
		for i := 0; i < 1+g.n(4); i++ {
			list = append(list, g.constant(t).d)
		}
		if g.p(15) {
			list = append(list, "NULL")
		}
		not := ""
		if g.p(40) {
			not = "NOT "
		}
		return mk(tBool, "%s "+not+"IN ("+strings.Join(list, ", ")+")", x)
	case 4:
		lo, hi := g.constant(t), g.constant(t)
		return mk(tBool, "%s BETWEEN %s AND %s", x, lo, hi)
	case 5:
		pat := pick(g, []string{"a%", "%b", "%a%", "_b%", "x_", "%", "ab", "c%b"})
		not := ""
		if g.p(30) {
			not = "NOT "
		}
		return mk(tBool, "%s "+not+"LIKE '"+strings.ReplaceAll(pat, "%", "%%")+"'", g.col(al, "s"))
	case 6:
		if t == tInt {
			return mk(tBool, "%s "+g.op()+" %s", g.col(al, "k"), g.col(al, "id"))
		}
		// two columns of different types (the data's values overlap).
		p := pick(g, mixedPairs)
		return mk(tBool, "%s "+g.op()+" %s", g.col(al, p[0]), g.col(al, p[1]))
	default:
		return mk(tBool, "%s "+g.op()+" %s", x, g.constant(t))
	}
}

// mixedPairs are columns of different types whose values overlap: INT =
// BIGINT, INT = DOUBLE, INT = DECIMAL, DECIMAL = DOUBLE, VARCHAR(16) =
// VARCHAR(40), DECIMAL(12,2) = DECIMAL(18,4), BIGINT = DOUBLE.
var mixedPairs = [][2]string{{"k", "b"}, {"k", "f"}, {"k", "m"}, {"m", "f"}, {"s", "v"}, {"m", "n"}, {"b", "f"}}

func (g *gen) op() string { return pick(g, []string{"=", "<>", "<", "<=", ">", ">="}) }
