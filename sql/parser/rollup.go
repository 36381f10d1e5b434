package parser

import (
	"slices"
	"strings"

	"github.com/dorisgo/dorisgo/sql/types"
)

// The same pass rewrites Doris's CAST target types (castTypes) and ORDER BY
// items' NULLS FIRST / NULLS LAST (NullsFirstFn, NullsLastFn).
//
// vitess rejects MySQL's "GROUP BY a, b WITH ROLLUP" and Doris's
// "GROUP BY CUBE(a, b)" and "GROUP BY GROUPING SETS ((a, b), ())", but it
// parses a generic function call, so the text is rewritten into calls the
// binder recognises:
//
//	GROUP BY a, b WITH ROLLUP         → GROUP BY ROLLUP(a, b)          (WITH ROLLUP overwritten by ")")
//	GROUP BY CUBE(a, b)               → GROUP BY `CUBE`(a, b)
//	GROUP BY GROUPING SETS ((a), ())  → GROUP BY GROUPING_SETS((a), (NULL))
//
// Overwrites keep the length; insertions are recorded so error offsets can
// be mapped back to the user's text. An empty set "()" becomes "(NULL)":
// grouping by a constant NULL groups exactly like grouping by nothing.

// insertion is text inserted before offset at of the original text.
type insertion struct {
	at   int
	text string
}

// rewriteRollup returns s with every grouping extension rewritten and the
// insertions made, ascending by offset.
func rewriteRollup(s string) (string, []insertion) {
	toks := significant(lex(s))
	var ins []insertion
	b := []byte(s)
	nested := nestedRewrites(toks, b) // after the others at one offset: innermost
	for i := 0; i+1 < len(toks); i++ {
		switch {
		case toks[i].is("WITH") && toks[i+1].is("ROLLUP"):
			if at, ok := groupByStart(toks, i); ok {
				ins = append(ins, insertion{at, "ROLLUP("})
				for k := toks[i].pos; k < toks[i+1].end; k++ {
					b[k] = ' '
				}
				b[toks[i].pos] = ')'
			}
		case toks[i].is("CUBE") && toks[i+1].isP("(") && i > 0 && (toks[i-1].isP(",") || toks[i-1].is("BY")):
			ins = append(ins, insertion{toks[i].pos, "`"}, insertion{toks[i].end, "`"})
		case toks[i].is("AS") && castIntFns[toks[i+1].upper()] != "" && inCast(toks, i) &&
			(i+2 >= len(toks) || toks[i+2].isP(")")):
			// CAST(x AS TINYINT / SMALLINT / INT / LARGEINT): vitess knows
			// only SIGNED (BIGINT), so the cast becomes a call of the
			// function that names its type (CastFnType):
			// CAST(x AS INT) → `__cast_int`(x      ).
			c := castStart(toks, i)
			for k := toks[c].pos; k < toks[c].end; k++ {
				b[k] = ' '
			}
			ins = append(ins, insertion{toks[c].pos, "`" + castIntFns[toks[i+1].upper()] + "`"})
			for k := toks[i].pos; k < toks[i+1].end; k++ {
				b[k] = ' '
			}
		case toks[i].is("AS") && castTypes[toks[i+1].upper()] != "" && inCast(toks, i):
			// Doris's CAST(x AS BIGINT / INT / VARCHAR(n) / STRING …) in
			// the MySQL spelling vitess knows: SIGNED or CHAR.
			t := toks[i+1]
			to := castTypes[t.upper()]
			n := t.end - t.pos
			if len(to) <= n {
				copy(b[t.pos:t.end], to+strings.Repeat(" ", n-len(to)))
			} else {
				copy(b[t.pos:t.end], to[:n])
				ins = append(ins, insertion{t.end, to[n:]})
			}
		case toks[i].is("NULLS") && (toks[i+1].is("FIRST") || toks[i+1].is("LAST")):
			// ORDER BY e [ASC|DESC] NULLS FIRST → `__nulls_first`(e) [ASC|DESC]:
			// vitess has no NULLS clause; the binder unwraps the marker.
			if start, ok := orderItemStart(toks, i); ok {
				end := toks[i].pos
				if d := toks[i-1]; d.is("ASC") || d.is("DESC") {
					end = d.pos
				}
				fn := "`" + NullsFirstFn + "`("
				if toks[i+1].is("LAST") {
					fn = "`" + NullsLastFn + "`("
				}
				ins = append(ins, insertion{start, fn}, insertion{end, ")"})
				for k := toks[i].pos; k < toks[i+1].end; k++ {
					b[k] = ' '
				}
			}
		case (toks[i].is("FIRST_VALUE") || toks[i].is("LAST_VALUE")) && toks[i+1].isP("("):
			// Doris's first_value(x, ignore_null): vitess takes one
			// argument, so both go into a marker call the binder unwraps:
			// first_value(x, true) → first_value(`__ignore_nulls`(x, true)).
			if closeAt, comma := lastTopComma(toks, i+1); comma {
				ins = append(ins, insertion{toks[i+1].end, "`" + IgnoreNullsFn + "`("}, insertion{toks[closeAt].pos, ")"})
			}
		case toks[i].is("GROUPING") && toks[i+1].is("SETS") && i+2 < len(toks) && toks[i+2].isP("("):
			name := "GROUPING_SETS"
			copy(b[toks[i].pos:toks[i+1].end], name+strings.Repeat(" ", toks[i+1].end-toks[i].pos-len(name)))
			ins = append(ins, emptySets(toks, i+2)...)
		}
	}
	ins = append(ins, nested...)
	if len(ins) == 0 {
		return string(b), nil // GROUPING SETS without "()" only overwrites
	}
	slices.SortStableFunc(ins, func(x, y insertion) int { return x.at - y.at }) // an inner query's may come first
	var out strings.Builder
	prev := 0
	for _, in := range ins {
		out.Write(b[prev:in.at])
		out.WriteString(in.text)
		prev = in.at
	}
	out.Write(b[prev:])
	return out.String(), ins
}

