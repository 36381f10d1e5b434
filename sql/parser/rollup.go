package parser

import (
	"slices"
	"strings"
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
		case toks[i].is("GROUPING") && toks[i+1].is("SETS") && i+2 < len(toks) && toks[i+2].isP("("):
			name := "GROUPING_SETS"
			copy(b[toks[i].pos:toks[i+1].end], name+strings.Repeat(" ", toks[i+1].end-toks[i].pos-len(name)))
			ins = append(ins, emptySets(toks, i+2)...)
		}
	}
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
}

// inCast reports whether the AS at toks[i] is CAST's: the nearest
// unclosed "(" before it follows CAST.
func inCast(toks []token, i int) bool {
	depth := 0
	for j := i - 1; j > 0; j-- {
		switch {
		case toks[j].isP(")"):
			depth++
		case toks[j].isP("("):
			if depth == 0 {
				return toks[j-1].is("CAST")
			}
			depth--
		}
	}
	return false
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
