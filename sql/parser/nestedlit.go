package parser

import (
	"strings"
)

// Doris's nested-type syntax that vitess does not parse, rewritten (in
// rewriteRollup's pass, so error offsets map back) into calls it does:
//
//	[1, 2, 3]              → array(1, 2, 3)
//	{'a': 1, 'b': 2}       → map('a', 1, 'b', 2)
//	a[1], m['k'], f(x)[2]  → element_at(a, 1) …
//	CAST(x AS ARRAY<INT>)  → `__cast_nested`(x, 'ARRAY<INT>')
//
// A '[' is a subscript when it follows what ends an operand (a name, a
// ')' or a ']'), otherwise it opens an array literal.

// CastNestedFn is the call a CAST to ARRAY/MAP/STRUCT becomes.
const CastNestedFn = "__cast_nested"

// operandKeywords are words after which '[' or '{' starts a literal.
var operandKeywords = map[string]bool{
	"SELECT": true, "WHERE": true, "AND": true, "OR": true, "NOT": true, "WHEN": true, "THEN": true,
	"ELSE": true, "ON": true, "BY": true, "HAVING": true, "VALUES": true, "VALUE": true, "SET": true, "IN": true,
	"IS": true, "LIKE": true, "DISTINCT": true, "ALL": true, "ANY": true, "CASE": true, "RETURN": true,
	"XOR": true, "DIV": true, "MOD": true, "BETWEEN": true, "REGEXP": true, "RLIKE": true, "INTERVAL": true,
	"LIMIT": true, "DEFAULT": true, "AS": false,
}

func endsOperand(t token) bool {
	switch t.kind {
	case tkQuotedIdent:
		return true
	case tkIdent:
		return !operandKeywords[t.upper()]
	case tkPunct:
		return t.val == ")" || t.val == "]" || t.val == "}"
	}
	return false
}

// matching finds the token closing toks[open] (open/close punctuation).
func matching(toks []token, open int, o, c string) int {
	depth := 0
	for j := open; j < len(toks); j++ {
		switch {
		case toks[j].isP(o):
			depth++
		case toks[j].isP(c):
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// matchingBack finds the token opening the closer at toks[close].
func matchingBack(toks []token, close int, o, c string) int {
	depth := 0
	for j := close; j >= 0; j-- {
		switch {
		case toks[j].isP(c):
			depth++
		case toks[j].isP(o):
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// operandStart is the first token of the postfix operand ending at toks[j].
func operandStart(toks []token, j int) int {
	for j >= 0 {
		t := toks[j]
		switch {
		case t.isP("]"):
			k := matchingBack(toks, j, "[", "]")
			if k <= 0 {
				return max(k, 0)
			}
			if !endsOperand(toks[k-1]) {
				return k // an array literal, itself subscripted
			}
			j = k - 1
			continue
		case t.isP("}"):
			return max(matchingBack(toks, j, "{", "}"), 0)
		case t.isP(")"):
			k := matchingBack(toks, j, "(", ")")
			if k < 0 {
				return 0
			}
			if k > 0 && (toks[k-1].kind == tkIdent || toks[k-1].kind == tkQuotedIdent) && !operandKeywords[toks[k-1].upper()] {
				k--
			}
			return qualifierStart(toks, k)
		}
		return qualifierStart(toks, j)
	}
	return 0
}

// qualifierStart extends a name at toks[j] over "db.t." qualifiers.
func qualifierStart(toks []token, j int) int {
	for j >= 2 && toks[j-1].isP(".") && (toks[j-2].kind == tkIdent || toks[j-2].kind == tkQuotedIdent) {
		j -= 2
	}
	return j
}

// nestedRewrites overwrites b (same length) and returns the insertions.
func nestedRewrites(toks []token, b []byte) []insertion {
	var ins []insertion
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.isP("["):
			cl := matching(toks, i, "[", "]")
			if cl < 0 {
				continue
			}
			if i > 0 && endsOperand(toks[i-1]) {
				start := operandStart(toks, i-1)
				// Before any insertion at the same offset: it wraps them.
				ins = append([]insertion{{toks[start].pos, "element_at("}}, ins...)
				b[t.pos], b[toks[cl].pos] = ',', ')'
			} else {
				ins = append(ins, insertion{t.pos, "array"})
				b[t.pos], b[toks[cl].pos] = '(', ')'
			}
		case t.isP("{") && !(i > 0 && endsOperand(toks[i-1])) && i+1 < len(toks) &&
			(toks[i+1].isP("}") || (i+2 < len(toks) && toks[i+1].kind != tkIdent && toks[i+2].isP(":"))):
			cl := matching(toks, i, "{", "}")
			if cl < 0 {
				continue
			}
			ins = append(ins, insertion{t.pos, "map"})
			b[t.pos], b[toks[cl].pos] = '(', ')'
			depth := 0
			for j := i + 1; j < cl; j++ {
				switch {
				case toks[j].isP("(") || toks[j].isP("[") || toks[j].isP("{"):
					depth++
				case toks[j].isP(")") || toks[j].isP("]") || toks[j].isP("}"):
					depth--
				case depth == 0 && toks[j].isP(":"):
					b[toks[j].pos] = ','
				}
			}
		case t.is("AS") && i+2 < len(toks) && toks[i+2].isP("<") && isNestedName(toks[i+1].upper()) && inCast(toks, i):
			// The type runs to its matching '>' ('>>' closes two).
			depth, end := 0, -1
			for j := i + 2; j < len(toks) && end < 0; j++ {
				switch {
				case toks[j].isP("<"):
					depth++
				case toks[j].isP(">"):
					depth--
				case toks[j].isP(">>"):
					depth -= 2
				}
				if depth <= 0 {
					end = j
				}
			}
			if end < 0 || depth < 0 {
				continue
			}
			c := castStart(toks, i)
			blank(b, toks[c].pos, toks[c].end)
			ins = append(ins, insertion{toks[c].pos, "`" + CastNestedFn + "`"})
			typ := strings.Join(strings.Fields(string(b[toks[i+1].pos:toks[end].end])), " ")
			blank(b, t.pos, toks[end].end)
			ins = append(ins, insertion{t.pos, ", '" + typ + "'"})
			i = end
		}
	}
	return ins
}

func isNestedName(u string) bool { return u == "ARRAY" || u == "MAP" || u == "STRUCT" }

func blank(b []byte, from, to int) {
	for k := from; k < to; k++ {
		b[k] = ' '
	}
}

// lateralView reports Doris's LATERAL VIEW clause, which dorisgo does not
// run (vitess would call it a syntax error).
func lateralView(toks []token) bool {
	sig := significant(toks)
	for i := 0; i+1 < len(sig); i++ {
		if sig[i].is("LATERAL") && sig[i+1].is("VIEW") {
			return true
		}
	}
	return false
}