// groupByStart finds the GROUP BY that WITH ROLLUP at toks[i] closes, at
// the same parenthesis level, and returns its first key's offset.
func groupByStart(toks []token, i int) (int, bool) {
	depth := 0
	for j := i - 1; j > 0; j-- {
		t := toks[j]
		if t.isP(")") {
			depth++
		} else if t.isP("(") {
			depth--
			if depth < 0 {
				return 0, false
			}
		} else if depth == 0 && t.is("ROLLUP") && toks[j-1].is("WITH") {
			return 0, false // a second WITH ROLLUP stays a syntax error
		} else if depth == 0 && t.is("BY") && toks[j-1].is("GROUP") {
			if j+1 == i {
				return 0, false
			}
			return toks[j+1].pos, true
		}
	}
	return 0, false
}

// emptySets returns the insertions turning each "()" directly inside the
// parenthesised list opened at toks[open] into "(NULL)".
func emptySets(toks []token, open int) []insertion {
	var out []insertion
	depth := 0
	for j := open; j < len(toks); j++ {
		switch {
		case toks[j].isP("("):
			depth++
			if depth == 2 && j+1 < len(toks) && toks[j+1].isP(")") {
				out = append(out, insertion{toks[j+1].pos, "NULL"})
			}
		case toks[j].isP(")"):
			depth--
			if depth == 0 {
				return out
			}
		}
	}
	return out
}

// mapBack converts an offset in the rewritten text to one in the original.
func mapBack(pos int, ins []insertion) int {
	shift := 0
	for _, in := range ins {
		at := in.at + shift
		if pos < at {
			break
		}
		if pos < at+len(in.text) {
			return in.at
		}
		shift += len(in.text)
	}
	return pos - shift
}

// castTypes maps Doris's CAST target types vitess does not parse to the
// MySQL ones with the same meaning here (the binder's SIGNED is BIGINT,
// CHAR is VARCHAR/STRING).
var castTypes = map[string]string{
	"BIGINT": "SIGNED", "INT": "SIGNED", "INTEGER": "SIGNED", "SMALLINT": "SIGNED", "TINYINT": "SIGNED",
	"VARCHAR": "CHAR", "STRING": "CHAR", "TEXT": "CHAR",
	"DATETIMEV2": "DATETIME", "DATEV2": "DATE", "JSONB": "JSON",
}

// castIntFns are the integer CAST targets that are not BIGINT, by the
// function the rewrite calls instead (see CastFnType).
var castIntFns = map[string]string{
	"TINYINT": "__cast_tinyint", "SMALLINT": "__cast_smallint", "INT": "__cast_int", "INTEGER": "__cast_int",
	"LARGEINT": "__cast_largeint", "BOOLEAN": "__cast_boolean", "BOOL": "__cast_boolean",
}

// CastFnType is the type a rewritten CAST call (castIntFns) converts to.
func CastFnType(fn string) (types.T, bool) {
	switch strings.ToLower(fn) {
	case "__cast_tinyint":
		return types.TinyIntT, true
	case "__cast_smallint":
		return types.SmallIntT, true
	case "__cast_int":
		return types.IntT, true
	case "__cast_largeint":
		return types.LargeIntT, true
	case "__cast_boolean":
		return types.BoolT, true
	}
	return types.T{}, false
}

// inCast reports whether the AS at toks[i] is CAST's: the nearest
// unclosed "(" before it follows CAST.
func inCast(toks []token, i int) bool {
	return castStart(toks, i) > 0
}

// castStart is the index of the CAST token whose AS is toks[i], or -1.
func castStart(toks []token, i int) int {
	depth := 0
	for j := i - 1; j > 0; j-- {
		switch {
		case toks[j].isP(")"):
			depth++
		case toks[j].isP("("):
			if depth == 0 {
				if toks[j-1].is("CAST") {
					return j - 1
				}
				return -1
			}
			depth--
		}
	}
	return -1
}

// IgnoreNullsFn wraps the two arguments of first_value/last_value(x,
// ignore_null) (the binder unwraps it).
const IgnoreNullsFn = "__ignore_nulls"

// lastTopComma finds the ")" closing the "(" at toks[open] and reports
// whether a "," stands directly inside (at its own level).
func lastTopComma(toks []token, open int) (closeAt int, comma bool) {
	depth := 0
	for j := open; j < len(toks); j++ {
		switch {
		case toks[j].isP("("):
			depth++
		case toks[j].isP(")"):
			depth--
			if depth == 0 {
				return j, comma
			}
		case depth == 1 && toks[j].isP(","):
			comma = true
		}
	}
	return -1, false
}

// NullsFirstFn and NullsLastFn wrap an ORDER BY expression written with
// NULLS FIRST / NULLS LAST (the binder unwraps them).
const (
	NullsFirstFn = "__nulls_first"
	NullsLastFn  = "__nulls_last"
)

// orderItemStart finds where the ORDER BY item ending before toks[i]
// starts: after the nearest "," or BY at the same parenthesis level.
func orderItemStart(toks []token, i int) (int, bool) {
	depth := 0
	for j := i - 1; j > 0; j-- {
		switch t := toks[j]; {
		case t.isP(")"):
			depth++
		case t.isP("("):
			if depth == 0 {
				return 0, false
			}
			depth--
		case depth == 0 && (t.isP(",") || t.is("BY")):
			if j+1 >= i {
				return 0, false
			}
			return toks[j+1].pos, true
		}
	}
	return 0, false
}

// RestoreCasts undoes the castIntFns rewrite in a select item's text (its
// column name): "`__cast_int`(x      )" is "CAST(x AS INT)" again.
func RestoreCasts(s string) string {
	const mark = "`__cast_"
	for {
		i := strings.Index(s, mark)
		if i < 0 {
			return s
		}
		j := strings.IndexByte(s[i+len(mark):], '`')
		if j < 0 {
			return s
		}
		typ := strings.ToUpper(s[i+len(mark) : i+len(mark)+j])
		open := i + len(mark) + j + 1
		for open < len(s) && s[open] == ' ' { // where CAST was
			open++
		}
		if open == len(s) || s[open] != '(' {
			return s
		}
		depth, end := 0, -1
		var quote byte
		for k := open; k < len(s) && end < 0; k++ {
			c := s[k]
			switch {
			case quote != 0:
				if c == quote {
					quote = 0
				}
			case c == '\'' || c == '"' || c == '`':
				quote = c
			case c == '(':
				depth++
			case c == ')':
				depth--
				if depth == 0 {
					end = k
				}
			}
		}
		if end < 0 {
			return s
		}
		inner := strings.TrimRight(s[open+1:end], " ")
		s = s[:i] + "CAST(" + inner + " AS " + typ + ")" + s[end+1:]
	}
}
